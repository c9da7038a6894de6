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
from interface_words import in_python_words
from leaderboard.cli import main
from leaderboard.resources import data_dir

# The API and the command line must give equal numbers; equality does not need precise ones, so the
# fewest draws and replicates the options allow (100).
EXAMPLE = dict(metric="auc", n_public=900, n_private=2100, prevalence=0.1, draws=100,
               replicates=100, seed=3)
FLAGS = ["--metric", "auc", "--n-public", "900", "--n-private", "2100", "--prevalence", "0.1",
         "--draws", "100", "--replicates", "100", "--seed", "3"]


def _cli_json(tmp_path, argv) -> dict:
    out = tmp_path / "cli.json"
    assert main(["analyze", *argv, "--quiet", "-o", str(tmp_path / "cli.html"),
                 "--json", str(out)]) == 0
    return json.loads(out.read_text(encoding="utf-8"))


def _numbers(report: dict) -> dict:
    """Everything but where the data came from (a path, or "DataFrame"), and the card's
    provenance (the command, or the API call; the file's bytes, or the frame's CSV). The
    card's matrix hash stays: the same data, read either way."""
    out = {k: v for k, v in report.items() if k not in ("source", "command")}
    if out.get("card"):
        out["card"] = {k: v for k, v in out["card"].items() if k != "provenance"}
    return out


def test_a_dataframe_gives_the_command_lines_numbers(tmp_path):
    path = data_dir() / "example_leaderboard.csv"
    frame = pd.read_csv(path)
    result = leaderboard.analyze(frame, **EXAMPLE)
    cli = _cli_json(tmp_path, [str(path), *FLAGS])
    api = result.to_dict()
    # the command's JSON, its notes and flags in the API's words (exclude_flagged=, not --...)
    cli = in_python_words(cli)
    assert _numbers(api) == _numbers(cli) == _numbers(json.loads(result.to_json()))
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
    options = dict(metric="auc", replicates=100, seed=1)   # equal numbers, not precise ones
    result = leaderboard.analyze_submissions(solution, teams, **options)
    from_arrays = result.to_dict()
    frames = {name: pd.DataFrame({"id": solution["id"], "target": p}) for name, p in teams.items()}
    from_frames = leaderboard.analyze_submissions(solution, frames, **options).to_dict()
    cli = _cli_json(tmp_path, ["--solution", str(tmp_path / "solution.csv"), "--submissions",
                               str(tmp_path / "subs"), "--metric", "auc", "--replicates", "100",
                               "--seed", "1"])
    keys = ("ranks", "d95", "shakeup")
    for report in (from_arrays, from_frames):
        assert {k: report[k] for k in keys} == {k: cli[k] for k in keys}
        # the entries' numbers are the files'; each entry's "file" is its key in the mapping
        assert [{k: v for k, v in e.items() if k != "file"} for e in report["entries"]] == \
            [{k: v for k, v in e.items() if k != "file"} for e in cli["entries"]]
    assert [e["team"] for e in from_arrays["entries"]][0] == "team 0"
    assert from_arrays["entries"][0]["file"] == "submissions['team 0']"
    assert from_arrays["source"]["file"] == "DataFrame 'solution'"   # never a temporary path
    # the page's charts as Altair objects (Jupyter displays them natively), the curves included
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
    (dict(seed=-1), "seed= must be at least 0 and at most 4294967295 (a whole number), got -1"),
    (dict(alpha=1.5), "alpha= must be strictly between 0 and 1, got 1.5"),
    (dict(alpha=np.float64(1.5)), "alpha= must be strictly between 0 and 1, got 1.5"),
    (dict(n_test=1), "n_test= must be at least 2"),
    (dict(draws=2000.5), "draws= must be a whole number, got 2000.5"),
    (dict(tiers="best"), "tiers= must be one of 'rank-sets', "),
    (dict(correlation=1.0), "correlation= must be one of 'auto' or at least 0 and below 1"),
])
def test_bad_parameters_raise_one_line_naming_the_parameter(options, words):
    board = pd.DataFrame({"team": ["a", "b", "c"], "score": [0.9, 0.8, 0.7]})
    with pytest.raises(leaderboard.InputError) as err:
        leaderboard.analyze(board, metric="auc", prevalence=0.2, **{"n_test": 500, **options})
    assert words in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("function", [leaderboard.analyze, leaderboard.analyze_submissions,
                                      leaderboard.analyze_items])
def test_every_parameter_is_in_the_signature_and_the_docstring(function):
    import inspect

    parameters = inspect.signature(function).parameters
    assert not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    assert {"alpha", "seed", "replicates", "tiers", "top_k", "quiet"} <= set(parameters)
    for name in parameters:   # numpydoc: each named in Parameters (alone or in a group)
        assert name in function.__doc__.split("Returns")[0], name
    with pytest.raises(TypeError):   # an unknown option is Python's own error, not a guess
        function("x.csv", metric="auc", bogus=3)


def test_numpy_scalars_work_where_numbers_do():
    board = pd.DataFrame({"team": [f"t{i}" for i in range(6)],
                          "score": np.linspace(0.9, 0.8, 6)})
    y = np.array([0, 0, 0, 0, 1])
    plain = leaderboard.analyze(board, metric="auc", n_test=2000, prevalence=0.2, draws=200,
                                replicates=200, alpha=0.1, seed=4, top_k=[5]).to_json()
    numpy = leaderboard.analyze(board, metric="auc", n_test=np.int64(2000), prevalence=y.mean(),
                                draws=np.int32(200), replicates=np.uint16(200),
                                alpha=np.float64(0.1), seed=np.int64(4),
                                top_k=np.array([5])).to_json()
    assert type(y.mean()) is np.float64 and numpy == plain


def test_bad_data_names_the_dataframe_row_and_column():
    board = pd.DataFrame({"team": ["a", "b", "c"], "score": ["0.9", "oops", "0.7"]})
    with pytest.raises(leaderboard.InputError) as err:
        leaderboard.analyze(board, metric="auc", n_test=500, prevalence=0.2)
    message = str(err.value)
    # row 1 is board.iloc[1]; no temporary file is named
    assert message.startswith("DataFrame 'data', row 1, column 'score'") and "'oops'" in message
    items = pd.DataFrame({"model": ["a", "a", "b", "b"], "item": [1, 2, 1, 2],
                          "value": [1, 0, "x", 1]})
    with pytest.raises(leaderboard.InputError) as err:
        leaderboard.analyze_items(items, replicates=200)
    assert str(err.value).startswith("DataFrame 'data', row 2, column 'value'"), str(err.value)
    solution = pd.DataFrame({"id": [1, 2, 2], "target": [0, 1, 1]})
    with pytest.raises(leaderboard.InputError) as err:
        leaderboard.analyze_submissions(solution, {"a": np.zeros(3)}, metric="auc")
    assert str(err.value).startswith("DataFrame 'solution', row 2, column 'id'"), str(err.value)


def test_a_line_break_in_a_cell_does_not_shift_the_rows():
    """A cell holding a line break spans two lines of the frame's CSV text: the error still names
    the DataFrame's row (iloc), in its place and in the message's own line numbers."""
    board = pd.DataFrame({"team": ["a\nb", "c", "d", "e"], "score": [0.9, 0.8, "x", "y"]})
    with pytest.raises(leaderboard.InputError) as err:
        leaderboard.analyze(board, metric="auc", n_test=500, prevalence=0.2)
    assert str(err.value).startswith("DataFrame 'data', row 2, column 'score'"), str(err.value)
    assert "(rows 2, 3)" in str(err.value) and "line" not in str(err.value)
    items = pd.DataFrame({"model": ["m\r\nx", "m\r\nx", "n", "n"], "item": [1, 2, 1, 2],
                          "value": [1, 0, "z", 1]})
    with pytest.raises(leaderboard.InputError) as err:
        leaderboard.analyze_items(items, replicates=200)
    assert str(err.value).startswith("DataFrame 'data', row 2, column 'value'"), str(err.value)
    solution = pd.DataFrame({"id": [1, 2, 2], "note": ["x\ny\nz", "", ""], "target": [0, 1, 1]})
    with pytest.raises(leaderboard.InputError) as err:
        leaderboard.analyze_submissions(solution, {"a": np.zeros(3)}, metric="auc",
                                        target_col="target")
    assert str(err.value).startswith("DataFrame 'solution', row 2, column 'id'"), str(err.value)
    assert "rows 1 and 2" in str(err.value), str(err.value)
    assert "leaderboard-api" not in str(err.value) and "/tmp" not in str(err.value)
    with pytest.raises(leaderboard.InputError, match="expected a pandas DataFrame or a path"):
        leaderboard.analyze([0.9, 0.8], metric="auc")
    with pytest.raises(leaderboard.InputError, match=r"submissions\['a'\]: an array of shape \(3,\)"):
        leaderboard.analyze_submissions(pd.DataFrame({"id": range(5), "target": [0, 1] * 2 + [1]}),
                                        {"a": np.zeros(3)}, metric="auc")


def test_a_string_is_always_a_path(tmp_path, monkeypatch):
    """``analyze("--example")`` reads a file named --example, never the command line's option."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(leaderboard.InputError) as err:
        leaderboard.analyze("--example", metric="auc", n_test=500, prevalence=0.2)
    assert str(err.value).startswith("--example: ") and "not found" in str(err.value)
    (tmp_path / "--example").write_text("team,score\na,0.9\nb,0.8\nc,0.7\n", encoding="utf-8")
    result = leaderboard.analyze("--example", metric="auc", n_test=2000, prevalence=0.2,
                                 draws=200, replicates=200)
    assert result.table["team"].tolist() == ["a", "b", "c"]


def test_a_column_named_like_an_option():
    board = pd.DataFrame({"team": ["a", "b", "c"], "-score": [0.9, 0.85, 0.6]})
    result = leaderboard.analyze(board, metric="auc", score_col="-score", n_test=2000,
                                 prevalence=0.3, draws=200, replicates=200)
    assert result.table["score"].tolist() == [0.9, 0.85, 0.6]


def test_result_lists_its_fields_and_save_errors_name_the_path(tmp_path):
    import dataclasses

    board = pd.DataFrame({"team": ["a", "b", "c"], "score": [0.9, 0.85, 0.6]})
    result = leaderboard.analyze(board, metric="auc", n_test=2000, prevalence=0.3, draws=200,
                                 replicates=200)
    names = {f.name for f in dataclasses.fields(result)}
    assert {"table", "tiers", "d95", "flags", "shakeup", "settings", "analysis"} <= names
    assert not hasattr(type(result), "__getattr__")        # nothing forwarded behind the fields
    assert result.tiers is result.analysis.tiers and result.settings.metric.name == "auc"
    missing = tmp_path / "no" / "such" / "r.html"
    with pytest.raises(leaderboard.InputError, match="cannot write .*r.html: No such file"):
        result.save(missing)
    (tmp_path / "folder.json").mkdir()
    with pytest.raises(leaderboard.InputError,
                       match=r"cannot write .*folder.json: not a regular file \(a folder\)"):
        result.save(tmp_path / "folder.json")


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
    assert page.count('class="lb-static"') == 1   # a frame that runs no script: the drawing
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
