"""One registry for metrics.

Each :class:`Metric` records its canonical name, the spellings users type for it (Kaggle's and
scikit-learn's), whether higher is better, the range its values live in, and the name of the
universe in :mod:`leaderboard.noise.universe` that simulates its sampling noise (``None`` when the
project has no noise model for it yet: such a metric can still be ranked, but gets no intervals).
"""
from __future__ import annotations

from dataclasses import dataclass

from leaderboard.errors import InputError


@dataclass(frozen=True)
class Metric:
    """What the pipeline needs to know about a metric.

    Attributes
    ----------
    name : str
        Canonical name, used in reports and JSON.
    label : str
        Human-readable name for the report.
    higher_is_better : bool
        Direction of the metric.
    aliases : tuple of str
        Other spellings accepted on the command line (matched case-insensitively, ignoring
        ``-``, ``_`` and spaces).
    lower_bound, upper_bound : float
        Range of possible values; scores outside it are rejected as input errors.
    noise_model : str or None
        Key of the universe that simulates this metric's sampling noise from scores alone.
    """

    name: str
    label: str
    higher_is_better: bool
    aliases: tuple[str, ...] = ()
    lower_bound: float = float("-inf")
    upper_bound: float = float("inf")
    noise_model: str | None = None


_INF = float("inf")

METRICS: tuple[Metric, ...] = (
    Metric("auc", "ROC AUC", True, ("roc_auc", "rocauc", "roc", "auroc", "area_under_curve",
                                    "areaundercurve", "aucroc"), 0.0, 1.0, noise_model="auc"),
    Metric("accuracy", "accuracy", True, ("acc", "categorization_accuracy",
                                          "categorizationaccuracy", "accuracy_score"),
           0.0, 1.0, noise_model="accuracy"),
    Metric("logloss", "log loss", False, ("log_loss", "binary_crossentropy", "cross_entropy",
                                          "mlogloss", "multi_logloss", "weighted_logloss"),
           0.0, _INF),
    Metric("brier", "Brier score", False, ("brier_score", "brier_score_loss"), 0.0, 1.0),
    Metric("rmse", "RMSE", False, ("root_mean_squared_error",), 0.0, _INF),
    Metric("rmsle", "RMSLE", False, ("root_mean_squared_log_error",
                                     "root_mean_squared_logarithmic_error"), 0.0, _INF),
    Metric("mse", "MSE", False, ("mean_squared_error",), 0.0, _INF),
    Metric("mae", "MAE", False, ("mean_absolute_error",), 0.0, _INF),
    Metric("log_mae", "log MAE", False, ("logmae",), -_INF, _INF),
    Metric("mape", "MAPE", False, ("mean_absolute_percentage_error",), 0.0, _INF),
    Metric("smape", "SMAPE", False, ("symmetric_mean_absolute_percentage_error",), 0.0, 200.0),
    Metric("r2", "R squared", True, ("r2_score", "r_squared", "coefficient_of_determination"),
           -_INF, 1.0),
    Metric("f1", "F1 score", True, ("f1_score", "fscore", "f_score", "mean_f_score",
                                    "meanfscore"), 0.0, 1.0),
    Metric("precision", "precision", True, ("precision_score",), 0.0, 1.0),
    Metric("recall", "recall", True, ("recall_score", "sensitivity"), 0.0, 1.0),
    Metric("balanced_accuracy", "balanced accuracy", True, ("balanced_accuracy_score",), 0.0, 1.0),
    Metric("mcc", "Matthews correlation", True, ("matthews_corrcoef",
                                                 "matthews_correlation_coefficient"), -1.0, 1.0),
    Metric("average_precision", "average precision", True, ("average_precision_score", "ap",
                                                            "pr_auc", "prauc"), 0.0, 1.0),
    Metric("map", "mean average precision", True, ("mean_average_precision", "map_at_k",
                                                   "mapk", "map@k"), 0.0, 1.0),
    Metric("dice", "Dice coefficient", True, ("dice_coefficient", "mean_dice"), 0.0, 1.0),
    Metric("iou", "intersection over union", True, ("jaccard", "mean_iou", "jaccard_score"),
           0.0, 1.0),
    Metric("qwk", "quadratic weighted kappa", True, ("quadratic_weighted_kappa", "kappa",
                                                     "cohen_kappa"), -1.0, 1.0),
    Metric("gini", "normalized Gini", True, ("normalized_gini", "gini_normalized"), -1.0, 1.0),
)


def _key(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch not in "-_ ")


_BY_KEY: dict[str, Metric] = {}
for _m in METRICS:
    for _spelling in (_m.name, *_m.aliases):
        _BY_KEY[_key(_spelling)] = _m


def metric_names() -> list[str]:
    """Canonical names of every registered metric."""
    return [m.name for m in METRICS]


def get_metric(name: str) -> Metric:
    """Look a metric up by any of its spellings.

    Examples
    --------
    >>> get_metric("ROC_AUC").name
    'auc'
    >>> get_metric("log-loss").higher_is_better
    False
    """
    try:
        return _BY_KEY[_key(name)]
    except KeyError:
        raise InputError(f"unknown metric {name!r}; known metrics: {', '.join(metric_names())}",
                         column=None) from None
