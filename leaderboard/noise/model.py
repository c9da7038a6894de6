"""Results of the noise stage: how far an observed score wanders from the true one by chance."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri   # norm.isf(q) is -ndtri(q), bit for bit, without scipy.stats

from leaderboard.noise.d95 import d95_of, pairwise_abs_diff_ecdf


@dataclass(frozen=True)
class ScoreDistribution:
    """Observed scores of one model whose true score is known, over simulated test sets.

    Attributes
    ----------
    true_score : float
        The score on the whole universe.
    draws : ndarray, shape (draws,)
        Observed score on each simulated test set, sorted ascending.
    sd : float
        Standard deviation of ``draws``.
    exact_sd : float or None
        The universe's exact standard deviation of the observed score, where one is known.
    d95 : float
        95th percentile of |difference| over all pairs of draws: two equally good models, each on
        its own test set, land further apart than this only 5% of the time.
    pair_ecdf : tuple of ndarray
        ``(t, F)``: fraction ``F`` of pairs of draws whose |difference| is at most ``t``.
    """

    true_score: float
    draws: np.ndarray
    sd: float
    exact_sd: float | None
    d95: float
    pair_ecdf: tuple[np.ndarray, np.ndarray]

    @classmethod
    def from_draws(cls, true_score: float, draws: np.ndarray,
                   exact_sd: float | None = None) -> ScoreDistribution:
        """Summarise observed scores (any order; NaN draws, where the metric was undefined, are
        left out).

        Examples
        --------
        >>> d = ScoreDistribution.from_draws(0.5, np.array([0.6, np.nan, 0.4, 0.5]))
        >>> d.draws.tolist(), round(d.sd, 3)
        ([0.4, 0.5, 0.6], 0.1)
        """
        draws = np.asarray(draws, dtype=float)
        finite = np.sort(draws[np.isfinite(draws)])
        return cls(true_score=float(true_score), draws=finite, sd=float(finite.std(ddof=1)),
                   exact_sd=None if exact_sd is None else float(exact_sd),
                   d95=d95_of(finite),
                   pair_ecdf=pairwise_abs_diff_ecdf(finite))


@dataclass(frozen=True)
class NoiseModel:
    """Sampling noise of a metric for one test set, over a grid of true scores.

    Attributes
    ----------
    metric : str
        Canonical metric name.
    universe : str
        Short name of the simulated universe (e.g. ``"seeds-linspace"``, ``"binomial"``).
    assumptions : str
        One plain paragraph stating what the universe assumes (printed in the report).
    method : str
        How the per-level distributions were obtained, in words.
    n_test, prevalence, draws, seed, alpha :
        The settings that produced it.
    levels : ndarray, shape (G,)
        True scores simulated, ascending.
    lower, upper : ndarray, shape (G,)
        ``alpha/2`` and ``1-alpha/2`` quantiles of the observed score at each level.
    sd, d95 : ndarray, shape (G,)
        Standard deviation of the observed score and d95 at each level.
    leader : ScoreDistribution
        The full simulated distribution at the leader's observed score (for the report's charts and
        the headline d95).
    leader_at_middle : bool
        True when ``leader`` is at the middle of the leader's interval instead, because the noise
        at its observed score vanishes (:meth:`noise_level`).
    """

    metric: str
    universe: str
    assumptions: str
    method: str
    n_test: int
    prevalence: float | None
    draws: int
    seed: int
    alpha: float
    levels: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    sd: np.ndarray
    d95: np.ndarray
    leader: ScoreDistribution
    leader_at_middle: bool = False

    def sd_at(self, scores: np.ndarray) -> np.ndarray:
        """Standard deviation of the observed score, interpolated at true scores ``scores``."""
        return np.interp(scores, self.levels, self.sd)

    def d95_at(self, scores: np.ndarray) -> np.ndarray:
        """d95 interpolated at true scores ``scores``."""
        return np.interp(scores, self.levels, self.d95)

    def interval(self, observed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Confidence interval for the true score of each observed score, by test inversion.

        The interval holds every true score ``t`` whose central ``1 - alpha`` range of observed
        scores, ``[lower(t), upper(t)]``, contains the observed one (a Neyman construction). If the
        universe describes the test set's sampling, it covers the true score with probability
        ``1 - alpha``, up to Monte Carlo and interpolation error.

        Where a quantile curve is flat at the observed score (a discrete metric, or an edge such
        as a Dice of 0 whose lower quantile stays 0 for small true scores), the bound runs to the
        next level, so the interval errs wide rather than collapsing to a point. An observed
        score that no simulated true score produces (beyond every level's range) gets NaN: the
        universe cannot say what its noise is.

        Examples
        --------
        >>> m = NoiseModel("accuracy", "toy", "", "", 10, None, 100, 0, 0.05,
        ...                levels=np.array([0.0, 0.1, 0.2, 0.3]), lower=np.array([0.0, 0.0, 0.1, 0.2]),
        ...                upper=np.array([0.0, 0.2, 0.3, 0.4]), sd=np.ones(4), d95=np.ones(4),
        ...                leader=None)
        >>> [v.round(3).tolist() for v in m.interval(np.array([0.0, 0.25, 0.9]))]
        [[0.0, 0.15, nan], [0.2, 0.3, nan]]
        """
        observed = np.asarray(observed, dtype=float)
        upper, lower = _monotone(self.upper), _monotone(self.lower)
        # a score a rounding away from the universe's edge (a log loss printed as 0 where the
        # perfect model's clipped loss is 2e-16) is taken at the edge
        slack = 1e-9 * np.maximum(1.0, np.abs(observed))
        observed = np.where((observed < lower[0]) & (observed >= lower[0] - slack), lower[0],
                            observed)
        observed = np.where((observed > upper[-1]) & (observed <= upper[-1] + slack), upper[-1],
                            observed)
        low = _first_reaching(observed, upper, self.levels)
        high = _last_reaching(observed, lower, self.levels)
        bad = ~np.isfinite(low) | ~np.isfinite(high)
        return np.where(bad, np.nan, low), np.where(bad, np.nan, high)

    def interval_sd(self, observed: np.ndarray) -> np.ndarray:
        """The standard deviation a normal error would need to give each observed score's
        interval: its width over ``2 z`` (z the ``1 - alpha/2`` normal quantile).

        Where the noise is smooth around the score this is the simulated SD at it; where the
        noise at the score itself vanishes (a perfect score, a Dice of 0, the log loss of a
        constant prediction) it is not zero, since the true scores the data allow are noisy; and
        where the noise grows fast with the true score it averages the interval's two sides. The
        comparisons between entries use it. NaN where the interval is.
        """
        low, high = self.interval(observed)
        return (high - low) / (2.0 * float(-ndtri(self.alpha / 2)))

    def noise_level(self, observed: np.ndarray) -> np.ndarray:
        """The true score at which each observed score's noise is described (its d95, and the
        leader's histogram): the observed score itself, as the seeds do, unless the noise there
        vanishes (a perfect score, a Dice of 0, the log loss of a constant prediction: the
        simulated SD at the score is under half of what its interval implies), then the middle
        of its interval. NaN where the interval is.

        Examples
        --------
        >>> m = NoiseModel("accuracy", "toy", "", "", 10, None, 100, 0, 0.05,
        ...                levels=np.array([0.0, 0.1, 0.2, 0.3]), lower=np.array([0.0, 0.0, 0.1, 0.2]),
        ...                upper=np.array([0.0, 0.2, 0.3, 0.4]), sd=np.array([0.0, .05, .05, .05]),
        ...                d95=np.ones(4), leader=None)
        >>> m.noise_level(np.array([0.0, 0.2])).tolist()   # at 0 the noise vanishes
        [0.1, 0.2]
        """
        observed = np.asarray(observed, dtype=float)
        low, high = self.interval(observed)
        implied = self.interval_sd(observed)
        vanishing = self.sd_at(observed) < 0.5 * implied
        return np.where(np.isfinite(low), np.where(vanishing, 0.5 * (low + high), observed), np.nan)


def _monotone(values: np.ndarray) -> np.ndarray:
    """Running maximum: guards the inversion against Monte Carlo wiggles in a quantile curve."""
    return np.maximum.accumulate(np.asarray(values, dtype=float))


def _first_reaching(observed: np.ndarray, curve: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """inf{t: curve(t) >= observed} with ``curve`` rising and linear between levels; a curve that
    touches the observed score only at a level (a flat) gives the level below it. NaN if the
    curve never reaches the observed score."""
    i = np.searchsorted(curve, observed, side="left")      # first level with curve >= observed
    out = np.full(observed.shape, np.nan)
    top = i < levels.size
    first = top & (i == 0)
    out[first] = levels[0]
    mid = top & (i > 0)
    j = i[mid]
    c0, c1, t0, t1 = curve[j - 1], curve[j], levels[j - 1], levels[j]
    touch = c1 == observed[mid]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = t0 + (observed[mid] - c0) / (c1 - c0) * (t1 - t0)
    out[mid] = np.where(touch, t0, t)
    return out


def _last_reaching(observed: np.ndarray, curve: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """sup{t: curve(t) <= observed}, the mirror of :func:`_first_reaching`."""
    flipped = _first_reaching(-observed, -curve[::-1], -levels[::-1])
    return -flipped
