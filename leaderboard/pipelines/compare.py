"""Is the candidate better than the baseline? A paired bootstrap test, for a CI gate.

Both entries are scored on the same resampled test rows (or items), so the noise they share
cancels in their difference. The gate is a one-sided test at level ``alpha`` of "the candidate
is not better": the candidate is *shown better* when the ``alpha`` quantile of the bootstrap
differences (oriented so that positive means better) is above zero, i.e. when the one-sided
``1 - alpha`` lower confidence bound of the true difference is positive.

Guarantee: the percentile bootstrap's one-sided level is ``alpha`` asymptotically (many test
rows); with two equally good models the gate passes in about ``alpha`` of test sets (measured by
simulation in the tests, within Monte Carlo error), and the bootstrap SD of an AUC difference
matches DeLong's. Identical predictions give a difference of exactly zero on every replicate and
never pass.

With few clusters (``resample="grouped"``, fewer than 30 clusters or one holding a quarter of the
items or more) the cluster bootstrap is too narrow; the bound and interval then use a t reference
with ``G - 1`` degrees of freedom (:mod:`leaderboard.noise.clusters`), measured to keep the level
at alpha with 6 to 20 clusters (tests/noise/test_clusters.py).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from leaderboard.metrics import Metric
from leaderboard.errors import InputError
from leaderboard.noise.bootstrap import paired_bootstrap, too_few_units
from leaderboard.noise.clusters import ClusterCount, cluster_count


@dataclass(frozen=True)
class Comparison:
    """The paired difference, candidate minus baseline, positive when the candidate is better.

    Attributes
    ----------
    baseline, candidate : float
        Each entry's score on the test rows.
    difference : float
        ``candidate - baseline`` oriented by the metric's direction (positive: better).
    lower : float
        One-sided ``1 - alpha`` lower confidence bound of the true difference (the gate).
    low, high : float
        Two-sided ``1 - alpha`` percentile interval of the true difference.
    sd : float
        Bootstrap standard error of the difference.
    p_value : float
        Share of replicates in which the candidate is not better (an approximate one-sided
        p-value, at least ``1 / replicates``).
    better : bool
        Whether the candidate is shown better at level ``alpha`` (``lower > 0``).
    alpha : float
    replicates : int
    identical : bool
        The two predictions are identical on every row.
    clusters : ClusterCount or None
        Resampling whole clusters: how many (few clusters: the t-corrected bound was used).
    """

    baseline: float
    candidate: float
    difference: float
    lower: float
    low: float
    high: float
    sd: float
    p_value: float
    better: bool
    alpha: float
    replicates: int
    identical: bool
    clusters: ClusterCount | None = None


def compare_pair(metric: Metric, y_true: np.ndarray, baseline: np.ndarray,
                 candidate: np.ndarray, *, alpha: float = 0.05, replicates: int = 2000,
                 seed: int = 0, resample: str = "plain", groups: np.ndarray | None = None,
                 higher_is_better: bool | None = None, unit: str = "test row") -> Comparison:
    """Paired bootstrap test of "the candidate is better than the baseline".

    Refused (:class:`~leaderboard.errors.InputError`, naming the minimum) with fewer than
    :data:`~leaderboard.noise.bootstrap.MIN_UNITS` rows or clusters: there the bootstrap's
    interval collapses (2 items: [-1, -1]) and the gate would pass on nothing.

    Parameters
    ----------
    metric : Metric
    y_true : ndarray
        The truth, one row per test row (ignored by ``mean``).
    baseline, candidate : ndarray
        Predictions aligned with ``y_true``.
    alpha : float
        Level of the one-sided test (default 0.05).
    replicates, seed, resample, groups
        As :func:`~leaderboard.noise.bootstrap.paired_bootstrap`.
    unit : str
        What a row is, for the refusal's words (``"item"`` for per-item results).
    higher_is_better : bool, optional
        Overrides the metric's direction.

    Examples
    --------
    The gate's level, by simulation: two equally accurate classifiers on 150 test sets of 400
    rows; the gate should pass in about 5% of them (Monte Carlo SE about 1.8 points).

    >>> import numpy as np
    >>> from leaderboard.metrics import get_metric
    >>> rng = np.random.default_rng(0)
    >>> passed = 0
    >>> for k in range(150):
    ...     y = rng.integers(0, 2, 400)
    ...     a = np.where(rng.random(400) < 0.8, y, 1 - y)
    ...     b = np.where(rng.random(400) < 0.8, y, 1 - y)
    ...     passed += compare_pair(get_metric("accuracy"), y, a, b, replicates=400, seed=k).better
    >>> passed / 150 < 0.05 + 3 * 0.018
    True
    """
    higher = metric.higher_is_better if higher_is_better is None else higher_is_better
    sign = 1.0 if higher else -1.0
    grouped = resample == "grouped" and groups is not None
    few = too_few_units(len(np.unique(groups)) if grouped else len(np.asarray(baseline)),
                        "cluster" if grouped else unit)
    if few:   # a gate from 2 items would say [-1, -1]: certainty from nothing
        raise InputError(few)
    boot = paired_bootstrap(metric.impl, y_true, [baseline, candidate], replicates=replicates,
                            seed=seed, resample=resample, groups=groups)
    diffs = sign * (boot.replicates[1] - boot.replicates[0])
    diffs = diffs[np.isfinite(diffs)]
    identical = bool(np.array_equal(np.asarray(baseline), np.asarray(candidate)))
    point = float(sign * (boot.point[1] - boot.point[0]))
    clusters = cluster_count(groups) if boot.resample == "grouped" else None
    if identical or diffs.size == 0:
        lower = low = high = point
        sd, p_value = 0.0, 1.0
    else:
        one, two = ((1.0, 1.0) if clusters is None
                    else (clusters.factor(alpha, sides=1), clusters.factor(alpha)))
        lower = point + one * (float(np.quantile(diffs, alpha)) - point)
        low, high = (point + two * (float(q) - point)
                     for q in np.quantile(diffs, [alpha / 2, 1 - alpha / 2]))
        sd = float(diffs.std(ddof=1)) * (1.0 if one == 1.0 else np.sqrt(
            clusters.clusters / (clusters.clusters - 1)))
        p_value = max(float((point + one * (diffs - point) <= 0).mean()), 1.0 / diffs.size)
    return Comparison(baseline=float(boot.point[0]), candidate=float(boot.point[1]),
                      difference=point, lower=lower, low=low, high=high, sd=sd,
                      p_value=p_value, better=bool(not identical and lower > 0), alpha=alpha,
                      replicates=int(diffs.size), identical=identical, clusters=clusters)
