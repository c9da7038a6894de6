"""--published (issue 26 item 7): published scores outside the interval of the model's own
per-item data are flagged; names matching no model are listed both ways; a bad file is a
one-line error, exit 2."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import leaderboard
from leaderboard.cli import main
from leaderboard.errors import InputError
from leaderboard.ingest.published import read_published


def _items() -> pd.DataFrame:
    rng = np.random.default_rng(2)
    n = 500
    rates = {"agent-x": 0.102, "agent-y": 0.45, "agent-z": 0.30}
    return pd.concat([pd.DataFrame({"model": m, "item": [f"i{k}" for k in range(n)],
                                    "value": (rng.random(n) < p).astype(int)})
                      for m, p in rates.items()], ignore_index=True)


@pytest.fixture(scope="module")
def checked():
    items = _items()
    measured = items.groupby("model")["value"].mean()
    published = pd.DataFrame({
        "model": ["agent-x", "agent-y", "Agent-Z", "ghost"],
        "published": ["52.8%", f"{100 * measured['agent-y']:.1f}%", "31", "40%"]})
    return leaderboard.analyze_items(items, published=published, replicates=300), measured


def test_a_published_score_far_outside_its_interval_is_flagged(checked):
    result, measured = checked
    check = result.analysis.published
    rows = {r.model: r for r in check.rows}
    assert rows["agent-x"].outside and rows["agent-x"].published == pytest.approx(0.528)
    assert rows["agent-x"].measured == pytest.approx(measured["agent-x"])
    assert not rows["agent-y"].outside           # its own score, rounded to 0.1%
    # issue 43: never matched ignoring case (two spellings landed on one model), said instead
    assert "agent-z" not in rows and "Agent-Z" not in rows
    flags = [f for f in result.analysis.flags if f.kind == "published_outside"]
    assert [f.teams for f in flags] == [("agent-x",)]
    assert "52.8%" in flags[0].message


def test_names_not_matched_are_listed_both_ways(checked):
    check = checked[0].analysis.published
    assert check.not_in_data == ("Agent-Z (not matched: equals model agent-z ignoring case)",
                                 "ghost")   # in the file's order
    assert check.not_published == ("agent-z",)
    assert checked[0].published["outside"].tolist() == [r.outside for r in check.rows]
    data = json.loads(checked[0].to_json())
    from tests.pipelines.test_item_costs import _schema_errors

    assert _schema_errors(data) == []
    assert data["published"]["outside"][0] == "agent-x"
    assert data["published"]["not_in_data"] == list(check.not_in_data)
    assert any(f["kind"] == "published_unmatched" for f in data["flags"])


def test_plain_percentages_are_read_as_percent():
    items = _items()
    published = pd.DataFrame({"model": ["agent-x", "agent-y"], "published": [52.8, 45]})
    check = leaderboard.analyze_items(items, published=published,
                                      replicates=200).analysis.published
    assert check.percent_assumed and check.rows[0].published == pytest.approx(0.528)
    assert check.not_published == ("agent-z",)


def test_rounding_is_allowed_at_the_interval_edge():
    """A published number equal to the interval's end once rounded is not called outside."""
    from leaderboard.ingest.published import Published
    from leaderboard.pipelines.published import check_published

    table = pd.DataFrame({"team": ["a"], "score": [0.40], "ci_low": [0.354], "ci_high": [0.45]})
    edge = Published("p", ("a",), np.array([0.355]), np.array([False]), (2,), np.array([0.0005]))
    beyond = Published("p", ("a",), np.array([0.35]), np.array([False]), (2,), np.array([0.005]))
    far = Published("p", ("a",), np.array([0.30]), np.array([False]), (2,), np.array([0.005]))
    assert not check_published(edge, table, {}, 0.05).rows[0].outside
    assert not check_published(beyond, table, {}, 0.05).rows[0].outside   # 0.35 +- 0.005
    assert check_published(far, table, {}, 0.05).rows[0].outside


@pytest.mark.parametrize("text, words", [
    ("model,published\na,1\na,2\n", "given 2 times with different published scores"),
    ("model,published\na,high\n", "'high' of model a is not a number"),
    ("model,published\n,0.5\n", "no published score with a model name"),
    ("name,other,more\na,1,2\n", "several columns hold numbers"),
    ("name,other,more\na,x,y\n", "give two columns"),
    ("model,published\n", "no data rows"),
    ('{"boards": [{"name": "A", "rows": [{"model": "a", "score": 1}]}, '
     '{"name": "B", "rows": [{"model": "a", "score": 2}]}]}', "holds 2 boards .*'A', 'B'"),
])
def test_bad_published_files_are_one_line_errors(tmp_path, text, words):
    path = tmp_path / "pub.csv"
    path.write_text(text)
    with pytest.raises(InputError, match=words) as err:
        read_published(path, known={"a"})
    assert str(path) in str(err.value) and "\n" not in str(err.value)


def test_what_a_check_cannot_use_is_read_as_published_and_accounted_for(tmp_path):
    """Only a clash on a model of the data is refused; repeated names, names absent from the
    data (even with a score that is not a number) and rows without a name are counted."""
    path = tmp_path / "pub.csv"
    path.write_text("model,published\na,0.5\na,0.5\nghost,1\nghost,2\nother,n/a\n,0.3\n")
    pub = read_published(path, known={"a", "b"})
    assert pub.models == ("a", "ghost", "other") and pub.rows == 7 - 1
    assert pub.repeated == (("a", 2), ("ghost", 2)) and pub.skipped == (7,)
    assert np.isnan(pub.values[2]) and pub.values[0] == 0.5


def test_bad_published_file_exits_2_at_the_command_line(tmp_path, capsys):
    items, pub = tmp_path / "r.csv", tmp_path / "pub.csv"
    _items().to_csv(items, index=False)
    pub.write_text("model,published\nagent-x,lots\n")
    assert main(["analyze", "--items", str(items), "--published", str(pub), "--quiet",
                 "-o", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err.strip()
    assert "pub.csv:2" in err and len(err.splitlines()) == 1


def test_published_flags_reach_stderr_and_the_page(tmp_path, capsys):
    items, pub = tmp_path / "r.csv", tmp_path / "pub.csv"
    _items().to_csv(items, index=False)
    pub.write_text("model,published\nagent-x,52.8%\n")
    assert main(["analyze", "--items", str(items), "--published", str(pub), "--replicates",
                 "200", "-o", str(tmp_path / "r.html")]) == 0
    err = capsys.readouterr().err
    assert "agent-x: published 52.8%" in err
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "Published scores against the per-item data" in page


def test_the_api_checks_its_parameters_through_the_table():
    with pytest.raises(InputError, match="published= must be a path or a pandas DataFrame"):
        leaderboard.analyze_items(_items(), published=42)
    with pytest.raises(InputError, match="cost_col= must be a string"):
        leaderboard.analyze_items(_items(), cost_col=3)


def test_a_published_model_that_was_rejected_says_why():
    items = _items().astype({"value": float})
    items.loc[(items["model"] == "agent-z") & (items["item"] == "i7"), "value"] = 1e300
    published = pd.DataFrame({"model": ["agent-z", "agent-y"], "published": ["30%", "45%"]})
    check = leaderboard.analyze_items(items, published=published,
                                      replicates=100).analysis.published
    assert len(check.not_in_data) == 1
    assert check.not_in_data[0].startswith("agent-z (not analysed: value '1e+300' on line")
    assert check.not_published == ("agent-x",)


def _swebench_verified(tmp_path):
    """A look-alike of SWE-bench's experiments folder and its published leaderboards.json
    (issue 40): system folders named by date and system, per_instance_details.json each; the
    published file holds three boards, Verified the one whose folders name these systems, with
    display names that repeat ('Warp' twice, 'devlo' three times) on rows absent from the data,
    and one entry published far above its own per-instance data (52.8% against about 10%)."""
    rng = np.random.default_rng(40)
    ids = [f"django__django-{1000 + k}" for k in range(120)]
    rates = {"20240620_sweagent_x": 0.102, "20241022_agent_y": 0.45, "20250101_agent_z": 0.30,
             "20250301_agent_w": 0.60}
    root = tmp_path / "verified"
    for system, rate in rates.items():
        (root / system).mkdir(parents=True)
        (root / system / "per_instance_details.json").write_text(json.dumps(
            {i: {"resolved": bool(rng.random() < rate)} for i in ids}))
    measured = {s: 100 * np.mean([json.loads((root / s / "per_instance_details.json")
                                             .read_text())[i]["resolved"] for i in ids])
                for s in rates}

    def row(name, folder, resolved):
        return {"name": name, "folder": folder, "resolved": resolved, "date": "2025-01-01",
                "logo": ["https://x"], "os_model": False, "tags": ["Org: X"], "warning": None}

    verified = [row("SWE-agent X", "20240620_sweagent_x", 52.8),
                row("Agent Y", "20241022_agent_y", round(measured["20241022_agent_y"], 1)),
                row("Agent Z", "20250101_agent_z", round(measured["20250101_agent_z"], 2)),
                row("Agent W", "20250301_agent_w", round(measured["20250301_agent_w"], 2)),
                row("Warp", "20250601_warp", 71.0), row("Warp", "20250701_warp", 75.6),
                *[row("devlo", f"2025080{k}_devlo", 70.2 + k) for k in range(3)],
                *[row(f"System {k}", f"2024_sys{k}", 20.0 + k) for k in range(8)]]
    boards = {"leaderboards": [
        {"name": "Test", "results": [row("Old", "20240101_old", 3.0)]},
        {"name": "Lite", "results": [row("SWE-agent X", "20240620_sweagent_x", 18.0)]},
        {"name": "Verified", "results": verified}]}
    published = tmp_path / "leaderboards.json"
    published.write_text(json.dumps(boards, indent=2))
    return root, published, len(verified)


def test_swebench_verified_as_published_runs_and_flags_the_contradicted_entry(tmp_path, capsys):
    root, published, rows = _swebench_verified(tmp_path)
    out = tmp_path / "r.json"
    assert main(["analyze", "--items", str(root), "--published", str(published),
                 "--replicates", "200", "-o", str(tmp_path / "r.html"), "--json", str(out)]) == 0
    err = capsys.readouterr().err
    assert "20240620_sweagent_x: published 52.8%" in err
    data = json.loads(out.read_text(encoding="utf-8"))
    from tests.pipelines.test_item_costs import _schema_errors

    assert _schema_errors(data) == []
    p = data["published"]
    assert p["outside"] == ["20240620_sweagent_x"] and len(p["models"]) == 4
    assert "Board 'Verified'" in p["read"] and "column 'folder'" in p["read"]
    assert "column 'resolved'" in p["read"] and "Warp" not in p["read"]   # folders never repeat
    assert len(p["not_in_data"]) == rows - 4 and p["rows_read"] == rows
    assert "unresolved" in p["measured_on"]
    # by display name (the column a reader may pick): repeated names counted, none refused
    out2 = tmp_path / "r2.json"
    assert main(["analyze", "--items", str(root), "--published", str(published),
                 "--published-model-col", "name", "--replicates", "200", "--quiet",
                 "-o", str(tmp_path / "r2.html"), "--json", str(out2)]) == 0
    p2 = json.loads(out2.read_text(encoding="utf-8"))["published"]
    assert "Warp 2 times" in p2["read"] and "devlo 3 times" in p2["read"]
    assert p2["models"] == [] and len(p2["not_in_data"]) == rows - 3   # 1 + 2 names merged
