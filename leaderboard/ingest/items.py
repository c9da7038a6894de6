"""Per-item (long-format) results: one row per (model, item), read into submissions mode.

Benchmark and LLM leaderboards score many models on the same items. Their results come as a
long table: a model column, an item column and a value column (0/1 correctness, a per-item
score), optionally a cluster column (passage, conversation, repository: items that are not
independent); or as what a benchmark publishes (lm-evaluation-harness logs, SWE-bench results,
HELM runs, Inspect logs). :func:`read_items` is the one call for ``--items``: it picks the reader
the path needs (:mod:`~leaderboard.ingest.benchmarks`, or the table toolkit for a CSV, Parquet
file or DataFrame), and hands the long table to the per-item results reader
(:mod:`~leaderboard.ingest.item_table`), which turns it into the
:class:`~leaderboard.ingest.records.Solution` and
:class:`~leaderboard.ingest.records.SubmissionSet` that submissions mode analyses with the metric
``mean``: the paired bootstrap of items, resampling whole clusters when there are any.

This module chooses and calls readers; it reads nothing itself.
"""
from __future__ import annotations

import os
from pathlib import Path

from leaderboard.errors import InputError
from leaderboard.ingest.benchmarks import detect, read_benchmark, refuse_other_formats
from leaderboard.ingest.in_memory import InMemory
from leaderboard.ingest.item_table import items_from_table
from leaderboard.ingest.records import Solution, SubmissionSet
from leaderboard.ingest.safe_read import DEFAULT_MAX_BYTES
from leaderboard.ingest.toolkit.reading import parse_csv, read_table_file


def read_items(path: str | os.PathLike[str] | InMemory, *, model_col: str = "model", item_col: str = "item",
               value_col: str = "value", cluster_col: str | None = None,
               category_col: str | None = None, target_col: str | None = None,
               harness_filter: str | None = None, sample_col: str | None = None,
               items_policy: str = "common", binary: str | None = None,
               items_format: str = "auto",
               instances: str | None = None, missing_instances: str = "unresolved",
               max_bytes: int = DEFAULT_MAX_BYTES) -> tuple[Solution, SubmissionSet]:
    """Read a long table of per-item results (CSV, or Parquet with pyarrow installed).

    Parameters
    ----------
    path : str or PathLike
        ``.csv`` (optionally compressed) or ``.parquet``; or a folder of lm-evaluation-harness
        sample logs (:mod:`~leaderboard.ingest.harness`): then ``value_col`` names the
        metric (default: the logs' first), items are ``task/doc_id``, tasks the categories when
        there are several, and ``harness_filter`` picks the filter when the logs hold several.
        Or what another benchmark publishes (SWE-bench results, HELM runs, Inspect logs:
        :mod:`~leaderboard.ingest.benchmarks`), ``value_col`` naming HELM's stat or Inspect's
        scorer.
    model_col, item_col, value_col : str
        The columns naming the model, the item and the model's value on it (matched exactly,
        else ignoring case).
    cluster_col : str, optional
        Items in one cluster are resampled together (``--resample grouped``); an item must keep
        one cluster on every row.
    category_col : str, optional
        Each item's category (subject, task): per-category tiers; an item keeps one category.
    target_col : str, optional
        Each item's truth (a number, the same on every row of the item): then ``value_col`` holds
        each model's numeric prediction, scored by any metric taking scores, probabilities or
        values (AUC, log loss, RMSE, ...) instead of averaged.
    sample_col : str, optional
        Several values per (model, item), one per sample (generations, judge calls): the item's
        value is their mean (:class:`~leaderboard.ingest.item_sets.SampleSpread` says what the
        samples add to the noise).
    items_policy : {"common", "drop-items", "drop-models", "pairwise"}
        Models scored on different item sets: a complete table by dropping the items some
        model lacks or the models lacking some item, whichever keeps more (model, item) cells
        (``common``), always the items (``drop-items``) or the models (``drop-models``); or
        every item, each model on its own (``pairwise``, values NaN where a model has none).
        :class:`~leaderboard.ingest.item_coverage.ItemCoverage` (the solution's ``coverage``)
        accounts for it.
    binary : str, optional
        The metric's name when it is the mean of 0/1 values (``accuracy``, ``pass@1``,
        ``resolved``): a value other than 0 or 1 is an error naming its line.
    items_format : str
        ``auto`` (recognised by the files), ``table``, ``harness``, ``swebench``, ``helm`` or
        ``inspect`` (:data:`~leaderboard.ingest.benchmarks.FORMATS`).
    instances, missing_instances : str
        SWE-bench: the split's instance list (a file), and whether an instance without a result
        counts as ``unresolved`` (the leaderboard's denominator) or is left ``missing``.
    max_bytes : int
        Size cap of the file, on disk and decompressed.

    Without ``target_col``, ``true/false``, ``yes/no`` and ``pass/fail`` are read as 1/0. A model
    given twice with identical rows is kept once; with different values it is rejected naming
    the items.

    Returns
    -------
    (Solution, SubmissionSet)
        Items in order of first appearance; models in order of first appearance, each ``ok``,
        ``rejected`` (invalid) or ``set aside`` (valid, left out by ``items_policy``) with its
        reason.

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "r.csv"
    >>> _ = p.write_text("model,item,value\\na,q1,1\\na,q2,0\\nb,q1,1\\nb,q2,1\\nc,q1,1\\n")
    >>> solution, models = read_items(p)    # c lacks q2: 2 models x 2 items beat 3 x 1
    >>> solution.ids.tolist(), [(f.team, f.status) for f in models.files]
    (['q1', 'q2'], [('a', 'ok'), ('b', 'ok'), ('c', 'set aside')])
    >>> solution, models = read_items(p, items_policy="drop-items")   # every model, on q1
    >>> solution.ids.tolist(), solution.coverage.shrinkers
    (['q1'], (('c', 1),))
    """
    source = path.source if isinstance(path, InMemory) else str(path)
    skipped: list[tuple[str, str]] = []
    notes: list[str] = []
    if isinstance(path, InMemory):   # the Python API's DataFrame
        if items_format not in ("auto", "table"):
            raise InputError(f"a DataFrame is a table, not {items_format} files; give their "
                             "path", file=source)
        refuse_other_formats("table", harness_filter=harness_filter, instances=instances,
                             missing_instances=missing_instances)
        raw = parse_csv(path.data, source)
    elif (fmt := detect(Path(path)) if items_format == "auto" else items_format) != "table":
        raw, skipped, notes = read_benchmark(
            Path(path), fmt, metric=None if value_col == "value" else value_col,
            harness_filter=harness_filter, instances=instances,
            missing_instances=missing_instances, max_bytes=max_bytes)
        model_col, item_col, value_col = "model", "item", "value"
        if category_col is None and "task" in raw and raw["task"].nunique() > 1:
            category_col = "task"
    else:
        refuse_other_formats("table", harness_filter=harness_filter, instances=instances,
                             missing_instances=missing_instances)
        raw = read_table_file(Path(path), source, max_bytes)
    return items_from_table(raw, source, model_col=model_col, item_col=item_col,
                            value_col=value_col, cluster_col=cluster_col,
                            category_col=category_col, target_col=target_col,
                            sample_col=sample_col, items_policy=items_policy, binary=binary,
                            skipped=skipped, notes=notes)
