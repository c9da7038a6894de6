"""Stage 1b, metrics: one registry that knows each metric's names, direction, predictions and
computation (point value and resampled values under bootstrap row weights)."""
from leaderboard.metrics.base import KINDS, Metric, MetricImpl, RowMean, RowSums
from leaderboard.metrics.registry import METRICS, get_metric, items_metric, metric_names

__all__ = ["KINDS", "METRICS", "Metric", "MetricImpl", "RowMean", "RowSums", "get_metric",
           "items_metric", "metric_names"]
