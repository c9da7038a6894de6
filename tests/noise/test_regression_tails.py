"""issue 25 item 2: the residual universe holds a t's tail down to 1e-12, so a t(3) universe's
simulated RMSEs have the spread of RMSEs of real t(3) residuals at thousands of rows (the
16,384-quantile grid stopped at 1/32,768: its 95% range held 79% of t(3) boards' RMSEs at 5,000
rows)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from leaderboard.metrics import get_metric
from leaderboard.noise.universes.regression import TAIL_DEPTH, ResidualUniverse


def test_rows_are_probabilities_with_unit_mean_square_and_a_deep_tail():
    u = ResidualUniverse(get_metric("rmse"), "t", 3.0)
    assert u.row_weights.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.dot(u.row_weights, u._residuals ** 2) == pytest.approx(1.0, rel=1e-12)
    assert u.row_weights.min() <= TAIL_DEPTH       # the deepest cell of each tail
    # MAPE keeps the equal-weight grid: exp(sigma e) of a deep t tail would swamp its truth
    assert ResidualUniverse(get_metric("mape"), "t", 3.0).row_weights.min() == 1 / 16384


def test_tail_rows_are_drawn_with_their_probabilities():
    u = ResidualUniverse(get_metric("rmse"), "t", 3.0)
    picks = u._pick(np.random.default_rng(0), 2_000_000)
    tail = u._tail
    for rows in (slice(0, tail), slice(u.y.size - tail, u.y.size)):   # each tail: 1/16,384
        p = u.row_weights[rows].sum()
        hits = np.count_nonzero((picks >= rows.start) & (picks < rows.stop))
        assert abs(hits - p * picks.size) <= 4 * math.sqrt(p * picks.size)


def test_t3_universe_holds_the_rmse_of_t3_residuals_at_5000_rows():
    """Known truth: 1,200 test sets of 5,000 real t(3) residuals (unit variance); the share of
    their RMSEs inside the universe's simulated 2.5-97.5% range (1,000 draws) is 95% within
    4 Monte Carlo SEs (binomial over the test sets, plus each quantile's own error: 4 SEs are
    3.9 points; the old grid's range held 79%)."""
    u = ResidualUniverse(get_metric("rmse"), "t", 3.0)
    simulated = u.simulate(np.array([1.0]), 5000, None, 1000, seed=3)[0]
    low, high = np.quantile(simulated, [0.025, 0.975])
    rng = np.random.default_rng(4)
    rmse = np.concatenate([np.sqrt(np.mean((rng.standard_t(3.0, (400, 5000)) / math.sqrt(3.0))
                                           ** 2, axis=1)) for _ in range(3)])
    cover = np.mean((low <= rmse) & (rmse <= high))
    se = math.sqrt(0.95 * 0.05 / rmse.size + 2 * 0.025 * 0.975 / simulated.size)
    assert abs(cover - 0.95) <= 4 * se, (cover, low, high)


def test_weighted_exact_sd_matches_the_simulation():
    u = ResidualUniverse(get_metric("mae"), "t", 3.0)
    simulated = u.simulate(np.array([1.0]), 1000, None, 2000, seed=5)[0]
    exact = u.exact_sd(1.0, 1000, None)
    # the SD of 2,000 draws of a nearly normal mean: relative SE about 1 / sqrt(2 x 2,000)
    assert np.std(simulated, ddof=1) == pytest.approx(exact, rel=4 / math.sqrt(2 * 2000))
