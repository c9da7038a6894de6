"""Per-item values: the mean of one number per test item (LLM and benchmark leaderboards).

``mean`` scores an entry by the average of its per-item values (0/1 correctness, partial credit,
a per-item score); the truth is not used. It is a row mean, so the paired bootstrap of every
model is one matrix product, and its point value equals a pandas group-by mean.

Users name the mean of 0/1 values as their benchmark does (``accuracy``, ``pass@1``, the
``resolved`` rate): :data:`BINARY_MEAN_NAMES`, resolved in items mode only by
:func:`leaderboard.metrics.registry.items_metric` (elsewhere ``accuracy`` is the classification
metric on labels and a truth). :class:`MeanOwnItems` is the mean over the items an entry has
(NaN where it has none): models on different item sets (``--items-policy pairwise``).
"""
from __future__ import annotations

import numpy as np

from leaderboard.metrics.base import Metric, RowMean, RowSums

_INF = float("inf")


class _MeanValue(RowMean):
    """The mean of the entry's own per-row values."""

    def row_values(self, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        return np.asarray(y_pred, dtype=float)


class MeanOwnItems(RowSums):
    """The mean of the entry's values over the rows where it has one (not NaN), in weighted form:
    ``sum w v / sum w`` over its own rows; NaN when a replicate draws none of them.

    Examples
    --------
    >>> impl = MeanOwnItems()
    >>> impl.score(np.zeros(3), np.array([1.0, np.nan, 0.0]))
    0.5
    """

    def entry_features(self, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        values = np.asarray(y_pred, dtype=float)
        has = np.isfinite(values)
        return np.column_stack([np.where(has, values, 0.0), has.astype(float)])

    def finalize(self, shared: np.ndarray, sums: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return sums[..., 0] / sums[..., 1]


#: Spellings (lower case, without ``-``, ``_`` and spaces) of the mean of 0/1 values in items
#: mode, and the name each stands for.
BINARY_MEAN_NAMES = {"accuracy": "accuracy", "acc": "accuracy", "pass@1": "pass@1",
                     "passrate": "pass@1", "resolved": "resolved", "resolvedrate": "resolved",
                     "resolverate": "resolved"}


def binary_mean(name: str) -> Metric:
    """The mean of 0/1 values under the name the user gave (``accuracy``, ``pass@1``,
    ``resolved``): scored as ``mean``, in [0, 1].

    Examples
    --------
    >>> binary_mean("pass@1").label
    'pass@1 (mean of 0/1 values)'
    """
    return Metric(name, f"{name} (mean of 0/1 values)", True, (), 0.0, 1.0, kind="values",
                  factory=_MeanValue)


METRICS: tuple[Metric, ...] = (
    Metric("mean", "mean per-item value", True, ("mean_value", "per_item_mean", "mean_score"),
           -_INF, _INF, kind="values", factory=_MeanValue),
)
