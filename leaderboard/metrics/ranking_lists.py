"""Ranked-list metrics (kind ``rankings``): MAP@k and nDCG@k over rows of predicted items.

Each row's prediction is an ordered list of items, best first; in a file it is a space-separated
string (``"item3 item9 item1"``). The truth is the row's set of relevant items, written the same
way. Items are compared as strings, so ``[3, 9]`` and ``"3 9"`` are the same list.

Both metrics are a mean over rows of a per-row value, so under bootstrap weights they are a
:class:`~leaderboard.metrics.base.RowMean`: the lists are parsed and scored once per entry in
``prepare``, and every replicate is one matrix product.

Conventions (those of Kaggle's ``apk``/``mapk``):

* only the first ``k`` predicted items count;
* an item predicted twice counts once, at its first position (the repeat is a miss);
* the truth is a set: a relevant item listed twice is one relevant item;
* a row with no relevant items scores 0 (it cannot be ranked well, so it is not left out).

Examples
--------
>>> import numpy as np
>>> from leaderboard.metrics import get_metric
>>> truth = np.array(["a b", "c", "d e f"], dtype=object)
>>> pred = np.array(["a x b", "x c", "f"], dtype=object)
>>> round(get_metric("map@3").score(truth, pred), 6)    # (1 + 2/3) / 2, 1/2, 1/3
0.555556
>>> get_metric("mapk").impl.replicates(truth, [pred], np.array([[0, 2, 1]]))
array([[0.44444444]])
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from leaderboard.metrics.base import Metric, RowMean, SumsPlan


def _items(value: object) -> list[str]:
    """One row as a list of item strings: a space-separated string, a sequence, or missing."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return []                         # an empty cell read by pandas is NaN
    if isinstance(value, bytes):
        value = value.decode()
    if isinstance(value, str):
        return value.split()
    if isinstance(value, (list, tuple, set, frozenset, np.ndarray)):
        return [str(item) for item in value]
    return [str(value)]                   # a single item, e.g. an integer id


def _rows(column: Sequence[object] | np.ndarray, name: str) -> list[list[str]]:
    if isinstance(column, (str, bytes)) or not hasattr(column, "__len__"):
        raise ValueError(f"{name} must hold one list of items per row")
    return [_items(value) for value in column]


def _hits(truth: np.ndarray, predicted: list[list[str]], k: int) -> np.ndarray:
    """``(n, k)`` 0/1 matrix: whether the item at each of the first k positions is a new hit."""
    hits = np.zeros((len(truth), k))
    for i, (relevant, items) in enumerate(zip(truth, predicted)):
        if not relevant:
            continue
        seen: set[str] = set()
        for j, item in enumerate(items[:k]):
            if item in relevant and item not in seen:
                hits[i, j] = 1.0
            seen.add(item)
    return hits


class _ListMean(RowMean):
    """The mean over rows of a per-row score of the top ``k`` predicted items."""

    def __init__(self, k: int = 10) -> None:
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"k must be a positive integer, got {k!r}")
        self.k = int(k)

    def prepare(self, y_true: np.ndarray, preds: Sequence[np.ndarray]) -> SumsPlan:
        # Parse the truth once for every entry; entry_features then receive the parsed sets
        # (one frozenset per row, in an object array: the rows' type that RowSums passes on).
        rows = _rows(y_true, "y_true")
        truth = np.empty(len(rows), dtype=object)
        truth[:] = [frozenset(items) for items in rows]
        return super().prepare(truth, preds)

    def row_values(self, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        """The per-row score; ``y_true``: the rows' frozensets of relevant items (prepare's)."""
        predicted = _rows(y_pred, "y_pred")
        if len(predicted) != len(y_true):
            raise ValueError(f"y_true has {len(y_true)} rows but y_pred has {len(predicted)}")
        n_relevant = np.minimum([len(items) for items in y_true], self.k)
        return self._score(_hits(y_true, predicted, self.k), n_relevant)

    def _score(self, hits: np.ndarray, n_relevant: np.ndarray) -> np.ndarray:
        raise NotImplementedError


class _MeanAveragePrecision(_ListMean):
    """Per row: sum of precision@i over hit positions i <= k, over min(#relevant, k)."""

    def _score(self, hits: np.ndarray, n_relevant: np.ndarray) -> np.ndarray:
        precision = np.cumsum(hits, axis=1) / np.arange(1, self.k + 1)
        total = (hits * precision).sum(axis=1)
        return np.divide(total, n_relevant, out=np.zeros(len(total)), where=n_relevant > 0)


class _NDCG(_ListMean):
    """Per row: DCG of the binary hits over the DCG of the ideal list (all relevant items first)."""

    def _score(self, hits: np.ndarray, n_relevant: np.ndarray) -> np.ndarray:
        discount = 1.0 / np.log2(np.arange(2, self.k + 2))
        ideal = np.concatenate([[0.0], np.cumsum(discount)])[n_relevant]
        return np.divide(hits @ discount, ideal, out=np.zeros(len(hits)), where=ideal > 0)


METRICS: tuple[Metric, ...] = (
    Metric("map", "mean average precision", True,
           ("mean_average_precision", "mapk", "map_at_k", "mean_average_precision_at_k"),
           0.0, 1.0, kind="rankings", factory=_MeanAveragePrecision,
           option_names=("k",), options=(("k", 10),)),
    Metric("ndcg", "nDCG", True,
           ("ndcg_at_k", "normalized_dcg", "ndcg_score", "normalized_discounted_cumulative_gain"),
           0.0, 1.0, kind="rankings", factory=_NDCG, option_names=("k",), options=(("k", 10),)),
)
