"""Stage 1b, metrics: one registry that knows each metric's names, direction, predictions and
computation (point value and resampled values under bootstrap row weights).

The names below load their modules on first use (module ``__getattr__``, PEP 562): importing
one metric module (``leaderboard.metrics.base``, or the module a pickled metric names, as a Dask
worker does) then does not import the registry and with it every metric's dependencies (SciPy,
pandas, numba: about 4 s; issue 27).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from leaderboard._lazy import lazy_names

_LAZY = {
    "KINDS": "leaderboard.metrics.base",
    "Metric": "leaderboard.metrics.base",
    "MetricImpl": "leaderboard.metrics.base",
    "RowMean": "leaderboard.metrics.base",
    "RowSums": "leaderboard.metrics.base",
    "METRICS": "leaderboard.metrics.registry",
    "get_metric": "leaderboard.metrics.registry",
    "items_metric": "leaderboard.metrics.registry",
    "metric_names": "leaderboard.metrics.registry",
}

__all__ = ["KINDS", "METRICS", "Metric", "MetricImpl", "RowMean", "RowSums", "get_metric",
           "items_metric", "metric_names"]

if TYPE_CHECKING:
    from leaderboard.metrics.base import KINDS, Metric, MetricImpl, RowMean, RowSums
    from leaderboard.metrics.registry import METRICS, get_metric, items_metric, metric_names


__getattr__, __dir__ = lazy_names(__name__, _LAZY, globals())
