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
from typing import Any

import numpy as np

KINDS = ("labels", "scores", "probabilities", "values", "multilabel", "rankings", "clusters")


class MetricImpl(ABC):
    """A metric's computation in weighted form.

    Subclasses implement :meth:`prepare` (work done once per entry: features, sort orders) and
    :meth:`evaluate` (scores under a block of row weights). Both take *all entries at once* so that
    shared work (one matrix product) is shared.
    """

    @abstractmethod
    def prepare(self, y_true: np.ndarray, preds: Sequence[np.ndarray]) -> Any:
        """Per-entry work that does not depend on the weights."""

    @abstractmethod
    def evaluate(self, prepared: Any, weights: np.ndarray) -> np.ndarray:
        """Scores of every entry under each row of ``weights`` (shape ``(R, n)``): ``(E, R)``."""

    def replicates(self, y_true: np.ndarray, preds: Sequence[np.ndarray],
                   weights: np.ndarray) -> np.ndarray:
        """Scores of every entry (``E``) under every replicate's row weights: shape ``(E, R)``."""
        weights = np.atleast_2d(np.asarray(weights, dtype=float))
        return self.evaluate(self.prepare(y_true, preds), weights)

    def score(self, y_true: np.ndarray, y_pred: np.ndarray,
              sample_weight: np.ndarray | None = None) -> float:
        """The point value for one entry (all weights 1 unless ``sample_weight`` is given)."""
        n = len(y_true)
        w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
        return float(self.replicates(y_true, [y_pred], w[None, :])[0, 0])


class RowSums(MetricImpl):
    """A metric that is a function of weighted sums over rows.

    ``shared_features(y_true)`` gives ``(n, s)`` columns that do not depend on the entry (the default
    is a single column of ones: the total weight); ``entry_features(y_true, y_pred)`` gives ``(n, k)``
    columns per entry. Under weights ``W`` the sums are ``W @ features``; :meth:`finalize` turns the
    shared sums ``(R, s)`` and each entry's sums ``(E, R, k)`` into scores ``(E, R)``.
    """

    def shared_features(self, y_true: np.ndarray) -> np.ndarray:
        return np.ones((len(y_true), 1))

    @abstractmethod
    def entry_features(self, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        """Per-row columns of one entry, shape ``(n, k)``."""

    @abstractmethod
    def finalize(self, shared: np.ndarray, sums: np.ndarray) -> np.ndarray:
        """Scores ``(E, R)`` from shared sums ``(R, s)`` and entry sums ``(E, R, k)``."""

    def prepare(self, y_true: np.ndarray, preds: Sequence[np.ndarray]) -> _SumsPlan:
        n = len(y_true)
        shared = np.asarray(self.shared_features(y_true), dtype=float).reshape(n, -1)
        blocks = [np.asarray(self.entry_features(y_true, p), dtype=float).reshape(n, -1)
                  for p in preds]
        k = blocks[0].shape[1] if blocks else 0
        features, starts = exact_columns(np.hstack([shared, *blocks]))
        return _SumsPlan(features, starts, shared.shape[1], k)

    def evaluate(self, prepared: _SumsPlan, weights: np.ndarray) -> np.ndarray:
        plan = prepared
        raw = np.asarray(weights, dtype=float) @ plan.features        # one BLAS call
        sums = np.add.reduceat(raw, plan.starts, axis=1)              # parts back to columns
        s, k = plan.n_shared, plan.k
        n_entries = (sums.shape[1] - s) // k if k else 0
        entry = sums[:, s:].reshape(len(sums), n_entries, k).transpose(1, 0, 2)
        return np.asarray(self.finalize(sums[:, :s], entry), dtype=float)


@dataclass(frozen=True)
class _SumsPlan:
    features: np.ndarray   # (n, parts), Fortran order
    starts: np.ndarray     # first part of each logical column
    n_shared: int
    k: int


# Bootstrap weights are integer counts whose total is n (grouped resampling: rarely more). Allowing
# totals up to 2**_WEIGHT_MARGIN_BITS * n keeps every product and partial sum below exact.
_WEIGHT_MARGIN_BITS = 10


def exact_columns(features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rewrite feature columns so that ``weights @ columns`` is exact under integer weights.

    BLAS adds in an order that depends on the shapes it is given, so a float sum over rows can
    change in its last bit when replicates or entries are chunked differently. Integer columns
    (counts, indicators) are already summed exactly. Every other column is split into two parts,
    each a multiple of one power of two with at most ``b = 53 - log2(n) - 10`` significant bits,
    so every product with an integer weight and every partial sum is an exact float64, whatever
    the order; the parts are added back in a fixed order. The split keeps ``2 b`` bits (52 at
    n = 100,000) relative to the column's largest value.

    Returns the new ``(n, parts)`` matrix (Fortran order) and the index of each column's first part
    (for :func:`numpy.add.reduceat`).

    Examples
    --------
    >>> x = np.array([[0.1, 3.0], [1 / 3, 4.0]])
    >>> parts, starts = exact_columns(x)
    >>> starts.tolist(), parts.shape
    ([0, 2], (2, 3))
    >>> bool(np.allclose(np.add.reduceat(parts, starts, axis=1), x, rtol=1e-15))
    True
    """
    features = np.asarray(features, dtype=float)
    n, c = features.shape
    bits = 53 - (int(np.ceil(np.log2(max(n, 2)))) + _WEIGHT_MARGIN_BITS)
    largest = np.abs(features).max(axis=0, initial=0.0)
    exact = np.all(features == np.rint(features), axis=0) & (largest < 2.0 ** bits)
    n_parts = np.where(exact, 1, 2)
    starts = np.concatenate([[0], np.cumsum(n_parts)[:-1]]).astype(np.intp)
    out = np.empty((n, int(n_parts.sum())), order="F")
    out[:, starts[exact]] = features[:, exact]
    if (~exact).any():
        values = features[:, ~exact]
        exponent = np.frexp(largest[~exact])[1]
        unit = np.ldexp(1.0, exponent - bits)
        high = np.round(values / unit) * unit
        rest = values - high                      # exact: high is values on a coarser grid
        fine = np.ldexp(1.0, exponent - 2 * bits)
        out[:, starts[~exact]] = high
        out[:, starts[~exact] + 1] = np.round(rest / fine) * fine
    return out, starts


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
        Key of the universe that simulates this metric's sampling noise from scores alone.
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
