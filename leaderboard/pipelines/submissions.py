"""Submissions mode: score every valid submission on the public and private rows, resample the
ranking split with a paired bootstrap, and cut tiers from paired tests.

ingest (:mod:`leaderboard.ingest.submissions`) -> metrics (point scores) -> noise
(:mod:`leaderboard.noise.bootstrap`) -> tiers. Files are streamed: :mod:`leaderboard.engine` reads,
scores and lets go of each batch of files (in this process or on a Dask cluster), so memory is
bounded by a batch; what comes back is each entry's scores on every replicate. Nothing here
imports the report.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from leaderboard import limits
from leaderboard.pipelines.analysis import (Analysis, Settings, check_settings, join_ranking,
                                            rank_entries, sanity_flags)
from leaderboard.engine import Scored, score_entries
from leaderboard.engine.work import Job, Split
from leaderboard.flags import Flag, class_count_flags
from leaderboard.pipelines.assumptions import analysis_assumptions
from leaderboard.pipelines.family import family_tests, uses_flips
from leaderboard.noise.clusters import ClusterCount, cluster_count, stretch
from leaderboard.noise.weights import stratum_labels
from leaderboard.errors import InputError
from leaderboard.ingest.leaderboards import Leaderboard
from leaderboard.ingest.records import DroppedRows
from leaderboard.pipelines.shakeup import has_both_scores, shakeup_from_bootstrap
from leaderboard.pipelines.submission_curves import leading_curves
from leaderboard.set_aside import set_aside_files
from leaderboard.noise.bootstrap import (OTHER_SPLIT_STREAM, STREAM, BootstrapResult,
                                         resampling, too_few_units)
from leaderboard.progress import Progress
from leaderboard.ingest.submissions import Solution, SubmissionSet
from leaderboard.ingest.submissions.files import Listing, require_valid, submission_set
from leaderboard.ingest.submissions.identical import identical_by_digest
from leaderboard.ingest.toolkit.messages import show
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


def analyze_submissions(solution: Solution, submissions: SubmissionSet | Listing,
                        settings: Settings, *, split: str = "private", quiet: bool = True,
                        engine=None, batch_entries: int | None = None,
                        exclude: tuple[str, ...] = ()) -> Analysis:
    """Score, resample and tier the valid submissions.

    Parameters
    ----------
    solution : Solution
        From :func:`leaderboard.ingest.submissions.read_solution`.
    submissions : SubmissionSet or Listing
        Files already read (:func:`leaderboard.ingest.submissions.read_submissions`, per-item results),
        or files found and not read yet (:func:`leaderboard.ingest.submissions.files.list_submissions`),
        read here batch by batch; rejected files are carried along (listed in the report and
        JSON) but not scored.
    settings : Settings
        ``replicates``, ``resample``, ``seed`` and ``alpha`` drive the bootstrap; ``n_test`` and
        ``prevalence`` are filled in from the solution.
    split : {"private", "public"}
        The rows that rank the entries; the other split is scored for display.
    engine : optional
        Where the batches run (:mod:`leaderboard.engine`): this process by default.
    batch_entries : int, optional
        Entries per batch (default from a memory budget); the numbers never depend on it.
    exclude : tuple of str
        ``--exclude-flagged`` words: the entries those flags name are set aside before the
        ranking (status "set aside"), as rows that are not entries always are
        (:mod:`leaderboard.set_aside`).

    Returns
    -------
    Analysis
        ``table`` has one row per valid entry in rank order; ``bootstrap`` holds the paired
        replicates in the same order.
    """
    check_settings(settings)
    if split not in SPLITS:
        raise InputError(f"--split must be private or public, got {split!r}")
    metric = settings.metric
    mask = solution.usage == split
    layout = submissions.layout
    splits, unplanned = _splits(solution, settings, split, layout)
    items: Sequence[Any]
    if isinstance(submissions, Listing):   # streamed: found, read batch by batch
        items, read_plan = submissions.found, submissions.plan
    else:
        items, read_plan = submissions.files, None
    limits.current().check_replicates(settings.replicates, len(items))   # before any is drawn
    job = Job(metric=metric, solution=solution, plan=read_plan,
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
    subs = _reject_unscorable(subs, scored, solution, split, metric.label)
    if split in unplanned:   # e.g. grouped resampling without groups: a user mistake
        raise InputError(unplanned[split])
    subs, aside_flags = set_aside_files(subs, scored.point[split], settings,
                                        exclude, _prevalence(solution.target[mask]),
                                        mask, items=layout == "items")
    kept = [k for k, f in enumerate(subs.files) if f.status == "ok"]
    entries = [subs.files[k] for k in kept]
    y = solution.target[mask]
    settings = replace(settings, sizes=replace(settings.sizes, ranking=int(mask.sum())),
                       noise=replace(settings.noise, prevalence=_prevalence(y)))

    frame = pd.DataFrame({
        "entry": np.arange(len(entries)),
        "team": [f.label for f in entries], "file": [f.file for f in entries],
        "public_score": _column(scored.point, "public", kept),
        "private_score": _column(scored.point, "private", kept),
        "line": np.arange(1, len(entries) + 1)})
    frame["score"] = frame[f"{split}_score"]
    if layout == "items":   # one set of items: no public and private boards
        frame = frame.drop(columns=["public_score", "private_score"])
    table = rank_entries(frame, settings.higher_is_better)
    order = np.asarray(kept)[table["entry"].to_numpy()]

    plan = next(s.resampling for s in splits if s.name == split)
    assert plan is not None   # the ranking split's resampling was planned (else refused above)
    boot = BootstrapResult(point=scored.point[split][order],
                           replicates=scored.replicates[split][order], resample=plan.resample,
                           n_rows=plan.n_rows, n_units=plan.n_groups
                           if plan.resample == "grouped" else plan.n_rows, seed=int(settings.seed))
    groups = solution.groups   # present whenever the resampling is grouped (planned so)
    clusters = (cluster_count(groups[mask]) if plan.resample == "grouped" and groups is not None
                else None)
    if clusters is not None:   # few clusters: the t correction (leaderboard.noise.clusters)
        boot = stretch(boot, clusters.factor(settings.alpha))
    low, high = boot.percentile_interval(settings.alpha)
    # a score no replicate moved (a perfect score on every item, a constant one) has a
    # zero-width interval that measures nothing: shown as missing, with the reason in the notes
    unmoved = ~(high > low)
    table["ci_low"] = np.where(unmoved, np.nan, low)
    table["ci_high"] = np.where(unmoved, np.nan, high)
    table["sd"] = boot.sd
    table["d95"] = boot.d95()
    reps = RankReplicates.from_bootstrap(boot.point, boot.replicates, settings.higher_is_better)
    unit = (("cluster" if layout == "items" else "group") if plan.resample == "grouped"
            else ("item" if layout == "items" else "test row"))
    tests, check = family_tests(scored, order, plan, settings, unit, y=y,
                                factor=clusters.factor(settings.alpha) if clusters else 1.0)
    ranking = replace(rank_board(reps, method=settings.tier_method, alpha=settings.alpha,
                                 top_k=settings.top_k, tests=tests), guarantee_check=check)
    table = join_ranking(table, ranking)
    table["identical_to"] = pd.Series(identical_by_digest(
        [subs.files[k].digest for k in order], table["team"].tolist()),
        index=table.index, dtype=object)
    table = table.drop(columns=["entry", "line"])

    other = next(s for s in SPLITS if s != split)
    board = Leaderboard(entries=frame.drop(columns=["entry"]), source=solution.source,
                        format="items" if layout == "items" else "submissions", score_column=(
                            "every item" if layout == "items"
                            else f"{split} rows of the solution"
                            if (solution.usage == other).any()   # Titanic: no Usage column
                            else f"every row of the solution, none of them {other}"),
                        split=split, rows_read=len(subs.files),
                        dropped=_not_scored(subs))
    notes = (_notes(boot, settings, solution) + _identical_notes(table, layout == "items")
             + _unmoved_notes(table["team"][unmoved], boot.n_units,
                              "item" if layout == "items" else "row"))
    values = (np.stack([subs.files[k].prediction[mask] for k in order])
              if layout == "items" and metric.kind == "values" and all(
                  subs.files[k].prediction is not None for k in order) else None)
    flags = (aside_flags + sanity_flags(table, settings, split, items=layout == "items",
                                        values=values)
             + _class_flags(metric, y)
             + cluster_flags(solution, clusters))
    shakeup = None
    if has_both_scores(table):
        other = "public" if split == "private" else "private"
        if other in unplanned:
            raise InputError(unplanned[other])
        shakeup = _shakeup(solution, scored.replicates[other][order], boot, table, settings,
                           split)
    curves, note = leading_curves(
        items, order, plan=job.plan, solution=solution, source=job.source, rows=mask,
        kind=submissions.kind, layout=layout, settings=settings,
        strata=stratum_labels(y) if settings.resample == "stratified" else None,
        groups=solution.groups[mask] if solution.groups is not None else None)
    result = Analysis(leaderboard=board, settings=settings, table=table, noise=None,
                      tiers=ranking.tiers, d95=float(table["d95"].iloc[0]), notes=tuple(notes),
                      bootstrap=boot, submissions=subs, ranking=ranking,
                      shakeup=shakeup, flags=tuple(flags), curves=curves, curves_note=note)
    return replace(result, assumptions=analysis_assumptions(result,
                                                            grouping=solution.grouping_columns))


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


def _column(point: dict[str, np.ndarray], split: str, kept: list[int]) -> np.ndarray:
    """One split's point scores of the kept entries (NaN when the split has no rows)."""
    return point[split][kept] if split in point else np.full(len(kept), np.nan)


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


def _class_flags(metric, y: np.ndarray) -> list[Flag]:
    """A class with very few rows in the ranking split (classification metrics only)."""
    if metric.kind not in ("labels", "scores", "probabilities") or y.ndim != 1:
        return []
    labels, counts = np.unique(y.astype(str), return_counts=True)
    if labels.size > 20:   # not classes (a regression target read as text)
        return []
    return class_count_flags(None, None, class_counts={f"rows of class {label}": count
                                                       for label, count in zip(labels, counts)})


def _shakeup(solution: Solution, other_replicates: np.ndarray, boot: BootstrapResult,
             table: pd.DataFrame, settings: Settings, split: str):
    """Public vs private; the other split's replicates were drawn on their own random stream
    (its rows are disjoint from the ranking split's, so its replicates are independent)."""
    other = "public" if split == "private" else "private"
    reps = {split: boot.replicates, other: other_replicates}
    return shakeup_from_bootstrap(table["public_score"].to_numpy(float),
                                  table["private_score"].to_numpy(float), reps["public"],
                                  reps["private"], higher_is_better=settings.higher_is_better,
                                  n_public=int((solution.usage == "public").sum()),
                                  n_private=int((solution.usage == "private").sum()),
                                  alpha=settings.alpha, tier_method=settings.tier_method)


def _identical_notes(table: pd.DataFrame, items: bool = False) -> list[str]:
    groups: dict[str, list[str]] = {}
    for team, same in zip(table["team"], table["identical_to"]):
        if same is not None:
            groups.setdefault(same, [same]).append(team)
    if items:
        return [f"Identical per-item results: {', '.join(members)} have exactly the same value on "
                "every item, so their scores are equal on every replicate (difference 0) and "
                "they share a tier." for members in groups.values()]
    return [f"Identical predictions: {', '.join(members)} submitted exactly the same predictions, "
            "so their scores are equal on every replicate (difference 0) and they share a tier."
            for members in groups.values()]


def _unmoved_notes(teams: pd.Series, units: int, unit: str) -> list[str]:
    """Why some entries have no interval: every resampled score equalled the observed one."""
    if teams.empty:
        return []
    names = ", ".join(map(str, teams.iloc[:5])) + (f" and {len(teams) - 5:,} more"
                                                   if len(teams) > 5 else "")
    return [f"No interval for {names}: every resampled score equals the observed one (the same "
            f"value on every {unit}, e.g. a perfect score), so resampling the {units:,} "
            f"{unit}s cannot measure how far the true score may lie from it; a zero-width "
            "interval would claim a certainty that few units do not give."]


def _prevalence(y: np.ndarray) -> float | None:
    """Share of positives for a binary 0/1 target, else None."""
    if y.ndim != 1 or not np.issubdtype(np.asarray(y).dtype, np.number):
        return None
    values = np.unique(y)
    if values.size == 2 and set(values.tolist()) <= {0, 1}:
        return float(np.mean(y))
    return None


def _not_scored(submissions: SubmissionSet) -> tuple[DroppedRows, ...]:
    """Files not analysed, grouped by status, in the leaderboard's accounting form."""
    counts: dict[str, int] = {}
    for f in submissions.files:
        if f.status != "ok":
            counts[f.status] = counts.get(f.status, 0) + 1
    return tuple(DroppedRows(reason=status, count=count, lines=())
                 for status, count in counts.items())


def cluster_flags(solution: Solution, clusters: ClusterCount | None) -> list[Flag]:
    """Grouping columns nobody declared (per-item results), and few declared clusters."""
    from leaderboard.ingest.item_table import grouping_sentence

    flags = [Flag(kind="undeclared_groups", message=f"The {grouping_sentence(column, groups)}.")
             for column, groups in solution.grouping_columns]
    if clusters is not None and clusters.few:
        flags.append(Flag(kind="few_clusters", message=clusters.sentence()))
    return flags


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
    return notes + list(solution.notes)   # how a benchmark's own files were counted
