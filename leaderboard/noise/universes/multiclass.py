"""The multi-class universe: a normal score per class and calibrated softmax probabilities.

A row of class c has a score vector s ~ N(mu * e_c, I): its own class's score is shifted by ``mu``.
The model predicts the calibrated probabilities P(class j | s), which are softmax(mu * s_j +
log share_j), and labels are the most probable class. ``mu`` (0 = no skill) is solved so the metric
on the universe equals the target. Each class holds a fixed sample of score vectors (a fixed seed, part
of the universe), so the universe is the same on every run.
"""
from __future__ import annotations

import numpy as np
from scipy.special import softmax

from leaderboard.metrics import Metric
from leaderboard.noise.universes.finite import CalibratedUniverse
from leaderboard.noise.universes.miscalibrated import MiscalibrationPath

ROWS = 32768                 # all classes together (at least 1024 per class)
MAX_SEPARATION = 12.0
_SAMPLE_SEED = 20260403      # fixes the universe's score vectors


class MulticlassUniverse(MiscalibrationPath, CalibratedUniverse):
    """K-class classification with calibrated probabilities.

    Examples
    --------
    >>> from leaderboard.metrics import get_metric
    >>> u = MulticlassUniverse(get_metric("accuracy"), (0.5, 0.3, 0.2))
    >>> mu = u.calibrate([0.8])
    >>> bool(abs(u.truth(mu)[0] - 0.8) < 1e-3)
    True
    """

    name = "multiclass"

    def __init__(self, metric: Metric, class_shares: tuple[float, ...]) -> None:
        super().__init__(metric)
        self.shares = np.asarray(class_shares, dtype=float)
        k = self.shares.size
        per_class = max(1024, ROWS // k)
        self.y = np.repeat(np.arange(k), per_class)
        self.strata = [slice(c * per_class, (c + 1) * per_class) for c in range(k)]
        self._noise = np.random.default_rng(_SAMPLE_SEED).standard_normal((self.y.size, k))
        self._eye = np.eye(k)
        self._own = self._eye[self.y]
        # the same values class by class, (k, rows): label models are built from these, so that
        # each class's logits are one contiguous row (see :func:`_most_probable_of_classes`)
        self._noise_by_class = np.ascontiguousarray(self._noise.T)
        self._own_by_class = np.ascontiguousarray(self._own.T)
        self._log_shares = np.log(self.shares)
        self.max_separation = MAX_SEPARATION
        self.param_range = self.path_range()

    def _path_key(self) -> tuple:
        return ("multiclass", self.metric.name, self.metric.options, tuple(self.shares))

    def _model(self, mu: float, temperature: float) -> np.ndarray:
        """Predictions of the model with separation ``mu`` whose log-likelihood ratios are scaled
        by ``temperature`` (1: calibrated; -1: reversed; +-inf: hard one-hot predictions)."""
        if self.metric.kind == "labels":
            return self._labels(mu, temperature)
        # mu * (mu * own + noise), in place (the same operations, so the same bits)
        llr = np.multiply(self._own, mu)
        llr += self._noise
        llr *= mu
        if np.isinf(temperature):
            pick = llr.argmax(axis=1) if temperature > 0 else llr.argmin(axis=1)
            return self._eye[pick]
        logits = np.multiply(llr, temperature, out=llr)
        logits += self._log_shares
        return _softmax(logits)

    def _labels(self, mu: float, temperature: float) -> np.ndarray:
        """:meth:`_model` for a label metric: the same element-wise operations on the class-major
        copies (so the same logits, bit for bit), then each row's most probable class. Calibrating
        a label metric builds hundreds of these models; class by class each step is one contiguous
        pass instead of a strided column of a row-major matrix (prostate2021's 6 classes: about
        twice as fast)."""
        llr = np.multiply(self._own_by_class, mu)
        llr += self._noise_by_class
        llr *= mu
        if np.isinf(temperature):
            return llr.argmax(axis=0) if temperature > 0 else llr.argmin(axis=0)
        logits = np.multiply(llr, temperature, out=llr)
        logits += self._log_shares[:, None]
        return _most_probable_of_classes(logits)

    def assumptions(self, n_test: int, prevalence: float | None) -> str:
        counts = ", ".join(f"{c:,}" for c in self.test_counts(n_test, prevalence))
        return (f"Every entry is scored on its own test set of {n_test:,} rows with a fixed number of "
                f"rows of each of the {self.shares.size} classes ({counts}), "
                "drawn with replacement from a universe in which each row has one normal score per "
                "class, its own class's shifted by the amount that makes the metric on the universe "
                "equal the true score, and the model predicts the calibrated class probabilities "
                "(labels: the most probable class). Models whose errors concentrate on a few "
                "confusable classes have a somewhat different noise." + self.path_words())


_SEQUENTIAL = 7   # numpy sums at most this many values along an axis left to right (then pairwise)
_TIE = 1e-9   # relative gap between the two largest logits below which softmax decides


def _most_probable(logits: np.ndarray) -> np.ndarray:
    """Each row's most probable class: the argmax of ``softmax(logits)``, as labels always were.

    Softmax is monotone, so that is the argmax of the logits themselves, without the
    exponentials; only where the two largest logits are so close that their rounded
    probabilities could tie (then softmax's first maximum wins) is softmax evaluated, for those
    rows alone, so every label is the one the probabilities give. With at most
    :data:`_SEQUENTIAL` classes the maximum, the count of logits close to it and the column
    holding it are taken column by column (numpy's reductions along a short row axis loop per
    row; the same labels, several times faster); a NaN logit takes numpy's own path.

    Examples
    --------
    >>> _most_probable(np.array([[0.0, 2.0, 1.0], [3.0, 3.0, -1.0]])).tolist()
    [1, 0]
    """
    return _most_probable_of_classes(logits.T)


def _most_probable_of_classes(by_class: np.ndarray) -> np.ndarray:
    """:func:`_most_probable` of the logits ``by_class.T``: ``by_class`` holds one class's logits
    per row, ``(k, rows)`` (contiguous rows make the column-by-column passes contiguous too).

    Examples
    --------
    >>> _most_probable_of_classes(np.array([[0.0, 3.0], [2.0, 3.0], [1.0, -1.0]])).tolist()
    [1, 0]
    """
    logits = by_class.T
    k = logits.shape[1]
    top = _column_max(logits) if k <= _SEQUENTIAL else None
    if top is None or np.isnan(top).any():   # np.maximum spreads a NaN, so this sees any
        pick = logits.argmax(axis=1)
        top = logits.max(axis=1)
        floor = top - _TIE * np.maximum(np.abs(top), 1.0)
        # a second logit within the gap of the largest
        close = np.count_nonzero(logits >= floor[:, None], axis=1) > 1
    else:
        # A row with one logit within the gap of its largest is not close, and that logit is
        # its largest, first or not (a tie is close): the class whose logit clears the floor.
        # Summing each column's index where it does, in small integers, replaces a masked
        # assignment per column (four times slower). A row whose floor is NaN (an infinite
        # largest logit) has none that clears it: numpy's argmax, the first maximum.
        floor = top - _TIE * np.maximum(np.abs(top), 1.0)
        clears = np.empty(logits.shape[0], dtype=bool)
        count = np.zeros(logits.shape[0], dtype=np.uint8)
        first = np.zeros(logits.shape[0], dtype=np.uint8)   # at most 0 + 1 + ... + 6
        for j in range(k):
            np.greater_equal(logits[:, j], floor, out=clears)
            count += clears
            if j:
                first += clears.view(np.uint8) * np.uint8(j)
        pick = first.astype(np.intp)
        close = count > 1
        none = count == 0
        if none.any():
            pick[none] = logits[none].argmax(axis=1)
    if close.any():   # (the close rows in row-major order, as softmax always saw them)
        pick[close] = softmax(np.ascontiguousarray(logits[close]), axis=1).argmax(axis=1)
    return pick


def _column_max(logits: np.ndarray) -> np.ndarray:
    """Each row's largest value, taken column by column (the same numbers as ``max(axis=1)``
    for finite values)."""
    top = logits[:, 0].copy()
    for j in range(1, logits.shape[1]):
        np.maximum(top, logits[:, j], out=top)
    return top


def _softmax(logits: np.ndarray) -> np.ndarray:
    """``scipy.special.softmax(logits, axis=1)``, bit for bit, overwriting ``logits``.

    numpy's reductions along a short row axis are slow (each row a separate small loop); with at
    most :data:`_SEQUENTIAL` classes numpy adds a row's values left to right, so the maximum and
    the sum taken column by column are the same numbers, about three times faster. More classes:
    scipy's own (numpy sums them pairwise).

    Examples
    --------
    >>> from scipy.special import softmax
    >>> x = np.array([[0.0, 2.0, 1.0], [3.0, 3.0, -1.0]])
    >>> bool(np.array_equal(_softmax(x.copy()), softmax(x, axis=1)))
    True
    """
    k = logits.shape[1]
    if k > _SEQUENTIAL:
        return softmax(logits, axis=1)
    top = _column_max(logits)
    logits -= top[:, None]
    np.exp(logits, out=logits)
    total = logits[:, 0].copy()
    for j in range(1, k):
        total += logits[:, j]
    logits /= total[:, None]
    return logits
