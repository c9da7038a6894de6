"""The flags and notes of a submissions analysis (and of per-item results, scored the same way):
identical predictions, scores no replicate moved, classes with very few rows, grouping columns
nobody declared, few clusters, replicates on which the metric was undefined, solution rows not
scored.

Each check reads what the scoring already produced; none changes a number, they say what the
numbers rest on (the report and the JSON show them with the table).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from leaderboard.api_words import said
from leaderboard.flags import Flag, class_count_flags
from leaderboard.ingest.submissions.identical import identical_by_digest

if TYPE_CHECKING:
    from leaderboard.ingest.submissions import Solution, SubmissionSet
    from leaderboard.noise.bootstrap import BootstrapResult
    from leaderboard.noise.clusters import ClusterCount


def identical_to(table: pd.DataFrame, subs: SubmissionSet, order: np.ndarray) -> pd.Series:
    """For each ranked entry (``order``: their files' positions in ``subs``), the entry it is
    identical to (same file digest), or None; the ``identical_to`` column of the table."""
    return pd.Series(identical_by_digest([subs.files[k].digest for k in order],
                                         table["team"].tolist()),
                     index=table.index, dtype=object)


def identical_notes(table: pd.DataFrame, items: bool = False) -> list[str]:
    """One note per group of identical entries (``table``'s ``identical_to`` column): their
    scores are equal on every replicate, so they share a tier.

    Examples
    --------
    >>> t = pd.DataFrame({"team": ["a", "b", "c"],
    ...                   "identical_to": pd.Series([None, "a", None], dtype=object)})
    >>> identical_notes(t)[0][:50]
    'Identical predictions: a, b submitted exactly the '
    """
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



def unmoved_notes(teams: pd.Series, units: int, unit: str) -> list[str]:
    """Why some entries have no interval: every resampled score equalled the observed one.

    Examples
    --------
    >>> unmoved_notes(pd.Series([], dtype=object), 10, "item")
    []
    >>> unmoved_notes(pd.Series(["a"]), 10, "item")[0][:60]
    'No interval for a: every resampled score equals the observed'
    """
    if teams.empty:
        return []
    names = ", ".join(map(str, teams.iloc[:5])) + (f" and {len(teams) - 5:,} more"
                                                   if len(teams) > 5 else "")
    return [f"No interval for {names}: every resampled score equals the observed one (as a "
            f"perfect score's does), so resampling the {units:,} {unit}s cannot measure how far "
            "the true score may lie from it; a zero-width interval would claim a certainty the "
            "data do not give."]


def class_flags(metric, y: np.ndarray) -> list[Flag]:
    """A class with very few rows in the ranking split (classification metrics only)."""
    if metric.kind not in ("labels", "scores", "probabilities") or y.ndim != 1:
        return []
    labels, counts = np.unique(y.astype(str), return_counts=True)
    if labels.size > 20:   # not classes (a regression target read as text)
        return []
    return class_count_flags(None, None, class_counts={f"rows of class {label}": count
                                                       for label, count in zip(labels, counts)})


def cluster_flags(solution: Solution, clusters: ClusterCount | None) -> list[Flag]:
    """Grouping columns nobody declared (per-item results), and few declared clusters."""
    from leaderboard.ingest.item_table import grouping_sentence

    flags = [Flag(kind="undeclared_groups", message=f"The {grouping_sentence(column, groups)}.")
             for column, groups in solution.grouping_columns]
    if clusters is not None and clusters.few:
        flags.append(Flag(kind="few_clusters", message=clusters.sentence()))
    return flags


def bootstrap_notes(boot: BootstrapResult, solution: Solution) -> list[str]:
    """Replicates on which the metric was undefined, solution rows marked Ignored, and the
    solution's own notes (how a benchmark's files were counted)."""
    notes = []
    undefined = boot.undefined
    if undefined.any():
        notes.append(f"On {int(undefined.max()):,} of {boot.replicates.shape[1]:,} replicates the "
                     f"metric was undefined for some entry (e.g. no positives were drawn); those "
                     "replicates are left out of that entry's interval. "
                     + said("Stratified resampling (--resample stratified) avoids this."))
    if (solution.usage == "ignored").any():
        notes.append(f"{int((solution.usage == 'ignored').sum()):,} solution rows marked Ignored "
                     "are not scored.")
    return notes + list(solution.notes)   # how a benchmark's own files were counted
