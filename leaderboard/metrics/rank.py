"""Rank metrics in weighted form: ROC AUC, normalized Gini, CAP accuracy ratio, average precision.

Every metric here takes scores (kind ``scores``): binary targets in {0, 1} with one real score per
row, or class codes ``0 .. K-1`` with an ``(n, K)`` score matrix. :meth:`prepare` sorts each score
column once and turns it into a *stream* (rows in score order, tie groups marked); :meth:`evaluate`
walks every stream once per tile of replicates in compiled code
(:mod:`leaderboard.metrics._rank_kernels`), so a block of bootstrap weights costs one pass per
stream and no sort.

* ``auc``: the weighted Mann-Whitney statistic, ties counted half -- scikit-learn's
  ``roc_auc_score``. With a score matrix, ``auc`` and ``auc_ovr`` are the one-vs-rest macro
  average, ``auc_ovr_weighted`` weights classes by their (weighted) prevalence, and ``auc_ovo`` /
  ``auc_ovo_weighted`` are Hand & Till's one-vs-one average over pairs of classes (weighted by the
  pair's prevalence), as scikit-learn computes them.
* ``gini``: for a 0/1 target, exactly ``2 * AUC - 1``. For a non-negative continuous target (claim
  amounts), Kaggle's normalized Gini: the Gini of the predictions (area between the Lorenz curve of
  the target, rows sorted by decreasing prediction, and the diagonal) over the Gini of the target
  itself (rows sorted by decreasing target). Tied predictions form one straight segment of the
  curve (the average over their orders), where Kaggle's code breaks ties by row order.
* ``cap_ar``: the accuracy ratio of the cumulative accuracy profile (share of positives captured
  against share of rows, by decreasing score): the area between the model's profile and the random
  one over the area between the perfect one and the random one. It is computed from the profile
  itself; it equals ``2 * AUC - 1`` for a 0/1 target, which the tests use as an independent check.
* ``average_precision``: scikit-learn's step-wise ``average_precision_score``, one step per
  distinct score; with a score matrix, the one-vs-rest macro average.

For integer weights every value equals scikit-learn's on the data with row ``i`` repeated ``w[i]``
times (one-vs-one AUC included, for which scikit-learn refuses ``sample_weight``). A replicate
without positive or without negative weight scores NaN (average precision: NaN without positives,
1 without negatives). With a score matrix, classes with no weight in a replicate are left out of
the average, as if they were not among the labels; fewer than two classes present gives NaN.

Examples
--------
>>> import numpy as np
>>> from leaderboard.metrics import get_metric
>>> y_true, scores = [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]
>>> get_metric("roc_auc").score(y_true, scores)
0.75
>>> get_metric("gini").score(y_true, scores)
0.5
>>> round(get_metric("average_precision").score(y_true, scores), 4)
0.8333

Bootstrap replicates: one row of weights per replicate, one row of scores per entry.

>>> weights = np.array([[1, 1, 1, 1], [0, 2, 1, 1], [1, 1, 0, 0]])
>>> get_metric("auc").impl.replicates(y_true, [scores], weights)
array([[0.75, 0.5 ,  nan]])
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from itertools import combinations

import numpy as np

from leaderboard.metrics import _rank_kernels as _k
from leaderboard.metrics.base import Metric, MetricImpl

# A truth Gini this small relative to its scale is rounding noise: the target is constant.
_ZERO_GINI = 1e-12


@dataclass(frozen=True)
class _Prepared:
    """Streams of every entry, concatenated, with what is needed to combine them."""

    n: int
    labels: np.ndarray        # class code per row (binary: 0/1), intp
    n_classes: int
    rows: np.ndarray          # int32 row indices in stream order
    codes: np.ndarray         # int8 code per stream position
    starts: np.ndarray        # int64, where each stream begins (length S + 1)
    per_entry: int            # streams per entry
    values: np.ndarray | None = None   # float target per position (Lorenz streams)
    pairs: tuple[tuple[int, int], ...] = ()   # one-vs-one class pairs


def _concat(streams: Sequence[tuple[np.ndarray, ...]]
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """Concatenate (rows, codes[, values]) streams; returns the arrays and the start offsets."""
    lengths = [len(s[0]) for s in streams]
    starts = np.zeros(len(streams) + 1, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])
    parts = zip(*streams) if streams else ([], [], [])
    joined = [np.concatenate(p) if len(p) else np.empty(0) for p in parts]
    rows = joined[0].astype(np.int32)
    codes = joined[1].astype(np.int8)
    values = joined[2].astype(float) if len(joined) > 2 else None
    return rows, codes, starts, values


def _order(score: np.ndarray) -> np.ndarray:
    """Ascending order of the scores. Tied rows are handled as groups, so their order within a
    group does not matter and either sort will do: the merge sort when the scores already run in
    long sorted stretches (a universe's rows are sorted within each class: 0.03 instead of 0.55 ms
    at 16,384 rows), else quicksort (twice as fast as the merge sort on submissions' scores)."""
    if score.size > 1:
        rises = np.count_nonzero(score[1:] > score[:-1])
        falls = np.count_nonzero(score[1:] < score[:-1])
        if min(rises, falls) <= score.size // 64:
            return np.argsort(score, kind="stable")
    return np.argsort(score)


def _group_starts(sorted_scores: np.ndarray) -> np.ndarray:
    """True where a tie group begins in a sorted score sequence."""
    starts = np.ones(len(sorted_scores), dtype=bool)
    starts[1:] = sorted_scores[1:] != sorted_scores[:-1]
    return starts


def _auc_stream(order: np.ndarray, score: np.ndarray,
                positive: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows in ascending score order with AUC codes.

    A negative tied with positives is listed twice with code ``NEG_HALF``, before and after the
    positives of its group, so each positive is credited half of the tied negative weight.
    """
    lab = positive[order]
    codes = np.where(lab, _k.POS, _k.NEG).astype(np.int8)
    ordered = score[order]
    if not (ordered[1:] == ordered[:-1]).any():
        # No ties (a universe's continuous scores, usually): no negative shares a group with a
        # positive, and the group bookkeeping (four passes over the rows) would find nothing.
        return order, codes
    return _tied_stream(order, ordered, lab, codes)


def _tied_stream(order: np.ndarray, ordered: np.ndarray, lab: np.ndarray,
                 codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_auc_stream` where scores may tie: ``ordered`` the scores in ``order``, ``lab``
    the positives in that order, ``codes`` their plain codes (changed in place)."""
    group = np.cumsum(_group_starts(ordered)) - 1
    n_pos = np.bincount(group, weights=lab)
    size = np.bincount(group)
    mixed = ((n_pos > 0) & (n_pos < size))[group] & ~lab
    if not mixed.any():
        return order, codes
    codes[mixed] = _k.NEG_HALF
    phase = np.where(mixed, 0, 1)
    key = np.concatenate([3 * group + phase, 3 * group[mixed] + 2])
    perm = np.argsort(key, kind="stable")
    return np.concatenate([order, order[mixed]])[perm], np.concatenate([codes, codes[mixed]])[perm]


def _descending_stream(order: np.ndarray, score: np.ndarray,
                       positive: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows in descending score order; codes mark positives and the last row of each tie group."""
    desc = order[::-1]
    ends = _group_starts(score[order])[::-1]      # last in descending order = first in ascending
    codes = np.where(positive[desc], _k.POSITIVE, 0) + np.where(ends, _k.GROUP_END, 0)
    return desc, codes


def _scores(y_true: np.ndarray, preds: Sequence[np.ndarray], *,
            matrix_ok: bool) -> tuple[np.ndarray, list[np.ndarray], int]:
    """Validated target and score arrays; ``K`` is 0 for binary (1-D) scores."""
    y = np.asarray(y_true)
    if y.ndim != 1:
        raise ValueError(f"y_true must be one value per row; got shape {y.shape}")
    n = len(y)
    if n >= 2 ** 31:
        raise ValueError("rank metrics take fewer than 2**31 rows")   # streams hold int32 rows
    arrays = [np.asarray(p, dtype=float) for p in preds]
    arrays = [a[:, 0] if a.ndim == 2 and a.shape[1] == 1 else a for a in arrays]
    shapes = {a.shape for a in arrays}
    if len(shapes) > 1:
        raise ValueError(f"entries' score arrays differ in shape: {sorted(shapes)}")
    shape = shapes.pop() if shapes else (n,)
    if len(shape) not in (1, 2) or shape[0] != n:
        raise ValueError(f"scores must have shape ({n},) or ({n}, n_classes); got {shape}")
    if len(shape) == 2 and not matrix_ok:
        raise ValueError("this metric takes one score per row (binary target), "
                         f"not a score matrix of shape {shape}")
    if any(not np.all(np.isfinite(a)) for a in arrays):
        raise ValueError("scores contain NaN or infinite values")
    return y, arrays, (shape[1] if len(shape) == 2 else 0)


def _binary_labels(y: np.ndarray) -> np.ndarray:
    yf = y.astype(float)
    if not np.all((yf == 0) | (yf == 1)):
        raise ValueError("a binary target must be 0/1; for several classes give one score "
                         "column per class")
    return yf.astype(np.intp)


def _class_labels(y: np.ndarray, n_classes: int) -> np.ndarray:
    yf = y.astype(float)
    if not np.all((yf == np.round(yf)) & (yf >= 0) & (yf < n_classes)):
        raise ValueError(f"y_true must hold class codes 0..{n_classes - 1}, one per score column")
    return yf.astype(np.intp)


def _check_weights(weights: np.ndarray, n: int) -> np.ndarray:
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    if weights.ndim != 2 or weights.shape[1] != n:
        raise ValueError(f"weights must have shape (R, {n}); got {weights.shape}")
    if weights.size and not (weights.min() >= 0 and weights.max() < np.inf):
        raise ValueError("weights must be finite and non-negative")
    return weights


def _present_average(values: np.ndarray, weight: np.ndarray, present: np.ndarray) -> np.ndarray:
    """Average of ``values`` (E, C, R) over the present items (C, R), weighted by ``weight``."""
    weight = np.where(present, weight, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        # where() keeps the NaN of a present item (a class alone in its replicate)
        total = np.where(present[None], values, 0.0) * weight[None]
        return total.sum(axis=1) / weight.sum(axis=0)[None]


class _RocAUC(MetricImpl):
    """ROC AUC; with a score matrix, one-vs-rest or one-vs-one, macro or weighted average."""

    def __init__(self, multi_class: str = "ovr", average: str = "macro") -> None:
        self._multi_class = multi_class
        self._average = average

    def prepare(self, y_true: np.ndarray, preds: Sequence[np.ndarray]) -> _Prepared:
        y, arrays, n_classes = _scores(y_true, preds, matrix_ok=True)
        streams: list[tuple[np.ndarray, np.ndarray]] = []
        pairs: tuple[tuple[int, int], ...] = ()
        if n_classes == 0:
            labels = _binary_labels(y)
            for score in arrays:
                streams.append(_auc_stream(_order(score), score, labels == 1))
        else:
            labels = _class_labels(y, n_classes)
            pairs = tuple(combinations(range(n_classes), 2))
            for matrix in arrays:
                orders = [_order(matrix[:, c]) for c in range(n_classes)]
                if self._multi_class == "ovr":
                    streams += [_auc_stream(orders[c], matrix[:, c], labels == c)
                                for c in range(n_classes)]
                    continue
                for a, b in pairs:
                    # the pair's rows, kept in each column's sorted order
                    for c in (a, b):
                        order = orders[c][np.isin(labels[orders[c]], (a, b))]
                        streams.append(_auc_stream(order, matrix[:, c], labels == c))
        rows, codes, starts, _ = _concat(streams)
        per_entry = 1 if n_classes == 0 else (n_classes if self._multi_class == "ovr"
                                              else 2 * len(pairs))
        return _Prepared(len(y), labels, max(n_classes, 2), rows, codes, starts, per_entry,
                         pairs=pairs)

    def evaluate(self, prepared: _Prepared, weights: np.ndarray) -> np.ndarray:
        p = prepared
        totals, num = _class_totals_and_streams(p, weights, _k.auc_numerators)
        with np.errstate(divide="ignore", invalid="ignore"):
            if p.per_entry == 1:                                           # binary
                return num[:, 0] / (totals[1] * totals[0])[None]
            if self._multi_class == "ovr":
                auc = num / (totals * (totals.sum(axis=0) - totals))[None]
                return _present_average(auc, totals if self._average == "weighted"
                                        else np.ones_like(totals), totals > 0)
            a, b = (np.array(side) for side in zip(*p.pairs))
            both = totals[a] * totals[b]
            auc = (num[:, 0::2] + num[:, 1::2]) / (2.0 * both)[None]
            size = totals[a] + totals[b]
            return _present_average(auc, size if self._average == "weighted"
                                    else np.ones_like(size), both > 0)


class _AveragePrecision(MetricImpl):
    """Step-wise average precision; one-vs-rest macro average for a score matrix."""

    def prepare(self, y_true: np.ndarray, preds: Sequence[np.ndarray]) -> _Prepared:
        y, arrays, n_classes = _scores(y_true, preds, matrix_ok=True)
        labels = _binary_labels(y) if n_classes == 0 else _class_labels(y, n_classes)
        streams = []
        for score in arrays:
            columns = [(score, labels == 1)] if n_classes == 0 else [
                (score[:, c], labels == c) for c in range(n_classes)]
            streams += [_descending_stream(_order(s), s, pos) for s, pos in columns]
        rows, codes, starts, _ = _concat(streams)
        return _Prepared(len(y), labels, max(n_classes, 2), rows, codes, starts,
                         max(n_classes, 1))

    def evaluate(self, prepared: _Prepared, weights: np.ndarray) -> np.ndarray:
        p = prepared
        totals, num = _class_totals_and_streams(p, weights, _k.ap_numerators)
        with np.errstate(divide="ignore", invalid="ignore"):
            if p.per_entry == 1:
                return num[:, 0] / totals[1][None]
            present = totals > 0
            ap = _present_average(num / totals[None], np.ones_like(totals), present)
            return np.where((present.sum(axis=0) >= 2)[None], ap, np.nan)


class _LorenzRatio(MetricImpl):
    """Area between a Lorenz-type curve and the diagonal, relative to the perfect ordering's.

    ``binary_only=False``: normalized Gini (a 0/1 target is scored as ``2 * AUC - 1`` through the
    AUC; any other non-negative target through the Lorenz curve of the target sorted by decreasing
    prediction). ``binary_only=True``: the CAP accuracy ratio of a 0/1 target, computed from the
    cumulative accuracy profile.
    """

    def __init__(self, binary_only: bool) -> None:
        self._binary_only = binary_only

    def prepare(self, y_true: np.ndarray, preds: Sequence[np.ndarray]
                ) -> tuple[str, _Prepared | tuple[_Prepared, np.ndarray]]:
        y, arrays, _ = _scores(y_true, preds, matrix_ok=False)
        target = y.astype(float)
        binary = bool(np.all((target == 0) | (target == 1)))
        if self._binary_only:
            labels = _binary_labels(y)
        elif binary:
            return "auc", _RocAUC().prepare(y_true, arrays)
        else:
            if not np.all(np.isfinite(target)) or np.any(target < 0):
                raise ValueError("normalized Gini needs a 0/1 or a non-negative finite target")
            labels = np.zeros(len(y), dtype=np.intp)
            # the target's own curve, the denominator, is the last stream
            arrays = [*arrays, target]
        streams = []
        for score in arrays:
            rows, codes = _descending_stream(_order(score), score, target > 0)
            streams.append((rows, codes, target[rows]))
        rows, codes, starts, values = _concat(streams)
        return "lorenz", (_Prepared(len(y), labels, 2, rows, codes, starts, 1, values), target)

    def evaluate(self, prepared: tuple[str, _Prepared | tuple[_Prepared, np.ndarray]],
                 weights: np.ndarray) -> np.ndarray:
        _, data = prepared
        if isinstance(data, _Prepared):   # "auc": a 0/1 target, through the AUC
            return 2.0 * _RocAUC().evaluate(data, weights) - 1.0
        p, target = data   # "lorenz": the streams and the target
        weights = _check_weights(weights, p.n)
        curve = _k.lorenz_sums(weights, p.rows, p.codes, p.values, p.starts,
                               _k.tile_prototype(weights))                     # (S, R)
        with np.errstate(divide="ignore", invalid="ignore"):
            if self._binary_only:
                neg, pos = _k.class_totals(weights, p.labels, 2).T
                # random profile: (neg + pos) * pos; perfect minus random: pos * neg
                return (curve - ((neg + pos) * pos)[None]) / (pos * neg)[None]
            base = _k.weighted_sums(weights, np.ones(p.n)) * _k.weighted_sums(weights, target)
            perfect = curve[-1] - base
            perfect = np.where(perfect > _ZERO_GINI * base, perfect, np.nan)
            return (curve[:-1] - base[None]) / perfect[None]


def _scores_metric(name: str, label: str, aliases: tuple[str, ...], factory, lower: float = 0.0,
                   noise_model: str | None = None) -> Metric:
    return Metric(name, label, True, aliases, lower, 1.0, noise_model=noise_model, kind="scores",
                  factory=factory)


METRICS: tuple[Metric, ...] = (
    _scores_metric("auc", "ROC AUC", (
        "roc_auc", "rocauc", "roc", "auroc", "area_under_curve", "aucroc", "roc_auc_score",
        "area_under_roc_curve", "area_under_receiver_operating_characteristic_curve"),
        partial(_RocAUC, "ovr", "macro")),
    _scores_metric("auc_ovr", "ROC AUC one-vs-rest", ("roc_auc_ovr", "auc_ovr_macro",
                                                      "roc_auc_ovr_macro", "multiclass_auc"),
                   partial(_RocAUC, "ovr", "macro")),
    _scores_metric("auc_ovr_weighted", "ROC AUC one-vs-rest, prevalence-weighted",
                   ("roc_auc_ovr_weighted",), partial(_RocAUC, "ovr", "weighted")),
    _scores_metric("auc_ovo", "ROC AUC one-vs-one (Hand & Till)", (
        "roc_auc_ovo", "auc_ovo_macro", "roc_auc_ovo_macro", "hand_till_auc"),
        partial(_RocAUC, "ovo", "macro")),
    _scores_metric("auc_ovo_weighted", "ROC AUC one-vs-one, prevalence-weighted",
                   ("roc_auc_ovo_weighted",), partial(_RocAUC, "ovo", "weighted")),
    _scores_metric("gini", "normalized Gini", ("normalized_gini", "gini_normalized",
                                               "normalized_gini_coefficient"),
                   partial(_LorenzRatio, binary_only=False), lower=-1.0),
    _scores_metric("cap_ar", "CAP accuracy ratio", ("accuracy_ratio", "cap_accuracy_ratio"),
                   partial(_LorenzRatio, binary_only=True), lower=-1.0),
    _scores_metric("average_precision", "average precision", (
        "average_precision_score", "ap", "pr_auc", "prauc", "area_under_precision_recall_curve"),
        _AveragePrecision),
)


def _class_totals_and_streams(p: _Prepared, weights: np.ndarray, kernel):
    """Class weight totals ``(K, R)`` and a stream kernel's sums ``(E, streams per entry, R)``."""
    weights = _check_weights(weights, p.n)
    totals = _k.class_totals(weights, p.labels, p.n_classes).T
    num = kernel(weights, p.rows, p.codes, p.starts, _k.tile_prototype(weights))
    return totals, num.reshape(-1, p.per_entry, len(weights))
