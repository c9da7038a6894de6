"""The metric registry: one place that knows each metric's names, direction and noise model."""
from leaderboard.metrics.registry import METRICS, Metric, get_metric, metric_names

__all__ = ["METRICS", "Metric", "get_metric", "metric_names"]
