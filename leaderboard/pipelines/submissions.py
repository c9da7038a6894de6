"""Submissions mode: score every valid submission on the public and private rows, resample the
ranking split with a paired bootstrap, and cut tiers from paired tests.

ingest (:mod:`leaderboard.submissions`) -> metrics (point scores) -> noise
(:mod:`leaderboard.noise.bootstrap`) -> tiers. Nothing here imports the report.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from leaderboard.pipelines.scores import (Analysis, Settings, _check_settings, join_ranking, rank_entries,
                                  sanity_flags)
from leaderboard.flags import Flag, class_count_flags
from leaderboard.errors import InputError
from leaderboard.ingest import DroppedRows, Leaderboard
from leaderboard.pipelines.shakeup import has_both_scores, shakeup_from_bootstrap
from leaderboard.noise.bootstrap import OTHER_SPLIT_STREAM, BootstrapResult, paired_bootstrap
from leaderboard.noise.curves import SHOWN, board_curves, curves_note
from leaderboard.progress import Progress
from leaderboard.submissions import Solution, SubmissionSet
from leaderboard.submissions.files import reject_unscorable
from leaderboard.submissions.identical import identical_to
from leaderboard.tiers import RankReplicates
from leaderboard.tiers.ranking import rank_board

SPLITS = ("private", "public")


def split_scores(metric, solution: Solution, preds: list[np.ndarray], split: str) -> np.ndarray:
    """Point scores of every entry on one split's rows (NaN for all if the split has no rows)."""
    mask = solution.usage == split
    if not mask.any() or not preds:
        return np.full(len(preds), np.nan)
    impl = metric.impl
    prepared = impl.prepare(solution.target[mask], [p[mask] for p in preds])
    return impl.point(prepared, int(mask.sum()))


def analyze_submissions(solution: Solution, submissions: SubmissionSet, settings: Settings, *,
                        split: str = "private", quiet: bool = True) -> Analysis:
    """Score, resample and tier the valid submissions.

    Parameters
    ----------
    solution : Solution
        From :func:`leaderboard.submissions.read_solution`.
    submissions : SubmissionSet
        From :func:`leaderboard.submissions.read_submissions`; rejected files are carried along
        (listed in the report and JSON) but not scored.
    settings : Settings
        ``replicates``, ``resample``, ``seed`` and ``alpha`` drive the bootstrap; ``n_test`` and
        ``prevalence`` are filled in from the solution.
    split : {"private", "public"}
        The rows that rank the entries; the other split is scored for display.

    Returns
    -------
    Analysis
        ``table`` has one row per valid entry in rank order; ``bootstrap`` holds the paired
        replicates in the same order.
    """
    _check_settings(settings)
    if split not in SPLITS:
        raise InputError(f"--split must be private or public, got {split!r}")
    metric = settings.metric
    mask = solution.usage == split
    if not mask.any():
        other = next(s for s in SPLITS if s != split)
        hint = f" (it has {int((solution.usage == other).sum()):,} {other} rows: --split {other})"
        raise InputError(f"the solution has no {split} rows to rank by{hint}",
                         file=solution.source, column=solution.usage_column)
    submissions = reject_unscorable(submissions, solution, split, metric.label,
                                    lambda preds, part: split_scores(metric, solution, preds, part))
    entries = submissions.scored
    preds = [f.prediction for f in entries]
    y = solution.target[mask]
    settings = replace(settings, n_test=int(mask.sum()), prevalence=_prevalence(y))

    frame = pd.DataFrame({
        "entry": np.arange(len(entries)),
        "team": [f.label for f in entries], "file": [f.file for f in entries],
        "public_score": split_scores(metric, solution, preds, "public"),
        "private_score": split_scores(metric, solution, preds, "private"),
        "line": np.arange(1, len(entries) + 1)})
    frame["score"] = frame[f"{split}_score"]
    if submissions.layout == "items":   # one set of items: no public and private boards
        frame = frame.drop(columns=["public_score", "private_score"])
    table = rank_entries(frame, settings.higher_is_better)
    order = table["entry"].to_numpy()

    progress = Progress("resampling test rows", quiet=quiet)
    groups = solution.groups[mask] if solution.groups is not None else None
    strata = _strata(y) if settings.resample == "stratified" else None
    try:
        boot = paired_bootstrap(metric.impl, y, [preds[i][mask] for i in order],
                                replicates=settings.replicates, seed=settings.seed,
                                resample=settings.resample, strata=strata, groups=groups,
                                progress=progress)
    except ValueError as error:  # e.g. grouped resampling without groups: a user mistake
        raise InputError(str(error)) from None
    finally:
        progress.close()

    low, high = boot.percentile_interval(settings.alpha)
    table["ci_low"], table["ci_high"] = low, high
    table["sd"] = boot.sd
    table["d95"] = boot.d95()
    reps = RankReplicates.from_bootstrap(boot.point, boot.replicates, settings.higher_is_better)
    ranking = rank_board(reps, method=settings.tier_method, alpha=settings.alpha,
                         top_k=settings.top_k)
    table = join_ranking(table, ranking)
    table["identical_to"] = pd.Series(identical_to([preds[i] for i in order],
                                                   table["team"].tolist()),
                                      index=table.index, dtype=object)
    table = table.drop(columns=["entry", "line"])

    board = Leaderboard(entries=frame.drop(columns=["entry"]), source=solution.source,
                        format="submissions", score_column=(
                            "every item" if submissions.layout == "items"
                            else f"{split} rows of the solution"),
                        split=split, rows_read=len(submissions.files),
                        dropped=_not_scored(submissions))
    notes = _notes(boot, settings, solution) + _identical_notes(table)
    flags = sanity_flags(table, settings, split) + _class_flags(metric, y)
    shakeup = None
    if has_both_scores(table):
        shakeup = _shakeup(solution, [preds[i] for i in order], boot, table, settings, split,
                           groups_of=solution.groups, quiet=quiet)
    top = [preds[i][mask] for i in order[:SHOWN]]
    note = curves_note(submissions.kind, y, submissions.layout)
    if note is None and any(np.ndim(p) != 1 for p in top):
        note = "ROC, precision-recall, CAP and cost curves need one score per row."
    curves = None if note is not None else board_curves(
        y, top, replicates=settings.replicates, seed=settings.seed, resample=settings.resample,
        strata=strata, groups=groups, alpha=settings.alpha)
    return Analysis(leaderboard=board, settings=settings, table=table, noise=None,
                    tiers=ranking.tiers, d95=float(table["d95"].iloc[0]), notes=tuple(notes),
                    bootstrap=boot, submissions=submissions, ranking=ranking, shakeup=shakeup,
                    flags=tuple(flags), curves=curves, curves_note=note)


def _class_flags(metric, y: np.ndarray) -> list[Flag]:
    """A class with very few rows in the ranking split (classification metrics only)."""
    if metric.kind not in ("labels", "scores", "probabilities") or y.ndim != 1:
        return []
    labels, counts = np.unique(y.astype(str), return_counts=True)
    if labels.size > 20:   # not classes (a regression target read as text)
        return []
    return class_count_flags(None, None, class_counts={f"rows of class {label}": count
                                                       for label, count in zip(labels, counts)})


def _shakeup(solution: Solution, preds: list[np.ndarray], boot: BootstrapResult,
             table: pd.DataFrame, settings: Settings, split: str, *, groups_of, quiet: bool):
    """Public vs private, with the other split resampled on its own random stream (its rows are
    disjoint from the ranking split's, so its replicates must be independent of them)."""
    other = "public" if split == "private" else "private"
    mask = solution.usage == other
    y = solution.target[mask]
    progress = Progress(f"resampling the {other} rows", quiet=quiet)
    try:
        other_boot = paired_bootstrap(
            settings.metric.impl, y, [p[mask] for p in preds], replicates=settings.replicates,
            seed=settings.seed, resample=settings.resample,
            strata=_strata(y) if settings.resample == "stratified" else None,
            groups=groups_of[mask] if groups_of is not None else None,
            stream=OTHER_SPLIT_STREAM, progress=progress)
    except ValueError as error:
        raise InputError(str(error)) from None
    finally:
        progress.close()
    reps = {split: boot.replicates, other: other_boot.replicates}
    return shakeup_from_bootstrap(table["public_score"].to_numpy(float),
                                  table["private_score"].to_numpy(float), reps["public"],
                                  reps["private"], higher_is_better=settings.higher_is_better,
                                  n_public=int((solution.usage == "public").sum()),
                                  n_private=int((solution.usage == "private").sum()),
                                  alpha=settings.alpha, tier_method=settings.tier_method)


def _identical_notes(table: pd.DataFrame) -> list[str]:
    groups: dict[str, list[str]] = {}
    for team, same in zip(table["team"], table["identical_to"]):
        if same is not None:
            groups.setdefault(same, [same]).append(team)
    return [f"Identical predictions: {', '.join(members)} submitted exactly the same predictions, "
            "so their scores are equal on every replicate (difference 0) and they share a tier."
            for members in groups.values()]


def _prevalence(y: np.ndarray) -> float | None:
    """Share of positives for a binary 0/1 target, else None."""
    if y.ndim != 1 or not np.issubdtype(np.asarray(y).dtype, np.number):
        return None
    values = np.unique(y)
    if values.size == 2 and set(values.tolist()) <= {0, 1}:
        return float(np.mean(y))
    return None


def _strata(y: np.ndarray) -> np.ndarray | None:
    """Class of each row for stratified resampling (rows of a multi-column truth as tuples)."""
    y = np.asarray(y)
    if y.ndim == 1:
        return y
    _, codes = np.unique(y.reshape(len(y), -1), axis=0, return_inverse=True)
    return codes.ravel()


def _not_scored(submissions: SubmissionSet) -> tuple[DroppedRows, ...]:
    """Files not analysed, grouped by status, in the leaderboard's accounting form."""
    counts: dict[str, int] = {}
    for f in submissions.files:
        if f.status != "ok":
            counts[f.status] = counts.get(f.status, 0) + 1
    return tuple(DroppedRows(reason=status, count=count, lines=())
                 for status, count in counts.items())


def _notes(boot: BootstrapResult, settings: Settings, solution: Solution) -> list[str]:
    notes = []
    undefined = boot.undefined
    if undefined.any():
        notes.append(f"On {int(undefined.max()):,} of {boot.replicates.shape[1]:,} replicates the "
                     f"metric was undefined for some entry (e.g. no positives were drawn); those "
                     "replicates are left out of that entry's interval. Stratified resampling "
                     "(--resample stratified) avoids this.")
    if (solution.usage == "ignored").any():
        notes.append(f"{int((solution.usage == 'ignored').sum()):,} solution rows marked Ignored "
                     "are not scored.")
    return notes
