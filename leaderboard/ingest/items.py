"""Per-item (long-format) results: one row per (model, item), read into submissions mode.

Benchmark and LLM leaderboards score many models on the same items. Their results come as a
long table: a model column, an item column and a value column (0/1 correctness, a per-item
score), optionally a cluster column (passage, conversation, repository: items that are not
independent). :func:`read_items` turns it into the :class:`Solution` (one row per item, the
clusters as groups) and the :class:`SubmissionSet` (one entry per model, its values in the
items' order) that submissions mode analyses with the metric ``mean``: the paired bootstrap of
items, resampling whole clusters when there are any.

Every model and every row is accounted for: a model with a missing (model, item) pair or a pair
given twice is rejected with the count and the first such item, never zero-filled or dropped
silently; a value that is not a finite number names its line.
"""
from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from leaderboard import limits
from leaderboard.errors import InputError
from leaderboard.ingest.in_memory import InMemory
from leaderboard.ingest.leaderboards import MAX_MAGNITUDE, _column, _numbers, _require_nonempty, parse_csv
from leaderboard.limits import BYTES_PER_ITEM_CELL
from leaderboard.ingest.safe_read import DEFAULT_MAX_BYTES, Unreadable, read_file
from leaderboard.ingest.submissions.files import SubmissionFile, SubmissionSet
from leaderboard.ingest.item_sets import (item_cells, item_coverage, require_binary,
                                          words_as_numbers)
from leaderboard.ingest.benchmarks import detect, read_benchmark
from leaderboard.ingest.submissions.solution import Solution
from leaderboard.ingest.submissions.table import Rejected, decode_parquet, show

_SHOW = 3
NUMERIC_KINDS = ("scores", "probabilities", "values")   # what --target-col can score


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
        every item, each model on its own (``pairwise``, values NaN where a model has none). :class:`~leaderboard.ingest.item_sets.ItemCoverage` (the solution's
        ``coverage``) accounts for it.
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
        Items in order of first appearance; models in order of first appearance, each ``ok`` or
        ``rejected`` with its reason.

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "r.csv"
    >>> _ = p.write_text("model,item,value\\na,q1,1\\na,q2,0\\nb,q1,1\\nb,q2,1\\nc,q1,1\\n")
    >>> solution, models = read_items(p)    # c lacks q2: 2 models x 2 items beat 3 x 1
    >>> solution.ids.tolist(), [(f.team, f.status) for f in models.files]
    (['q1', 'q2'], [('a', 'ok'), ('b', 'ok'), ('c', 'rejected')])
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
        raw = _read(Path(path), source, max_bytes)
    model = _column(raw, model_col, (), "model", "--model-col", source)
    item = _column(raw, item_col, (), "item", "--item-col", source)
    value = _column(raw, value_col, (), "value", "--value-col", source)
    cluster = (_column(raw, cluster_col, (), "cluster", "--cluster-col", source)
               if cluster_col is not None else None)
    category = (_column(raw, category_col, (), "category", "--category-col", source)
                if category_col is not None else None)
    target = (_column(raw, target_col, (), "target", "--target-col", source)
              if target_col is not None else None)
    sample = (_column(raw, sample_col, (), "sample", "--sample-col", source)
              if sample_col is not None else None)
    for col in (model, item) + tuple(c for c in (cluster, category, target, sample) if c):
        _require_nonempty(raw, col, source, "every row needs one")
    if target is None:   # a per-item score, not a probability: true/false, pass/fail are 1/0
        raw = raw.assign(**{value: words_as_numbers(raw[value])})
    values = _numbers(raw, value, source, allow_missing=False, bounded=False).to_numpy()
    if binary:
        require_binary(raw, value, values, binary, source)
    caps = limits.current()
    caps.check_names(raw[model].str.strip(), source, model)
    models = pd.Index(pd.unique(raw[model].str.strip()))
    items = pd.Index(pd.unique(raw[item].str.strip()))
    caps.check_memory(len(models) * len(items) * BYTES_PER_ITEM_CELL,
                      f"a table of {len(models):,} models by {len(items):,} items",
                      "check the model and item columns")
    m_code = models.get_indexer(raw[model].str.strip())
    i_code = items.get_indexer(raw[item].str.strip())
    groups = _per_item(raw, cluster, "cluster", i_code, items, source) if cluster else None
    categories = (_per_item(raw, category, "category", i_code, items, source)
                  if category else None)
    found = grouping_columns(raw, i_code, len(items),
                             exclude={c for c in (model, item, value, cluster, category, target,
                                                  sample) if c})
    truth = (_numbers(raw.loc[~pd.Index(i_code).duplicated()], target, source,
                      allow_missing=False).to_numpy()
             if target else None)
    if target:   # one truth per item, checked like clusters, then in the items' order
        _per_item(raw, target, "target", i_code, items, source)
        whole = np.all(truth == np.round(truth)) and np.all(np.abs(truth) < 2.0 ** 53)
        truth = truth.astype(np.int64) if whole else truth

    s_code = (pd.Index(pd.unique(raw[sample].str.strip())).get_indexer(raw[sample].str.strip())
              if sample else None)
    cells = item_cells(m_code, i_code, values, models, items, s_code)
    matrix = cells.value
    huge = np.abs(values) > MAX_MAGNITUDE   # such a model is refused, never averaged to inf
    first_huge = np.full(len(models), -1)
    first_huge[m_code[huge][::-1]] = np.flatnonzero(huge)[::-1]
    files = []
    rows_of = np.bincount(m_code, minlength=len(models))
    for k, name in enumerate(models):
        reason = cells.refused.get(k)
        if first_huge[k] >= 0:
            row = first_huge[k]
            reason = (f"value {raw[value].iloc[row].strip()[:24]!r} on line {raw.index[row]} is "
                      f"beyond +-{MAX_MAGNITUDE:g}; sums and squares of such numbers overflow")
        rows = int(rows_of[k])
        files.append(SubmissionFile(team=name, file=name, selected=None,
                                    status="ok" if reason is None else "rejected", reason=reason,
                                    rows=rows, label=name, prediction=None))
    kept = np.array([k for k, f in enumerate(files) if f.status == "ok"], dtype=np.int64)
    if not kept.size:
        raise InputError(f"no model can be analysed (first: {files[0].team}: {files[0].reason})"
                         if files else "no rows", file=source)
    used, coverage = item_coverage(cells.present, kept, models, items, items_policy,
                                   cells.merged, cells.samples)
    if coverage.dropped_models:   # left out to keep every item: rejected, saying why
        files = _drop_incomplete(files, coverage, models)
    files = [replace(f, prediction=matrix[k, used]) if f.status == "ok" else f
             for k, f in enumerate(files)]
    items, groups, categories = (items[used], None if groups is None else groups[used],
                                 None if categories is None else categories[used])
    truth = None if truth is None else truth[used]
    ids = items.to_numpy(dtype=object).astype(str)
    solution = Solution(source=source, id_column=item, target_columns=(value,), ids=ids,
                        target=np.zeros(len(items)) if truth is None else truth,
                        classes=None if truth is None or truth.dtype.kind == "f"
                        else np.unique(truth), one_hot=False,
                        usage=np.full(len(items), "private"), usage_column=None, groups=groups,
                        integer_ids=False, rows_read=len(raw),
                        counts={"public": 0, "private": len(items), "ignored": 0}, keys=ids,
                        categories=categories, grouping_columns=found, coverage=coverage,
                        notes=tuple(notes))
    files += [SubmissionFile(team=name, file=name, selected=None, status="skipped", reason=why,
                             rows=None, label=name) for name, why in skipped]
    subs = SubmissionSet(source=source, layout="items", kind="values", files=tuple(files))
    return solution, subs


def _drop_incomplete(files: list[SubmissionFile], coverage, models: pd.Index
                     ) -> list[SubmissionFile]:
    """The models ``coverage`` left out (they lack some item) marked rejected, with why."""
    lacking = dict(coverage.dropped_models)
    total = len(coverage.used)
    other = ("drop-items keeps every model on the items all have"
             if coverage.policy == "common" else "common or drop-items keeps it")
    return [replace(f, status="rejected", reason=(
        f"has {lacking[f.team]:,} of the {total:,} items: left out so that every model is "
        f"compared on every item (--items-policy {other})"))
        if f.team in lacking else f for f in files]


def _read(path: Path, source: str, max_bytes: int) -> pd.DataFrame:
    """Every cell as text indexed by its line (CSV), or by row + 2 (Parquet, as if a header)."""
    try:
        data = read_file(path, max_bytes=max_bytes)
    except Unreadable as err:
        raise InputError(str(err), file=source) from None
    if path.suffix.lower() != ".parquet":
        return parse_csv(data, source)
    try:
        frame = _read_parquet(data, source, max_bytes)
    except InputError:
        raise
    except ImportError:
        raise InputError("reading Parquet needs pyarrow: pip install pyarrow",
                         file=source) from None
    except Exception as err:  # noqa: BLE001 - any damaged file: one line
        raise InputError(f"not a readable Parquet file ({str(err).splitlines()[0][:120]})",
                         file=source) from None
    text = frame.astype(str).where(frame.notna(), "")
    text.columns = [str(c) for c in text.columns]
    text.index = np.arange(2, len(text) + 2)
    return text


def _read_parquet(data: bytes, source: str, max_bytes: int) -> pd.DataFrame:
    """A Parquet file as a DataFrame, with the checks of every Parquet reader
    (:func:`~leaderboard.ingest.submissions.table.decode_parquet`: names written twice, caps,
    what its pages expand to), and refused when it holds no rows, as a CSV would be."""
    try:
        table = decode_parquet(data, max_bytes)
    except Rejected as err:
        raise InputError(str(err), file=source, row=1 if "header" in str(err) else None) \
            from None
    if not table.num_rows:
        raise InputError("no data rows: the Parquet file holds no rows", file=source)
    return table.to_pandas()


def _per_item(raw: pd.DataFrame, column: str, what: str, i_code: np.ndarray, items: pd.Index,
              source: str) -> np.ndarray:
    """One label per item (its cluster or category); an item given two is an error naming its
    line."""
    labels = raw[column].str.strip().to_numpy()
    first = np.full(len(items), -1)
    first[i_code[::-1]] = np.arange(len(i_code))[::-1]      # the first row of every item
    per_item = labels[first]
    clash = per_item[i_code] != labels
    if clash.any():
        row = int(np.argmax(clash))
        raise InputError(f"item {show(items[i_code[row]])} is in {what} {show(labels[row])} "
                         f"here and {show(per_item[i_code[row]])} on its first line; an item "
                         f"belongs to one {what}", file=source, row=int(raw.index[row]),
                         column=column)
    return per_item.astype(str)


def grouping_columns(raw: pd.DataFrame, i_code: np.ndarray, n_items: int,
                     exclude: set[str]) -> tuple[tuple[str, int], ...]:
    """Columns that look like clusters nobody declared: constant within every item, and taking
    from 2 to ``n_items / 2`` values (two items per group on average: a column of almost unique
    labels, such as a text or an id, groups nothing). Items of
    one passage or repository are often related; resampling them one by one then understates the
    noise (measured in the issue that asked for this: SEs 0.40x the cluster-robust ones).

    Examples
    --------
    >>> raw = pd.DataFrame({"model": ["a"] * 4, "item": ["q1", "q2", "q3", "q4"],
    ...                     "value": ["1", "0", "1", "1"], "repo": ["x", "x", "y", "y"],
    ...                     "note": ["p", "q", "r", "s"]})
    >>> grouping_columns(raw, np.arange(4), 4, {"model", "item", "value"})
    (('repo', 2),)
    """
    found = []
    for column in raw.columns:
        if column in exclude:
            continue
        labels = raw[column].astype(str).str.strip()
        if labels.eq("").any():
            continue
        codes = pd.Index(pd.unique(labels)).get_indexer(labels)
        per_item = np.full(n_items, -1)
        per_item[i_code] = codes
        constant = np.array_equal(per_item[i_code], codes)
        groups = int(np.unique(per_item).size)
        if constant and 2 <= groups <= n_items // 2:
            found.append((str(column), groups))
    return tuple(found)


def grouping_sentence(column: str, groups: int) -> str:
    """The warning for one undeclared grouping column (stderr, the JSON's flags, the page).

    Examples
    --------
    >>> grouping_sentence("repo", 12)[:49]
    "column 'repo' groups the items into 12 groups; if"
    """
    name = show(column)
    quoted = name if name.startswith(("'", '"')) else f"'{name}'"
    return (f"column {quoted} groups the items into {groups:,} groups; if items of a "
            f"group are related, pass --cluster-col {name}: the intervals may be too "
            "narrow without it")
