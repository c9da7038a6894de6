"""`leaderboard choose` end to end: both kinds of input, the JSON, the page, one-line errors, and
the real kaggle_insults candidates when the shared data is here."""
from __future__ import annotations

import json
import re

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


@pytest.fixture
def few_universe_draws(monkeypatch):
    """A table's SDs from 200 simulated test sets per score level (the product's
    UNIVERSE_DRAWS, 2,000, took ~5 s of a run on the example's 3,000 public rows), for tests
    that check where candidates come from, escaping or determinism, not the SDs' precision."""
    from leaderboard.pipelines import choose as choose_pipeline

    monkeypatch.setattr(choose_pipeline, "UNIVERSE_DRAWS", 200)


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
    assert sum(c["p_true_best"] for c in data["candidates"]) == pytest.approx(1.0, abs=1e-9)
    _check_reason_quotes_p_true_best(data)
    for c in data["candidates"]:
        assert c["ci_low"] <= c["expected"] <= c["ci_high"]
    # the expected best-of-two of the chosen pair is at least that of the top two public (it is
    # the maximum over pairs, on the same draws)
    assert data["recommended_expected"] >= data["top_two_expected"] - 1e-12


def _check_reason_quotes_p_true_best(data):
    """A percentage the verdict gives for the leader is the table's P(truly best) of the leader
    (summed over the candidates with its public scores, which count as one)."""
    quoted = re.search(r"(?:probability only|P\(truly best\)) (\d+)%", data["reason"])
    if quoted is None:
        return
    higher = 1 if data["higher_is_better"] else -1
    lead = max(data["candidates"], key=lambda c: higher * c["expected"])
    group = lead["same_public_scores_as"] or lead["name"]
    share = sum(c["p_true_best"] for c in data["candidates"]
                if (c["same_public_scores_as"] or c["name"]) == group)
    assert int(quoted.group(1)) == round(100 * share)


def _check_shrinks_toward(data):
    """The corrected estimates move toward the stated center, never past it, the leader's down
    (up, for lower-is-better), and never all one way."""
    center = data["correction"]["center"]
    public = np.array([c["public_score"] for c in data["candidates"]])
    expected = np.array([c["expected"] for c in data["candidates"]])
    tol = 1e-12
    assert np.all(np.minimum(public, center) - tol <= expected)
    assert np.all(expected <= np.maximum(public, center) + tol)
    lead = int(np.argmax(public) if data["higher_is_better"] else np.argmin(public))
    if data["higher_is_better"]:
        assert expected[lead] <= public[lead]
    else:
        assert expected[lead] >= public[lead]
    moved = expected - public
    if data["correction"]["shrinkage"] > 0:
        assert moved.min() < 0 < moved.max()
    return public, expected


def test_example_predictions(tmp_path):
    """The bundled example (40 diverse models, correlated noise larger for the weaker) once had
    every estimate raised above its public score; now they shrink toward the mean."""
    code, data, html = _choose(tmp_path, "--example")
    assert code == 0
    _check_invariants(data)
    public, expected = _check_shrinks_toward(data)
    assert data["correction"]["center"] == pytest.approx(public.mean())
    assert expected.mean() == pytest.approx(public.mean())
    assert data["noise"].startswith("a paired bootstrap")
    page = html.read_text(encoding="utf-8")
    assert "Select " in page and "How much of the public climb was real?" in page
    assert "<th>P(truly best)</th><th>P(best on private)</th>" in page
    assert f"mean public score, {data['correction']['center']:.4g}" in page


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
    _check_shrinks_toward(data)
    assert data["recommended"] == data["top_two_public"]  # nothing tells them apart but the score


def test_identical_scores_cannot_be_told_apart(tmp_path):
    code, data, html = _choose(tmp_path, "--public-scores",
                               str(_table(tmp_path, [0.8] * 5 + [0.8001])), "--n-public", "300",
                               "--metric", "accuracy")
    assert code == 0 and data["distinguishable"] is False
    assert "cannot be told apart" in html.read_text(encoding="utf-8")


def test_names_are_escaped_and_runs_repeat(tmp_path, few_universe_draws):
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
    statement of how sure, the private labels used only for hindsight, no group with the same public
    scores paired, and the estimates shrink toward their mean."""
    folder = shared_data / "kaggle_insults"
    code, data, html = _choose(tmp_path, "--solution", str(folder / "solution.csv"),
                               "--submissions", str(folder / "submissions"), "--metric", "auc")
    assert code == 0
    _check_invariants(data)
    assert data["n_public"] == 662 and data["n_private"] == 1985
    by_name = {c["name"]: c for c in data["candidates"]}
    first, second = (by_name[n] for n in data["recommended"])
    group = {c["name"]: c["same_public_scores_as"] or c["name"] for c in data["candidates"]}
    assert group[first["name"]] != group[second["name"]]   # never two of one public-score group
    assert all(c["private_score_hindsight"] is not None for c in data["candidates"])
    # the hindsight column is not an input: the corrected estimates depend on public rows only
    _check_shrinks_toward(data)
    assert np.corrcoef([c["public_score"] for c in data["candidates"]],
                       [c["expected"] for c in data["candidates"]])[0, 1] > 0.99
    page = html.read_text(encoding="utf-8")
    assert ("can be told apart" in page) or ("cannot be told apart" in page)
    assert "In hindsight" in page


def test_table_and_predictions_together(tmp_path, capsys, few_universe_draws):
    """Candidates only in the table join the predicted ones with the universe's noise, on the
    solution's public rows; a contradicting --n-public is a one-line error. (The table's SDs at
    few draws: the test checks where candidates come from and the JSON's invariants.)"""
    from leaderboard.cli.analyze import _make_submissions_example

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


def _groups(names, first):
    """Sets of names that share a first member (singletons left out)."""
    groups = {}
    for name, same in zip(names, first):
        if same is not None:
            groups.setdefault(same, {same}).add(name)
    return sorted(sorted(g) for g in groups.values())


def _analyze_identical(solution_path, submissions_path):
    from leaderboard.options import RankOptions
    from leaderboard.pipelines.scores import Settings
    from leaderboard.pipelines.submissions import analyze_submissions
    from leaderboard.metrics import get_metric
    from leaderboard.ingest.submissions import read_solution, read_submissions

    solution = read_solution(solution_path, kind="scores")
    subs = read_submissions(submissions_path, solution, kind="scores")
    table = analyze_submissions(solution, subs, Settings(get_metric("auc"),
                                                         ranks=RankOptions(replicates=200))).table
    return _groups(table["team"], table["identical_to"])


def test_identical_is_one_notion_in_analyze_and_choose(tmp_path):
    """A byte-identical copy is identical in both commands; a file that differs in a few private
    rows is identical in neither, and choose names it "same public scores" instead."""
    rng = np.random.default_rng(12)
    n = 300
    y = rng.integers(0, 2, n)
    usage = np.where(np.arange(n) < 120, "Public", "Private")
    pd.DataFrame({"id": np.arange(n), "target": y, "Usage": usage}).to_csv(
        tmp_path / "solution.csv", index=False)
    folder = tmp_path / "subs"
    folder.mkdir()
    base = np.round(0.3 * y + rng.random(n), 6)
    private_edit = base.copy()
    private_edit[[150, 200, 250]] += 0.5                  # a few private rows differ
    files = {"a": base, "b": base, "c": private_edit, "d": np.round(rng.random(n), 6),
             "e": np.round(0.2 * y + rng.random(n), 6)}
    for name, pred in files.items():
        pd.DataFrame({"id": np.arange(n), "target": pred}).to_csv(folder / f"{name}.csv",
                                                                  index=False)
    code, data, html = _choose(tmp_path, "--solution", str(tmp_path / "solution.csv"),
                               "--submissions", str(folder), "--metric", "auc")
    assert code == 0
    by_name = {c["name"]: c for c in data["candidates"]}
    assert by_name["b"]["identical_to"] == "a" and by_name["c"]["identical_to"] is None
    assert by_name["c"]["same_public_scores_as"] == "a"
    names = [c["name"] for c in data["candidates"]]
    choose_groups = _groups(names, [c["identical_to"] for c in data["candidates"]])
    assert choose_groups == [["a", "b"]]
    assert _analyze_identical(tmp_path / "solution.csv", folder) == choose_groups
    page = html.read_text(encoding="utf-8")
    assert "identical to a" in page and "same public scores as a" in page
    assert "Same public scores, not all identical: a, b, c." in page
    assert len({"a", "b", "c"} & set(data["recommended"])) <= 1   # one group, one pick at most


def test_insults_identical_groups_agree_with_analyze(shared_data, tmp_path):
    """The insults folder: the same byte-identical groups in both commands (three groups); the
    three files that differ in a few rounded digits are only "same public scores" in choose."""
    folder = shared_data / "kaggle_insults"
    code, data, _ = _choose(tmp_path, "--solution", str(folder / "solution.csv"),
                            "--submissions", str(folder / "submissions"), "--metric", "auc")
    assert code == 0
    names = [c["name"] for c in data["candidates"]]
    identical = _groups(names, [c["identical_to"] for c in data["candidates"]])
    same_public = _groups(names, [c["same_public_scores_as"] for c in data["candidates"]])
    assert identical == _analyze_identical(folder / "solution.csv", folder / "submissions")
    assert len(identical) == 3
    assert all(any(set(g) <= set(h) for h in same_public) for g in identical)
    assert len(same_public) > len(identical)
