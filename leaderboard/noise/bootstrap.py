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

Random numbers come in fixed blocks of :data:`~leaderboard.noise.rng.BLOCK` replicates, each
seeded by ``(seed, stream, block)`` (:mod:`leaderboard.noise.weights`), so the numbers never
depend on ``batch``, on how entries are split into passes, or on which process scores them.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from leaderboard.metrics.base import MetricImpl
from leaderboard.noise.d95 import d95_of
from leaderboard.noise.rng import BLOCK, Stream
from leaderboard.noise.weights import (  # noqa: F401 - the weights' names, imported from here too
    RESAMPLING, ROW_BLOCK, STREAM, ResamplingPlan, count_block, poisson_one, poisson_weights, resampling,
    weight_block)
from leaderboard.params import DEFAULT_ALPHA, DEFAULT_REPLICATES, DEFAULT_RESAMPLE, DEFAULT_SEED

if TYPE_CHECKING:
    from leaderboard.noise.model import ScoreDistribution

OTHER_SPLIT_STREAM = int(Stream.OTHER_SPLIT_BOOTSTRAP)
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

    def percentile_interval(self, alpha: float = DEFAULT_ALPHA) -> tuple[np.ndarray, np.ndarray]:
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
        # here, not at the top: a Dask worker imports this module and never needs SciPy's stats
        from leaderboard.noise.model import ScoreDistribution

        return ScoreDistribution.from_draws(self.point[entry], self.replicates[entry])

    def d95(self) -> np.ndarray:
        """Per entry, the seeds' d95 from the replicates: the 95th percentile of |difference| of two
        independent replicates, i.e. of two equally good models each on its own test set. A
        score that does not move under resampling (a perfect one) has d95 exactly 0, not the
        rounding dust of its replicates (6e-61 for a perfect AUC)."""
        return np.array([d95_of(r[np.isfinite(r)]) for r in self.replicates])


def _bootstrap_iv(impl, y_true, preds, replicates, resample, strata, groups, batch):
    """Input checks, kept apart from the computation (as scipy.stats.bootstrap does)."""
    if not isinstance(impl, MetricImpl):
        raise TypeError("impl must be a MetricImpl (use Metric.impl)")
    n = len(y_true)
    if len(preds) == 0:
        raise ValueError("no entries to resample")
    for i, pred in enumerate(preds):
        if len(pred) != n:
            raise ValueError(f"entry {i} has {len(pred)} predictions for {n} test rows")
    replicates = int(replicates)
    if replicates < 2:
        raise ValueError(f"replicates must be at least 2, got {replicates}")
    return resampling(y_true, resample, strata, groups), replicates, replicate_batch(batch, n)


# Fewest resampling units (test rows, items, or clusters) the percentile bootstrap is used on.
# Measured (2,000 samples of n Bernoulli(p) values, 1,000 replicates, nominal 95%, Monte Carlo
# error +-0.01): coverage 0.49 at n = 3 and p = 0.8 (2 items give [1, 1] and [0, 0]), 0.66 at
# n = 5, 0.89 at n = 10, 0.93 at n = 20, 0.95 at n = 30; at p = 0.5, 0.75, 0.94, 0.97, 0.95.
MIN_UNITS = 10
# Fewest clusters: with whole clusters resampled, the few-cluster t(G-1) stretch of
# leaderboard.noise.clusters keeps compare's level at alpha down to 6 equal clusters (measured:
# 4.7% at alpha 5% over 300 null boards, Monte Carlo SE 1.3 points; 10.3% without it), so the
# floor for clusters is that measured point, not MIN_UNITS.
MIN_CLUSTERS = 6


def too_few_units(units: int, what: str, minimum: int | None = None) -> str | None:
    """Why a paired bootstrap of ``units`` resampling units (``what``: ``"item"``, ``"cluster"``,
    ``"test row"``, ``"group"``) is refused, naming the minimum, or None: with fewer than
    ``minimum`` (default :data:`MIN_CLUSTERS` for clusters, :data:`MIN_UNITS` otherwise), its
    intervals undercover badly or collapse to a point.

    Examples
    --------
    >>> print(too_few_units(2, "item"))  # doctest: +NORMALIZE_WHITESPACE
    only 2 items: the paired bootstrap needs at least 10 to give intervals that mean anything (with 3, a
    nominal 95% interval covers the truth about half the time); add items or compare them with an exact test
    >>> too_few_units(50, "item") is None
    True
    >>> too_few_units(6, "cluster") is None   # the t(G-1) correction carries 6 clusters
    True
    """
    if minimum is None:   # each unit's measured floor
        minimum = MIN_CLUSTERS if what == "cluster" else MIN_UNITS
    if units >= minimum:
        return None
    return (f"only {units:,} {what}{'' if units == 1 else 's'}: the paired bootstrap needs at "
            f"least {minimum} to give intervals that mean anything (with 3, a nominal 95% "
            f"interval covers the truth about half the time); add {what}s or compare them with "
            "an exact test")


def replicate_batch(batch: int | None, n_rows: int, whole_blocks: bool = True) -> int:
    """Replicates scored per step: ``batch``, by default as many as fit in about 64 MB of float64
    weights (at least 8: four per thread of the rank kernels); rounded up to whole blocks of
    :data:`BLOCK` unless ``whole_blocks`` is False."""
    if batch is None:
        batch = max(8, _WEIGHT_BYTES // (8 * max(n_rows, 1)))
    if not whole_blocks:
        return max(1, int(batch))
    return max(BLOCK, -(-int(batch) // BLOCK) * BLOCK)


def paired_bootstrap(impl: MetricImpl, y_true: np.ndarray, preds: Sequence[np.ndarray], *,
                     replicates: int = DEFAULT_REPLICATES, seed: int = DEFAULT_SEED,
                     resample: str = DEFAULT_RESAMPLE,
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
    out = np.empty((n_entries, replicates))
    point = np.empty(n_entries)
    if progress is not None:
        progress.start(len(passes) * -(-replicates // BLOCK))
    for entries in passes:
        prepared = impl.prepare(y_true, [preds[i] for i in entries])
        point[entries.start:entries.stop] = impl.point(prepared, n)
        out[entries.start:entries.stop] = replicate_scores(impl, prepared, plan, replicates,
                                                           seed, stream, batch, progress)
    n_units = plan.n_groups if plan.resample == "grouped" else n
    return BootstrapResult(point=point, replicates=out, resample=plan.resample,
                           n_rows=n, n_units=n_units, seed=int(seed))


def replicate_scores(impl: MetricImpl, prepared, plan: ResamplingPlan, replicates: int, seed: int,
                     stream: int = STREAM, batch: int | None = None,
                     progress=None) -> np.ndarray:
    """Scores ``(E, replicates)`` of entries already prepared (``impl.prepare``) on every
    replicate: the weights of each block are regenerated from ``(seed, stream, block)``
    (:func:`~leaderboard.noise.weights.count_block`), so the numbers do not depend on ``batch``
    or on which entries are prepared together (the work a worker does for its own entries).

    ``batch`` replicates (default: about 64 MB of float64 weights, at least 8) are scored per
    call of the metric; blocks are drawn as uint8 counts and made float a few rows at a time.
    """
    step = replicate_batch(batch, plan.n_rows, whole_blocks=False)
    n_blocks = -(-replicates // BLOCK)
    per_draw = max(1, step // BLOCK)      # blocks drawn together when many fit in one step
    parts = []
    for first in range(0, n_blocks, per_draw):
        blocks = range(first, min(first + per_draw, n_blocks))
        counts = np.vstack([count_block(plan, seed, b, stream) for b in blocks])
        counts = counts[:replicates - first * BLOCK]       # the last block: only what is asked
        for start in range(0, len(counts), step):
            parts.append(impl.evaluate(prepared, counts[start:start + step].astype(float)))
        if progress is not None:
            progress.advance(len(blocks))
    return np.hstack(parts)


def replicate_chunks(impl: MetricImpl, prepared, plan: ResamplingPlan, start: int, stop: int,
                     seed: int, stream: int = STREAM, step: int | Sequence[int] = BLOCK):
    """Scores ``(E, <= step)`` of replicates ``start .. stop - 1``, in order, ``step`` at a time
    (or the sizes in ``step`` in turn, the last one repeated): the columns
    :func:`replicate_scores` gives them (each block's weights regenerated from ``(seed, stream,
    block)``; a replicate's score does not depend on which replicates share the call), for a
    caller that may stop early (the self-check's null boards).

    Examples
    --------
    >>> from leaderboard.metrics import get_metric
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 50)
    >>> impl = get_metric("auc").impl
    >>> prepared = impl.prepare(y, [y + rng.normal(size=50)])
    >>> plan = resampling(y, "plain")
    >>> parts = list(replicate_chunks(impl, prepared, plan, 20, 70, seed=3, step=16))
    >>> [part.shape[1] for part in parts]
    [16, 16, 16, 2]
    >>> whole = replicate_scores(impl, prepared, plan, 70, seed=3)
    >>> bool(np.array_equal(np.hstack(parts), whole[:, 20:], equal_nan=True))
    True
    >>> [part.shape[1] for part in replicate_chunks(impl, prepared, plan, 0, 100, 3, step=(16, 32))]
    [16, 32, 32, 20]
    """
    sizes = [step] if isinstance(step, int) else list(step)
    held, counts = -1, np.empty((0, 0), dtype=np.uint8)
    low = start
    while low < stop:
        high = min(low + (sizes.pop(0) if len(sizes) > 1 else sizes[0]), stop)
        parts = []
        for block in range(low // BLOCK, -(-high // BLOCK)):
            if block != held:      # a block two chunks share is drawn once
                held, counts = block, count_block(plan, seed, block, stream)
            first = block * BLOCK
            parts.append(counts[max(low, first) - first:min(high, first + BLOCK) - first])
        yield impl.evaluate(prepared, np.vstack(parts).astype(float))
        low = high
