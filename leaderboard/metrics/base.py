"""What every metric is made of: its description (:class:`Metric`) and its computation.

A metric's computation is a :class:`MetricImpl` written in *weighted form*: it scores one or many
entries under a matrix of row weights, one row of weights per replicate. The point value is the
special case of one replicate with every weight 1; a bootstrap replicate is a vector of multinomial
counts (how many times each row was drawn). One implementation therefore serves the point score
and the paired bootstrap, and point values can be checked against scikit-learn directly.

Two families cover most metrics:

* :class:`RowSums` -- the metric is a function of a few weighted sums over rows (row means such as
  log loss or MAE, confusion counts for precision/recall/F/MCC/kappa, moments for R^2). One matrix
  product ``weights @ features`` scores every entry on every replicate.
* Rank metrics (AUC, average precision) sort each entry once and take cumulative sums of the weights
  in that order; they live in :mod:`leaderboard.metrics.rank`.

Prediction kinds (``Metric.kind``) say what a submission must contain:

``labels``         one predicted class label per row
``scores``         a real-valued score per row (binary), or one column per class (multi-class)
``probabilities``  a probability in [0, 1] per row (binary), or one column per class summing to 1
``values``         a real number per row (regression)
``multilabel``     several 0/1 columns per row
``rankings``       an ordered list of predicted items per row (space-separated in the file)
``clusters``       a cluster id per row (ids need not match the true labels)
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import numpy as np

KINDS = ("labels", "scores", "probabilities", "values", "multilabel", "rankings", "clusters")


class MetricImpl(ABC):
    """A metric's computation in weighted form.

    Subclasses implement :meth:`prepare` (work done once per entry: features, sort orders) and
    :meth:`evaluate` (scores under a block of row weights). Both take *all entries at once* so that
    shared work (one matrix product) is shared.
    """

    #: Whether :meth:`evaluate` also takes ``weights`` as a scipy.sparse matrix of row counts (a
    #: simulated test set much smaller than its universe touches few rows).
    sparse_weights = False
    #: Whether, for one label per row, every weighted sum behind :meth:`evaluate` is of whole
    #: numbers (counts, indicators, squared code differences): rows with the same true and
    #: predicted labels can then be merged, their integer weights added, without changing a bit
    #: (:meth:`~leaderboard.noise.universes.finite.CalibratedUniverse.simulate` does).
    whole_number_features = False

    @abstractmethod
    def prepare(self, y_true: np.ndarray, preds: Sequence[np.ndarray]) -> Any:
        """Per-entry work that does not depend on the weights."""

    @abstractmethod
    def evaluate(self, prepared: Any, weights: np.ndarray) -> np.ndarray:
        """Scores of every entry under each row of ``weights`` (shape ``(R, n)``): ``(E, R)``."""

    def point(self, prepared: Any, n_rows: int) -> np.ndarray:
        """Every prepared entry's score with all ``n_rows`` weights 1: shape ``(E,)``."""
        return self.evaluate(prepared, np.ones((1, n_rows)))[:, 0]

    def replicates(self, y_true: np.ndarray, preds: Sequence[np.ndarray],
                   weights: np.ndarray) -> np.ndarray:
        """Scores of every entry (``E``) under every replicate's row weights: shape ``(E, R)``."""
        weights = np.atleast_2d(np.asarray(weights, dtype=float))
        return self.evaluate(self.prepare(y_true, preds), weights)

    def score(self, y_true: np.ndarray, y_pred: np.ndarray,
              sample_weight: np.ndarray | None = None) -> float:
        """The point value for one entry (all weights 1 unless ``sample_weight`` is given)."""
        if sample_weight is None:
            return float(self.point(self.prepare(y_true, [y_pred]), len(y_true))[0])
        w = np.asarray(sample_weight, dtype=float)
        return float(self.replicates(y_true, [y_pred], w[None, :])[0, 0])


# Up to this many multiply-adds, a product runs on one BLAS thread: OpenBLAS's threads made a
# (400 x 200) @ (200 x 9) bootstrap product (a category of 200 items, 8 models) take 3.5 ms
# instead of 0.2 ms while another process kept the second core busy, and below ~2^24 one thread
# was as fast or faster on the idle machine too (benchmarks/bench_blas_threads.py). OpenBLAS
# itself runs products up to 2^18 (its GEMM threshold, 65536 x 4) on one thread: those are left
# alone, as switching the thread count costs more than such a product.
ONE_THREAD_PRODUCT = 2 ** 24
OPENBLAS_ONE_THREAD = 2 ** 18


def _dense_product(weights: np.ndarray, features: np.ndarray) -> np.ndarray:
    """``weights @ features``: one BLAS product, on one thread when it is small (the same
    numbers: OpenBLAS splits a product by blocks of the output, never a sum)."""
    size = weights.shape[0] * weights.shape[1] * features.shape[1]
    if not OPENBLAS_ONE_THREAD < size <= ONE_THREAD_PRODUCT:
        return np.asarray(weights @ features)
    from leaderboard._threads import one_blas_thread   # numba: not at import

    with one_blas_thread():
        return np.asarray(weights @ features)


class RowSums(MetricImpl):
    """A metric that is a function of weighted sums over rows.

    ``shared_features(y_true)`` gives ``(n, s)`` columns that do not depend on the entry (the default
    is a single column of ones: the total weight); ``entry_features(y_true, y_pred)`` gives ``(n, k)``
    columns per entry. Under weights ``W`` the sums are ``W @ features``; :meth:`finalize` turns the
    shared sums ``(R, s)`` and each entry's sums ``(E, R, k)`` into scores ``(E, R)``.
    """

    sparse_weights = True

    def shared_features(self, y_true: np.ndarray) -> np.ndarray:
        return np.ones((len(y_true), 1))

    @abstractmethod
    def entry_features(self, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        """Per-row columns of one entry, shape ``(n, k)``."""

    @abstractmethod
    def finalize(self, shared: np.ndarray, sums: np.ndarray) -> np.ndarray:
        """Scores ``(E, R)`` from shared sums ``(R, s)`` and entry sums ``(E, R, k)``."""

    def _features(self, y_true: np.ndarray, preds: Sequence[np.ndarray]) -> list[np.ndarray]:
        n = len(y_true)
        shared = np.asarray(self.shared_features(y_true), dtype=float).reshape(n, -1)
        return [shared] + [np.asarray(self.entry_features(y_true, p), dtype=float).reshape(n, -1)
                           for p in preds]

    def _finalize_sums(self, sums: np.ndarray, n_shared: int, k: int) -> np.ndarray:
        n_entries = (sums.shape[1] - n_shared) // k if k else 0
        entry = sums[:, n_shared:].reshape(len(sums), n_entries, k).transpose(1, 0, 2)
        return np.asarray(self.finalize(sums[:, :n_shared], entry), dtype=float)

    def prepare(self, y_true: np.ndarray, preds: Sequence[np.ndarray]) -> SumsPlan:
        blocks = self._features(y_true, preds)
        k = blocks[1].shape[1] if len(blocks) > 1 else 0
        # Point sums in full precision, one column at a time (independent of the other columns).
        point_sums = np.concatenate([block.sum(axis=0) for block in blocks])[None, :]
        return SumsPlan(exact_columns(blocks), point_sums, blocks[0].shape[1], k)

    def evaluate(self, prepared: SumsPlan, weights: np.ndarray) -> np.ndarray:
        """Scores under ``weights``: a dense array, or a scipy.sparse matrix of row counts (a
        simulated test set much smaller than its universe touches few rows)."""
        if hasattr(weights, "tocsr"):
            sums = np.asarray(weights @ prepared.row_major)    # a sparse product
        else:
            weights = np.asarray(weights, dtype=float)
            sums = _dense_product(weights, prepared.features)
        return self._finalize_sums(sums, prepared.n_shared, prepared.k)

    def evaluate_each(self, prepared: SumsPlan, weights: np.ndarray) -> np.ndarray:
        """Scores ``(E,)`` under one dense weight vector, each column's sum taken on its own.

        The same scores as ``evaluate(prepared, weights[None, :])[:, 0]`` up to the order of the
        additions, but an entry's score no longer depends on which entries share the call: BLAS
        adds a ``(1, n) @ (n, c)`` product in an order that depends on ``c``, and real (not
        integer) weights are not summed exactly; here each column is summed pairwise by numpy. A calibrated
        universe's truth sums this way, so
        that a model's true score is the same alone or among others.

        Examples
        --------
        >>> from leaderboard.metrics.classification import LogLoss
        >>> impl, y = LogLoss(), np.array([0, 1, 1, 0])
        >>> p = [np.array([0.2, 0.7, 0.6, 0.1]), np.array([0.4, 0.9, 0.5, 0.3])]
        >>> w = np.array([0.1, 0.2, 0.3, 0.4])
        >>> both = impl.evaluate_each(impl.prepare(y, p), w)
        >>> bool(both[1] == impl.evaluate_each(impl.prepare(y, p[1:]), w)[0])
        True
        >>> bool(np.allclose(both, impl.evaluate(impl.prepare(y, p), w[None, :])[:, 0]))
        True
        """
        weights = np.asarray(weights, dtype=float)
        # numpy's own pairwise sum of each column (BLAS's dot threads, and waits, on a busy machine)
        sums = np.array([np.add.reduce(column * weights) for column in prepared.features.T])
        return self._finalize_sums(sums[None, :], prepared.n_shared, prepared.k)[:, 0]

    def point(self, prepared: Any, n_rows: int) -> np.ndarray:
        if not isinstance(prepared, SumsPlan):   # a subclass that wraps its own plan
            return super().point(prepared, n_rows)
        return self._finalize_sums(prepared.point_sums, prepared.n_shared, prepared.k)[:, 0]


@dataclass(frozen=True)
class SumsPlan:
    """What :meth:`RowSums.prepare` gives :meth:`RowSums.evaluate`: the rows' feature columns
    and their unweighted sums."""

    features: np.ndarray    # (n, columns), Fortran order, rounded by exact_columns
    point_sums: np.ndarray  # (1, columns): unweighted sums of the unrounded columns
    n_shared: int
    k: int

    @cached_property
    def row_major(self) -> np.ndarray:
        """``features`` in C order, made once per plan for sparse products: scipy's sparse
        times dense product ravels its dense operand in C order, which copied the whole Fortran
        ordered matrix on every block of simulated test sets (prostate2021's 32,766 x 650
        features: 88 ms a copy, then 16 ms for the product itself). The same values, so the same
        sums."""
        return np.ascontiguousarray(self.features)


def exact_columns(blocks: Sequence[np.ndarray] | np.ndarray) -> np.ndarray:
    """Feature columns rounded so that ``weights @ columns`` is exact under bootstrap weights.

    BLAS adds in an order that depends on the shapes it is given, so a float sum over rows can
    change in its last bit when replicates or entries are chunked differently. Integer columns
    (counts, indicators) are summed exactly already. Every other column is rounded to a multiple of
    one power of two with ``b = 52 - ceil(log2 n)`` significant bits below its largest value. Then,
    for integer weights totalling at most ``2 n`` (every plain or stratified bootstrap replicate
    totals exactly ``n``), every product and partial sum is an exact float64 and the result cannot
    depend on the order of addition. The rounding moves a weighted mean by at most ``2**-b`` of the
    column's largest value (``b = 35``: 3e-11 at n = 100,000), far below any Monte Carlo error;
    point scores are computed from the unrounded values.

    ``blocks`` is one ``(n, c)`` matrix or a sequence of them, taken side by side; the result is
    ``(n, total columns)`` in Fortran order.

    Examples
    --------
    >>> x = np.array([[0.1, 3.0], [1 / 3, 4.0]])
    >>> rounded = exact_columns(x)
    >>> rounded[:, 1].tolist()                      # integers untouched
    [3.0, 4.0]
    >>> bool(np.allclose(rounded, x, rtol=2.0 ** -50))
    True
    """
    if isinstance(blocks, np.ndarray):
        blocks = [blocks]
    # Column by column, each contiguous: whole-matrix temporaries cost more than the matrix
    # product they prepare for.
    columns = [column for block in blocks
               for column in np.asfortranarray(block, dtype=float).T]
    n = len(columns[0]) if columns else 0
    bits = 52 - int(np.ceil(np.log2(max(n, 2))))
    out = np.empty((n, len(columns)), order="F")
    for j, column in enumerate(columns):
        largest = float(np.abs(column).max(initial=0.0))
        if largest < 2.0 ** bits and np.array_equal(column, np.rint(column)):
            out[:, j] = column                         # counts and indicators: already exact
            continue
        # a subnormal column's unit would underflow to 0: its values are whole multiples of the
        # smallest subnormal anyway
        unit = max(np.ldexp(1.0, np.frexp(largest)[1] - bits), _SMALLEST)
        np.multiply(np.rint(np.divide(column, unit, out=out[:, j]), out=out[:, j]), unit,
                    out=out[:, j])
    return out


_SMALLEST = float(np.nextafter(0.0, 1.0))   # 5e-324


class RowMean(RowSums):
    """A metric that is the weighted mean of a per-row loss (optionally transformed).

    Subclasses give :meth:`row_values`; :meth:`transform` (identity by default) maps the mean to the
    score, e.g. ``sqrt`` for RMSE.
    """

    @abstractmethod
    def row_values(self, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        """Per-row contribution, shape ``(n,)``."""

    def transform(self, mean: np.ndarray) -> np.ndarray:
        return mean

    def entry_features(self, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        return np.asarray(self.row_values(y_true, y_pred), dtype=float)[:, None]

    def finalize(self, shared: np.ndarray, sums: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.transform(sums[..., 0] / shared[None, :, 0])


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
        The universe that simulates this metric from scores alone when it is not the default of
        its prediction kind (``"linspace"``: the seeds' AUC universe; ``"binomial"``: accuracy);
        see :mod:`leaderboard.noise.universes`.
    kind : str
        The predictions it takes: one of :data:`KINDS`.
    factory : callable or None
        Builds the :class:`MetricImpl` from the metric's options (None: the metric can rank a
        leaderboard of scores but cannot score submissions).
    options : tuple of (name, value) pairs
        Option values this metric is configured with (``k`` for @k metrics, ``beta`` for F-beta,
        ``costs`` for expected cost); see :meth:`configure`.
    option_names : tuple of str
        The options it accepts.
    """

    name: str
    label: str
    higher_is_better: bool
    aliases: tuple[str, ...] = ()
    lower_bound: float = float("-inf")
    upper_bound: float = float("inf")
    noise_model: str | None = None
    kind: str = "values"
    factory: Callable[..., MetricImpl] | None = field(default=None, repr=False, compare=False)
    options: tuple[tuple[str, Any], ...] = ()
    option_names: tuple[str, ...] = ()

    @property
    def impl(self) -> MetricImpl:
        """The computation, built from the configured options."""
        if self.factory is None:
            raise ValueError(f"{self.label} has no implementation for scoring predictions")
        return self.factory(**dict(self.options))

    @property
    def can_score(self) -> bool:
        """Whether predictions can be scored (submissions mode)."""
        return self.factory is not None

    def configure(self, **options: Any) -> Metric:
        """A copy with options set; unknown options raise ``ValueError``.

        Examples
        --------
        >>> from leaderboard.metrics import get_metric
        >>> get_metric("map@5").configure(k=3).options
        (('k', 3),)
        """
        unknown = sorted(set(options) - set(self.option_names))
        if unknown:
            accepted = ", ".join(self.option_names) or "none"
            raise ValueError(f"{self.name} does not take option(s) {', '.join(unknown)} "
                             f"(accepted: {accepted})")
        merged = dict(self.options)
        merged.update(options)
        return replace(self, options=tuple(sorted(merged.items())))

    def score(self, y_true: np.ndarray, y_pred: np.ndarray,
              sample_weight: np.ndarray | None = None) -> float:
        """Point value of one entry's predictions."""
        return self.impl.score(y_true, y_pred, sample_weight)
