"""The gate's inputs read (``leaderboard compare``, :func:`leaderboard.compare`): two models of
per-item results (:func:`items_pair`) or two submission files against a solution
(:func:`files_pair`), each as ``(metric, truth, baseline's values, candidate's values, clusters or
None, the table read)`` for :func:`leaderboard.pipelines.compare.compare_pair`."""
from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np

from leaderboard.errors import InputError, printable
from leaderboard.ingest.in_memory import InMemory
from leaderboard.metrics import get_metric, items_metric

if TYPE_CHECKING:
    from leaderboard.pipelines.compare import GateOptions


def items_pair(source, baseline, candidate, options: GateOptions):
    """The pair from per-item results: ``(metric, truth, baseline's values, candidate's values,
    clusters or None, the items' table)`` on the items both models have (``options.read``'s
    columns; ``cluster_col`` gives the clusters)."""
    from leaderboard.ingest.items import read_items

    metric, binary = items_metric(options.noise.metric or "mean")
    if metric.name != "mean" and not binary:
        raise InputError("--items: the metric is the mean of the per-item values (--metric "
                         "mean; accuracy, pass@1 or resolved for 0/1 values)")
    read = options.read
    solution, models = read_items(source, model_col=read.model_col, item_col=read.item_col,
                                  value_col=read.value_col, cluster_col=read.cluster_col,
                                  items_policy="pairwise", binary=metric.name if binary else None,
                                  max_bytes=read.max_file_size)
    where = source.source if isinstance(source, InMemory) else source
    by_name = {f.team: f for f in models.files}
    preds = []
    for option, name in (("--baseline", baseline), ("--candidate", candidate)):
        found = by_name.get(str(name).strip())
        if found is None:
            raise InputError(f"{option}: no model {printable(name)!r} in the results", file=where)
        if not found.ok:
            raise InputError(f"{option}: model {printable(name)!r}: {found.reason}", file=where)
        assert found.prediction is not None   # a model read whole holds its values
        preds.append(found.prediction)
    both = np.isfinite(preds[0]) & np.isfinite(preds[1])   # the two models' shared items
    if not both.any():
        raise InputError("--baseline and --candidate share no item", file=where)
    groups = None if solution.groups is None else solution.groups[both]
    return metric, solution.target[both], preds[0][both], preds[1][both], groups, solution


def _same_file(a, b) -> bool:
    if isinstance(a, InMemory) or isinstance(b, InMemory):
        return False
    try:
        one, two = os.stat(a), os.stat(b)
    except OSError:
        return False
    return (one.st_dev, one.st_ino) == (two.st_dev, two.st_ino)


def files_pair(source, baseline, candidate, options: GateOptions):
    """The pair from two submission files (paths or tables in memory) against a solution: the
    same tuple as :func:`items_pair`, on the solution's ``options.slices.split`` rows."""
    from leaderboard.ingest.safe_read import Unreadable, read_file
    from leaderboard.ingest.submissions import read_solution
    from leaderboard.ingest.toolkit.messages import Rejected
    from leaderboard.ingest.submissions.validate import make_plan, validate

    if options.noise.metric is None:
        raise InputError("--metric is required with --solution")
    metric, read = get_metric(options.noise.metric), options.read
    solution = read_solution(source, id_col=read.id_col, target_cols=read.target_col,
                             group_col=read.group_col, kind=metric.kind,
                             max_bytes=read.max_file_size)
    plan = make_plan(solution, metric.kind, pred_cols=read.pred_col, id_col=read.id_col)
    mask = solution.usage == options.slices.split
    if not mask.any():
        raise InputError(f"the solution has no {options.slices.split} rows", file=solution.source)
    preds = []
    for option, path in (("--baseline", baseline), ("--candidate", candidate)):
        where = path.source if isinstance(path, InMemory) else path
        if _same_file(path, source):
            raise InputError(f"{option} is the solution file ({printable(path)}): a gate "
                             "compares models, not the answers", file=where)
        try:
            data = path.data if isinstance(path, InMemory) else read_file(
                path, max_bytes=read.max_file_size)
            prediction, _ = validate(data, plan)
        except (Unreadable, Rejected) as err:
            raise InputError(str(err), file=where) from None
        preds.append(prediction[mask])
    groups = solution.groups[mask] if solution.groups is not None else None
    return metric, solution.target[mask], preds[0], preds[1], groups, solution
