"""Submissions mode's first step: read and score every submission file on the public and private
rows, with the paired bootstrap's replicates of each split, and account for every file.

:func:`score_files` plans how each split is resampled, hands the files to
:mod:`leaderboard.engine` (read, scored and let go of batch by batch, in this process or on a
Dask cluster) and rejects, with the reason, every file the metric cannot score. Its result
(:class:`ScoredFiles`) is what :func:`leaderboard.pipelines.submissions.analyze_submissions`
ranks and tiers; :func:`files_board` is the account of the files as a leaderboard.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from leaderboard import limits
from leaderboard.engine import Scored, score_entries
from leaderboard.engine.work import Job, Split
from leaderboard.errors import InputError
from leaderboard.ingest.leaderboards import Leaderboard
from leaderboard.ingest.records import DroppedRows
from leaderboard.ingest.submissions.files import Listing, require_valid, submission_set
from leaderboard.ingest.toolkit.messages import show
from leaderboard.noise.bootstrap import OTHER_SPLIT_STREAM, STREAM, resampling, too_few_units
from leaderboard.noise.weights import stratum_labels
from leaderboard.pipelines.analysis import Settings, check_settings
from leaderboard.pipelines.family import uses_flips
from leaderboard.progress import Progress

if TYPE_CHECKING:
    from leaderboard.ingest.submissions import Solution, SubmissionSet
    from leaderboard.noise.bootstrap import ResamplingPlan

SPLITS = ("private", "public")


@dataclass(frozen=True)
class ScoredFiles:
    """The files as read and scored (:func:`score_files`).

    ``submissions`` holds every file with its status (the unscorable ones rejected, with the
    reason); ``scored`` every entry's point scores and replicates per split; ``job`` what the
    engine ran (its splits carry each split's resampling); ``items`` the files as given (read or
    only found); ``unplanned`` the error message of each split whose resampling cannot be done,
    raised only where its replicates are needed.
    """

    submissions: SubmissionSet
    scored: Scored
    job: Job
    items: Sequence[Any]
    unplanned: dict[str, str]

    def plan(self, split: str) -> ResamplingPlan:
        """How ``split``'s replicates were drawn (the ranking split's: always planned)."""
        plan = next(s.resampling for s in self.job.splits if s.name == split)
        assert plan is not None   # the ranking split's resampling was planned (else refused)
        return plan


def split_scores(metric, solution: Solution, preds: list[np.ndarray], split: str) -> np.ndarray:
    """Point scores of every entry on one split's rows (NaN for all if the split has no rows)."""
    mask = solution.usage == split
    if not mask.any() or not preds:
        return np.full(len(preds), np.nan)
    impl = metric.impl
    prepared = impl.prepare(solution.target[mask], [p[mask] for p in preds])
    return impl.point(prepared, int(mask.sum()))


def score_files(solution: Solution, submissions: SubmissionSet | Listing, settings: Settings,
                split: str, *, quiet: bool = True, engine=None,
                batch_entries: int | None = None) -> ScoredFiles:
    """Check the settings and ``split``, then read, score and resample every file.

    Parameters are those of :func:`leaderboard.pipelines.submissions.analyze_submissions`.
    Raises :class:`InputError` (one line) when ``split`` is neither private nor public, when the
    solution has no ``split`` rows to rank by (after the files are read, so their problems are
    reported first), when the metric is undefined on the solution's ranking rows for every file,
    and when the ranking split cannot be resampled as asked.
    """
    check_settings(settings)
    if split not in SPLITS:
        raise InputError(f"--split must be private or public, got {split!r}")
    mask = solution.usage == split
    splits, unplanned = _splits(solution, settings, split, submissions.layout)
    items: Sequence[Any]
    if isinstance(submissions, Listing):   # streamed: found, read batch by batch
        items, read_plan = submissions.found, submissions.plan
    else:
        items, read_plan = submissions.files, None
    limits.current().check_replicates(settings.replicates, len(items))   # before any is drawn
    job = Job(metric=settings.metric, solution=solution, plan=read_plan,
              source=submissions.source, splits=splits, replicates=settings.replicates,
              seed=settings.seed)
    progress = Progress("scoring submissions", quiet=quiet)
    try:
        scored = score_entries(job, items, engine=engine, batch_entries=batch_entries,
                               progress=progress)
    finally:
        progress.close()
    subs: SubmissionSet = _as_read(submissions, scored)
    if not mask.any():
        other = next(s for s in SPLITS if s != split)
        hint = f" (it has {int((solution.usage == other).sum()):,} {other} rows: --split {other})"
        raise InputError(f"the solution has no {split} rows to rank by{hint}",
                         file=solution.source, column=solution.usage_column)
    subs = _reject_unscorable(subs, scored, solution, split, settings.metric.label)
    if split in unplanned:   # e.g. grouped resampling without groups: a user mistake
        raise InputError(unplanned[split])
    return ScoredFiles(submissions=subs, scored=scored, job=job, items=items,
                       unplanned=unplanned)


def files_board(entries: pd.DataFrame, solution: Solution, subs: SubmissionSet, split: str,
                layout: str) -> Leaderboard:
    """The files as a leaderboard: the ranked entries' scores, what ranked them, and every file
    read (the ones not analysed counted by status)."""
    other = next(s for s in SPLITS if s != split)
    return Leaderboard(entries=entries, source=solution.source,
                       format="items" if layout == "items" else "submissions", score_column=(
                           "every item" if layout == "items"
                           else f"{split} rows of the solution"
                           if (solution.usage == other).any()   # Titanic: no Usage column
                           else f"every row of the solution, none of them {other}"),
                       split=split, rows_read=len(subs.files), dropped=_not_scored(subs))


def _splits(solution: Solution, settings: Settings, split: str,
            layout: str) -> tuple[tuple[Split, ...], dict[str, str]]:
    """The splits to score, public first, each with how its replicates are drawn: the ranking
    split's always, the other's for the post-mortem (its rows are disjoint from the ranking
    split's, so it is resampled on its own random stream). A resampling that cannot be done is
    returned as an error message, raised only if its replicates are needed. With no ranking rows
    nothing is scored (the files are still read, so their problems are reported first)."""
    if not (solution.usage == split).any():
        return (), {}
    splits, unplanned = [], {}
    for name in ("public", "private"):
        rows = solution.usage == name
        if not rows.any():
            continue
        y = solution.target[rows]
        plan = None
        if name == split or layout != "items":
            try:
                plan = resampling(y, settings.resample,
                                  stratum_labels(y) if settings.resample == "stratified" else None,
                                  solution.groups[rows] if solution.groups is not None else None)
            except ValueError as error:
                unplanned[name] = str(error)
            if plan is not None and name == split:
                grouped = plan.resample == "grouped"
                few = too_few_units(plan.n_groups if grouped else plan.n_rows,
                                    ("cluster" if layout == "items" else "group") if grouped
                                    else ("item" if layout == "items" else "test row"))
                if few:
                    plan, unplanned[name] = None, few
        splits.append(Split(name=name, rows=rows, y=y, resampling=plan,
                            stream=STREAM if name == split else OTHER_SPLIT_STREAM,
                            flips=name == split and uses_flips(settings.metric),
                            keep=name == split and not uses_flips(settings.metric)))
    return tuple(splits), unplanned


def _as_read(submissions: SubmissionSet | Listing, scored: Scored) -> SubmissionSet:
    """The files with what reading them gave (streamed: their digests, no predictions)."""
    if isinstance(submissions, Listing):
        return submission_set(submissions, [(item, *read[:3], None, read[3]) for item, read
                                            in zip(submissions.found, scored.read)])
    files = tuple(replace(f, digest=read[3]) if f.status == "ok" else f
                  for f, read in zip(submissions.files, scored.read))
    out = replace(submissions, files=files)
    require_valid(out, out.source, any(f.selected is not None for f in files))
    return out


def _reject_unscorable(subs: SubmissionSet, scored: Scored, solution: Solution, split: str,
                       label: str) -> SubmissionSet:
    """``subs`` with every valid file that the metric cannot score rejected, with the reason.

    A file is unscorable when the metric refuses its predictions on the public or private rows
    (``ValueError``, e.g. a negative value under RMSLE) or is undefined (NaN) for them on the
    ``split`` rows that rank. A metric undefined for every file is a property of the solution
    (its ranking rows hold one class, say): an :class:`InputError` naming the solution file.
    """
    ok = [k for k, f in enumerate(subs.files) if f.status == "ok"]
    reasons = {k: scored.errors[k] for k in ok if scored.errors[k] is not None}
    kept = [k for k in ok if k not in reasons]
    undefined = np.isnan(scored.point[split][kept])
    if kept and undefined.all() and not reasons:
        rows = solution.usage == split
        truth = np.asarray(solution.target)[rows]
        classes = np.unique(truth.astype(str)) if truth.ndim == 1 else None
        why = (f": they hold one class only ({show(classes[0])})"
               if classes is not None and classes.size == 1 else " for every submission")
        raise InputError(f"{label} is undefined on the solution's {int(rows.sum()):,} {split} "
                         f"rows{why}; is --metric right, or --split?", file=solution.source,
                         column=solution.target_columns[0])
    for k, bad in zip(kept, undefined):
        if bad:
            reasons[k] = (f"{label} is undefined for these predictions on the {split} rows "
                          "(constant predictions?); not scored")
    if not reasons:
        return subs
    files = tuple(replace(f, status="rejected", reason=reasons[k], prediction=None, digest=None)
                  if k in reasons else f for k, f in enumerate(subs.files))
    out = replace(subs, files=files)
    require_valid(out, subs.source, any(f.selected is not None for f in subs.files))
    return out


def _not_scored(submissions: SubmissionSet) -> tuple[DroppedRows, ...]:
    """Files not analysed, grouped by status, in the leaderboard's accounting form."""
    counts: dict[str, int] = {}
    for f in submissions.files:
        if f.status != "ok":
            counts[f.status] = counts.get(f.status, 0) + 1
    return tuple(DroppedRows(reason=status, count=count, lines=())
                 for status, count in counts.items())
