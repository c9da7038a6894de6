"""The per-item results reader: a long table of text cells, one row per (model, item), read into
what submissions mode analyses (issue 42: the table read by :mod:`leaderboard.ingest.items`,
from a file, a DataFrame or a benchmark's own files).

:func:`items_from_table` turns it into the :class:`~leaderboard.ingest.records.Solution` (one
row per item, the clusters as groups) and the :class:`~leaderboard.ingest.records.SubmissionSet`
(one entry per model, its values in the items' order) that submissions mode analyses with the
metric ``mean``. Every model and every row is accounted for: a model with a missing (model,
item) pair or a pair given twice is rejected with the count and the first such item, never
zero-filled or dropped silently; a value that is not a finite number names its line.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from leaderboard.api_words import said
from leaderboard import limits
from leaderboard.errors import InputError
from leaderboard.ingest.item_coverage import item_coverage
from leaderboard.ingest.item_sets import item_cells, require_binary, words_as_numbers
from leaderboard.ingest.records import Solution, SubmissionFile, SubmissionSet
from leaderboard.ingest.toolkit.columns import (MAX_MAGNITUDE, column_numbers, find_column,
                                                require_nonempty)
from leaderboard.ingest.toolkit.messages import grouping_words, show
from leaderboard.limits import BYTES_PER_ITEM_CELL

NUMERIC_KINDS = ("scores", "probabilities", "values")   # what --target-col can score


def items_from_table(raw: pd.DataFrame, source: str, *, model_col: str, item_col: str,
                     value_col: str, cluster_col: str | None, category_col: str | None,
                     target_col: str | None, sample_col: str | None, items_policy: str,
                     binary: str | None, skipped: list[tuple[str, str]],
                     notes: list[str]) -> tuple[Solution, SubmissionSet]:
    """A long table (text cells indexed by line) as per-item results: the parameters are
    :func:`~leaderboard.ingest.items.read_items`' own; ``skipped`` lists the entries of a
    benchmark's folder that were not read, as ``(name, why)``, and ``notes`` says how its values
    were counted.

    Examples
    --------
    >>> raw = pd.DataFrame({"model": ["a", "a", "b", "b"], "item": ["q1", "q2"] * 2,
    ...                     "value": ["1", "0", "true", "1"]}, index=[2, 3, 4, 5])
    >>> solution, models = items_from_table(
    ...     raw, "r.csv", model_col="model", item_col="item", value_col="value", cluster_col=None,
    ...     category_col=None, target_col=None, sample_col=None, items_policy="common",
    ...     binary=None, skipped=[], notes=[])
    >>> solution.ids.tolist(), [f.prediction.tolist() for f in models.scored]
    (['q1', 'q2'], [[1.0, 0.0], [1.0, 1.0]])
    """
    model = find_column(raw, model_col, (), "model", "--model-col", source)
    item = find_column(raw, item_col, (), "item", "--item-col", source)
    value = find_column(raw, value_col, (), "value", "--value-col", source)
    cluster = (find_column(raw, cluster_col, (), "cluster", "--cluster-col", source)
               if cluster_col is not None else None)
    category = (find_column(raw, category_col, (), "category", "--category-col", source)
                if category_col is not None else None)
    target = (find_column(raw, target_col, (), "target", "--target-col", source)
              if target_col is not None else None)
    sample = (find_column(raw, sample_col, (), "sample", "--sample-col", source)
              if sample_col is not None else None)
    for col in (model, item) + tuple(c for c in (cluster, category, target, sample) if c):
        require_nonempty(raw, col, source, "every row needs one")
    if target is None:   # a per-item score, not a probability: true/false, pass/fail are 1/0
        raw = raw.assign(**{value: words_as_numbers(raw[value])})
    values = column_numbers(raw, value, source, allow_missing=False, bounded=False).to_numpy()
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
    truth: np.ndarray | None = None
    if target:   # one truth per item, checked like clusters, then in the items' order
        truth = column_numbers(raw.loc[~pd.Index(i_code).duplicated()], target, source,
                               allow_missing=False).to_numpy()
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
    if coverage.dropped_models:   # left out to keep every item: set aside (valid), saying why
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
    """The models ``coverage`` left out (they lack some item) marked set aside, with why: their
    rows are valid, so they are not "rejected" (invalid) in the account of the models."""
    lacking = dict(coverage.dropped_models)
    total = len(coverage.used)
    other = ("drop-items keeps every model on the items all have"
             if coverage.policy == "common" else "common or drop-items keeps it")
    return [replace(f, status="set aside", reason=(
        f"has {lacking[f.team]:,} of the {total:,} items: left out so that every model is "
        f"compared on every item " + said(f"(--items-policy {other})")))
        if f.team in lacking else f for f in files]


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
    return grouping_words(column, groups, "items")
