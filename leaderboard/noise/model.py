"""Results of the noise stage: how far an observed score wanders from the true one by chance."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from leaderboard.noise.d95 import pairwise_abs_diff_ecdf, pairwise_abs_diff_quantile


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
                   d95=pairwise_abs_diff_quantile(finite, 0.95),
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
        ``1 - alpha``, up to Monte Carlo and interpolation error. Observed scores beyond the grid are
        clipped to its ends.
        """
        observed = np.asarray(observed, dtype=float)
        # lower(t) and upper(t) rise with t, so they invert by interpolation.
        low = np.interp(observed, _monotone(self.upper), self.levels)
        high = np.interp(observed, _monotone(self.lower), self.levels)
        return low, high


def _monotone(values: np.ndarray) -> np.ndarray:
    """Running maximum: guards the inversion against Monte Carlo wiggles in a quantile curve."""
    return np.maximum.accumulate(np.asarray(values, dtype=float))
