"""Classification metrics computed from weighted confusion counts of predicted labels.

Labels (numbers or strings) are encoded once against the sorted union of the classes found in the
true labels and in every entry's predictions (the order of
:func:`sklearn.utils.multiclass.unique_labels`). Each metric then takes indicator columns per row
(class of the truth, class of the prediction, correct or not) so that one matrix product
``weights @ features`` (:class:`~leaderboard.metrics.base.RowSums`) gives every replicate's counts
for every entry, and the metric is computed from the counts vectorised over entries and replicates.
Row means of float values (per-row F of the ``samples`` average, and the losses of
:mod:`leaderboard.metrics.classification`) are summed exactly by
:func:`~leaderboard.metrics.base.exact_columns`, so replicates are bit-identical however replicates
and entries are chunked.

A row with weight 0 is absent, as in a bootstrap replicate that did not draw it: a class that only
such rows carry is not part of the label set. This is what makes a metric under integer weights
equal scikit-learn's on the data with each row repeated ``weight`` times; scikit-learn's
``sample_weight`` differs only there (it keeps the labels of zero-weight rows), which matters for
macro averages and for the class positions of weighted kappa.
"""
from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from leaderboard.metrics.base import MetricImpl, RowMean, RowSums, SumsPlan

AVERAGES = ("binary", "micro", "macro", "weighted", "samples")
MEASURES = ("precision", "recall", "f")


def as_labels(y: Any, name: str) -> np.ndarray:
    """1-D labels (one type: numbers or ``str``) or a 2-D 0/1 multilabel matrix.

    Examples
    --------
    >>> as_labels(np.array(["a", "b"], dtype=object), "y_true"), as_labels([[1], [0]], "y_true")
    (array(['a', 'b'], dtype='<U1'), array([1, 0]))
    >>> as_labels(np.array(["a", 1], dtype=object), "y_pred")
    Traceback (most recent call last):
    ...
    ValueError: y_pred: mix of label input types (string and number)
    """
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim not in (1, 2):
        raise ValueError(f"{name}: expected one label per row or a 2-D 0/1 matrix, "
                         f"got shape {y.shape}")
    if y.dtype.kind == "O":
        types = set(map(type, y.ravel()))
        if all(issubclass(t, str) for t in types):
            y = y.astype(str)
        elif all(issubclass(t, (numbers.Number, np.bool_)) for t in types):
            y = np.array(y.tolist())
        else:
            raise ValueError(f"{name}: mix of label input types (string and number)")
    elif y.dtype.kind == "S":
        y = y.astype(str)
    if y.dtype.kind not in "biufU":
        raise ValueError(f"{name}: unsupported label type {y.dtype}")
    if y.ndim == 2 and (y.dtype.kind == "U" or not np.isin(y, (0, 1)).all()):
        raise ValueError(f"{name}: a 2-D multilabel matrix must hold only 0 and 1")
    return y


def label_pair(y_true: Any, y_pred: Any,
                name: str = "predictions") -> tuple[np.ndarray, np.ndarray]:
    """Checked labels of the truth and of one entry: same shape, same label type.

    Examples
    --------
    >>> label_pair([0, 1, 1], [1, 1, 0])
    (array([0, 1, 1]), array([1, 1, 0]))
    >>> label_pair([0, 1], ["a", "b"])
    Traceback (most recent call last):
    ...
    ValueError: predictions and y_true mix label input types (string and number)
    """
    y_true = as_labels(y_true, "y_true")
    y_pred = as_labels(y_pred, name)
    if y_pred.shape != y_true.shape:
        raise ValueError(f"{name} have shape {y_pred.shape} but y_true has shape {y_true.shape}")
    if (y_pred.dtype.kind == "U") != (y_true.dtype.kind == "U"):
        raise ValueError(f"{name} and y_true mix label input types (string and number)")
    return y_true, y_pred


@dataclass(frozen=True)
class Encoded:
    """Labels as integer codes into ``classes`` (1-D), or 0/1 float matrices (multilabel)."""

    true: np.ndarray
    preds: list[np.ndarray]
    classes: np.ndarray
    multilabel: bool

    @property
    def n_classes(self) -> int:
        return len(self.classes)


def encode(y_true: Any, preds: Sequence[Any]) -> Encoded:
    """The truth and every entry's labels as codes into the sorted union of their classes (the
    order of :func:`sklearn.utils.multiclass.unique_labels`); a multilabel matrix as floats.

    Examples
    --------
    >>> e = encode(["b", "a", "b"], [["a", "a", "c"]])
    >>> e.classes.tolist(), e.true.tolist(), e.preds[0].tolist(), e.multilabel
    (['a', 'b', 'c'], [1, 0, 1], [0, 0, 2], False)
    """
    pairs = [label_pair(y_true, p, f"predictions of entry {i}") for i, p in enumerate(preds)]
    y_true = pairs[0][0] if pairs else as_labels(y_true, "y_true")
    preds = [p for _, p in pairs]
    if y_true.ndim == 2:
        return Encoded(y_true.astype(float), [p.astype(float) for p in preds],
                        np.arange(y_true.shape[1]), True)
    classes, inverse = np.unique(np.concatenate([y_true, *preds]), return_inverse=True)
    codes = inverse.reshape(len(preds) + 1, len(y_true))
    return Encoded(codes[0], list(codes[1:]), classes, False)


def one_hot(codes: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """``(n, len(columns))`` float indicators of ``codes == column``.

    Examples
    --------
    >>> one_hot(np.array([2, 0]), np.arange(3)).tolist()
    [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]
    """
    return (codes[:, None] == columns[None, :]).astype(float)


def class_sum(values: np.ndarray) -> np.ndarray:
    """Sum over the last (class) axis one class at a time, in class order.

    Classes that another entry brought into the encoding add exact zeros, so an entry's score does
    not depend on which entries were prepared with it (numpy's pairwise ``sum`` regroups terms
    when the axis grows).

    Examples
    --------
    >>> class_sum(np.array([[0.1, 0.2, 0.3], [1.0, 0.0, 0.0]])).tolist()
    [0.6000000000000001, 1.0]
    """
    if not values.shape[-1]:
        return np.zeros(values.shape[:-1])
    return np.cumsum(values, axis=-1)[..., -1]


class ConfusionMetric(MetricImpl):
    """Encodes labels, then scores the counts with a :class:`RowSums` built for those classes."""

    sparse_weights = True   # every counts class below takes them
    whole_number_features = True   # counts, indicators and squared code differences

    def _counts(self, encoded: Encoded) -> RowSums:
        raise NotImplementedError

    def prepare(self, y_true: np.ndarray, preds: Sequence[np.ndarray]) -> tuple[RowSums, Any]:
        encoded = encode(y_true, preds)
        counts = self._counts(encoded)
        return counts, counts.prepare(encoded.true, encoded.preds)

    def evaluate(self, prepared: tuple[RowSums, Any], weights: np.ndarray) -> np.ndarray:
        counts, inner = prepared
        return counts.evaluate(inner, weights)


def need_one_label_per_row(encoded: Encoded, metric: str) -> None:
    """A ValueError when ``encoded`` is a multilabel matrix: ``metric`` takes one label per row.

    Examples
    --------
    >>> need_one_label_per_row(encode([[0, 1], [1, 0]], []), "balanced_accuracy")
    Traceback (most recent call last):
    ...
    ValueError: balanced_accuracy needs one label per row, not a multilabel matrix
    """
    if encoded.multilabel:
        raise ValueError(f"{metric} needs one label per row, not a multilabel matrix")


# --- precision, recall, F-beta ------------------------------------------------------------------

def _prf_values(measure: str, beta: float, tp: np.ndarray, true: np.ndarray,
                pred: np.ndarray) -> np.ndarray:
    """Precision, recall or F-beta per class from counts; 0 where undefined (sklearn's default)."""
    tp, true, pred = np.broadcast_arrays(tp, true, pred)
    if measure == "recall" or (measure == "f" and np.isposinf(beta)):
        num, den = tp, true
    elif measure == "precision":
        num, den = tp, pred
    else:
        # (1 + b^2) P R / (b^2 P + R) written with counts, as scikit-learn does.
        beta2 = beta ** 2
        num, den = (1 + beta2) * tp, beta2 * true + pred
    return np.divide(num, den, out=np.zeros(num.shape), where=den > 0)


class _PRFCounts(RowSums):
    """Shared: total weight and true counts; entry: true-positive and predicted counts.

    The counts are per class (macro, weighted), for the positive class (binary) or summed over
    classes (micro): one column of each kind.
    """

    def __init__(self, measure: str, average: str, beta: float, n_classes: int,
                 multilabel: bool, positive: int | None = None) -> None:
        self.measure, self.average, self.beta, self.multilabel = measure, average, beta, multilabel
        self.columns = np.array([positive]) if average == "binary" else np.arange(n_classes)

    def shared_features(self, y_true: np.ndarray) -> np.ndarray:
        if self.multilabel:
            true = y_true.sum(1, keepdims=True) if self.average == "micro" else y_true
        elif self.average == "micro":
            true = np.ones((len(y_true), 1))
        else:
            true = one_hot(y_true, self.columns)
        return np.hstack([np.ones((len(y_true), 1)), true])

    def entry_features(self, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        if self.multilabel:
            tp = y_true * y_pred
            if self.average == "micro":
                return np.column_stack([tp.sum(1), y_pred.sum(1)])
            return np.hstack([tp, y_pred])
        correct = (y_true == y_pred).astype(float)
        if self.average == "micro":
            # Every row is one true and one predicted label: predicted total = true total = weight.
            return np.column_stack([correct, np.ones(len(y_true))])
        pred = one_hot(y_pred, self.columns)
        return np.hstack([pred * correct[:, None], pred])

    def finalize(self, shared: np.ndarray, sums: np.ndarray) -> np.ndarray:
        n_cols = sums.shape[-1] // 2
        tp, pred, true = sums[..., :n_cols], sums[..., n_cols:], shared[None, :, 1:]
        values = _prf_values(self.measure, self.beta, tp, true, pred)
        if self.average in ("binary", "micro"):
            return values[..., 0]
        if self.average == "weighted":
            support = class_sum(true)
            # No true labels at all (multilabel only): every per-class value is 0, so is the mean.
            return np.divide(class_sum(values * true), support,
                             out=np.zeros(values.shape[:-1]), where=support > 0)
        # macro: multilabel averages over every column; multi-class over the labels present.
        included = np.ones(values.shape, bool) if self.multilabel else (true + pred) > 0
        with np.errstate(invalid="ignore"):
            return class_sum(values * included) / included.sum(-1)


class _SamplesPRF(RowMean):
    """Per-row precision/recall/F-beta of a multilabel matrix, averaged with the row weights."""

    def __init__(self, measure: str, beta: float) -> None:
        self.measure, self.beta = measure, beta

    def row_values(self, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        return _prf_values(self.measure, self.beta, (y_true * y_pred).sum(1), y_true.sum(1),
                           y_pred.sum(1))


class PrecisionRecallF(ConfusionMetric):
    """Precision, recall or F-beta with scikit-learn's averages and ``zero_division`` default.

    Parameters
    ----------
    measure : {"precision", "recall", "f"}
    average : {"binary", "micro", "macro", "weighted", "samples"}
        ``binary`` scores positive label 1 (labels must be binary); ``samples`` needs a 2-D 0/1
        multilabel matrix. ``micro``, ``macro`` and ``weighted`` take labels or a multilabel matrix.
    beta : float, default=1.0
        Weight of recall in the F-score (``measure="f"`` only).

    Notes
    -----
    A ratio whose denominator is 0 (say, precision of a replicate without a predicted positive) is
    0.0, scikit-learn's default result: the replicate is scored, not dropped.

    Examples
    --------
    >>> y_true, y_pred = np.array(["a", "b", "c", "a"]), np.array(["a", "c", "c", "b"])
    >>> PrecisionRecallF("f", "macro").score(y_true, y_pred)
    0.4444444444444444
    >>> PrecisionRecallF("precision", "binary").score(np.array([0, 1, 1]), np.array([0, 0, 0]))
    0.0
    """

    def __init__(self, measure: str = "f", average: str = "binary", beta: float = 1.0) -> None:
        if measure not in MEASURES:
            raise ValueError(f"measure must be one of {MEASURES}, got {measure!r}")
        if average not in AVERAGES:
            raise ValueError(f"average must be one of {AVERAGES}, got {average!r}")
        beta = float(beta)
        if not beta >= 0:
            raise ValueError(f"beta must be >= 0, got {beta}")
        self.measure, self.average, self.beta = measure, average, beta

    def _counts(self, encoded: Encoded) -> RowSums:
        if self.average == "samples":
            if not encoded.multilabel:
                raise ValueError("the 'samples' average needs a 2-D 0/1 multilabel matrix")
            return _SamplesPRF(self.measure, self.beta)
        positive = self._positive(encoded) if self.average == "binary" else None
        return _PRFCounts(self.measure, self.average, self.beta, encoded.n_classes,
                          encoded.multilabel, positive)

    @staticmethod
    def _positive(encoded: Encoded) -> int:
        """Code of positive label 1; with a single class that is not 1, a code no row has."""
        if encoded.multilabel or encoded.n_classes > 2:
            raise ValueError("the 'binary' average needs binary labels; use the micro, macro or "
                             "weighted average for multi-class or multilabel predictions")
        classes = encoded.classes
        hits = np.flatnonzero(classes == 1) if classes.dtype.kind != "U" else np.array([], int)
        if len(hits):
            return int(hits[0])
        if encoded.n_classes == 2:
            raise ValueError(f"the 'binary' average scores positive label 1, which is not among "
                             f"the labels {list(classes)}")
        return encoded.n_classes


# --- Matthews correlation, Cohen's kappa --------------------------------------------------------

class AgreementCounts(RowSums):
    """Shared: total weight and true counts per class. Entry: predicted counts per class, the
    correct count and, for quadratic kappa, the sum of squared code differences.

    ``K + 1`` columns per entry (``K + 2`` for quadratic kappa) rather than the ``K^2`` of a
    confusion matrix: the weighted disagreement of quadratic kappa is a per-row quantity as long
    as the classes present in a replicate are consecutive codes. Replicates with a gap (a middle
    class absent, which moves scikit-learn's class positions) come out of :meth:`finalize` as NaN
    and :meth:`evaluate` recomputes them from their confusion matrices.
    """

    def __init__(self, statistic: str, n_classes: int) -> None:
        self.statistic, self.n_classes = statistic, n_classes
        self.columns = np.arange(n_classes)

    def shared_features(self, y_true: np.ndarray) -> np.ndarray:
        return np.hstack([np.ones((len(y_true), 1)), one_hot(y_true, self.columns)])

    def entry_features(self, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        columns = [one_hot(y_pred, self.columns), (y_true == y_pred)[:, None]]
        if self.statistic == "qwk":
            columns.append(((y_true - y_pred).astype(float) ** 2)[:, None])
        return np.hstack(columns)

    # The plan wraps RowSums' own with the rows (qwk redoes a NaN score from its confusion
    # matrix): a narrower contract than RowSums', used only through MetricImpl's (evaluate,
    # point); the one caller of evaluate_each checks that evaluate is RowSums' own first.
    def prepare(self, y_true: np.ndarray,  # type: ignore[override]
                preds: Sequence[np.ndarray]) -> tuple[SumsPlan, np.ndarray, list[np.ndarray]]:
        return super().prepare(y_true, preds), y_true, list(preds)

    def evaluate(self, prepared: tuple[SumsPlan, np.ndarray, list[np.ndarray]],  # type: ignore[override]
                 weights: np.ndarray) -> np.ndarray:
        plan, y_true, preds = prepared
        if not hasattr(weights, "tocsr"):   # a scipy.sparse matrix of counts stays sparse
            weights = np.asarray(weights, dtype=float)
        scores = super().evaluate(plan, weights)
        if self.statistic == "qwk":
            for e, pred in enumerate(preds):
                redo = np.flatnonzero(np.isnan(scores[e]))
                if len(redo):
                    few = weights[redo]
                    few = few.toarray() if hasattr(few, "toarray") else few
                    scores[e, redo] = _kappa_from_confusion(
                        _confusion(y_true, pred, self.n_classes, few))
        return scores

    def finalize(self, shared: np.ndarray, sums: np.ndarray) -> np.ndarray:
        k = self.n_classes
        total, true = shared[:, 0], shared[None, :, 1:]
        pred, correct = sums[..., :k], sums[..., k]
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.statistic == "mcc":
                cov_tp = correct * total - class_sum(true * pred)
                cov_pp = total ** 2 - class_sum(pred ** 2)
                cov_tt = total ** 2 - class_sum(true ** 2)
                # sklearn returns 0 when either side has a single class (a zero variance).
                defined = ((pred > 0).sum(-1) > 1) & ((true > 0).sum(-1) > 1)
                return np.where(defined, cov_tp / np.sqrt(cov_pp * cov_tt), 0.0)
            present = (true + pred) > 0
            if self.statistic == "kappa":
                observed = total - correct
                expected = class_sum(pred * (total[:, None] - true)) / total
            else:
                observed = sums[..., k + 1]
                # A gap among the present classes moves their positions: evaluate redoes these.
                observed = np.where(present.sum(-1) != _span(present), np.nan, observed)
                expected = _quadratic_expected(true, pred, present, total)
            return _kappa(observed, expected, present)


def _kappa(observed: np.ndarray, expected: np.ndarray, present: np.ndarray) -> np.ndarray:
    """``1 - observed / expected`` disagreement; NaN (sklearn's ``replace_undefined_by``) when at
    most one class occurs in the truth and the predictions together."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(present.sum(-1) > 1, 1.0 - observed / expected, np.nan)


def _span(present: np.ndarray) -> np.ndarray:
    """Number of codes from the first to the last present class (0 when none is present)."""
    k = present.shape[-1]
    first = np.argmax(present, -1)
    last = k - 1 - np.argmax(present[..., ::-1], -1)
    return np.where(present.any(-1), last - first + 1, 0)


def _quadratic_expected(true: np.ndarray, pred: np.ndarray, present: np.ndarray,
                        total: np.ndarray) -> np.ndarray:
    """``sum_ij (r_i - r_j)^2 pred_i true_j / total`` with r the position among present classes.

    As ``sum pred r^2 + sum true r^2 - 2 (sum pred r)(sum true r) / total`` (both marginals sum to
    ``total``), with positions shifted by the integer part of the true mean: the sums stay exact
    for integer weights and the subtracted term stays small (little cancellation).
    """
    ranks = np.cumsum(present, -1) - 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        shift = np.floor(class_sum(true * ranks) / total)
        ranks = ranks - np.nan_to_num(shift)[..., None]
        cross = class_sum(pred * ranks) * class_sum(true * ranks) / total
    return class_sum((pred + true) * ranks ** 2) - 2.0 * cross


def _confusion(y_true: np.ndarray, y_pred: np.ndarray, n_classes: int,
               weights: np.ndarray) -> np.ndarray:
    """Weighted confusion matrices ``(R, K, K)`` (true x predicted) of a few replicates."""
    from scipy import sparse   # here: the registry imports this module on every run (issue 41)

    n = len(y_true)
    cells = sparse.csr_matrix((np.ones(n), (np.arange(n), y_true * n_classes + y_pred)),
                              shape=(n, n_classes ** 2))
    return np.asarray((cells.T @ weights.T).T).reshape(-1, n_classes, n_classes)


def _kappa_from_confusion(confusion: np.ndarray) -> np.ndarray:
    """Quadratic weighted kappa of each ``(K, K)`` matrix, classes at their present positions.

    Same formulas as the per-row path of :class:`AgreementCounts`, so both give the same bits.
    """
    true, pred = confusion.sum(2), confusion.sum(1)
    present = (true + pred) > 0
    ranks = np.cumsum(present, -1) - 1.0
    distance = (ranks[:, :, None] - ranks[:, None, :]) ** 2
    observed = class_sum((distance * confusion).reshape(len(confusion), -1))
    return _kappa(observed, _quadratic_expected(true, pred, present, class_sum(true)), present)
