"""Which charts each page and mode carries, from the command line's own pages: every chart a
valid Vega-Lite specification, the libraries inlined once, names only as escaped data, the same
bytes on every run, and the curves' numbers equal to scikit-learn's."""
from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

from tests.quick_args import quick
from leaderboard.cli import main
from chart_helpers import page_charts, validate

ANALYZE = {"chart-scores", "chart-noise-hist", "chart-noise-ecdf", "chart-board-hist",
           "chart-rank-intervals", "chart-rank-tau", "chart-rank-frequencies"}
SHAKEUP = {"chart-shakeup-scatter", "chart-shakeup-ranks", "chart-shakeup-noise"}
CURVES = {"chart-curves-roc", "chart-curves-pr", "chart-curves-cap", "chart-curves-cost"}
# These tests check which charts a page carries, their specifications and their data (point
# scores, names, curves), never the size of the noise: few draws and replicates do (issue 27).
QUICK = ["--draws", "200", "--replicates", "200"]


def _page(tmp_path, *args) -> str:
    out = tmp_path / "r.html"
    assert main(["analyze", *quick(args, *QUICK[1::2]), *args, "--quiet", "-o", str(out)]) == 0
    return out.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def submissions_page(example_outputs):
    """``_page(--example submissions)``: the session's run of it (tests/conftest.py)."""
    return example_outputs("submissions")["html"].read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def scores_page(example_outputs):
    return example_outputs("scores")["html"].read_text(encoding="utf-8")


def _check(html: str) -> dict[str, dict]:
    charts = page_charts(html)
    for chart in charts.values():
        validate(chart["spec"])
    assert html.count("window.vegaEmbed=") == 1                 # the libraries, once
    # with their notices (BSD-3-Clause asks redistributions to carry them), once, before them
    notices = html.find("/*!\nThe script below is the Vega JavaScript bundle")
    assert 0 < notices < html.find("window.vegaEmbed=")
    assert html.count("Third-party notices for the Vega") == 1 and "Trifacta Inc." in html
    assert "ISC licence (D3's modules" in html
    assert html.lower().count("</script") == html.count("<script")
    return charts


def test_scores_mode_charts(scores_page):
    charts = _check(scores_page)
    assert ANALYZE | SHAKEUP <= set(charts) and not CURVES & set(charts)
    # drawn by the page's script alone unless --static-charts asks (tests/report/test_static_charts.py)
    assert all(c["svg"] is None for c in charts.values()) and ' has-static"' not in scores_page
    assert "Scores of the top 40 entries with 95% intervals, coloured by tier: this chart is " \
           "drawn by JavaScript, which is off" in scores_page
    assert 'id="curves"' not in scores_page


def test_submissions_mode_charts_and_the_seeds_figures(submissions_page):
    charts = _check(submissions_page)
    assert ANALYZE | SHAKEUP | CURVES <= set(charts)
    sets = charts["chart-curves-roc"]["spec"]["datasets"]
    roc, teams = sets["curves"], [e["team"] for e in sets["entries"]]
    assert len(teams) == 20 and len(roc) == 20 * 101
    assert all(r["x"] in np.round(np.linspace(0, 1, 101), 2) for r in roc)
    banded = {teams[r["t"]] for r in roc if "lo" in r}
    assert banded == set(teams[:5])                              # bands for the top 5
    assert "R&D <lab>" in teams                                  # a name with markup, as data
    text = submissions_page[submissions_page.index('id="chart-curves-roc"'):]
    assert "R\\u0026D \\u003clab\\u003e" in text.split("</script>")[0]


def test_curves_equal_scikit_learn_on_the_example(submissions_page, tmp_path):
    """The leader's AUC on the page (its legend) is scikit-learn's on the ranking rows."""
    import subprocess
    import sys
    import zipfile

    from leaderboard.resources import data_dir

    subprocess.run([sys.executable, str(data_dir() / "make_submissions_example.py"),
                    str(tmp_path)], check=True, capture_output=True)
    lead = page_charts(submissions_page)["chart-curves-roc"]["spec"]["datasets"]["entries"][0]
    solution = pd.read_csv(tmp_path / "example_solution.csv")
    private = solution[solution["Usage"] == "Private"]
    with zipfile.ZipFile(tmp_path / "example_submissions.zip") as z:
        member, = [m for m in z.namelist() if m.rsplit("/", 1)[-1] == f"{lead['team']}.csv"]
        sub = pd.read_csv(z.open(member))
    merged = private.merge(sub, on="id", suffixes=("", "_pred"))
    auc = roc_auc_score(merged["target"], merged["target_pred"])
    assert lead["who"].startswith(f"{lead['team']} (AUC {auc:.3f}, 95% ")


def test_items_get_a_note_instead_of_curves(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"model": np.repeat(["a", "b", "c"], 200),
                          "item": np.tile(np.arange(200), 3),
                          "correct": (rng.random(600) < 0.7).astype(int)})
    path = tmp_path / "items.csv"
    frame.to_csv(path, index=False)
    html = _page(tmp_path, "--items", str(path), "--value-col", "correct")
    charts = _check(html)
    assert not CURVES & set(charts)
    assert "per-item results carry only each item&#39;s value" in html


def test_the_same_analysis_gives_the_same_page(tmp_path, submissions_page):
    import re

    again = _page(tmp_path, "--example", "submissions")
    folder = re.compile(r"leaderboard-example-\w+")   # the example's temporary folder
    # the card's provenance names the command, given here with its options in another order
    command = re.compile(r"<dt>Provenance</dt><dd>.*?</dd>", re.S)
    assert command.sub("", folder.sub("", again)) == command.sub("", folder.sub("",
                                                                              submissions_page))


def test_choose_chart_rows_and_picks(tmp_path):
    out, js = tmp_path / "c.html", tmp_path / "c.json"
    assert main(["choose", "--example", "--replicates", "200", "--draws", "2000", "-o", str(out),
                 "--json", str(js), "--quiet", "--static-charts"]) == 0
    html = out.read_text(encoding="utf-8")
    chart = _check(html)["chart-choose"]
    data = json.loads(js.read_text(encoding="utf-8"))
    rows = chart["spec"]["datasets"]["rows"]
    expected = sorted((c["expected"] for c in data["candidates"]),
                      reverse=data.get("higher_is_better", True))
    assert [r["expected"] for r in rows] == pytest.approx(expected[:len(rows)], rel=1e-7)
    assert len(rows) == min(40, len(data["candidates"]))
    picks = {r["team"]: r["badge"] for r in rows if r["badge"]}
    assert picks == {data["recommended"][0]: "1st pick", data["recommended"][1]: "2nd pick"}
    assert chart["svg"] is not None and "1st pick" in chart["svg"]


def test_hostile_names_stay_data(tmp_path):
    """Names that would close the script element, open a comment or end a JavaScript line reach
    the charts only as escaped JSON strings, and come back out of the JSON unchanged."""
    names = ["</script><script>alert(1)</script>", "<!-- comment", "line\u2028break", "a & b"]
    rng = np.random.default_rng(3)
    board = pd.DataFrame({"team": names + [f"t{i}" for i in range(56)],
                          "score": np.round(rng.uniform(0.7, 0.9, 60), 5)})
    path = tmp_path / "board.csv"
    board.to_csv(path, index=False)
    html = _page(tmp_path, str(path), "--metric", "auc", "--n-test", "2000",
                 "--prevalence", "0.3")
    charts = _check(html)
    assert "<!--" not in html and "alert(1)</script>" not in html
    specs_text = "".join(re.findall(r'class="lb-spec">(.*?)</script>', html, re.S))
    assert "\u2028" not in specs_text and "\\u2028" in specs_text
    data = json.loads(html.split('id="lb-data">', 1)[1].split("</script>", 1)[0])
    everyone = {row[data["fields"].index("team")] for row in data["rows"]}   # all 60 entries
    assert set(names) <= everyone and len(everyone) == 60
    shown = {r["team"] for r in charts["chart-scores"]["spec"]["datasets"]["entries"]}
    assert len(shown) == 50 and shown <= everyone


def test_categories_chart_holds_every_cell(tmp_path):
    rng = np.random.default_rng(4)
    models, items = 6, 240
    frame = pd.DataFrame({"model": np.repeat([f"m{k}" for k in range(models)], items),
                          "item": np.tile(np.arange(items), models),
                          "correct": (rng.random(models * items) < 0.7).astype(int),
                          "subject": np.tile(np.repeat(["a", "b", "c"], items // 3), models)})
    path = tmp_path / "items.csv"
    frame.to_csv(path, index=False)
    html = _page(tmp_path, "--items", str(path), "--value-col", "correct", "--category-col",
                 "subject")
    cells = _check(html)["chart-categories"]["spec"]["datasets"]["cells"]
    means = frame.groupby(["model", "subject"])["correct"].mean()
    assert len(cells) == models * 3
    for c in cells:
        assert c["score"] == pytest.approx(means[(c["team"], c["category"])], abs=1e-7)


def test_the_vega_bundle_is_cached_per_user_and_version(tmp_path, monkeypatch):
    """The bundle is built once, kept as the user's own file with its hash beside it, and read
    back only when it is that file (tests/engine/test_hostile_engine.py plants and damages it)."""
    import os
    import stat
    from leaderboard.report.vega import embed
    monkeypatch.setenv("LEADERBOARD_CACHE_DIR", str(tmp_path / "cache"))
    built = embed._cached_bundle()
    path = embed._cache_file()
    assert path.parent == tmp_path / "cache" and path.read_text(encoding="utf-8") == built
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert "vegaEmbed" in built and len(built) > 500_000

    def no_build():
        raise AssertionError("built again instead of read from the cache")

    with monkeypatch.context() as m:
        m.setattr(embed, "_build_bundle", no_build)
        assert embed._cached_bundle() == built                  # read, not rebuilt
    path.write_text("window.vegaEmbed = 'planted';", encoding="utf-8")
    assert embed._cached_bundle() == built                      # not its recorded hash
    os.chmod(path, 0o620)   # group-writable: someone else may have written it
    assert embed._cached_bundle() == built
    assert path.read_text(encoding="utf-8") == built
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".partial")]
    monkeypatch.setenv("LEADERBOARD_CACHE_DIR", "")
    assert embed._cache_file() is None and embed._cached_bundle() == built


def test_channels_built_as_classes_give_altairs_own_specification():
    """The house Chart builds each channel's class from its name instead of Altair's schema
    search; the specification must be the one Altair builds from the same arguments."""
    import altair as alt
    from leaderboard.report.vega.common import Chart, dim_others

    def build(cls):
        base = cls(alt.NamedData("rows")).transform_calculate(who="datum.team")
        return alt.layer(
            base.mark_rule().encode(x="lo:Q", x2="hi:Q", y=alt.Y("who:N", title=None),
                                    opacity=dim_others(), tooltip=["team:N", alt.Tooltip("lo:Q")]),
            base.mark_rect().encode(x=alt.value(0), x2=alt.value("width"), y="who:N",
                                    strokeWidth=alt.condition("datum.odd", alt.value(2),
                                                              alt.value(1))),
            base.mark_text().encode(text={"field": "team", "type": "nominal"}, y="who:N"),
        ).to_dict(validate=True)

    ours, altairs = build(Chart), build(alt.Chart)
    assert ours == altairs
    assert ours["layer"][0]["encoding"]["x"] == {"field": "lo", "type": "quantitative"}
