"""Per-item values: the mean of one number per test item (LLM and benchmark leaderboards).

``mean`` scores an entry by the average of its per-item values (0/1 correctness, partial credit,
a per-item score); the truth is not used. It is a row mean, so the paired bootstrap of every
model is one matrix product, and its point value equals a pandas group-by mean.
"""
from __future__ import annotations

import numpy as np

from leaderboard.metrics.base import Metric, RowMean

_INF = float("inf")


class _MeanValue(RowMean):
    """The mean of the entry's own per-row values."""

    def row_values(self, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        return np.asarray(y_pred, dtype=float)


METRICS: tuple[Metric, ...] = (
    Metric("mean", "mean per-item value", True, ("mean_value", "per_item_mean", "mean_score"),
           -_INF, _INF, kind="values", factory=_MeanValue),
)
