"""Per-item results as benchmarks keep them: words for 0/1, models listed twice, repeated samples,
models scored on different item sets (issue 26 items 2-4).

The per-item results reader (:func:`~leaderboard.ingest.item_table.items_from_table`) calls
these after it has coded every row's model and item; each returns what the reader needs and an
account of what it did, so that no model or row disappears without a reason in the report.

- :func:`words_as_numbers`: ``true/false``, ``yes/no``, ``pass/fail`` (any case) read as 1/0 in
  items mode, where the value is a per-item score (never where a probability is expected).
- :func:`item_cells`: one value per (model, item): rows listed twice with the same value are
  merged, a model listed twice with different values is refused naming the items; with a sample
  column, the mean over samples is the item's value and :class:`SampleSpread` measures how much
  of the noise the samples add.
- which items and models are analysed, when models are scored on different item sets:
  :mod:`~leaderboard.ingest.item_coverage`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from leaderboard.api_words import said
from leaderboard.errors import InputError
from leaderboard.ingest.toolkit.messages import show

#: Words benchmarks write for 0/1 outcomes (SWE-bench's "resolved", pass/fail test logs).
BINARY_WORDS = {"true": 1, "false": 0, "yes": 1, "no": 0, "pass": 1, "fail": 0}
NAMED = 3   # items or models named in one sentence


def words_as_numbers(text: pd.Series) -> pd.Series:
    """``text`` with ``true/false``, ``yes/no``, ``pass/fail`` (any case, spaces around) as
    ``"1"``/``"0"``; every other cell unchanged (numbers stay numbers, anything else is refused
    later by the number parser, naming its line).

    Examples
    --------
    >>> words_as_numbers(pd.Series(["TRUE", " no", "Pass", "0.5", "maybe"])).tolist()
    ['1', '0', '1', '0.5', 'maybe']
    """
    # decided on the distinct cells (a few for 0/1 results), not on millions of rows
    distinct = pd.unique(text.to_numpy(dtype=object))
    words = {cell: str(BINARY_WORDS[key]) for cell in distinct
             if (key := str(cell).strip().lower()) in BINARY_WORDS}
    if not words:
        return text
    return text.where(~text.isin(list(words)), text.map(words))


@dataclass(frozen=True)
class SampleSpread:
    """How much of a score's noise comes from the samples within each item (``--sample-col``).

    Each item's value is the mean of its ``n`` samples, ``ybar_i = p_i + e_i``: ``p_i`` the
    model's expected value on the item (varying across items, variance ``between``) and ``e_i``
    the mean of ``n`` independent draws around it (variance ``within / n``). The item bootstrap's
    variance of the score is ``(between + within / n) / T`` for ``T`` items; this is estimated by
    ``total`` = the variance of ``ybar_i`` across items and ``within`` = the mean of the items'
    sample variances (ddof 1), pooled over the models.

    Assumes: samples of one item are independent draws given the item (generations at a fixed
    temperature, repeated judge calls), items independent, the same ``n`` on every item.

    Attributes
    ----------
    samples_min, samples_median, samples_max : int or float
        Samples per (model, item) over the kept models.
    within : float
        Mean within-item sample variance.
    total : float
        Mean over models of the variance of item means across items.
    within_share : float or None
        ``(within / n) / total``: the share of the score's variance the samples add (None when
        ``total`` is 0).
    halve_samples : int or None
        Samples per item that would halve the score's standard error:
        ``n' = within / (total / 4 - between)`` with ``between = total - within / n``; None when
        more samples cannot halve it (the items' own spread is more than a quarter of it: only
        more items can), with the reason in :meth:`sentence`.
    """

    samples_min: int
    samples_median: float
    samples_max: int
    within: float
    total: float
    within_share: float | None
    halve_samples: int | None

    @classmethod
    def estimate(cls, sums: np.ndarray, squares: np.ndarray, counts: np.ndarray,
                 models: np.ndarray) -> SampleSpread:
        """From per-(model, item) sums, sums of squares and sample counts of the kept models.

        Examples
        --------
        >>> counts = np.full((1, 4), 2)
        >>> sums = np.array([[2.0, 0.0, 1.0, 1.0]])   # item means 1, 0, .5, .5
        >>> s = SampleSpread.estimate(sums, sums, counts, np.array([0]))   # 0/1: squares = sums
        >>> round(s.within, 3), round(s.total, 3), round(s.within_share, 3)
        (0.25, 0.167, 0.75)
        """
        n, total_sum, sq = counts[models], sums[models], squares[models]
        present = n > 0
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(present, total_sum / np.maximum(n, 1), np.nan)
            var = np.where(n > 1, (sq - n * mean ** 2) / np.maximum(n - 1, 1), np.nan)
        var = np.maximum(var, 0.0)   # rounding below zero on constant samples
        within = float(np.nanmean(var)) if np.isfinite(var).any() else math.nan
        spread = [np.var(row[np.isfinite(row)], ddof=1) for row in mean
                  if np.isfinite(row).sum() > 1]
        total = float(np.mean(spread)) if spread else math.nan
        per_item = n[present]
        n_mean = float(per_item.mean()) if per_item.size else math.nan
        share = halve = None
        if math.isfinite(within) and math.isfinite(total) and total > 0:
            share = min(1.0, within / n_mean / total)
            between = max(total - within / n_mean, 0.0)
            room = total / 4 - between
            halve = int(math.ceil(within / room)) if room > 0 and within > 0 else None
        return cls(samples_min=int(per_item.min()) if per_item.size else 0,
                   samples_median=float(np.median(per_item)) if per_item.size else math.nan,
                   samples_max=int(per_item.max()) if per_item.size else 0, within=within,
                   total=total, within_share=share, halve_samples=halve)

    def sentence(self) -> str:
        """The reader's summary (stderr, the page, the JSON's flags)."""
        n = (f"{self.samples_min:,}" if self.samples_min == self.samples_max
             else f"{self.samples_min:,} to {self.samples_max:,} (median {self.samples_median:g})")
        head = f"Each item's value is the mean of its samples ({n} per model and item)"
        if self.within_share is None:
            return head + "; the items' values do not vary, so the samples' share of the noise " \
                "is not defined."
        share = (f"; the samples add {self.within_share:.0%} of the score's variance "
                 f"(within-item variance {self.within:.3g} over n, against {self.total:.3g} "
                 "across items)")
        if self.halve_samples is not None:
            return (head + share + f"; {self.halve_samples:,} samples per item would halve the "
                    "standard error (n' = within / (total/4 - between), assuming independent "
                    "samples within an item).")
        return (head + share + "; more samples per item cannot halve the standard error: the "
                "items' own spread is more than a quarter of it, so only more items can (4x as "
                "many halve it).")

    def to_json(self) -> dict:
        """The JSON's ``items.samples``."""
        def num(x):
            return None if x is None or not math.isfinite(x) else float(x)
        return {"per_item_min": self.samples_min, "per_item_median": num(self.samples_median),
                "per_item_max": self.samples_max, "within_variance": num(self.within),
                "item_mean_variance": num(self.total), "within_share": num(self.within_share),
                "samples_to_halve_se": self.halve_samples,
                "formula": "n' = within / (total/4 - between), between = total - within/n",
                "assumes": "samples of an item are independent draws given the item; items "
                           "independent; the same n on every item"}


@dataclass(frozen=True)
class Cells:
    """One value per (model, item) after duplicates and samples.

    ``value`` is (models, items) with NaN where a model has no value; ``refused`` maps a model's
    index to why it is not analysed; ``merged`` names the models listed twice with identical
    rows (kept once); ``samples`` is None without a sample column."""

    value: np.ndarray
    present: np.ndarray
    refused: dict[int, str]
    merged: tuple[str, ...]
    samples: SampleSpread | None


def item_cells(m_code: np.ndarray, i_code: np.ndarray, values: np.ndarray,
               models: pd.Index, items: pd.Index, s_code: np.ndarray | None = None) -> Cells:
    """Every model's value on every item, from coded rows (``s_code``: each row's sample).

    A key (model, item[, sample]) given on several rows is one row when they agree (a model in
    two snapshots of a benchmark); when they disagree the model is refused, naming the items
    (without ``s_code``, repeated samples look like that: the reason says ``--sample-col``).

    Examples
    --------
    >>> models, items = pd.Index(["a", "b"]), pd.Index(["q1", "q2"])
    >>> cells = item_cells(np.array([0, 0, 0, 1, 1, 1]), np.array([0, 1, 0, 0, 1, 1]),
    ...                    np.array([1.0, 0.0, 1.0, 1.0, 0.0, 1.0]), models, items)
    >>> cells.merged, cells.refused[1][:59]
    (('a',), 'listed twice with different values on 1 item (q2: 0 then 1)')
    """
    n_models, n_items = len(models), len(items)
    n_samples = int(s_code.max()) + 1 if s_code is not None and s_code.size else 1
    # one int64 key per row, (model, item, sample) in that order: one stable sort finds repeats
    flat = (m_code.astype(np.int64) * n_items + i_code) * n_samples + (
        s_code if s_code is not None else 0)
    order = np.argsort(flat, kind="stable")
    sorted_flat, sorted_value = flat[order], values[order]
    repeat = np.concatenate([[False], sorted_flat[1:] == sorted_flat[:-1]])
    refused: dict[int, str] = {}
    merged: tuple[str, ...] = ()
    if repeat.any():   # rows given twice: merged when they agree, else the model is refused
        group = np.cumsum(~repeat) - 1
        first_value = sorted_value[~repeat][group]
        clash = repeat & (sorted_value != first_value)
        sorted_model = sorted_flat // (n_items * n_samples)
        sorted_item = sorted_flat // n_samples % n_items
        for model in np.unique(sorted_model[clash]):
            rows = clash & (sorted_model == model)
            bad_items = np.unique(sorted_item[rows])
            first = np.flatnonzero(rows)[0]
            named = ", ".join(show(items[i]) for i in bad_items[:NAMED])
            more = f" and {bad_items.size - NAMED:,} more" if bad_items.size > NAMED else ""
            refused[int(model)] = (
                f"listed twice with different values on {bad_items.size:,} item"
                f"{'s' if bad_items.size > 1 else ''} ({named}{more}"
                + (f"; on {show(items[bad_items[0]])}: " if bad_items.size > 1 else ": ")
                + f"{first_value[first]:g} then {sorted_value[first]:g})"
                + ("; give one value per model, item and sample" if s_code is not None else
                   said("; give one value per model and item, or --sample-col if these are "
                        "repeated samples")))
        merged = tuple(str(models[k]) for k in np.unique(sorted_model[repeat & ~clash])
                       if int(k) not in refused)
    kept = ~repeat
    cell = sorted_flat[kept] // n_samples                  # model * n_items + item
    v = sorted_value[kept]
    size = n_models * n_items
    counts = np.bincount(cell, minlength=size).reshape(n_models, n_items)
    sums = np.bincount(cell, weights=v, minlength=size).reshape(n_models, n_items)
    present = counts > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        value = np.where(present, sums / np.maximum(counts, 1), np.nan)
    samples = None
    if s_code is not None:
        squares = np.bincount(cell, weights=v * v, minlength=size).reshape(n_models, n_items)
        ok = np.array([k for k in range(n_models) if k not in refused], dtype=np.int64)
        samples = SampleSpread.estimate(sums, squares, counts, ok)
    return Cells(value=value, present=present, refused=refused, merged=merged, samples=samples)


def require_binary(raw: pd.DataFrame, column: str, values: np.ndarray, metric: str,
                   source: str) -> None:
    """``--metric accuracy`` (``pass@1``, ``resolved``) names the mean of 0/1 values: any other
    value is an error naming its line.

    Examples
    --------
    >>> raw = pd.DataFrame({"value": ["1", "0.5"]}, index=[2, 3])
    >>> require_binary(raw, "value", np.array([1.0, 0.5]), "accuracy", "r.csv")
    ... # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    leaderboard.errors.InputError: r.csv:3: column 'value': --metric accuracy is the mean of 0/1 values; '0.5'
    is neither (1 such row); give --metric mean for partial credit
    """
    bad = (values != 0) & (values != 1)
    if bad.any():
        first = int(np.argmax(bad))
        raise InputError(f"--metric {metric} is the mean of 0/1 values; "
                         f"{show(raw[column].iloc[first].strip())!r} is neither "
                         f"({int(bad.sum()):,} such row{'s' if bad.sum() > 1 else ''}); give "
                         "--metric mean for partial credit", file=source,
                         row=int(raw.index[first]), column=column)
