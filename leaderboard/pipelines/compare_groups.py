"""``compare`` on per-item results whose items come in groups nobody declared (issue 39).

Items of one passage or repository are often related. :func:`undeclared_groups_hold` makes the
gate pass only if the candidate is also shown better with each undeclared grouping column's
groups (:func:`leaderboard.ingest.items.grouping_columns`) resampled as wholes, as
``--cluster-col`` would. Measured by benchmarks/study_compare_groups.py (docs/calibration.md).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from leaderboard.api_words import said_with
from leaderboard.errors import printable
from leaderboard.noise.bootstrap import MIN_CLUSTERS
from leaderboard.pipelines.compare import GateOptions, compare_pair
from leaderboard.pipelines.compare_read import items_pair


def undeclared_groups_hold(items, baseline, candidate, options: GateOptions,
                            table) -> tuple[str, str] | None:
    """The gate must also pass with each undeclared grouping column's groups resampled as
    wholes (issue 39): items of one passage or repository are often related, and resampling
    them one by one then passes two equally good models far more often than alpha (measured:
    11.5% at alpha 5%, benchmarks/study_compare_groups.py). A column with fewer groups than the
    cluster bootstrap takes (:data:`~leaderboard.noise.bootstrap.MIN_CLUSTERS`) is left to its
    flag. Returns the held gate's flag ``(kind, message)``, or None when every such test passes.
    """
    for column, count in getattr(table, "grouping_columns", ()):
        if count < MIN_CLUSTERS:
            continue
        read = dataclasses.replace(options.read, cluster_col=column)
        metric, y, base, cand, groups, _ = items_pair(
            items, baseline, candidate, dataclasses.replace(options, read=read))
        if groups is None or len(np.unique(groups)) < MIN_CLUSTERS:
            continue
        r = compare_pair(metric, y, base, cand, alpha=options.ranks.alpha,
                         replicates=options.ranks.replicates, seed=options.noise.seed,
                         resample="grouped", groups=groups, unit="item")
        if not r.better:
            name = printable(column)
            return ("undeclared_groups_held", (
                f"held: column '{name}' groups the items into {count:,} groups nobody "
                f"declared, and with each group's items resampled together (related items, "
                f"as {said_with('--cluster-col', name, repr(name))} would) the candidate is "
                f"not shown better (lower bound {r.lower:.4g}); pass "
                f"{said_with('--cluster-col', name, repr(name))} to use that grouping"))
    return None
