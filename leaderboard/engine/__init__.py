"""Where submissions mode's work runs: in this process (:mod:`~leaderboard.engine.local`, the
default) or on a Dask cluster (:mod:`~leaderboard.engine.dask`, imported only when asked; the
``dask`` extra).

:func:`score_entries` cuts the entries into batches sized from a memory budget, has an engine run
each (:func:`~leaderboard.engine.work.run_batch`: read, validate, prepare, score on every
replicate) and puts the small results together in entry order. Ranks, tiers and the report are
the caller's: they run here, on the client, from these arrays.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from leaderboard.engine.local import LocalEngine
from leaderboard.engine.work import Job, entries_per_batch


@dataclass(frozen=True, eq=False)
class Scored:
    """Every entry's fate and scores, in entry order.

    ``read`` holds ``(status, reason, rows, digest)`` per entry as read; ``errors`` the metric's
    refusal of an entry (one line) or None; ``point`` and ``replicates`` per split name: shape
    (E,) and (E, R), NaN where an entry was not scored; ``flips`` and ``totals`` the flipping
    split's sign-flip draws and per-unit totals (:class:`~leaderboard.engine.work.BatchResult`;
    ``totals`` None when some batch did not keep them), None without flips; ``kept`` the
    keeping split's predictions per entry (None when some batch did not keep them).
    """

    read: list[tuple]
    errors: list[str | None]
    point: dict[str, np.ndarray]
    replicates: dict[str, np.ndarray]
    flips: np.ndarray | None = None
    totals: np.ndarray | None = None
    kept: list | None = None


def score_entries(job: Job, items: Sequence, *, engine=None, batch_entries: int | None = None,
                  progress=None) -> Scored:
    """Read (when not in memory), validate and score ``items`` in batches on ``engine``.

    Parameters
    ----------
    job : Job
        The metric, solution, splits and bootstrap settings.
    items : sequence
        :class:`~leaderboard.ingest.submissions.find.Found` entries (read by the engine) or
        :class:`~leaderboard.ingest.submissions.files.SubmissionFile` with their predictions.
    engine : optional
        :class:`~leaderboard.engine.local.LocalEngine` (default) or
        :class:`~leaderboard.engine.dask.DaskEngine`.
    batch_entries : int, optional
        Entries per batch; default from the engine's memory budget per batch
        (:func:`~leaderboard.engine.work.entries_per_batch`), at most what gives every worker
        about two batches. The numbers do not depend on it.
    progress : Progress, optional
        Advanced by each batch's entries.

    Returns
    -------
    Scored
    """
    n = len(items)
    engine = engine or LocalEngine()
    size = batch_entries or min(entries_per_batch(len(job.solution), _width(job, items),
                                                  engine.budget()), engine.spread(n))
    batches = [(first, list(items[first:first + size])) for first in range(0, n, size)]
    read: list = [None] * n
    errors: list = [None] * n
    point = {s.name: np.full(n, np.nan) for s in job.splits}
    replicates = {s.name: np.full((n, job.replicates), np.nan) for s in job.splits
                  if s.resampling is not None}
    flipping = any(s.flips and s.resampling is not None for s in job.splits)
    flips = np.full((n, job.replicates), np.nan) if flipping else None
    totals, kept_all = None, True
    keeping = any(s.keep and s.resampling is not None for s in job.splits)
    kept: list | None = [None] * n if keeping else None
    if progress is not None:
        progress.start(n)
    for result in engine.run(job, batches):   # in any order
        rows = slice(result.first, result.first + len(result.read))
        read[rows], errors[rows] = result.read, result.errors
        for name, values in result.point.items():
            point[name][rows] = values
        for name, values in result.replicates.items():
            replicates[name][rows] = values
        if flips is not None and result.flips is not None:   # None: nothing scored in it
            flips[rows] = result.flips
            if result.totals is None:
                kept_all = False   # too large to return: no self-check
            else:
                if totals is None:
                    totals = np.full((n, result.totals.shape[1]), np.nan)
                totals[rows] = result.totals
        if kept is not None:
            if result.kept is None and any(e is None and r[0] == "ok" for e, r in
                                           zip(result.errors, result.read)):
                kept = None        # a batch with scored entries kept none: too large
            elif result.kept is not None:
                kept[rows] = result.kept
        if progress is not None:
            progress.advance(len(result.read))
    return Scored(read=read, errors=errors, point=point, replicates=replicates, flips=flips,
                  totals=totals if kept_all else None, kept=kept)


def _width(job: Job, items: Sequence) -> int:
    """Columns of one prediction (several for multi-class or several targets)."""
    if job.plan is not None:
        return max(1, len(job.plan.names)) if job.plan.several else 1
    shapes = [getattr(item, "prediction", None) for item in items[:1]]
    return int(np.prod(shapes[0].shape[1:])) if shapes and shapes[0] is not None else 1
