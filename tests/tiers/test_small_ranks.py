"""A small board's ranks stage and post-mortem in numpy give the compiled kernels' bits (issue 41:
so that a first run on a small board compiles nothing)."""
from __future__ import annotations

import numpy as np
import pytest

from leaderboard.shakeup.observed import board_ranks, board_taus, tau_b_rows, xy_orders
from leaderboard.tiers import small_ranks
from leaderboard.tiers.replicates import RankReplicates
from leaderboard.tiers.stability import stability
from leaderboard.tiers.winners_curse import winners_curse


def _board(n, seed):
    """Scores rounded so that many tie; a third of the SDs zero (errors exactly 0)."""
    rng = np.random.default_rng(seed)
    point = np.sort(np.round(rng.normal(0.8, 0.02, n), 2))[::-1]
    sd = rng.uniform(0.005, 0.02, n)
    sd[rng.random(n) < 0.3] = 0.0
    return point, sd


def _both(monkeypatch, fn):
    """``fn()`` on the numpy paths, then on the kernels (every board counted as large)."""
    small = fn()
    with monkeypatch.context() as m:
        m.setattr(small_ranks, "SMALL", 0)
        large = fn()
    return small, large


@pytest.mark.parametrize("n, rho", [(1, 0.0), (2, 0.5), (9, 0.0), (40, 0.5)])
def test_ranks_stage_same_bits_as_the_kernels(monkeypatch, n, rho):
    point, sd = _board(n, n)
    reps, kernel_reps = _both(monkeypatch, lambda: RankReplicates.normal(
        point, sd, rho, True, replicates=300, seed=n))
    assert reps.errors.tobytes() == kernel_reps.errors.tobytes()
    (st, curse), (st_k, curse_k) = _both(monkeypatch, lambda: (
        stability(reps, (1, min(3, n)), min(20, n)), winners_curse(reps)))
    assert curse == curse_k
    np.testing.assert_array_equal(st.taus, st_k.taus)
    np.testing.assert_array_equal(st.frequencies, st_k.frequencies)
    for field in ("p_best", "median_rank", "rank_percentiles"):
        np.testing.assert_array_equal(getattr(st.probabilities, field),
                                      getattr(st_k.probabilities, field))
    for k in st.probabilities.p_top:
        np.testing.assert_array_equal(st.probabilities.p_top[k], st_k.probabilities.p_top[k])
    if n > 2:   # ties in the scores and zero errors: tau-b's tie terms are exercised
        assert np.isfinite(st.taus).all() and (st.taus < 1).any()


def test_selected_error_of_tied_worlds_is_the_kernels_average(monkeypatch):
    # three entries tied at the top with zero errors, a fourth noisy one below: world scores tie
    point, sd = np.array([1.0, 1.0, 1.0, 0.99]), np.array([0.0, 0.0, 0.0, 0.01])
    reps = RankReplicates.normal(point, sd, 0.0, True, replicates=64, seed=3)
    small, large = _both(monkeypatch, lambda: winners_curse(reps))
    assert small == large and small.plain_bias != 0.0   # the fourth is selected sometimes


def test_board_taus_match_the_kernel_and_scipy():
    from scipy.stats import kendalltau
    rng = np.random.default_rng(5)
    x = np.round(rng.normal(size=(25, 30)), 1)
    y = np.round(x + rng.normal(size=(25, 30)), 1)
    y[0] = 1.0                                   # all tied: undefined
    mx, _, order = board_ranks(x)
    my, _, _ = board_ranks(y)
    taus = board_taus(mx, my, order)
    kernel = np.empty(25)
    tau_b_rows(mx, my, xy_orders(mx, my, order), kernel)
    np.testing.assert_array_equal(taus, kernel)
    assert np.isnan(taus[0])
    for r in range(1, 25):
        assert taus[r] == pytest.approx(kendalltau(x[r], y[r]).statistic, abs=1e-12)


def test_min_ranks_count_strictly_better_scores():
    scores = np.array([[0.5, 0.9, 0.5, -0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0]])
    assert small_ranks.min_ranks(scores).tolist() == [[2, 1, 2, 4, 4], [1, 1, 1, 1, 1]]
