"""issue 25 item 6: accuracy-like scores that are not a whole number of rows over the stated
test-set size are flagged by name and get no interval; sizes that are not the board's (a guess,
a rounded split) flag nothing."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import leaderboard
from leaderboard.metrics import get_metric
from leaderboard.noise.possible import impossible_scores, off_the_grid, printed_unit

N = 27
# Kaggle shows k/27 truncated to 5 decimals (2/3 as 0.66666)
ON_GRID = [float(f"{np.floor(k / N * 1e5) / 1e5:.5f}") for k in (19, 18, 15, 14, 13, 11, 8)]
OFF = 0.38461   # 10/26: a public-slice score, not k/27


def test_printed_unit_reads_the_last_digit():
    assert printed_unit(0.66666) == 1e-5 and printed_unit(0.5) == 0.1 and printed_unit(1.0) == 1.0


def test_a_score_between_k_over_n_is_flagged_and_grid_scores_are_not():
    mask = off_the_grid(np.array(ON_GRID + [OFF, np.nan]), N)
    assert mask.tolist() == [False] * len(ON_GRID) + [True, False]


@pytest.mark.parametrize("decimals", [4, 5, 8])
def test_rounded_or_truncated_grid_scores_pass(decimals):
    k = np.arange(150, 190)
    n = 200 if decimals == 4 else 997
    for how in (np.round, np.floor):
        scores = how(k / n * 10 ** decimals) / 10 ** decimals
        assert not off_the_grid(scores, n).any(), (how, decimals)


def test_a_size_that_is_not_the_boards_flags_nothing():
    """The same scores at 26, 28 or 54 * 0.5 rounded another way: most miss that grid, so the
    size is taken as approximate and no entry is named."""
    scores = np.array(ON_GRID + [OFF])
    for n in (26, 28, 100, 5000):
        assert not off_the_grid(scores, n).any(), n


def test_grid_finer_than_the_printed_digits_checks_nothing():
    scores = np.round(np.random.default_rng(0).uniform(0.8, 0.9, 50), 5)
    assert not off_the_grid(scores, 200_000).any()   # 1/200,000 < one printed unit


def test_reason_names_the_nearest_counts():
    scores = np.array(ON_GRID + [OFF])
    mask, why = impossible_scores(get_metric("accuracy"), scores, N, np.full(scores.size, 0.1),
                                  np.full(scores.size, 0.99))
    assert mask.tolist() == [False] * len(ON_GRID) + [True]
    assert "not a whole number of rows out of 27" in why[0] and "10/27" in why[0], why
    # an error rate is a count of rows too
    mask, _ = impossible_scores(get_metric("zero_one_loss"), np.round(1 - scores, 5), N,
                                np.full(scores.size, 0.01), np.full(scores.size, 0.9))
    assert mask.tolist() == [False] * len(ON_GRID) + [True]
    # another metric on the same numbers has no granularity to check
    mask, _ = impossible_scores(get_metric("auc"), scores, N, scores - 0.1, scores + 0.1)
    assert not mask.any()


def test_board_names_the_off_grid_entry_without_interval():
    """Through the whole analysis: 12 teams scored on 197 rows (k/197, 5 decimals) and one at
    0.80123; the JSON flags name it as impossible_score, it has no interval, every other entry
    has one that holds its score."""
    scores = [round(k / 197, 5) for k in range(150, 174, 2)] + [0.80123]
    board = pd.DataFrame({"team": [f"t{i}" for i in range(len(scores))], "score": scores})
    result = leaderboard.analyze(board, metric="accuracy", n_test=197, draws=200,
                                 replicates=200)
    out = json.loads(result.to_json())
    flagged = [f for f in out["flags"] if f["kind"] == "impossible_score"]
    assert [f["teams"] for f in flagged] == [[f"t{len(scores) - 1}"]], out["flags"]
    assert "out of 197" in flagged[0]["message"]
    for e in out["entries"]:
        if e["team"] == f"t{len(scores) - 1}":
            assert e["ci_low"] is None
        else:
            assert e["ci_low"] <= e["score"] <= e["ci_high"], e


def _accuracy_boards(shared_data):
    index = pd.read_csv(shared_data / "mle_dojo_leaderboards" / "_index.csv")
    names = index.loc[index["sklearn_imports"].fillna("").str.contains("accuracy"), "competition"]
    for name in names:
        for split in ("public", "private"):
            path = shared_data / "mle_dojo_leaderboards" / f"{name}__{split}_leaderboard.csv"
            yield f"{name} {split}", pd.read_csv(path)["score"].to_numpy(dtype=float)
    mlcontest = pd.read_csv(shared_data / "kaggle_public_private" / "mlcontest__public_private.csv")
    for split in ("public", "private"):
        yield f"mlcontest {split}", mlcontest[f"{split}_score"].to_numpy(dtype=float)


def test_real_accuracy_boards_are_never_flagged(shared_data):
    """Every accuracy board in ../shared/data at sizes that are theirs (mlcontest: 26 public and
    27 private rows, as its scores show; spaceship-titanic: 4,277, its test set) and at sizes
    that are guesses: no entry named. The arming rule is what keeps guesses quiet: at the real
    sizes it is armed and finds every score on the grid."""
    real = {"mlcontest public": 26, "mlcontest private": 27, "spaceship-titanic public": 4277,
            "spaceship-titanic private": 4277}
    seen = 0
    for name, scores in _accuracy_boards(shared_data):
        for n in (real.get(name), 54, 418, 1000, 5000, 12500):
            if n is not None:
                assert not off_the_grid(scores, n).any(), (name, n)
        seen += 1
    assert seen == 26
