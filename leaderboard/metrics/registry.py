"""One registry for metrics: every metric's names, direction, range, predictions and computation.

Each family module (:mod:`~leaderboard.metrics.classification`, :mod:`~leaderboard.metrics.rank`,
:mod:`~leaderboard.metrics.regression`, :mod:`~leaderboard.metrics.ranking_lists`,
:mod:`~leaderboard.metrics.clustering`) declares its own ``METRICS``; this module joins them, adds the
metrics that can rank a leaderboard of scores but have no implementation for predictions, and
resolves names. A name may carry an ``@k`` suffix (``map@5``, ``ndcg@10``) that sets option ``k``.
"""
from __future__ import annotations

from leaderboard.errors import InputError
from leaderboard.metrics import (classification, clustering, per_item, rank, ranking_lists,
                                 regression)
from leaderboard.metrics.base import Metric

_INF = float("inf")

# Metrics Kaggle boards use whose inputs (run-length masks, per-type groups) this project does not
# parse: they rank a leaderboard of scores; scoring submissions for them is not supported.
SCORES_ONLY: tuple[Metric, ...] = (
    Metric("log_mae", "log MAE", False, ("logmae",), -_INF, _INF),
    Metric("dice", "Dice coefficient", True, ("dice_coefficient", "mean_dice"), 0.0, 1.0,
           noise_model="bounded"),
    Metric("iou", "intersection over union", True, ("mean_iou",), 0.0, 1.0, noise_model="bounded"),
)

METRICS: tuple[Metric, ...] = (*rank.METRICS, *classification.METRICS, *regression.METRICS,
                               *ranking_lists.METRICS, *clustering.METRICS, *per_item.METRICS,
                               *SCORES_ONLY)


# What scoring one entry costs in the paired bootstrap's self-check (leaderboard.tiers.
# bootstrap_check), per row and replicate, in units of a binary ROC AUC's: ``base + per_class * c
# + per_pair * c (c - 1) / 2``, with ``c`` the classes (score or label columns of a matrix of
# predictions; else the distinct labels of truth and predictions for labels and clusters; 1 for
# one score or value per row). Measured with benchmarks/bench_self_check.py: CPU per null board
# at 11 x 2,100, 40 x 2,100, 100 x 500 and 300 x 100 (and at 2, 4 and 10 classes) less what the board costs
# whatever the metric (bootstrap_check's ROW, PAIR, BOARD), over a binary AUC's; 2 shared cores
# at load 1-3, so +-20%; the larger of the shapes' figures, rounded. Metrics not listed (every
# mean of per-row values: their check is the sign flips') count as 1.
CHECK_COST: dict[str, tuple[float, float, float]] = {
    # 1 at one score column (the unit), measured 2.2, 3.8, 4.2, 9.4 at c = 2, 3, 4, 10 columns
    **dict.fromkeys(("auc", "auc_ovr", "auc_ovr_weighted"), (-0.3, 1.3, 0.0)),
    **dict.fromkeys(("auc_ovo", "auc_ovo_weighted"), (0.5, 1.0, 0.6)),   # 2.6, 5.7, 8.5, 37
    "gini": (2.1, 0.0, 0.0), "cap_ar": (1.75, 0.0, 0.0),
    "average_precision": (0.0, 1.75, 0.0),          # 0.9-1.75 at one column, 15.4 at ten
    **dict.fromkeys((f"{m}{v}" for m in ("precision", "recall", "f1", "fbeta")
                     for v in ("", "_micro", "_macro", "_weighted")), (0.3, 0.4, 0.0)),
    **dict.fromkeys((f"{m}_samples" for m in ("precision", "recall", "f1", "fbeta")),
                    (0.1, 0.3, 0.0)),                # c label columns: 1.0-1.3 at four
    "mcc": (0.55, 0.15, 0.0), "balanced_accuracy": (0.35, 0.15, 0.0),
    "qwk": (0.7, 0.2, 0.0), "cohen_kappa": (0.7, 0.2, 0.0),
    "r2": (0.9, 0.0, 0.0), "explained_variance": (0.9, 0.0, 0.0),
    "medae": (4.0, 0.0, 0.0),                        # a weighted median per replicate: 2.3-3.9
    "ari": (1.0, 0.06, 0.0), "fowlkes_mallows": (1.0, 0.06, 0.0),   # 1.3 at 300 x 100
    **dict.fromkeys(("nmi", "v_measure", "homogeneity", "completeness"),
                    (0.9, 0.4, 0.0)),                # 2.9 at five clusters, 300 x 100
    "ami": (0.5, 1.2, 0.0),                          # expected mutual information: 2.0, 5.9-6.5, 10.6
}


def check_cost(metric: Metric, classes: int = 1) -> float:
    """The self-check's cost of scoring one entry, per row and replicate, relative to a binary
    ROC AUC's (:data:`CHECK_COST`), at ``classes`` classes.

    Examples
    --------
    >>> check_cost(get_metric("auc")), check_cost(get_metric("auc"), 10), check_cost(get_metric("ami"), 4)
    (1.0, 12.7, 5.3)
    """
    base, per_class, per_pair = CHECK_COST.get(metric.name, (1.0, 0.0, 0.0))
    return round(base + per_class * classes + per_pair * classes * (classes - 1) / 2, 6)


def _key(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch not in "-_ ")


def _index(metrics: tuple[Metric, ...]) -> dict[str, Metric]:
    index: dict[str, Metric] = {}
    for metric in metrics:
        for spelling in (metric.name, *metric.aliases):
            key = _key(spelling)
            if key in index and index[key] is not metric:
                raise RuntimeError(f"metric spelling {spelling!r} is claimed by both "
                                   f"{index[key].name} and {metric.name}")
            index[key] = metric
    return index


_BY_KEY = _index(METRICS)


def metric_names() -> list[str]:
    """Canonical names of every registered metric."""
    return [m.name for m in METRICS]


def get_metric(name: str) -> Metric:
    """Look a metric up by any of its spellings; ``name@k`` sets option ``k``.

    Examples
    --------
    >>> get_metric("ROC_AUC").name
    'auc'
    >>> get_metric("log-loss").higher_is_better
    False
    >>> get_metric("MAP@5").options
    (('k', 5),)
    """
    base, _, suffix = name.partition("@")
    metric = _BY_KEY.get(_key(base))
    if metric is None:
        import difflib   # only on this error path

        close = difflib.get_close_matches(_key(base), list(_BY_KEY), n=3, cutoff=0.75)
        names = list(dict.fromkeys(_BY_KEY[c].name for c in close))   # spellings -> metrics
        if names:
            raise InputError(f"unknown metric {name!r}; did you mean {' or '.join(names[:2])}? "
                             "(--help lists every metric)")
        raise InputError(f"unknown metric {name!r}; known metrics: {', '.join(metric_names())}")
    if not suffix:
        return metric
    if "k" not in metric.option_names or not suffix.isdigit() or int(suffix) < 1:
        raise InputError(f"metric {name!r}: '@{suffix}' is not a valid cut-off for {metric.name}")
    return metric.configure(k=int(suffix))


def items_metric(name: str) -> tuple[Metric, bool]:
    """A metric named in items mode (per-item values without a truth), and whether it is the mean
    of 0/1 values: ``accuracy``, ``pass@1`` and ``resolved`` (any case, ``-``/``_`` ignored)
    name it there (:data:`~leaderboard.metrics.per_item.BINARY_MEAN_NAMES`); any other name
    resolves as :func:`get_metric` does.

    Examples
    --------
    >>> metric, binary = items_metric("Pass@1")
    >>> metric.name, binary, items_metric("mean")[1]
    ('pass@1', True, False)
    """
    canonical = per_item.BINARY_MEAN_NAMES.get(_key(name))
    if canonical is not None:
        return per_item.binary_mean(canonical), True
    return get_metric(name), False
