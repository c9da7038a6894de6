"""Simulate a metric's sampling noise on a grid of true scores, shared by every entry.

Simulating each of thousands of entries separately would repeat the same work: the noise depends on
the true score only through a smooth curve. So the universe is simulated at a grid of true scores
spanning the leaderboard (plus a margin for the intervals to invert into) and at the leader's score
exactly; every entry's interval, standard deviation and d95 are interpolated from the grid.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
from numpy.typing import ArrayLike

from leaderboard.disk_cache import memoize
from leaderboard.errors import InputError
from leaderboard.metrics import Metric
from leaderboard.noise.d95 import d95_of
from leaderboard.noise.model import NoiseModel, ScoreDistribution
from leaderboard.noise.rng import BLOCK
from leaderboard.noise.universes import UniverseOptions, get_universe
from leaderboard.params import DEFAULT_ALPHA, DEFAULT_DRAWS, DEFAULT_SEED


class UnreachableScores(InputError):
    """No score of the board lies where the universe can be calibrated (a board of AUC 0.0):
    the whole board gets no noise model (leaderboard.pipelines.scores names every entry)."""

    def __init__(self, message: str, *, universe: str) -> None:
        super().__init__(message)
        self.universe = universe

MAX_LEVELS = 33
MIN_LEVELS = 9
MARGIN_SDS = 5.0  # the grid reaches this many standard deviations past the extreme scores
QUANTILE_LEVELS = 17  # levels at the scores' quantiles: a junk score far off must not thin the top
EDGE_LEVELS = 16  # levels closing in on a reach end geometrically, where the noise vanishes
EDGE_RATIO = np.sqrt(2.0)


def grid_levels(scores: np.ndarray, leader_score: float, sd_at, lower: float,
                upper: float, breakpoints=()) -> np.ndarray:
    """True-score levels to simulate.

    * evenly spaced over the scores +- a margin, aiming at half a standard deviation (linear
      interpolation of the smooth quantile curves is then far more accurate than the Monte Carlo
      error), between ``MIN_LEVELS`` and ``MAX_LEVELS``;
    * at quantiles of the scores, so that where entries crowd the levels do too (a board whose
      junk entries score 100 times worse than its leaders still resolves its leaders), and one
      to five of their own standard deviations beyond the best and the worst score;
    * closing in geometrically on a reach end (a perfect score, a Dice of 0) when scores sit within
      ``MARGIN_SDS`` standard deviations of it: the noise there changes like a square root, far
      from linearly;
    * at the universe's ``breakpoints`` (where its family of models changes, e.g. no skill) and at
      the leader's score.

    Examples
    --------
    >>> levels = grid_levels(np.array([0.0, 0.4, 0.5]), 0.5, lambda t: np.full(len(t), 0.01),
    ...                      0.0, 1.0)
    >>> bool(levels[0] == 0.0 and 0 < levels[1] < 1e-3 and 0.5 in levels)
    True
    """
    finite = np.clip(np.asarray(scores, dtype=float), lower, upper)
    finite = finite[np.isfinite(finite)]
    lo, hi = float(finite.min()), float(finite.max())
    probe = np.linspace(lo, hi, 5)
    sds = np.asarray(sd_at(probe), dtype=float)
    # (the noise can vanish at the edge itself, so the next probe's SD counts too)
    near_lower = lo - lower < MARGIN_SDS * np.nan_to_num(np.fmax(sds[0], sds[1]), nan=np.inf)
    near_upper = upper - hi < MARGIN_SDS * np.nan_to_num(np.fmax(sds[-1], sds[-2]), nan=np.inf)
    # the extreme scores' intervals reach a few of their own SDs out: levels there, however far
    # the other end of the board is
    steps = np.arange(1, MARGIN_SDS + 1)
    flanks = np.concatenate([lo - steps * np.nan_to_num(sds[0]),
                             hi + steps * np.nan_to_num(sds[-1])])
    flanks = flanks[(flanks > lower) & (flanks < upper)]
    sds = sds[np.isfinite(sds)] if np.isfinite(sds).any() else np.zeros(1)
    lo = max(lower, lo - MARGIN_SDS * sds.max())
    hi = min(upper, hi + MARGIN_SDS * sds.max())
    smallest_sd = max(sds.min(), 1e-12)
    count = int(np.clip(np.ceil((hi - lo) / (0.5 * smallest_sd)) + 1, MIN_LEVELS, MAX_LEVELS))
    even = np.linspace(lo, hi, count)
    crowd = np.quantile(finite, np.linspace(0.0, 1.0, QUANTILE_LEVELS))
    inside = [b for b in breakpoints if lo < b < hi]
    levels = np.unique(np.concatenate([even, crowd, flanks, inside, [leader_score]]))
    gap = float(even[1] - even[0])
    edges = []
    if levels[0] == lower and near_lower:
        edges.append(lower + gap * EDGE_RATIO ** -np.arange(1, EDGE_LEVELS + 1))
    if levels[-1] == upper and near_upper:
        edges.append(upper - gap * EDGE_RATIO ** -np.arange(1, EDGE_LEVELS + 1))
    return np.unique(np.concatenate([levels, *edges]))


# Kept between runs (leaderboard.disk_cache): the model depends on nothing but these arguments
# and the code, all of which are in the key; the progress bar is not.
@memoize("noise", (NoiseModel, ScoreDistribution), ignore=("progress",))
def build_noise_model(metric: Metric, scores: np.ndarray, *, leader_score: float, n_test: int,
                      prevalence: float | None, draws: int = DEFAULT_DRAWS, seed: int = DEFAULT_SEED,
                      alpha: float = DEFAULT_ALPHA, options: UniverseOptions = UniverseOptions(),
                      progress=None, leader_at_noise_level: bool = False) -> NoiseModel:
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
    leader_at_noise_level : bool
        Keep the full distribution (and the headline d95) at :meth:`NoiseModel.noise_level` of the
        leader's score: its observed score unless the noise vanishes there (a perfect or constant
        score), then the middle of its interval. The analysis does, so that a perfect score never
        shows a d95 of zero.

    Returns
    -------
    NoiseModel

    Examples
    --------
    The seeds' headline: at a true AUC of 0.8 on 1000 rows with 1% positives, two equally good models
    land more than about 0.10 apart one time in twenty.

    >>> from leaderboard.metrics import get_metric
    >>> seeds = UniverseOptions(name="linspace")   # the seed articles' universe
    >>> model = build_noise_model(get_metric("auc"), np.array([0.8]), leader_score=0.8,
    ...                           n_test=1000, prevalence=0.01, draws=2000, seed=1, options=seeds)
    >>> 0.09 < model.leader.d95 < 0.115
    True

    The interval inverts the simulated distribution, so it covers the true score about 95% of the
    time when the universe is right. Checked here by drawing observed scores from the universe itself:

    >>> truth = 0.8
    >>> observed = model.leader.draws[::10]          # 200 observed AUCs of a model whose truth is 0.8
    >>> wide = build_noise_model(get_metric("auc"), observed, leader_score=observed.max(),
    ...                          n_test=1000, prevalence=0.01, draws=2000, seed=2, options=seeds)
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
    lower_end, upper_end = max(metric.lower_bound, low_end), min(metric.upper_bound, high_end)
    leader_level = float(np.clip(leader_score, lower_end, upper_end))
    levels = grid_levels(np.asarray(scores, dtype=float), leader_level,
                         lambda at: _sd_guess(universe, at, n_test, prevalence, seed),
                         lower_end, upper_end, getattr(universe, "breakpoints", tuple)())
    levels = _usable(universe, levels)
    if levels.size < 2:
        raise UnreachableScores(f"the {universe.name} universe cannot be calibrated to these "
                                f"scores ({metric.label}); choose another --universe or its "
                                "options", universe=universe.name)

    def summarise(at: np.ndarray, progress=None):
        draws_ = np.sort(universe.simulate(at, n_test, prevalence, draws, seed, progress), axis=1)
        # NaN draws (a metric undefined on that test set) sort last and are left out
        low, high = np.nanquantile(draws_, [alpha / 2, 1 - alpha / 2], axis=1)
        return draws_, low, high, np.nanstd(draws_, axis=1, ddof=1), np.array(
            [d95_of(row[np.isfinite(row)]) for row in draws_])

    simulated, lower, upper, sd, d95 = summarise(levels, progress)
    model = NoiseModel(metric=metric.name, universe=universe.name,
                       assumptions=universe.assumptions(n_test, prevalence), method="",
                       n_test=n_test, prevalence=prevalence, draws=draws, seed=seed, alpha=alpha,
                       levels=levels, lower=lower, upper=upper, sd=sd, d95=d95,
                       # the leader is simulated below, at the level this model places it
                       # (noise_level reads the curves only); replace() fills it in
                       leader=None)  # type: ignore[arg-type]
    where, at_middle = "the leader's score", False
    if leader_at_noise_level:
        level = float(model.noise_level(np.array([leader_score]))[0])
        if np.isfinite(level) and level != leader_score:
            leader_level, at_middle = level, True
            where = "the middle of the leader's interval"
    if leader_level not in levels and _usable(universe, [leader_level]).size == 0:
        leader_level = float(levels[np.argmin(np.abs(levels - leader_level))])   # at a jump
    if leader_level not in levels:   # simulated exactly, and joined to the grid it refines
        extra = summarise(np.array([leader_level]))
        at = int(np.searchsorted(levels, leader_level))
        levels = np.insert(levels, at, leader_level)
        simulated, lower, upper, sd, d95 = (np.insert(a, at, b[0], axis=0)
                                            for a, b in zip((simulated, lower, upper, sd, d95),
                                                            extra))
    at_leader = int(np.flatnonzero(levels == leader_level)[0])
    leader = ScoreDistribution.from_draws(leader_level, simulated[at_leader],
                                          universe.exact_sd(leader_level, n_test, prevalence))
    method = (f"Monte Carlo: {draws} simulated test sets at each of {levels.size} true-score levels "
              f"from {levels[0]:.4g} to {levels[-1]:.4g}, the same test sets at every level; each "
              "entry's values are interpolated linearly between levels, and the level at "
              f"{where} is simulated exactly.")
    return replace(model, method=method, levels=levels, lower=lower, upper=upper, sd=sd, d95=d95,
                   leader=leader, leader_at_middle=at_middle)


def _usable(universe, levels: ArrayLike) -> np.ndarray:
    """The levels the universe can be calibrated to: a label metric's truth can jump past some
    values (nothing predicted positive, then some rows), and those levels are left out rather
    than sinking the whole grid."""
    levels = np.asarray(levels, dtype=float)
    calibrate = getattr(universe, "calibrate", None)
    if calibrate is None:
        return levels
    try:
        calibrate(levels)
        return levels
    except InputError:
        keep = []
        for level in levels:
            try:
                calibrate([level])
                keep.append(level)
            except InputError:
                pass
        return np.array(keep)


def _sd_guess(universe, scores: np.ndarray, n_test: int, prevalence: float | None,
              seed: int) -> np.ndarray:
    """Standard deviation of the observed score at ``scores``, only to space the grid: exact where
    the universe knows it, else from a small pilot simulation; NaN where it cannot be calibrated."""
    scores = np.asarray(scores, dtype=float)
    usable = _usable(universe, scores)
    out = np.full(scores.size, np.nan)
    if usable.size == 0:
        return out
    at = np.isin(scores, usable)
    exact = [universe.exact_sd(float(s), n_test, prevalence) for s in usable]
    if all(sd is not None for sd in exact):
        out[at] = np.interp(scores[at], usable, np.array(exact, dtype=float))
        return out
    pilot = universe.simulate(usable, n_test, prevalence, 4 * BLOCK, seed)
    out[at] = np.interp(scores[at], usable, np.nanstd(pilot, axis=1, ddof=1))
    return out
