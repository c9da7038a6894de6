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
    assert "agent-z" in rows                     # matched ignoring case; 31 read as 31%
    assert check.percent_assumed                 # the plain 31, beside scores in [0, 1]
    assert rows["agent-z"].published == pytest.approx(0.31)
    flags = [f for f in result.analysis.flags if f.kind == "published_outside"]
    assert [f.teams for f in flags] == [("agent-x",)] + (
        [("agent-z",)] if rows["agent-z"].outside else [])
    assert "52.8%" in flags[0].message


def test_names_not_matched_are_listed_both_ways(checked):
    check = checked[0].analysis.published
    assert check.not_in_data == ("ghost",) and check.not_published == ()
    assert checked[0].published["outside"].tolist() == [r.outside for r in check.rows]
    data = json.loads(checked[0].to_json())
    from tests.pipelines.test_item_costs import _schema_errors

    assert _schema_errors(data) == []
    assert data["published"]["outside"][0] == "agent-x"
    assert data["published"]["not_in_data"] == ["ghost"]
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
    ("model,published\na,1\na,2\n", "given twice"),
    ("model,published\na,high\n", "'high' is not a number"),
    ("model,published\n,0.5\n", "without a model name"),
    ("name,other,more\na,1,2\n", "give two columns"),
    ("model,published\n", "no data rows"),
])
def test_bad_published_files_are_one_line_errors(tmp_path, text, words):
    path = tmp_path / "pub.csv"
    path.write_text(text)
    with pytest.raises(InputError, match=words) as err:
        read_published(path)
    assert str(path) in str(err.value) and "\n" not in str(err.value)


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
