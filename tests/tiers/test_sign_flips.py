"""The sign-flip family and the self-check at the board's shape (issue 39).

Known truth: on null boards (every model equally good) any pair declared different is a false
claim. Many models on few items is where the paired bootstrap's max-t fails; the sign flips' level
is exact there. Tolerances are Monte Carlo errors of the counts drawn.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from leaderboard.noise.bootstrap import paired_bootstrap
from leaderboard.metrics import get_metric, items_metric
from leaderboard.noise.weights import resampling
from leaderboard.tiers.bootstrap_check import check_bootstrap
from leaderboard.tiers.guarantee_check import GuaranteeCheck, check_sign_flips
from leaderboard.tiers.rank_sets import rank_confidence_sets
from leaderboard.tiers.ranking import rank_board
from leaderboard.tiers.replicates import RankReplicates
from leaderboard.tiers.sign_flips import flip_means, sign_flip_replicates, unit_totals

MODELS, ITEMS, BOARDS = 30, 10, 120


def _null_board(rng, models=MODELS, items=ITEMS):
    """Continuous values with an item difficulty shared by every model, every model equal."""
    x = rng.normal(0, 1, items) + 0.5 * rng.standard_normal((models, items))
    return x[np.argsort(-x.mean(axis=1), kind="stable")]


def test_sign_flips_keep_the_family_wise_error_where_the_bootstrap_loses_it():
    """30 models on 10 items: the bootstrap's max-t declared some pair different on most null
    boards (the issue's 90 x 10 measured 100%); the sign flips at most alpha + 3 MC SE."""
    rng = np.random.default_rng(39)
    flips = boot = 0
    mean = items_metric("mean")[0].impl
    for b in range(BOARDS):
        x = _null_board(rng)
        tests = sign_flip_replicates(x, True, replicates=100, seed=b)
        flips += bool((rank_confidence_sets(tests).low > 1).any())
        if b < 40:   # the bootstrap fails so clearly that 40 boards show it
            r = paired_bootstrap(mean, np.zeros(ITEMS), list(x), replicates=200, seed=b)
            reps = RankReplicates.from_bootstrap(r.point, r.replicates, True)
            boot += bool((rank_confidence_sets(reps).low > 1).any())
    assert flips / BOARDS <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / BOARDS)
    assert boot / 40 >= 0.5


def test_flip_draws_are_the_sum_of_signed_unit_totals_with_the_identity_first():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(4, 9))
    groups = np.array([0, 0, 1, 1, 1, 2, 3, 3, 4])
    totals = unit_totals(x, groups)
    assert totals.shape == (4, 5) and np.allclose(totals.sum(axis=1), x.sum(axis=1))
    f = flip_means(totals, 9, 70, seed=3)
    assert np.allclose(f[:, 0], x.mean(axis=1))               # draw 0: no flip
    # a prefix of more draws (blocks of 32 by seed), and each entry on its own
    assert np.array_equal(flip_means(totals, 9, 40, seed=3), f[:, :40])
    assert np.array_equal(flip_means(totals[2:], 9, 70, seed=3), f[2:])
    # every draw is +-1 per cluster: |F| is bounded by the mean of |totals|
    assert np.all(np.abs(f) <= np.abs(totals).sum(axis=1, keepdims=True) / 9 + 1e-12)


def test_rank_board_reads_the_flips_for_the_family_and_the_bootstrap_for_the_rest():
    rng = np.random.default_rng(2)
    x = rng.normal(0, 1, 40) + np.array([[1.0], [0.0], [0.0], [-1.0]]) + rng.normal(
        0, 0.3, (4, 40))
    x = x[np.argsort(-x.mean(axis=1))]
    w = rng.multinomial(40, np.full(40, 1 / 40), size=300)
    boot = RankReplicates.from_bootstrap(x.mean(axis=1), x @ w.T / 40, True)
    tests = sign_flip_replicates(x, True, replicates=300, seed=0)
    r = rank_board(boot, tests=tests)
    assert r.family == "sign-flip" and r.description.test.endswith("(exact)")
    assert r.tiers.tier.tolist() == [1, 2, 2, 3]
    assert r.replicates is boot and r.probabilities.p_best[0] > 0.9
    with pytest.raises(ValueError, match="null draws"):
        rank_board(tests)
    with pytest.raises(ValueError, match="rank order"):
        sign_flip_replicates(x[::-1], True, replicates=50)


def test_the_self_check_counts_null_boards_and_says_when_the_promise_falls_short():
    rng = np.random.default_rng(4)
    x = rng.normal(0, 1, 12) + rng.normal(0, 0.5, (25, 12))
    c = check_sign_flips(x, 12, 0.05, boards=60, seed=1)
    assert c.ran and c.boards == 60 and c.rejected <= 9 and not c.falls_short
    assert c == check_sign_flips(x, 12, 0.05, boards=60, seed=1)         # seeded
    assert c.to_json()["measured_error"] == pytest.approx(c.rejected / 60)
    short = GuaranteeCheck("bootstrap", 90, 10, "item", 200, 100, 40, 0.05)
    assert short.falls_short and "falls short" in short.sentence()
    assert not GuaranteeCheck("sign-flip", 90, 10, "item", 200, 100, 17, 0.05).falls_short
    big = check_sign_flips(np.zeros((3000, 20)), 20, 0.05)
    assert not big.ran and "seconds" in big.reason and big.to_json()["measured_error"] is None


def test_the_bootstraps_check_scores_null_boards_with_the_metric():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 400)
    preds = y + rng.normal(0, 1.2, (5, 400))
    c = check_bootstrap(preds, y, get_metric("auc"), resampling(y, "plain"), 0.05, boards=40)
    assert c.family == "bootstrap" and c.boards == 40 and c.rejected <= 8
