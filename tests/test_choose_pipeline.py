"""`leaderboard choose` end to end: both kinds of input, the JSON, the page, one-line errors, and
the real kaggle_insults candidates when the shared data is here."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from leaderboard.cli import main


def _choose(tmp_path, *args):
    out_html, out_json = tmp_path / "c.html", tmp_path / "c.json"
    code = main(["choose", *args, "-o", str(out_html), "--json", str(out_json), "--quiet",
                 "--replicates", "400", "--draws", "4000"])
    data = json.loads(out_json.read_text(encoding="utf-8")) if code == 0 else None
    return code, data, out_html


def _table(tmp_path, scores, names=None):
    path = tmp_path / "candidates.csv"
    names = names or [f"sub {i}" for i in range(len(scores))]
    pd.DataFrame({"name": names, "score": scores}).to_csv(path, index=False)
    return path


def _check_invariants(data):
    names = [c["name"] for c in data["candidates"]]
    first, second = data["recommended"]
    assert first != second and {first, second} <= set(names)
    assert sum(c["p_best"] for c in data["candidates"]) == pytest.approx(1.0, abs=1e-9)
    for c in data["candidates"]:
        assert c["ci_low"] <= c["expected"] <= c["ci_high"]
    # the expected best-of-two of the chosen pair is at least that of the top two public (it is
    # the maximum over pairs, on the same draws)
    assert data["recommended_expected"] >= data["top_two_expected"] - 1e-12


def test_example_predictions(tmp_path):
    code, data, html = _choose(tmp_path, "--example")
    assert code == 0
    _check_invariants(data)
    assert data["noise"].startswith("a paired bootstrap")
    page = html.read_text(encoding="utf-8")
    assert "Select " in page and "How much of the public climb was real?" in page


def test_public_scores_table_and_winners_curse(tmp_path):
    """With scores only, the corrected estimate of the best public score is below it (selection
    flatters the leader) and the candidates' order is kept (exchangeable, equal noise)."""
    scores = [0.801, 0.812, 0.795, 0.820, 0.808, 0.790, 0.815, 0.805]
    code, data, _ = _choose(tmp_path, "--public-scores", str(_table(tmp_path, scores)),
                            "--n-public", "500", "--metric", "accuracy")
    assert code == 0
    _check_invariants(data)
    best = max(data["candidates"], key=lambda c: c["public_score"])
    assert best["expected"] < best["public_score"]
    assert data["recommended"] == data["top_two_public"]  # nothing tells them apart but the score


def test_identical_scores_cannot_be_told_apart(tmp_path):
    code, data, html = _choose(tmp_path, "--public-scores",
                               str(_table(tmp_path, [0.8] * 5 + [0.8001])), "--n-public", "300",
                               "--metric", "accuracy")
    assert code == 0 and data["distinguishable"] is False
    assert "cannot be told apart" in html.read_text(encoding="utf-8")


def test_names_are_escaped_and_runs_repeat(tmp_path):
    names = ["<script>alert(1)</script>", "a & b", "c", "d"]
    path = _table(tmp_path, [0.9, 0.85, 0.86, 0.84], names)
    runs = [_choose(tmp_path, "--public-scores", str(path), "--n-public", "400", "--metric",
                    "accuracy") for _ in range(2)]
    assert runs[0][1] == runs[1][1]
    page = runs[0][2].read_text(encoding="utf-8")
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;" in page


@pytest.mark.parametrize("args, message", [
    ([], "give the candidates"),
    (["--public-scores", "PATH"], "--public-scores needs --n-public"),
    (["--public-scores", "PATH", "--n-public", "1"], "--n-public must be at least 2"),
    (["--example", "--public-scores", "PATH"], "not both"),
    (["--public-scores", "PATH", "--n-public", "100", "--correlation", "-0.1"], "--correlation"),
])
def test_bad_input_is_one_line(tmp_path, capsys, args, message):
    path = _table(tmp_path, [0.8, 0.81, 0.79])
    args = [str(path) if a == "PATH" else a for a in args]
    code, *_ = _choose(tmp_path, *args, "--metric", "accuracy")
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_insults_picks_a_pair_and_says_how_sure(shared_data, tmp_path):
    """27 real submissions of one team (AUC, 662 public rows seen, 1,985 private): a pair, a
    statement of how sure, the private labels used only for hindsight, copies never paired."""
    folder = shared_data / "kaggle_insults"
    code, data, html = _choose(tmp_path, "--solution", str(folder / "solution.csv"),
                               "--submissions", str(folder / "submissions"), "--metric", "auc")
    assert code == 0
    _check_invariants(data)
    assert data["n_public"] == 662 and data["n_private"] == 1985
    by_name = {c["name"]: c for c in data["candidates"]}
    first, second = (by_name[n] for n in data["recommended"])
    assert first["identical_to"] != second["name"] and second["identical_to"] != first["name"]
    assert all(c["private_score_hindsight"] is not None for c in data["candidates"])
    # the hindsight column is not an input: the corrected estimates depend on public rows only
    assert np.corrcoef([c["public_score"] for c in data["candidates"]],
                       [c["expected"] for c in data["candidates"]])[0, 1] > 0.99
    page = html.read_text(encoding="utf-8")
    assert ("can be told apart" in page) or ("cannot be told apart" in page)
    assert "In hindsight" in page


def test_table_and_predictions_together(tmp_path, capsys):
    """Candidates only in the table join the predicted ones with the universe's noise, on the
    solution's public rows; a contradicting --n-public is a one-line error."""
    from leaderboard.cli import _make_submissions_example

    preset = _make_submissions_example()
    table = _table(tmp_path, [0.86, 0.70], ["extra one", "extra two"])
    base = ["--solution", preset["solution"], "--submissions", preset["submissions"],
            "--metric", "auc", "--public-scores", str(table), "--prevalence", "0.1"]
    code, data, _ = _choose(tmp_path, *base)
    assert code == 0
    _check_invariants(data)
    sources = {c["name"]: c["source"] for c in data["candidates"]}
    assert sources["extra one"] == sources["extra two"] == "table"
    assert sum(s == "predictions" for s in sources.values()) == len(sources) - 2
    code, *_ = _choose(tmp_path, *base, "--n-public", "500")
    assert code == 2 and "disagrees with the solution's" in capsys.readouterr().err
