"""Test sets of millions to a billion rows (issue 43): above MULTINOMIAL_ROWS a simulated test set's
counts are one multinomial draw (exact, no scaling law), so --n-test 1e9 takes seconds, not hours.
The study against the direct draws at 4 and 16 times the threshold: benchmarks/study_large_tests.py
(numbers in docs/large-test-sets.md)."""
from __future__ import annotations

from unittest import mock

import numpy as np

from leaderboard.metrics import get_metric
from leaderboard.noise import rng as rng_module
from leaderboard.noise.rng import BLOCK, MULTINOMIAL_ROWS, draw_rows
from leaderboard.noise.universes import UniverseOptions, get_universe
from leaderboard.noise.universes import regression

BILLION = 10**9


def test_counts_above_the_threshold_are_one_multinomial_and_below_unchanged():
    """Above the threshold: the block is numpy's multinomial from the block's generator, bit for
    bit; at the threshold and below: the counted uniform picks as before (threshold lowered so
    that the picks are cheap)."""
    uniform = np.full(50, 1 / 50)
    above = draw_rows(np.random.default_rng(3), MULTINOMIAL_ROWS + 1, 50)
    expected = np.random.default_rng(3).multinomial(MULTINOMIAL_ROWS + 1, uniform, size=BLOCK)
    np.testing.assert_array_equal(above, expected)
    with mock.patch.object(rng_module, "MULTINOMIAL_ROWS", 5000):
        at = draw_rows(np.random.default_rng(3), 5000, 50)
        picks = np.random.default_rng(3).integers(0, 50, size=(BLOCK, 5000))
        np.testing.assert_array_equal(at, [np.bincount(p, minlength=50) for p in picks])
        np.testing.assert_array_equal(draw_rows(np.random.default_rng(3), 5001, 50),
                                      np.random.default_rng(3).multinomial(5001, uniform,
                                                                           size=BLOCK))


def test_auc_at_a_billion_rows_has_the_exact_sd():
    """AUC (binormal, 10% positives) on test sets of 10^9 rows: the multinomial path is taken and
    the simulated SD matches the U-statistic's exact SD within three Monte Carlo SEs of a sample
    SD (near-normal draws: SE = sd / sqrt(2 (draws - 1)))."""
    universe = get_universe(get_metric("auc"), BILLION, 0.1, UniverseOptions())
    draws = 256
    with mock.patch.object(rng_module, "multinomial_rows",
                           wraps=rng_module.multinomial_rows) as spy:
        out = universe.simulate(np.array([0.8]), BILLION, 0.1, draws, seed=0)[0]
    assert spy.call_count == 2 * draws // BLOCK   # negatives and positives of every block
    assert {call.args[1] for call in spy.call_args_list} == {BILLION // 10, BILLION - BILLION // 10}
    exact = universe.exact_sd(0.8, BILLION, 0.1)
    sd = np.std(out, ddof=1)
    assert abs(sd - exact) < 3 * exact / np.sqrt(2 * (draws - 1)), (sd, exact)
    assert abs(out.mean() - 0.8) < 3 * exact / np.sqrt(draws)


def test_regression_rows_drawn_with_their_probabilities_at_a_billion_rows():
    """The residual universe's rows are not equally likely (deep tails): its multinomial takes
    their probabilities. MSE under normal residuals: simulated SD against the exact SD of a row
    mean (the draws of a squared normal's mean are near normal at this size)."""
    universe = get_universe(get_metric("mse"), BILLION, None, UniverseOptions(residuals="normal"))
    draws = 128
    with mock.patch.object(regression, "multinomial_rows",
                           wraps=regression.multinomial_rows) as spy:
        out = universe.simulate(np.array([1.0]), BILLION, None, draws, seed=0)[0]
    assert spy.call_count == draws // BLOCK
    assert spy.call_args.args[2] is universe.row_weights
    # those probabilities are the picks' own (regression._pick): 1/ROWS a cell, an extreme cell
    # split by its pieces' cumulative probabilities (deepest first low, last high)
    tail, weights = universe._tail, universe.row_weights
    assert tail > 1
    pieces = np.diff(universe._tail_cdf, prepend=0.0) / regression.ROWS
    np.testing.assert_allclose(weights[:tail], pieces, rtol=1e-12)
    np.testing.assert_allclose(weights[-tail:], pieces[::-1], rtol=1e-12)
    np.testing.assert_allclose(weights[tail:-tail], 1 / regression.ROWS, rtol=1e-12)
    exact = universe.exact_sd(1.0, BILLION, None)
    sd = np.std(out, ddof=1)
    assert abs(sd - exact) < 3 * exact / np.sqrt(2 * (draws - 1)), (sd, exact)


def test_simulate_a_billion_rows_records_the_size():
    """``leaderboard simulate --n-test 1e9`` (its pipeline) runs in seconds, on the multinomial
    path (spied), and its case is the test set's own size, not a smaller one scaled."""
    from leaderboard.pipelines.simulate import run_experiment
    with mock.patch.object(regression, "multinomial_rows",
                           wraps=regression.multinomial_rows) as spy:
        experiment = run_experiment(get_metric("rmse"), [1.0], [BILLION], [None], draws=100)
    assert spy.call_count == 4 and all(call.args[1] == BILLION for call in spy.call_args_list)
    case = experiment.cases[0]
    assert case.n_test == BILLION and case.draws.size == 100 and 0.99 < case.mean < 1.01


def test_scores_board_noise_at_a_billion_rows():
    """A scores board's noise model (what ``analyze`` builds) at 10^9 rows: multinomial test sets,
    the model records the board's own size, and the leader's simulated SD is the exact one
    within three Monte Carlo SEs."""
    from leaderboard.noise.grid import build_noise_model
    draws = 256
    with mock.patch.object(rng_module, "multinomial_rows",
                           wraps=rng_module.multinomial_rows) as spy:
        model = build_noise_model.__wrapped__(get_metric("auc"), np.array([0.79, 0.8]),
                                              leader_score=0.8, n_test=BILLION, prevalence=0.1,
                                              draws=draws, seed=0)
    assert spy.called and all(call.args[1] >= BILLION // 10 for call in spy.call_args_list)
    assert model.n_test == BILLION
    exact = model.leader.exact_sd
    assert abs(model.leader.sd - exact) < 3 * exact / np.sqrt(2 * (draws - 1))
