"""The paired bootstrap: how much every entry's score moves when the test rows are redrawn.

All entries were scored on the same test rows, so one replicate redraws the rows *once* and scores
every entry on that draw. A replicate is a vector of row weights (multinomial counts: how many times
each row was drawn), and the metric is computed in weighted form (:mod:`leaderboard.metrics.base`),
so a block of replicates is one weight matrix shared by all entries: row-sum metrics become a matrix
product, rank metrics one compiled pass over each entry's sorted rows.

Resampling schemes
------------------
``plain``       n rows drawn with replacement from the n test rows.
``stratified``  rows drawn within each class, so every replicate keeps the test set's class counts
                (the seeds' fixed prevalence); use it when the test set was built stratified.
``grouped``     whole groups (patients, sessions, ...) drawn with replacement, every row of a drawn
                group counted: use it when rows within a group are not independent.
``poisson``     every row's weight an independent Poisson(1) count (the bootstrap for massive
                data): the number of rows drawn varies from replicate to replicate (mean n), and
                any slice of rows can be regenerated alone (:func:`poisson_weights`), which the
                multinomial draw, a joint draw over all rows, does not allow. For a mean both
                give the same variance to first order; for n in the thousands and more the
                intervals agree (the tests compare them with the analytic SE).

Random numbers come in fixed blocks of :data:`~leaderboard.noise.universe.BLOCK` replicates, each
seeded by ``(seed, stream, block)``, so the numbers never depend on ``batch`` or on how entries
are split into passes.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from leaderboard.metrics.base import MetricImpl
from leaderboard.noise.d95 import pairwise_abs_diff_quantile
from leaderboard.noise.model import ScoreDistribution
from leaderboard.noise.rng import BLOCK, block_rng

RESAMPLING = ("plain", "stratified", "grouped", "poisson")
ROW_BLOCK = 1 << 16  # rows per Poisson weight block: part of what a seed means, never change lightly
STREAM = 2  # random stream of the paired bootstrap (the universes use streams 0 and 1)
OTHER_SPLIT_STREAM = 8  # the second split's bootstrap (post-mortems resample public and private rows)
_WEIGHT_BYTES = 64 * 2**20  # memory for one batch of float64 weights
_FEATURE_BYTES = 512 * 2**20  # memory for one pass of prepared entries (rough, 8 bytes per row)


@dataclass(frozen=True)
class BootstrapResult:
    """Point scores and paired bootstrap replicates of every entry.

    Attributes
    ----------
    point : ndarray, shape (E,)
        Each entry's score on the test rows.
    replicates : ndarray, shape (E, R)
        Each entry's score on each replicate; column ``r`` of every entry comes from the same draw of
        rows (paired). NaN where a replicate left the metric undefined (e.g. no positives).
    resample : str
        ``"plain"``, ``"stratified"`` or ``"grouped"``.
    n_rows, n_units : int
        Test rows, and the units resampled (rows, or groups for ``grouped``).
    seed : int
    """

    point: np.ndarray
    replicates: np.ndarray
    resample: str
    n_rows: int
    n_units: int
    seed: int

    @property
    def sd(self) -> np.ndarray:
        """Bootstrap standard error of each entry's score."""
        return np.nanstd(self.replicates, axis=1, ddof=1)

    @property
    def undefined(self) -> np.ndarray:
        """Replicates per entry on which the metric was undefined (NaN)."""
        return np.isnan(self.replicates).sum(axis=1)

    def percentile_interval(self, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
        """Percentile intervals: the ``alpha/2`` and ``1 - alpha/2`` quantiles of the replicates.

        The percentile interval never leaves the metric's range and does not change if the metric is
        transformed monotonically (AUC or Gini, MSE or RMSE give matching intervals). It covers the
        true score with probability close to ``1 - alpha`` when the score's sampling distribution is
        roughly symmetric around it; the tests measure its coverage by simulation with known truth.
        """
        low, high = np.nanquantile(self.replicates, [alpha / 2, 1 - alpha / 2], axis=1)
        return low, high

    def distribution(self, entry: int) -> ScoreDistribution:
        """One entry's replicates as a :class:`ScoreDistribution` (for the report's charts)."""
        return ScoreDistribution.from_draws(self.point[entry], self.replicates[entry])

    def d95(self) -> np.ndarray:
        """Per entry, the seeds' d95 from the replicates: the 95th percentile of |difference| of two
        independent replicates, i.e. of two equally good models each on its own test set."""
        return np.array([pairwise_abs_diff_quantile(np.sort(r[np.isfinite(r)]), 0.95)
                         for r in self.replicates])


@dataclass(frozen=True)
class _Plan:
    """How to draw one block of weights."""

    resample: str
    n_rows: int
    strata: tuple[np.ndarray, ...] = ()   # row indices of each class (stratified)
    group_index: np.ndarray | None = None  # group number of each row (grouped)
    n_groups: int = 0


def _bootstrap_iv(impl, y_true, preds, replicates, resample, strata, groups, batch):
    """Input checks, kept apart from the computation (as scipy.stats.bootstrap does)."""
    if not isinstance(impl, MetricImpl):
        raise TypeError("impl must be a MetricImpl (use Metric.impl)")
    n = len(y_true)
    if n < 2:
        raise ValueError("the paired bootstrap needs at least 2 test rows")
    if len(preds) == 0:
        raise ValueError("no entries to resample")
    for i, pred in enumerate(preds):
        if len(pred) != n:
            raise ValueError(f"entry {i} has {len(pred)} predictions for {n} test rows")
    replicates = int(replicates)
    if replicates < 2:
        raise ValueError(f"replicates must be at least 2, got {replicates}")
    if resample not in RESAMPLING:
        raise ValueError(f"resample must be one of {', '.join(RESAMPLING)}, got {resample!r}")
    if batch is None:
        batch = max(BLOCK, _WEIGHT_BYTES // (8 * n) // BLOCK * BLOCK)
    batch = max(BLOCK, -(-int(batch) // BLOCK) * BLOCK)  # whole blocks only
    return weight_plan(y_true, resample, strata, groups), replicates, batch


def weight_plan(y_true: np.ndarray, resample: str = "plain", strata: np.ndarray | None = None,
                groups: np.ndarray | None = None) -> _Plan:
    """How :func:`paired_bootstrap` draws the weights of ``resample`` for these test rows: with
    :func:`weight_block` and the same seed and stream, code that needs more than the scores (the
    report's curves) scores every replicate on the very same rows."""
    n = len(y_true)
    if resample == "stratified":
        labels = np.asarray(y_true if strata is None else strata)
        if labels.ndim != 1 or len(labels) != n:
            raise ValueError("stratified resampling needs one class label per row")
        _, codes = np.unique(labels, return_inverse=True)
        plan = _Plan("stratified", n, strata=tuple(np.flatnonzero(codes == c)
                                                    for c in range(codes.max() + 1)))
    elif resample == "grouped":
        if groups is None or len(groups) != n:
            raise ValueError("grouped resampling needs one group id per row")
        uniques, index = np.unique(np.asarray(groups), return_inverse=True)
        if uniques.size < 2:
            raise ValueError("grouped resampling needs at least 2 groups")
        plan = _Plan("grouped", n, group_index=index, n_groups=int(uniques.size))
    else:
        plan = _Plan(resample, n)    # plain or poisson: every row on its own
    return plan


def _counts(draws: np.ndarray, size: int) -> np.ndarray:
    """Row-wise counts of the integers in each row of ``draws`` (shape (B, m)) -> (B, size)."""
    offsets = np.arange(draws.shape[0])[:, None] * size
    flat = np.bincount((draws + offsets).ravel(), minlength=draws.shape[0] * size)
    return flat.reshape(draws.shape[0], size)


# P(K <= k) for K ~ Poisson(1), k = 0, 1, ...: inversion of one uniform per weight
_POISSON_CDF = np.cumsum([math.exp(-1.0) / math.factorial(k) for k in range(25)])


def _poisson_one(u: np.ndarray) -> np.ndarray:
    """Poisson(1) counts by inversion of the uniforms ``u`` (exact up to float64): the first
    eight thresholds vectorised (4x faster than ``Generator.poisson``), the rare rest
    (probability 1e-6) by a search of the whole table.

    Examples
    --------
    >>> _poisson_one(np.array([0.1, 0.5, 0.95, 0.9999999])).tolist()
    [0, 1, 3, 10]
    """
    counts = np.zeros(u.shape, dtype=np.int8)
    for threshold in _POISSON_CDF[:8]:
        counts += u > threshold
    tail = u > _POISSON_CDF[7]
    if tail.any():
        counts[tail] = np.searchsorted(_POISSON_CDF, u[tail], side="right")
    return counts


def poisson_weights(seed: int, block: int, rows: slice, n_rows: int,
                    stream: int = STREAM) -> np.ndarray:
    """Poisson(1) weights of the :data:`BLOCK` replicates of block ``block`` on ``rows`` only.

    The weights of rows ``[r * ROW_BLOCK, (r + 1) * ROW_BLOCK)`` come from a generator keyed by
    ``(seed, stream, block, r)``, so a worker that scores a slice of the rows regenerates exactly
    its columns of the full weight matrix, and the numbers never depend on how rows or
    replicates are batched.

    Examples
    --------
    >>> full = poisson_weights(3, 0, slice(0, 200_000), 200_000)
    >>> part = poisson_weights(3, 0, slice(70_000, 70_100), 200_000)
    >>> bool(np.array_equal(full[:, 70_000:70_100], part)), full.shape
    (True, (32, 200000))
    """
    start, stop, _ = rows.indices(n_rows)
    first, last = start // ROW_BLOCK, max(start, stop - 1) // ROW_BLOCK
    parts = []
    for r in range(first, last + 1):
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(stream, block, r)))
        width = min(ROW_BLOCK, n_rows - r * ROW_BLOCK)
        parts.append(_poisson_one(rng.random((BLOCK, width))))
    weights = np.hstack(parts).astype(float)
    offset = first * ROW_BLOCK
    return weights[:, start - offset:stop - offset]


def weight_block(plan: _Plan, seed: int, block: int, stream: int = STREAM) -> np.ndarray:
    """Row weights of the :data:`BLOCK` replicates of block ``block``: shape (BLOCK, n), float64."""
    if plan.resample == "poisson":
        return poisson_weights(seed, block, slice(0, plan.n_rows), plan.n_rows, stream)
    rng = block_rng(seed, stream, block)
    n = plan.n_rows
    if plan.resample == "grouped":
        drawn = _counts(rng.integers(0, plan.n_groups, size=(BLOCK, plan.n_groups)), plan.n_groups)
        return drawn[:, plan.group_index].astype(float)
    if plan.resample == "stratified":
        parts = [rows[rng.integers(0, rows.size, size=(BLOCK, rows.size))] for rows in plan.strata]
        return _counts(np.hstack(parts), n).astype(float)
    return _counts(rng.integers(0, n, size=(BLOCK, n)), n).astype(float)


def paired_bootstrap(impl: MetricImpl, y_true: np.ndarray, preds: Sequence[np.ndarray], *,
                     replicates: int = 2000, seed: int = 0, resample: str = "plain",
                     strata: np.ndarray | None = None, groups: np.ndarray | None = None,
                     batch: int | None = None, entries_per_pass: int | None = None,
                     stream: int = STREAM, progress=None) -> BootstrapResult:
    """Paired bootstrap of every entry's score on one shared set of resampled test rows.

    Parameters
    ----------
    impl : MetricImpl
        The metric's computation (``Metric.impl``).
    y_true : ndarray, shape (n,) or (n, ...)
        The truth for the test rows.
    preds : sequence of ndarray
        One prediction array per entry, aligned with ``y_true``.
    replicates : int
        Number of bootstrap replicates (default 2000).
    seed : int
        The same seed gives the same numbers, whatever ``batch`` and ``entries_per_pass``.
    resample : {"plain", "stratified", "grouped"}
    strata : ndarray, optional
        Class of each row for ``stratified`` (default: ``y_true``).
    groups : ndarray, optional
        Group id of each row, required for ``grouped``.
    batch : int, optional
        Replicates scored per step (rounded up to whole blocks of 32); bounds memory at about
        ``8 * batch * n`` bytes of weights. Default: about 64 MB of weights.
    entries_per_pass : int, optional
        Entries prepared and scored together; weights are redrawn (identically) for each pass.
        Default: as many as fit in about 512 MB.
    stream : int
        Random stream of the weights. Resampling two disjoint splits of one test set (public and
        private rows) uses two streams, so the splits' draws are independent, as their rows are.
    progress : Progress, optional

    Returns
    -------
    BootstrapResult

    Examples
    --------
    Two classifiers on 300 rows; the replicates are paired, so the difference of their AUCs is much
    less noisy than either AUC alone:

    >>> from leaderboard.metrics import get_metric
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 300)
    >>> base = y + rng.normal(size=300)
    >>> a, b = base + 0.3 * rng.normal(size=300), base + 0.3 * rng.normal(size=300)
    >>> res = paired_bootstrap(get_metric("auc").impl, y, [a, b], replicates=1000, seed=1)
    >>> bool(np.std(res.replicates[0] - res.replicates[1]) < 0.5 * res.sd[0])
    True

    The percentile interval covers the true score about 95% of the time. Checked here with a known
    truth: the mean of a normal population (log loss would do as well; the mean keeps it fast).

    >>> mae = get_metric("mae").impl                 # mean |y - 0| = mean of |y|
    >>> covered = []
    >>> for trial in range(200):
    ...     y = np.abs(rng.normal(size=400))          # E|Z| = sqrt(2/pi)
    ...     res = paired_bootstrap(mae, y, [np.zeros(400)], replicates=400, seed=trial)
    ...     low, high = res.percentile_interval(0.05)
    ...     covered.append(low[0] <= np.sqrt(2 / np.pi) <= high[0])
    >>> coverage = np.mean(covered)

    Within three binomial standard errors of a 200-trial coverage estimate:

    >>> bool(abs(coverage - 0.95) < 3 * np.sqrt(0.95 * 0.05 / 200))
    True
    """
    plan, replicates, batch = _bootstrap_iv(impl, y_true, preds, replicates, resample, strata,
                                            groups, batch)
    n_entries, n = len(preds), plan.n_rows
    if entries_per_pass is None:
        entries_per_pass = max(1, _FEATURE_BYTES // (8 * n))
    passes = [range(s, min(s + entries_per_pass, n_entries))
              for s in range(0, n_entries, entries_per_pass)]
    n_blocks = -(-replicates // BLOCK)
    blocks_per_batch = batch // BLOCK
    out = np.empty((n_entries, n_blocks * BLOCK))
    point = np.empty(n_entries)
    if progress is not None:
        progress.start(len(passes) * n_blocks)
    for entries in passes:
        prepared = impl.prepare(y_true, [preds[i] for i in entries])
        point[entries.start:entries.stop] = impl.point(prepared, n)
        for first in range(0, n_blocks, blocks_per_batch):
            blocks = range(first, min(first + blocks_per_batch, n_blocks))
            weights = np.vstack([weight_block(plan, seed, b, stream) for b in blocks])
            cols = slice(first * BLOCK, (first + len(blocks)) * BLOCK)
            out[entries.start:entries.stop, cols] = impl.evaluate(prepared, weights)
            if progress is not None:
                progress.advance(len(blocks))
    n_units = plan.n_groups if plan.resample == "grouped" else n
    return BootstrapResult(point=point, replicates=out[:, :replicates], resample=plan.resample,
                           n_rows=n, n_units=n_units, seed=int(seed))
