"""Submissions mode: score every valid submission on the public and private rows, resample the
ranking split with a paired bootstrap, and cut tiers from paired tests.

ingest (:mod:`leaderboard.ingest.submissions`) -> metrics (point scores) -> noise
(:mod:`leaderboard.noise.bootstrap`) -> tiers. Files are streamed: :mod:`leaderboard.engine` reads,
scores and lets go of each batch of files (in this process or on a Dask cluster), so memory is
bounded by a batch; what comes back is each entry's scores on every replicate
(:mod:`leaderboard.pipelines.submission_scoring`). Here the entries are ranked and tiered; the
flags and notes are :mod:`leaderboard.pipelines.submission_checks`', the public-vs-private
post-mortem :mod:`leaderboard.pipelines.submission_postmortem`'s. Nothing here imports the report.
"""
from __future__ import annotations

from dataclasses import replace
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from leaderboard.noise.bootstrap import BootstrapResult
from leaderboard.noise.clusters import cluster_count, stretch
from leaderboard.noise.weights import stratum_labels
from leaderboard.pipelines.analysis import (Analysis, Settings, join_ranking, rank_entries,
                                            sanity_flags)
from leaderboard.pipelines.assumptions import analysis_assumptions
from leaderboard.pipelines.family import family_tests
from leaderboard.pipelines.submission_checks import (bootstrap_notes, class_flags,
                                                     cluster_flags, identical_notes, identical_to,
                                                     unmoved_notes)
from leaderboard.pipelines.submission_curves import leading_curves
from leaderboard.pipelines.submission_postmortem import submissions_shakeup
from leaderboard.pipelines.submission_scoring import files_board, score_files
from leaderboard.set_aside import set_aside_files
from leaderboard.tiers import RankReplicates
from leaderboard.tiers.ranking import rank_board

if TYPE_CHECKING:
    from leaderboard.ingest.submissions import Solution, SubmissionSet
    from leaderboard.ingest.submissions.files import Listing

def analyze_submissions(solution: Solution, submissions: SubmissionSet | Listing,
                        settings: Settings, *, split: str = "private", quiet: bool = True,
                        engine=None, batch_entries: int | None = None,
                        exclude: Sequence[str] = ()) -> Analysis:
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
    files = score_files(solution, submissions, settings, split, quiet=quiet, engine=engine,
                        batch_entries=batch_entries)
    subs, scored, layout = files.submissions, files.scored, submissions.layout
    metric, mask = settings.metric, solution.usage == split
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

    plan = files.plan(split)
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
    unmoved = high == low   # NaN bounds (an undefined metric) are not "unmoved"
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
    table["identical_to"] = identical_to(table, subs, order)
    table = table.drop(columns=["entry", "line"])

    board = files_board(frame.drop(columns=["entry"]), solution, subs, split, layout)
    notes = (bootstrap_notes(boot, solution) + identical_notes(table, layout == "items")
             + unmoved_notes(table["team"][unmoved], boot.n_units,
                             "item" if layout == "items" else "row"))
    values = (np.stack([subs.files[k].prediction[mask] for k in order])
              if layout == "items" and metric.kind == "values" and all(
                  subs.files[k].prediction is not None for k in order) else None)
    flags = (aside_flags + sanity_flags(table, settings, split, items=layout == "items",
                                        values=values)
             + class_flags(metric, y)
             + cluster_flags(solution, clusters))
    shakeup = submissions_shakeup(solution, scored.replicates, order, files.unplanned, boot,
                                  table, settings, split)
    curves, note = leading_curves(
        files.items, order, plan=files.job.plan, solution=solution, source=files.job.source,
        rows=mask, kind=submissions.kind, layout=layout, settings=settings,
        strata=stratum_labels(y) if settings.resample == "stratified" else None,
        groups=solution.groups[mask] if solution.groups is not None else None)
    result = Analysis(leaderboard=board, settings=settings, table=table, noise=None,
                      tiers=ranking.tiers, d95=float(table["d95"].iloc[0]), notes=tuple(notes),
                      bootstrap=boot, submissions=subs, ranking=ranking,
                      shakeup=shakeup, flags=tuple(flags), curves=curves, curves_note=note)
    return replace(result, assumptions=analysis_assumptions(result,
                                                            grouping=solution.grouping_columns))


def _column(point: dict[str, np.ndarray], split: str, kept: list[int]) -> np.ndarray:
    """One split's point scores of the kept entries (NaN when the split has no rows)."""
    return point[split][kept] if split in point else np.full(len(kept), np.nan)


def _prevalence(y: np.ndarray) -> float | None:
    """Share of positives for a binary 0/1 target, else None."""
    if y.ndim != 1 or not np.issubdtype(np.asarray(y).dtype, np.number):
        return None
    values = np.unique(y)
    if values.size == 2 and set(values.tolist()) <= {0, 1}:
        return float(np.mean(y))
    return None
