"""Simulate a metric's sampling noise on a grid of true scores, shared by every entry.

Simulating each of thousands of entries separately would repeat the same work: the noise depends on
the true score only through a smooth curve. So the universe is simulated at a grid of true scores
spanning the leaderboard (plus a margin for the intervals to invert into) and at the leader's score
exactly; every entry's interval, standard deviation and d95 are interpolated from the grid.
"""
from __future__ import annotations

import numpy as np

from leaderboard.metrics import Metric
from leaderboard.noise.d95 import pairwise_abs_diff_quantile
from leaderboard.noise.model import NoiseModel, ScoreDistribution
from leaderboard.noise.rng import BLOCK
from leaderboard.noise.universes import UniverseOptions, get_universe

MAX_LEVELS = 41
MIN_LEVELS = 9
MARGIN_SDS = 5.0  # the grid reaches this many standard deviations past the extreme scores


def grid_levels(scores: np.ndarray, leader_score: float, sd_at, lower: float,
                upper: float) -> np.ndarray:
    """True-score levels to simulate: evenly spaced over the scores +- a margin, plus the leader.

    The spacing aims at half a standard deviation (linear interpolation of the smooth quantile curves
    is then far more accurate than the Monte Carlo error), between ``MIN_LEVELS`` and ``MAX_LEVELS``.
    """
    lo = min(max(float(np.min(scores)), lower), upper)
    hi = max(min(float(np.max(scores)), upper), lower)
    probe = np.linspace(lo, hi, 5)
    sds = np.asarray(sd_at(probe), dtype=float)
    lo = max(lower, lo - MARGIN_SDS * sds.max())
    hi = min(upper, hi + MARGIN_SDS * sds.max())
    smallest_sd = max(sds.min(), 1e-12)
    count = int(np.clip(np.ceil((hi - lo) / (0.5 * smallest_sd)) + 1, MIN_LEVELS, MAX_LEVELS))
    return np.unique(np.append(np.linspace(lo, hi, count), leader_score))


def build_noise_model(metric: Metric, scores: np.ndarray, *, leader_score: float, n_test: int,
                      prevalence: float | None, draws: int = 2000, seed: int = 0,
                      alpha: float = 0.05, options: UniverseOptions = UniverseOptions(),
                      progress=None) -> NoiseModel:
    """Simulate the sampling noise of ``metric`` for a test set, at every score the board needs.

    Parameters
    ----------
    metric : Metric
        Any metric that :func:`~leaderboard.noise.universes.get_universe` can simulate.
    scores : array of float
        The leaderboard's observed scores (any order).
    leader_score : float
        The top entry's score: its distribution is kept whole for the report, and the headline d95
        is taken there.
    n_test : int
        Rows in the test set that ranks the board.
    prevalence : float or None
        Share of positives in that test set (needed by AUC).
    draws : int
        Simulated test sets per level.
    seed : int
        Seed of the random test sets; the same seed gives the same numbers.
    alpha : float
        The intervals have coverage ``1 - alpha``.
    options : UniverseOptions
        Which universe, and its shape (class shares, residuals, threshold).
    progress : Progress, optional

    Returns
    -------
    NoiseModel

    Examples
    --------
    The seeds' headline: at a true AUC of 0.8 on 1000 rows with 1% positives, two equally good models
    land more than about 0.10 apart one time in twenty.

    >>> from leaderboard.metrics import get_metric
    >>> model = build_noise_model(get_metric("auc"), np.array([0.8]), leader_score=0.8,
    ...                           n_test=1000, prevalence=0.01, draws=2000, seed=1)
    >>> 0.09 < model.leader.d95 < 0.115
    True

    The interval inverts the simulated distribution, so it covers the true score about 95% of the
    time when the universe is right. Checked here by drawing observed scores from the universe itself:

    >>> truth = 0.8
    >>> observed = model.leader.draws[::10]          # 200 observed AUCs of a model whose truth is 0.8
    >>> wide = build_noise_model(get_metric("auc"), observed, leader_score=observed.max(),
    ...                          n_test=1000, prevalence=0.01, draws=2000, seed=2)
    >>> low, high = wide.interval(observed)
    >>> coverage = np.mean((low <= truth) & (truth <= high))

    Allow three binomial standard errors of the coverage estimate, plus three Monte Carlo errors of
    the two simulated 2.5% tails (each from 2000 draws):

    >>> tolerance = 3 * np.sqrt(0.95 * 0.05 / observed.size) + 3 * 2 * np.sqrt(0.025 * 0.975 / 2000)
    >>> bool(abs(coverage - 0.95) < tolerance)
    True
    """
    universe = get_universe(metric, n_test, prevalence, options)
    low_end, high_end = universe.reachable()
    levels = grid_levels(np.asarray(scores, dtype=float), leader_score,
                         lambda at: _sd_guess(universe, at, n_test, prevalence, seed),
                         max(metric.lower_bound, low_end), min(metric.upper_bound, high_end))
    simulated = np.sort(universe.simulate(levels, n_test, prevalence, draws, seed, progress), axis=1)
    # NaN draws (a metric undefined on that test set) sort last and are left out
    lower, upper = np.nanquantile(simulated, [alpha / 2, 1 - alpha / 2], axis=1)
    sd = np.nanstd(simulated, axis=1, ddof=1)
    d95 = np.array([pairwise_abs_diff_quantile(row[np.isfinite(row)], 0.95) for row in simulated])
    at_leader = int(np.flatnonzero(levels == leader_score)[0])
    leader = ScoreDistribution.from_draws(leader_score, simulated[at_leader],
                                          universe.exact_sd(leader_score, n_test, prevalence))
    method = (f"Monte Carlo: {draws} simulated test sets at each of {levels.size} true-score levels "
              f"from {levels[0]:.4g} to {levels[-1]:.4g}, the same test sets at every level; each "
              "entry's values are interpolated linearly between levels, and the leader's level is "
              "simulated exactly.")
    return NoiseModel(metric=metric.name, universe=universe.name,
                      assumptions=universe.assumptions(n_test, prevalence), method=method,
                      n_test=n_test, prevalence=prevalence, draws=draws, seed=seed, alpha=alpha,
                      levels=levels, lower=lower, upper=upper, sd=sd, d95=d95, leader=leader)


def _sd_guess(universe, scores: np.ndarray, n_test: int, prevalence: float | None,
              seed: int) -> np.ndarray:
    """Standard deviation of the observed score at ``scores``, only to space the grid: exact where
    the universe knows it, else from a small pilot simulation."""
    exact = [universe.exact_sd(float(s), n_test, prevalence) for s in scores]
    if all(sd is not None for sd in exact):
        return np.array(exact, dtype=float)
    pilot = universe.simulate(np.asarray(scores, dtype=float), n_test, prevalence, 4 * BLOCK, seed)
    return np.nanstd(pilot, axis=1, ddof=1)
