"""Classification metrics in weighted form: labels, probabilities and decision scores.

Metrics of predicted labels that are row means (accuracy, zero-one and Hamming loss, expected
cost) and of probabilities or scores (log loss, Brier score, hinge loss) are :class:`RowMean`: a
replicate's value is ``weights @ losses / weights.sum()``. Float losses are summed exactly
(:func:`~leaderboard.metrics.base.exact_columns`), so a replicate does not depend on chunking. Balanced
accuracy, MCC and kappa take per-class counts; the label encoding, the count machinery and
precision/recall/F-beta live in :mod:`leaderboard.metrics.confusion`. Every value agrees with
scikit-learn's function of the same name, ``sample_weight`` included.

Classes of probabilistic and score predictions: a 1-D prediction is for the positive class of
binary labels (labels ``0``/``1``, or else the larger of the two sorted labels); a 2-D
prediction has one column per class, for integer labels ``0..K-1`` (the column index) or else in
the sorted order of the ``K`` distinct true labels (as scikit-learn's ``LabelBinarizer``).
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import partial

import numpy as np

from leaderboard.metrics.base import Metric, RowMean, RowSums, SumsPlan
from leaderboard.metrics.confusion import (AVERAGES, AgreementCounts, ConfusionMetric, Encoded,
                                           PrecisionRecallF, as_labels, class_sum, encode,
                                           label_pair, need_one_label_per_row, one_hot)

__all__ = ["METRICS", "Accuracy", "BalancedAccuracy", "BrierScore", "CohenKappa", "ExpectedCost",
           "HammingLoss", "HingeLoss", "LogLoss", "MatthewsCorrelation", "ZeroOneLoss"]

_INF = float("inf")


class Accuracy(RowMean):
    """Fraction of rows predicted exactly (all labels of a row for a multilabel matrix).

    Examples
    --------
    >>> Accuracy().score(np.array(["a", "b", "b"]), np.array(["a", "b", "a"]))
    0.6666666666666666
    """

    whole_number_features = True   # a 0/1 column

    def row_values(self, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        y_true, y_pred = label_pair(y_true, y_pred)
        equal = y_true == y_pred
        return (equal.all(1) if equal.ndim == 2 else equal).astype(float)


class ZeroOneLoss(Accuracy):
    """Fraction of rows not predicted exactly: ``1 - accuracy``.

    Examples
    --------
    >>> ZeroOneLoss().score(np.array([0, 1, 1, 0]), np.array([0, 1, 0, 0]))
    0.25
    """

    def transform(self, mean: np.ndarray) -> np.ndarray:
        return 1.0 - mean


class HammingLoss(RowMean):
    """Fraction of labels predicted wrongly (per row, then averaged, for a multilabel matrix).

    Examples
    --------
    >>> HammingLoss().score(np.array([[0, 1], [1, 1]]), np.array([[0, 0], [1, 1]]))
    0.25
    """

    whole_number_features = True   # 0/1 for one label per row

    def row_values(self, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        y_true, y_pred = label_pair(y_true, y_pred)
        wrong = (y_true != y_pred).astype(float)
        return wrong.mean(1) if wrong.ndim == 2 else wrong


def _class_codes(y_true: np.ndarray, n_classes: int) -> np.ndarray:
    """Column of each row's true class in a prediction with ``n_classes`` columns."""
    y = as_labels(y_true, "y_true")
    if y.ndim != 1:
        raise ValueError("y_true must hold one label per row for probability or score metrics")
    if y.dtype.kind in "biuf" and len(y) and np.all(y == np.round(y)) and \
            y.min() >= 0 and y.max() < n_classes:
        return y.astype(np.intp)
    classes = np.unique(y)
    if len(classes) != n_classes:
        raise ValueError(f"y_true has {len(classes)} classes {list(classes)[:10]} but the "
                         f"predictions are for {n_classes}: use integer labels 0..{n_classes - 1} "
                         f"(the column index)")
    return np.searchsorted(classes, y)


def _real_matrix(y_pred: np.ndarray, n: int, what: str) -> np.ndarray:
    """Finite float predictions, ``(n,)`` or ``(n, K)`` (a single column is made 1-D)."""
    values = np.asarray(y_pred, dtype=float)
    if values.ndim == 2 and values.shape[1] == 1:
        values = values[:, 0]
    if values.ndim not in (1, 2) or len(values) != n:
        raise ValueError(f"{what} have shape {values.shape}; expected ({n},) or ({n}, n_classes)")
    if not np.isfinite(values).all():
        raise ValueError(f"{what} must be finite numbers")
    return values


def _probabilities(y_pred: np.ndarray, n: int) -> np.ndarray:
    proba = _real_matrix(y_pred, n, "probabilities")
    if proba.min(initial=0.0) < 0 or proba.max(initial=0.0) > 1:
        raise ValueError("probabilities must lie in [0, 1]")
    return proba


class LogLoss(RowMean):
    """Mean negative log-likelihood of the true class, as ``sklearn.metrics.log_loss``.

    Probabilities are clipped to ``[eps, 1 - eps]`` (``eps`` of float64). Rows are not
    renormalised: current scikit-learn only warns when they do not sum to 1.

    Examples
    --------
    >>> LogLoss().score(np.array(["spam", "ham", "ham", "spam"]),
    ...                 np.array([[.1, .9], [.9, .1], [.8, .2], [.35, .65]]))
    0.21616187468057912
    """

    def row_values(self, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        proba = _probabilities(y_pred, len(y_true))
        if proba.ndim == 1:
            proba = np.column_stack([1.0 - proba, proba])
        codes = _class_codes(y_true, proba.shape[1])
        eps = np.finfo(np.float64).eps
        return -np.log(np.clip(proba[np.arange(len(codes)), codes], eps, 1.0 - eps))


class BrierScore(RowMean):
    """Mean squared difference between the positive-class probability and the 0/1 truth.

    Binary only, as ``sklearn.metrics.brier_score_loss`` on a 1-D prediction.

    Examples
    --------
    >>> BrierScore().score(np.array([0, 1, 1, 0]), np.array([0.0, 0.5, 1.0, 0.5]))
    0.125
    """

    def row_values(self, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        proba = _probabilities(y_pred, len(y_true))
        if proba.ndim != 1:
            raise ValueError("the Brier score takes one positive-class probability per row")
        return (_class_codes(y_true, 2) - proba) ** 2


class HingeLoss(RowMean):
    """Mean hinge loss of decision values, as ``sklearn.metrics.hinge_loss``.

    A 1-D decision value scores binary labels mapped to -1/+1 (``max(0, 1 - y d)``); an ``(n, K)``
    matrix uses Crammer and Singer's multi-class margin, the true class's value minus the largest
    other one.

    Examples
    --------
    >>> HingeLoss().score(np.array([0, 1, 1]), np.array([-2.0, 0.5, 3.0]))
    0.16666666666666666
    """

    def row_values(self, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        decision = _real_matrix(y_pred, len(y_true), "decision values")
        if decision.ndim == 1:
            margin = (2.0 * _class_codes(y_true, 2) - 1.0) * decision
        else:
            codes = _class_codes(y_true, decision.shape[1])
            rows = np.arange(len(codes))
            others = decision.copy()
            others[rows, codes] = -np.inf
            margin = decision[rows, codes] - others.max(1)
        return np.maximum(1.0 - margin, 0.0)


# --- balanced accuracy --------------------------------------------------------------------------

class _RecallCounts(RowSums):
    """Shared: total weight, true count per class. Entry: correct count per class."""

    def __init__(self, n_classes: int) -> None:
        self.columns = np.arange(n_classes)

    def shared_features(self, y_true: np.ndarray) -> np.ndarray:
        return np.hstack([np.ones((len(y_true), 1)), one_hot(y_true, self.columns)])

    def entry_features(self, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        return one_hot(y_true, self.columns) * (y_true == y_pred)[:, None]

    def finalize(self, shared: np.ndarray, sums: np.ndarray) -> np.ndarray:
        true = shared[None, :, 1:]
        present = true > 0          # a class absent from the truth has no recall: sklearn drops it
        recall = np.divide(sums, true, out=np.zeros(sums.shape), where=present)
        with np.errstate(invalid="ignore"):
            return class_sum(recall) / present.sum(-1)


class BalancedAccuracy(ConfusionMetric):
    """Mean recall over the classes present in the truth, as ``balanced_accuracy_score``.

    Examples
    --------
    >>> BalancedAccuracy().score(np.array([0, 0, 0, 1]), np.array([0, 0, 1, 1]))
    0.8333333333333333
    """

    def _counts(self, encoded: Encoded) -> RowSums:
        need_one_label_per_row(encoded, "balanced accuracy")
        return _RecallCounts(encoded.n_classes)


# --- Matthews correlation, Cohen's kappa --------------------------------------------------------

class MatthewsCorrelation(ConfusionMetric):
    """Matthews correlation coefficient (binary and multi-class), as ``matthews_corrcoef``.

    0.0 when the truth or the predictions have a single class (scikit-learn's convention).

    Examples
    --------
    >>> MatthewsCorrelation().score(np.array([1, 1, 1, 0]), np.array([1, 0, 1, 1]))
    -0.3333333333333333
    """

    def _counts(self, encoded: Encoded) -> RowSums:
        need_one_label_per_row(encoded, "Matthews correlation")
        return AgreementCounts("mcc", encoded.n_classes)


class CohenKappa(ConfusionMetric):
    """Cohen's kappa, unweighted or quadratic weighted, as ``cohen_kappa_score``.

    Parameters
    ----------
    weights : {None, "quadratic"}
        Quadratic weights use each class's position among the sorted labels present (as scikit-
        learn does), not the label's value. NaN when only one class occurs.

    Examples
    --------
    >>> y_true, y_pred = np.array([0, 1, 2, 2, 3]), np.array([0, 2, 2, 1, 3])
    >>> round(CohenKappa("quadratic").score(y_true, y_pred), 6)
    0.807692
    """

    def __init__(self, weights: str | None = None) -> None:
        if weights not in (None, "quadratic"):
            raise ValueError(f"weights must be None or 'quadratic', got {weights!r}")
        self.weights = weights

    def _counts(self, encoded: Encoded) -> RowSums:
        need_one_label_per_row(encoded, "Cohen's kappa")
        return AgreementCounts("qwk" if self.weights else "kappa", encoded.n_classes)


# --- expected cost ------------------------------------------------------------------------------

class ExpectedCost(RowMean):
    """Mean over rows of ``costs[true class, predicted class]``.

    Parameters
    ----------
    costs : sequence of sequences, optional
        ``K x K`` cost matrix, rows the true class. Integer labels ``0..K-1`` index it directly;
        other labels by their position among the sorted true classes, which must then number
        ``K``. Default: 0/1 costs (the error rate).

    Examples
    --------
    >>> costs = ((0, 1), (5, 0))            # a missed positive costs 5
    >>> ExpectedCost(costs).score(np.array([0, 1, 1, 0]), np.array([0, 0, 1, 1]))
    1.5
    """

    def __init__(self, costs: Sequence[Sequence[float]] | None = None) -> None:
        self.costs = None
        if costs is not None:
            matrix = np.asarray(costs, dtype=float)
            if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1] or not matrix.size:
                raise ValueError(f"costs must be a square K x K matrix, got shape {matrix.shape}")
            if not np.isfinite(matrix).all():
                raise ValueError("costs must be finite")
            self.costs = matrix

    def prepare(self, y_true: np.ndarray, preds: Sequence[np.ndarray]) -> SumsPlan:
        encoded = encode(y_true, preds)
        need_one_label_per_row(encoded, "expected cost")
        return super().prepare(*self._cost_codes(encoded))

    def _cost_codes(self, encoded: Encoded) -> tuple[np.ndarray, list[np.ndarray]]:
        if self.costs is None:
            return encoded.true, encoded.preds
        k, classes = len(self.costs), encoded.classes
        if classes.dtype.kind in "biuf" and np.all(classes == np.round(classes)) and \
                classes.min() >= 0 and classes.max() < k:
            index = classes.astype(int)      # integer labels are the matrix's indices
        else:
            # Positions among the true classes: they do not depend on which entries are scored.
            true_classes = np.unique(classes[encoded.true])
            if len(true_classes) != k or not np.isin(classes, true_classes).all():
                raise ValueError(f"the {k} x {k} cost matrix does not fit the labels "
                                 f"{list(classes)[:10]}: use integer labels 0..{k - 1}, or {k} "
                                 f"true classes that the predictions stay within")
            index = np.searchsorted(true_classes, classes)
        return index[encoded.true], [index[p] for p in encoded.preds]

    def row_values(self, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        if self.costs is None:
            return (y_true != y_pred).astype(float)
        return self.costs[y_true, y_pred]


# --- registry entries ---------------------------------------------------------------------------

_PRF_SPECS = (  # name, label, measure, aliases of the binary metric
    ("precision", "precision", "precision",
     ("precision_score", "ppv", "positive_predictive_value")),
    ("recall", "recall", "recall",
     ("recall_score", "sensitivity", "true_positive_rate", "tpr")),
    ("f1", "F1 score", "f", ("f1_score", "fscore", "f_score", "mean_f_score", "f_measure")),
    ("fbeta", "F-beta score", "f", ("fbeta_score", "f_beta", "f_beta_score")),
)


def _prf_metrics() -> tuple[Metric, ...]:
    metrics = []
    for name, label, measure, binary_aliases in _PRF_SPECS:
        for average in AVERAGES:
            if average == "binary":
                full, title = name, label
                aliases = (*binary_aliases, f"binary_{name}", f"{name}_binary")
            else:
                full, title = f"{name}_{average}", f"{label} ({average})"
                aliases = (f"{average}_{name}", f"{average}_{name}_score",
                           f"{name}_score_{average}")
                if average == "samples":
                    aliases += (f"sample_{name}", f"{name}_sample")
            options: tuple[str, ...]
            if name == "fbeta":
                factory, options = partial(PrecisionRecallF, measure, average), ("beta",)
            else:
                factory, options = partial(PrecisionRecallF, measure, average, 1.0), ()
            metrics.append(Metric(full, title, True, aliases, 0.0, 1.0,
                                  kind="multilabel" if average == "samples" else "labels",
                                  factory=factory, option_names=options))
    return tuple(metrics)


METRICS: tuple[Metric, ...] = (
    Metric("accuracy", "accuracy", True, ("acc", "categorization_accuracy", "accuracy_score"),
           0.0, 1.0, noise_model="binomial", kind="labels", factory=Accuracy),
    Metric("balanced_accuracy", "balanced accuracy", True,
           ("balanced_accuracy_score", "balanced_acc"), 0.0, 1.0, kind="labels",
           factory=BalancedAccuracy),
    Metric("zero_one_loss", "zero-one loss", False,
           ("01_loss", "error_rate", "classification_error", "misclassification_rate"), 0.0, 1.0,
           kind="labels", factory=ZeroOneLoss),
    Metric("hamming_loss", "Hamming loss", False, ("hamming",), 0.0, 1.0, kind="labels",
           factory=HammingLoss),
    Metric("logloss", "log loss", False,
           ("log_loss", "binary_crossentropy", "cross_entropy", "mlogloss", "multi_logloss",
            "multiclass_log_loss", "binary_log_loss", "categorical_crossentropy",
            "logistic_loss", "logarithmic_loss", "negative_log_likelihood"),
           0.0, _INF, kind="probabilities", factory=LogLoss),
    Metric("brier", "Brier score", False, ("brier_score", "brier_score_loss"), 0.0, 1.0,
           kind="probabilities", factory=BrierScore),
    Metric("hinge_loss", "hinge loss", False, ("hinge",), 0.0, _INF, kind="scores",
           factory=HingeLoss),
    *_prf_metrics(),
    Metric("mcc", "Matthews correlation", True,
           ("matthews_corrcoef", "matthews_correlation_coefficient", "matthews_correlation",
            "phi_coefficient"), -1.0, 1.0, kind="labels", factory=MatthewsCorrelation),
    Metric("qwk", "quadratic weighted kappa", True,
           ("quadratic_weighted_kappa", "quadratic_kappa", "cohen_kappa_quadratic"), -1.0, 1.0,
           kind="labels", factory=partial(CohenKappa, "quadratic")),
    Metric("cohen_kappa", "Cohen's kappa", True, ("kappa", "cohen_kappa_score", "cohens_kappa"),
           -1.0, 1.0, kind="labels", factory=CohenKappa),
    Metric("expected_cost", "expected cost", False,
           ("expected_misclassification_cost", "misclassification_cost", "mean_cost",
            "average_cost"), -_INF, _INF, kind="labels", factory=ExpectedCost,
           option_names=("costs",)),
)
