"""One batch of submissions mode's work: read, validate, prepare and score entries on every
replicate. The unit an engine runs (:mod:`~leaderboard.engine.local` in this process,
:mod:`~leaderboard.engine.dask` on a cluster).

A batch reads each of its files once, validates it exactly as
:func:`~leaderboard.ingest.submissions.read_submissions` does (the same statuses and one-line reasons),
keeps only each split's rows of the prediction, prepares them for the metric
(:meth:`~leaderboard.metrics.base.MetricImpl.prepare`: sorted streams for rank metrics, per-row
columns for sums) and scores them on the public and private rows and on every bootstrap replicate.
What it returns is small: per entry its status, a digest of its prediction (identical files are
found from digests) and its scores, shape (entries x replicates) per split. Memory is bounded by
the batch, never by the number of files.

Every number depends only on the entry itself and on ``(seed, stream, block)``: the weights of a
replicate block are regenerated wherever they are needed
(:func:`~leaderboard.noise.bootstrap.replicate_scores`), and each entry's score is computed on
its own (row sums are exact, rank kernels walk each stream alone). So the results do not depend
on which entries share a batch, on the batch size or on the worker.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from leaderboard.api_words import COMMAND_LINE
from leaderboard.errors import processing
from leaderboard.metrics.base import Metric, RowMean
from leaderboard.noise.bootstrap import ResamplingPlan, replicate_scores
from leaderboard.ingest.submissions.files import SubmissionFile, read_one
from leaderboard.ingest.submissions.find import Found, close_archives
from leaderboard.ingest.submissions.identical import digest
from leaderboard.ingest.submissions.solution import Solution
from leaderboard.ingest.submissions.validate import Plan

BATCH_BYTES = 1 << 29  # rough memory of one batch's predictions and prepared entries
TOTALS_CAP = 1 << 22   # per-unit totals a batch returns for the self-check (32 MB), else none
# Bytes per row and prediction column while a batch is prepared: the split copies (8), a sort
# order and its stream (9 + 5 for rank metrics) or the rounded feature columns (16 for sums).
_BYTES_PER_VALUE = 32


@dataclass(frozen=True, eq=False)
class Split:
    """One split's rows, and how its replicates are drawn (None: scored, not resampled).

    ``flips``: also draw the sign flips of :mod:`~leaderboard.tiers.sign_flips` (the ranking
    split, when the metric is a mean of per-row values: :func:`flips_apply`), and keep each
    entry's per-unit totals for the self-check when they are small (:data:`TOTALS_CAP`).
    ``keep``: keep the entries' predictions on these rows for the bootstrap's self-check when
    they are small (the ranking split, when it does not flip).
    """

    name: str
    rows: np.ndarray
    y: np.ndarray
    resampling: ResamplingPlan | None
    stream: int
    flips: bool = False
    keep: bool = False


@dataclass(frozen=True, eq=False)
class Job:
    """What every batch needs besides its entries (sent once to each worker).

    ``splits`` are the splits with rows, public first (the order in which a metric's refusal is
    reported); ``plan`` validates the files (None when every entry is already in memory).
    """

    metric: Metric
    solution: Solution
    plan: Plan | None
    source: str
    splits: tuple[Split, ...]
    replicates: int
    seed: int
    batch: int | None = None
    #: whether the command line runs (read where the job is made): a Dask worker, another
    #: process, words the files' reasons for the caller's interface (--pred-col or pred_col=)
    command_line: bool = field(default_factory=COMMAND_LINE.get)


@dataclass(frozen=True, eq=False)
class BatchResult:
    """What a batch of entries ``first, first + 1, ...`` gave.

    ``read`` holds ``(status, reason, rows, digest)`` per entry as read (digest None unless
    "ok"); ``errors`` the metric's refusal of an entry (its one-line reason) or None; ``point``
    and ``replicates`` per split name: shape (E,) and (E, R), NaN where not scored; ``flips``
    and ``totals`` the flipping split's sign-flip draws (E, R) and per-unit totals (E, units;
    None above :data:`TOTALS_CAP`), NaN where not scored, both None without flips; ``kept``
    the keeping split's predictions per entry (None where not scored; the list None when too
    large or not asked).
    """

    first: int
    read: list[tuple]
    errors: list[str | None]
    point: dict[str, np.ndarray]
    replicates: dict[str, np.ndarray]
    flips: np.ndarray | None = None
    totals: np.ndarray | None = None
    kept: list | None = None


def entries_per_batch(n_rows: int, width: int = 1, budget: int = BATCH_BYTES) -> int:
    """Entries whose predictions and prepared forms fit in about ``budget`` bytes (at least 1).

    Examples
    --------
    >>> entries_per_batch(100_000)
    167
    >>> entries_per_batch(10_000_000, budget=2**30)
    3
    """
    return max(1, int(budget // (_BYTES_PER_VALUE * max(n_rows, 1) * max(width, 1))))


def run_batch(job: Job, first: int, items: Sequence[Found | SubmissionFile]) -> BatchResult:
    """Read, validate and score ``items`` (entries ``first, first + 1, ...``), in the words of
    the interface that made the job (:attr:`Job.command_line`)."""
    interface = COMMAND_LINE.set(job.command_line)
    try:
        read, parts = [], []
        try:
            for item in items:
                status, reason, rows, prediction = _read(job, item)
                ok = status == "ok"
                read.append((status, reason, rows, digest(prediction) if ok else None))
                # only the scored rows of each split are kept, never the whole file
                parts.append([prediction[s.rows] for s in job.splits] if ok else None)
                del prediction
        finally:
            close_archives()
        return _score(job, first, read, parts)
    finally:
        COMMAND_LINE.reset(interface)


def _read(job: Job, item: Found | SubmissionFile) -> tuple:
    if isinstance(item, SubmissionFile):   # already in memory (per-item results, the API)
        return item.status, item.reason, item.rows, item.prediction
    assert job.plan is not None   # None only when every entry is already in memory
    with processing(f"{job.source}: {item.file}"):
        _, status, reason, rows, prediction = read_one(item, job.plan, job.solution)
    return status, reason, rows, prediction


def _score(job: Job, first: int, read: list[tuple], parts: list) -> BatchResult:
    """Point scores on every split, the metric's refusals, then every replicate."""
    impl, label = job.metric.impl, job.metric.label
    n = len(read)
    errors: list[str | None] = [None] * n
    ok = [k for k in range(n) if parts[k] is not None]
    done = {}
    for j, split in enumerate(job.splits):
        kept = [k for k in ok if errors[k] is None]
        done[split.name] = kept, _prepare(impl, split, [parts[k][j] for k in kept])
        if done[split.name][1] is None:   # the metric refuses some entry: find which
            for k in kept:
                refused = _refusal(impl, split, parts[k][j])
                if refused is not None:
                    errors[k] = (f"{label} cannot score it on the {split.name} rows "
                                 f"({refused[:120]}); not scored")
    scored = [k for k in ok if errors[k] is None]
    point = {s.name: np.full(n, np.nan) for s in job.splits}
    replicates = {s.name: np.full((n, job.replicates), np.nan) for s in job.splits
                  if s.resampling is not None}
    flips = totals = values = None
    for j, split in enumerate(job.splits):
        kept, ready = done.pop(split.name)
        if kept != scored or ready is None:   # a refusal somewhere: prepare the others again
            ready = _prepare(impl, split, [parts[k][j] for k in scored], refuse=False)
        if not scored:
            continue
        prepared, point[split.name][scored] = ready[0], ready[1]
        if split.resampling is not None:
            replicates[split.name][scored] = replicate_scores(
                impl, prepared, split.resampling, job.replicates, job.seed, split.stream,
                job.batch)
        if split.flips and split.resampling is not None:
            flips, totals = _flip_draws(prepared, split.resampling, job, n, scored)
        if split.keep and n * len(split.y) <= TOTALS_CAP:   # small: kept for the self-check
            values = [parts[k][j] if k in scored else None for k in range(n)]
        del prepared, ready
    return BatchResult(first=first, read=read, errors=errors, point=point, replicates=replicates,
                       flips=flips, totals=totals, kept=values)


def flips_apply(metric: Metric) -> bool:
    """Whether the sign flips can test ``metric``'s entries: its score is an increasing or
    decreasing function of the mean of a per-row value (:class:`~leaderboard.metrics.base.
    RowMean`: accuracy, log loss, MAE, MSE and RMSE, per-item means, ...).

    Examples
    --------
    >>> from leaderboard.metrics import get_metric
    >>> flips_apply(get_metric("rmse")), flips_apply(get_metric("auc"))
    (True, False)
    """
    return isinstance(metric.impl, RowMean)


def mean_direction(metric: Metric, higher_is_better: bool) -> bool:
    """Whether a higher mean of the per-row values is better (the score's direction, turned
    when the metric's transform of the mean decreases, as 1 - mean for the 0/1 loss).

    Examples
    --------
    >>> from leaderboard.metrics import get_metric
    >>> mean_direction(get_metric("zero_one_loss"), False)
    True
    """
    impl = metric.impl
    if not isinstance(impl, RowMean):   # sign flips exist only for means of per-row values
        raise TypeError(f"{metric.name} is not a mean of per-row values")
    probe = np.asarray(impl.transform(np.array([0.25, 0.75])), dtype=float)
    return higher_is_better if probe[1] >= probe[0] else not higher_is_better


def _flip_draws(prepared, plan: ResamplingPlan, job: Job, n: int, scored: list[int]):
    """Sign-flip draws (n, R) and per-unit totals (n, units) of the scored entries, NaN
    elsewhere; the totals None when too large to return (:data:`TOTALS_CAP`)."""
    from leaderboard.tiers.sign_flips import flip_means, unit_totals

    values = prepared.features[:, prepared.n_shared:].T     # (scored, rows): RowMean's values
    groups = plan.group_index if plan.resample == "grouped" else None
    units = unit_totals(values, groups)
    flips = np.full((n, job.replicates), np.nan)
    flips[scored] = flip_means(units, plan.n_rows, job.replicates, job.seed)
    totals = None
    if n * units.shape[1] <= TOTALS_CAP:
        totals = np.full((n, units.shape[1]), np.nan)
        totals[scored] = units
    return flips, totals


def _prepare(impl, split: Split, preds: list[np.ndarray], refuse: bool = True):
    """``(prepared, point scores)`` of the entries; None when the metric refuses one of them
    (a ``ValueError``; with ``refuse`` False the error is raised: entries that pass one by one
    and fail together are a bug, not a user's mistake)."""
    if not preds:
        return None, np.empty(0)
    try:
        prepared = impl.prepare(split.y, preds)
        return prepared, impl.point(prepared, len(split.y))
    except ValueError:
        if not refuse:
            raise
        return None


def _refusal(impl, split: Split, pred: np.ndarray) -> str | None:
    """Why the metric refuses one entry's predictions on a split (None: it does not)."""
    try:
        impl.point(impl.prepare(split.y, [pred]), len(split.y))
    except ValueError as error:
        return str(error).strip()
    return None
