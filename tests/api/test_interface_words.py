"""A result names the interface that made it: the Python API's results (their JSON and their page)
name keyword arguments (``exclude_flagged='perfect'``), never the command line's options
(``--exclude-flagged perfect``), in every mode; the command line's outputs keep its options; and
a name in the data that looks like an option (a team called ``--score-col``) is shown as given.
"""
from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import leaderboard
from interface_words import options_in, page_text
from leaderboard.cli import main
from leaderboard.resources import data_dir

HOSTILE = "--score-col"   # a team's name: data, never reworded
FEW = dict(replicates=100)


def _flagged_board() -> pd.DataFrame:
    """The example board with a perfect entry, a junk one and a team named like an option; no
    slice sizes (their reason names options), public and private scores."""
    board = pd.read_csv(data_dir() / "example_leaderboard.csv")
    board.loc[0, ["public_score", "private_score"]] = 1.0
    board.loc[1, ["public_score", "private_score"]] = 0.5
    board.loc[2, "team"] = HOSTILE
    return board


def _scores():
    return leaderboard.analyze(_flagged_board(), metric="auc", n_test=1000, prevalence=0.3,
                               draws=100, **FEW)


def _kaggle():
    return leaderboard.analyze(data_dir() / "example_kaggle_download.csv", metric="auc",
                               n_test=900, prevalence=0.1, draws=100, **FEW)


def _write_submissions(folder: Path) -> tuple[Path, Path]:
    """A solution of 120 rows and three teams' files, one with a misnamed prediction column (its
    rejection hints at the option that names it)."""
    rng = np.random.default_rng(0)
    y = (rng.random(120) < 0.4).astype(int)
    pd.DataFrame({"id": range(120), "target": y,
                  "Usage": ["Public"] * 40 + ["Private"] * 80}).to_csv(folder / "solution.csv",
                                                                       index=False)
    (folder / "subs").mkdir()
    for k, name in enumerate(("a", "b", "wrong header")):
        column = "prediction" if name == "wrong header" else "target"
        pd.DataFrame({"id": range(120), column: y + rng.normal(0, 0.8 + 0.2 * k, 120)}).to_csv(
            folder / "subs" / f"{name}.csv", index=False)
    return folder / "solution.csv", folder / "subs"


@pytest.fixture(scope="module")
def submissions(tmp_path_factory) -> tuple[Path, Path]:
    return _write_submissions(tmp_path_factory.mktemp("submissions"))


def _submissions(files):
    return leaderboard.analyze_submissions(*files, metric="auc", **FEW)


def _items():   # the passage column groups the items, undeclared: its warning
    return leaderboard.analyze_items(data_dir() / "example_items.csv", item_col="question",
                                     value_col="correct", **FEW)


def _battles():   # the judge column groups the battles, undeclared: its warning
    return leaderboard.analyze_battles(data_dir() / "example_battles.csv", **FEW)


def _choose():   # public scores alone: the correlation note names the predictions' inputs
    return leaderboard.choose_finals(data_dir() / "example_candidates.csv", metric="accuracy",
                                     n_public=1000, draws=100, **FEW)


def _plan():
    return leaderboard.plan(metric="auc", score=0.80, prevalence=0.1, delta=0.01, n_test=5000,
                            draws=200)


def _simulate():
    return leaderboard.simulate(metric="auc", scores=[0.80, 0.81], n_tests=1000,
                                prevalences=0.05, draws=200)


def _compare():
    return leaderboard.compare("orion-ultra", "atlas-2-pro",
                               items=data_dir() / "example_items.csv", item_col="question",
                               value_col="correct", **FEW)


RUNS = {"scores": _scores, "kaggle": _kaggle, "submissions": _submissions, "items": _items,
        "battles": _battles, "choose": _choose, "plan": _plan, "simulate": _simulate,
        "compare": _compare}


@pytest.mark.parametrize("mode", RUNS)
def test_a_python_result_names_keyword_arguments(mode, submissions):
    result = RUNS[mode](submissions) if mode == "submissions" else RUNS[mode]()
    text = json.dumps(result.to_dict(), ensure_ascii=False)
    assert options_in(text, (HOSTILE,)) == [], mode
    assert options_in(result.to_json(), (HOSTILE,)) == [], mode
    if mode == "compare":   # no page: the pull-request comment
        assert options_in(result.to_markdown()) == []
    else:
        assert options_in(page_text(result.to_html()), (HOSTILE,)) == [], mode


def test_the_texts_that_named_options_now_name_keywords_and_keep_a_team_named_like_one():
    result = _scores()
    data, page = result.to_dict(), page_text(result.to_html())
    text = json.dumps(data, ensure_ascii=False)
    for words in ("(exclude_flagged='perfect' sets it aside)",
                  "(exclude_flagged='junk' sets them aside)",
                  "Give the predictions (solution= with submissions=, or items=)",
                  "give the group column (group_col=)", "(correlation='auto' estimates it)",
                  "(n_public= and n_private=, or n_test= with public_fraction=)"):
        assert words in text, words
    assert "exclude_flagged=&#39;perfect&#39; sets it aside" in page
    notebook = result._repr_html_()   # the notebook's summary, a frame of its own
    assert options_in(notebook, (HOSTILE,)) == [] and "exclude_flagged=" in notebook
    # the team is data: its name is shown as given, in the JSON and on the page
    assert HOSTILE in [entry["team"] for entry in data["entries"]] and f">{HOSTILE}<" in page
    # the card's input: the API's argument, not the command's FILE
    assert [i["role"] for i in data["card"]["provenance"]["inputs"]] == ["data="]


def test_the_command_line_keeps_its_options(tmp_path):
    path = tmp_path / "board.csv"
    _flagged_board().to_csv(path, index=False)
    assert main(["analyze", str(path), "--metric", "auc", "--n-test", "1000", "--prevalence",
                 "0.3", "--draws", "100", "--replicates", "100", "--quiet",
                 "-o", str(tmp_path / "r.html"), "--json", str(tmp_path / "r.json")]) == 0
    text = (tmp_path / "r.json").read_text(encoding="utf-8")
    page = page_text((tmp_path / "r.html").read_text(encoding="utf-8"))
    said = {"--correlation", "--exclude-flagged", "--group-col", "--items", "--n-private",
            "--n-public", "--n-test", "--public-fraction", "--solution", "--submissions"}
    # (the card's command line names the options it was given too)
    assert said <= set(options_in(text, (HOSTILE,))) and said <= set(options_in(page, (HOSTILE,)))
    assert "(--exclude-flagged perfect sets it aside)" in text
    assert [i["role"] for i in json.loads(text)["card"]["provenance"]["inputs"]] == ["FILE"]
    assert HOSTILE in [e["team"] for e in json.loads(text)["entries"]]


def test_a_worker_words_the_files_as_the_caller(submissions, tmp_path, monkeypatch):
    """A batch of files read elsewhere (a Dask worker is another process; here a new thread,
    which starts without the caller's context) says the caller's words: the command line's
    rejection hint names --pred-col, the API's pred_col=."""
    import leaderboard.engine.local as local

    def elsewhere(job, first, items):
        out = []
        worker = threading.Thread(target=lambda: out.append(local_batch(job, first, items)))
        worker.start()
        worker.join()
        return out[0]

    local_batch = local.run_batch
    monkeypatch.setattr(local, "run_batch", elsewhere)
    solution, subs = submissions
    assert main(["analyze", "--solution", str(solution), "--submissions", str(subs),
                 "--metric", "auc", "--replicates", "100", "--quiet",
                 "--json", str(tmp_path / "r.json")]) == 0
    files = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["files"]
    assert any("use --pred-col if" in str(f["reason"]) for f in files)
    files = _submissions(submissions).to_dict()["files"]
    assert any("use pred_col= if" in str(f["reason"]) for f in files)
