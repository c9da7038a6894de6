"""The Python API: a DataFrame or a mapping of predictions gives the command line's numbers, its
one-line errors, and a notebook summary that escapes what it shows."""
from __future__ import annotations

import html
import json

import altair as alt
import numpy as np
import pandas as pd
import pytest

import leaderboard
from chart_helpers import svg_text
from leaderboard.cli import main
from leaderboard.resources import data_dir

EXAMPLE = dict(metric="auc", n_public=900, n_private=2100, prevalence=0.1, draws=400,
               replicates=400, seed=3)
FLAGS = ["--metric", "auc", "--n-public", "900", "--n-private", "2100", "--prevalence", "0.1",
         "--draws", "400", "--replicates", "400", "--seed", "3"]


def _cli_json(tmp_path, argv) -> dict:
    out = tmp_path / "cli.json"
    assert main(["analyze", *argv, "--quiet", "-o", str(tmp_path / "cli.html"),
                 "--json", str(out)]) == 0
    return json.loads(out.read_text(encoding="utf-8"))


def _numbers(report: dict) -> dict:
    """Everything but where the data came from (a path, or "DataFrame")."""
    return {k: v for k, v in report.items() if k not in ("source", "command")}


def test_a_dataframe_gives_the_command_lines_numbers(tmp_path):
    path = data_dir() / "example_leaderboard.csv"
    frame = pd.read_csv(path)
    result = leaderboard.analyze(frame, **EXAMPLE)
    cli = _cli_json(tmp_path, [str(path), *FLAGS])
    api = result.to_dict()
    assert _numbers(api) == _numbers(cli)
    assert api["entries"] and all(e["tier"] >= 1 for e in api["entries"])
    # the table is the JSON's entries, and the path form is the same analysis again
    assert result.table["team"].tolist() == [e["team"] for e in cli["entries"]]
    again = leaderboard.analyze(path, **EXAMPLE).to_dict()
    assert _numbers(again) == _numbers(cli)
    assert result.d95 == pytest.approx(cli["d95"]) and result.ranking is not None


def test_submissions_from_a_mapping_equal_the_files(tmp_path):
    rng = np.random.default_rng(5)
    n = 600
    y = rng.integers(0, 2, n)
    usage = np.where(rng.random(n) < 0.3, "Public", "Private")
    solution = pd.DataFrame({"id": np.arange(n) + 100, "target": y, "Usage": usage})
    teams = {f"team {k}": np.clip(y * s + rng.random(n), 0, 2) / 2
             for k, s in enumerate((0.9, 0.5, 0.45, 0.1))}
    solution.to_csv(tmp_path / "solution.csv", index=False)
    (tmp_path / "subs").mkdir()
    for name, p in teams.items():
        pd.DataFrame({"id": solution["id"], "target": p}).to_csv(tmp_path / "subs" / f"{name}.csv",
                                                               index=False)
    options = dict(metric="auc", replicates=300, seed=1)
    from_arrays = leaderboard.analyze_submissions(solution, teams, **options).to_dict()
    frames = {name: pd.DataFrame({"id": solution["id"], "target": p}) for name, p in teams.items()}
    from_frames = leaderboard.analyze_submissions(solution, frames, **options).to_dict()
    cli = _cli_json(tmp_path, ["--solution", str(tmp_path / "solution.csv"), "--submissions",
                               str(tmp_path / "subs"), "--metric", "auc", "--replicates", "300",
                               "--seed", "1"])
    keys = ("entries", "ranks", "d95", "shakeup")
    for report in (from_arrays, from_frames):
        assert {k: report[k] for k in keys} == {k: cli[k] for k in keys}
    assert [e["team"] for e in from_arrays["entries"]][0] == "team 0"
    # the page's charts as Altair objects (Jupyter displays them natively), the curves included
    result = leaderboard.analyze_submissions(solution, teams, **options)
    charts = result.charts()
    assert {"scores", "hist", "ecdf", "board_hist", "rank_intervals", "roc", "pr"} <= set(charts)
    page = result.to_html()
    for name, chart in charts.items():
        spec = chart.to_dict(validate=True)   # Altair checks it against the Vega-Lite schema
        datasets = spec["datasets"]
        assert datasets and all(f'"{key}"' in page for key in datasets), name
    with alt.renderers.enable("mimetype"):
        bundle = charts["scores"]._repr_mimebundle_()
    shown = bundle[0] if isinstance(bundle, tuple) else bundle
    assert any(kind.startswith("application/vnd.vegalite") for kind in shown)


@pytest.mark.parametrize("options,words", [
    (dict(seed=-1), "--seed must be at least 0"),
    (dict(alpha=1.5), "--alpha must be strictly between 0 and 1"),
    (dict(n_test=1), "--n-test must be at least 2"),
    (dict(bogus=3), "bogus=: not an option of leaderboard analyze; known: alpha"),
    (dict(output="x.html"), "output=: not an option here"),
])
def test_bad_options_raise_the_command_lines_one_line_error(options, words):
    board = pd.DataFrame({"team": ["a", "b", "c"], "score": [0.9, 0.8, 0.7]})
    with pytest.raises(leaderboard.InputError) as err:
        leaderboard.analyze(board, metric="auc", prevalence=0.2, **{"n_test": 500, **options})
    assert words in str(err.value) and "\n" not in str(err.value)


def test_bad_data_names_the_row_and_column():
    board = pd.DataFrame({"team": ["a", "b", "c"], "score": ["0.9", "oops", "0.7"]})
    with pytest.raises(leaderboard.InputError) as err:
        leaderboard.analyze(board, metric="auc", n_test=500, prevalence=0.2)
    message = str(err.value)
    assert message.startswith("DataFrame:3: column 'score'") and "'oops'" in message
    with pytest.raises(leaderboard.InputError, match="expected a pandas DataFrame or a path"):
        leaderboard.analyze([0.9, 0.8], metric="auc")
    with pytest.raises(leaderboard.InputError, match=r"shape \(3,\)"):
        leaderboard.analyze_submissions(pd.DataFrame({"id": range(5), "target": [0, 1] * 2 + [1]}),
                                        {"a": np.zeros(3)}, metric="auc")


def test_notebook_summary_is_escaped_and_isolated(tmp_path):
    hostile = '</script><b onmouseover="x">"&'
    board = pd.DataFrame({"team": [hostile, "plain", "third"], "score": [0.91, 0.85, 0.80]})
    result = leaderboard.analyze(board, metric="auc", n_test=3000, prevalence=0.3, draws=200,
                                 replicates=200)
    shown = result._repr_html_()
    assert shown.startswith("<iframe srcdoc=\"") and shown.count("<iframe") == 1
    srcdoc = shown.split('srcdoc="', 1)[1].split('" style=', 1)[0]
    assert '"' not in srcdoc and "<b " not in srcdoc      # nothing closes the attribute early
    page = html.unescape(srcdoc)                          # what the iframe renders
    assert "<b onmouseover" not in page and "&lt;/script&gt;&lt;b onmouseover=" in page
    assert result.to_dict()["entries"][0]["team"] == hostile
    assert "tier 1:" in repr(result)
    written = result.save(tmp_path / "r.html")
    assert written.read_text(encoding="utf-8") == result.to_html()
    assert json.loads(result.save(tmp_path / "r.json").read_text(encoding="utf-8"))["entries"]
    with pytest.raises(leaderboard.InputError, match="ending in .html, .json, .csv, .md, .png"):
        result.save(tmp_path / "r.txt")
    # the scores chart as the page draws it: a picture for slides, the name as escaped text
    png = result.save(tmp_path / "scores.png").read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000
    svg = result.save(tmp_path / "scores.svg").read_text(encoding="utf-8")
    assert hostile in svg_text(svg) and "<b onmouseover" not in svg


def test_items_from_a_dataframe_equal_the_command_line(tmp_path):
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"model": np.repeat(["x", "y", "z"], 400),
                          "question": np.tile(np.arange(400), 3),
                          "correct": (rng.random(1200) < np.repeat([0.7, 0.65, 0.5], 400)) * 1,
                          "subject": np.tile(np.arange(400) % 4, 3)})
    options = dict(item_col="question", value_col="correct", category_col="subject",
                   replicates=300, seed=2)
    api = leaderboard.analyze_items(frame, **options).to_dict()
    frame.to_csv(tmp_path / "items.csv", index=False)
    cli = _cli_json(tmp_path, ["--items", str(tmp_path / "items.csv"), "--item-col", "question",
                               "--value-col", "correct", "--category-col", "subject",
                               "--replicates", "300", "--seed", "2"])
    for key in ("entries", "ranks", "categories"):
        assert api[key] == cli[key]
