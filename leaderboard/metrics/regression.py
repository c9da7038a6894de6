"""Regression metrics in weighted form: row means, moments and the weighted median.

Every metric here scores one real number per row (kind ``values``), except ``kl_ctr`` which scores
predicted click-through rates (kind ``probabilities``). Under a matrix of row weights ``W`` (one row
per bootstrap replicate):

* row means (MAE, MSE, RMSE, MSLE, RMSLE, MAPE, SMAPE, KL) are one :class:`RowMean` product;
* R^2 and explained variance are functions of weighted moments (sums of ``1, y, y^2`` shared by all
  entries and sums of the residual and its square per entry), one :class:`RowSums` product;
* the median absolute error sorts each entry's absolute errors once and walks the cumulative
  weights of every replicate in that order (compiled with numba).

For integer weights every metric equals scikit-learn's on the data with row ``i`` repeated ``w[i]``
times. Two documented differences from scikit-learn:

* MSLE/RMSLE reject negative values (scikit-learn >= 1.6 only rejects values <= -1): a negative
  target or prediction has no place in a metric of ``log(1 + y)`` designed for counts and prices.
* moments are sums, not two-pass averages, so R^2 and explained variance lose precision when the
  target's spread within a replicate is below about 1e-6 of its distance from the median of ``y``
  (the centring constant); a spread below 1e-6 of that distance is treated as no spread at all,
  which is what scikit-learn's exact-zero tests see for constant targets.

Examples
--------
>>> import numpy as np
>>> from leaderboard.metrics import get_metric
>>> y_true, y_pred = [3.0, -0.5, 2.0, 7.0], [2.5, 0.0, 2.0, 8.0]
>>> get_metric("mean_absolute_error").score(y_true, y_pred)
0.5
>>> round(get_metric("r2_score").score(y_true, y_pred), 6)
0.948608
>>> get_metric("medae").score(y_true, y_pred)
0.5

Bootstrap replicates: one row of weights per replicate, one row of scores per entry.

>>> weights = np.array([[1, 1, 1, 1], [2, 0, 1, 1]])
>>> get_metric("rmse").impl.replicates(y_true, [y_pred], weights)
array([[0.61237244, 0.61237244]])
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from leaderboard._jit import njit
from scipy.special import rel_entr

from leaderboard.metrics.base import Metric, MetricImpl, RowMean, RowSums

_INF = float("inf")
_EPS = np.finfo(np.float64).eps
# A sum of squares below this share of its uncentred counterpart is rounding noise, not spread.
_ZERO_SPREAD = 1e-12
# Predicted rates are clipped to [_CTR_CLIP, 1 - _CTR_CLIP] so that a confident miss costs a large
# but finite amount (log(1e15) ~ 34.5 nats), as log loss does.
_CTR_CLIP = 1e-15


def _as_values(y_true: np.ndarray, y_pred: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both columns as finite float vectors of one length (a one-column 2-D array is accepted)."""
    out = []
    for name, values in (("y_true", y_true), ("y_pred", y_pred)):
        values = np.asarray(values, dtype=float)
        if values.ndim == 2 and values.shape[1] == 1:
            values = values[:, 0]
        if values.ndim != 1:
            raise ValueError(f"{name} must be one number per row; got shape {values.shape}")
        if not np.all(np.isfinite(values)):
            raise ValueError(f"{name} contains NaN or infinite values")
        out.append(values)
    if len(out[0]) != len(out[1]):
        raise ValueError(f"y_true has {len(out[0])} rows but y_pred has {len(out[1])}")
    return out[0], out[1]


def _centre(values: np.ndarray) -> np.ndarray:
    """``values`` minus one of its own elements near the middle (exact zeros when all are equal)."""
    if len(values) == 0:
        return values
    return values - np.partition(values, len(values) // 2)[len(values) // 2]


def _absolute(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    return np.abs(y - p)


def _squared(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    return (y - p) ** 2


def _squared_log(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    if np.any(y < 0) or np.any(p < 0):
        raise ValueError("mean squared log error cannot be used when targets or predictions "
                         "contain negative values")
    return (np.log1p(y) - np.log1p(p)) ** 2


def _absolute_percentage(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    # scikit-learn's convention: a fraction, with eps in place of a zero target (huge, not inf).
    return np.abs(y - p) / np.maximum(np.abs(y), _EPS)


def _symmetric_percentage(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    # Kaggle's SMAPE in percent; a row where target and prediction are both 0 is a perfect 0.
    denominator = np.abs(y) + np.abs(p)
    safe = np.where(denominator == 0, 1.0, denominator)
    return np.where(denominator == 0, 0.0, 200.0 * np.abs(y - p) / safe)


class _MeanError(RowMean):
    """The weighted mean of a per-row error, optionally square-rooted."""

    def __init__(self, row_error: Callable[[np.ndarray, np.ndarray], np.ndarray],
                 root: bool = False) -> None:
        self._row_error = row_error
        self._root = root

    def row_values(self, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        return self._row_error(*_as_values(y_true, y_pred))

    def transform(self, mean: np.ndarray) -> np.ndarray:
        return np.sqrt(mean) if self._root else mean


class _KLClickRate(RowMean):
    """Mean KL divergence of Bernoulli(predicted rate) from Bernoulli(true rate), in nats."""

    def row_values(self, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        y, p = _as_values(y_true, y_pred)
        if np.any((y < 0) | (y > 1)) or np.any((p < 0) | (p > 1)):
            raise ValueError("click-through rates must lie in [0, 1]")
        p = np.clip(p, _CTR_CLIP, 1 - _CTR_CLIP)
        # rel_entr(x, q) = x log(x / q) with 0 log 0 = 0: a true rate of 0 or 1 is fine.
        return rel_entr(y, p) + rel_entr(1 - y, 1 - p)


def _fraction_explained(unexplained: np.ndarray, unexplained_scale: np.ndarray,
                        spread: np.ndarray, spread_scale: np.ndarray) -> np.ndarray:
    """``1 - unexplained / spread`` with scikit-learn's finite conventions.

    No unexplained part scores 1; an unexplained part with no spread to explain scores 0. "No"
    means zero up to rounding: below ``_ZERO_SPREAD`` of the uncentred sum it was computed from.
    """
    none_left = unexplained <= _ZERO_SPREAD * unexplained_scale
    no_spread = spread <= _ZERO_SPREAD * spread_scale
    with np.errstate(divide="ignore", invalid="ignore"):
        score = 1.0 - unexplained / spread
    score = np.where(no_spread, 0.0, score)
    return np.where(none_left, 1.0, score)


class _Moments(RowSums):
    """R^2 or explained variance from weighted moments of the target and of the residual.

    Shared columns: ``1, yc, yc^2`` with ``yc`` the target centred on one of its middle values
    (centring keeps the moment formula ``S2 - S1^2 / W`` accurate). Entry columns: the residual
    ``r``, centred the same way, its square, and the uncentred ``r^2``.
    """

    def __init__(self, explained_variance: bool) -> None:
        self._explained_variance = explained_variance

    def shared_features(self, y_true: np.ndarray) -> np.ndarray:
        y, _ = _as_values(y_true, y_true)
        yc = _centre(y)
        return np.column_stack([np.ones_like(yc), yc, yc ** 2])

    def entry_features(self, y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        y, p = _as_values(y_true, y_pred)
        residual = y - p
        rc = _centre(residual)
        return np.column_stack([rc, rc ** 2, residual ** 2])

    def finalize(self, shared: np.ndarray, sums: np.ndarray) -> np.ndarray:
        total, s1, s2 = (shared[None, :, i] for i in range(3))
        r1, r2, squared = sums[..., 0], sums[..., 1], sums[..., 2]
        with np.errstate(divide="ignore", invalid="ignore"):
            spread = s2 - s1 ** 2 / total              # weighted sum of squares about the mean
            if self._explained_variance:
                unexplained, scale = r2 - r1 ** 2 / total, r2
            else:
                unexplained, scale = squared, np.zeros_like(squared)   # exact zero test
            score = _fraction_explained(unexplained, scale, spread, s2)
        return np.where(total > 0, score, np.nan)


@njit(cache=True)
def _weighted_medians(sorted_values: np.ndarray, order: np.ndarray,
                      weights: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """Weighted median of ``sorted_values`` under each row of ``weights`` (rows in ``order``).

    scikit-learn's "averaged inverted CDF": the first value whose cumulative weight reaches half
    the total; when it reaches exactly half, the mean of that value and the next one with weight.
    For integer weights this is ``np.median`` of the repeated values.
    """
    n_rep, n = weights.shape
    out = np.empty(n_rep)
    for r in range(n_rep):
        total = 0.0
        for j in range(n):                       # summed in sorted order, as scikit-learn does
            total += weights[r, order[j]]
        if total <= 0.0:
            out[r] = np.nan
            continue
        half = total / 2.0
        cumulative = 0.0
        for j in range(n):
            w = weights[r, order[j]]
            cumulative += w
            if w > 0.0 and cumulative >= half:
                out[r] = sorted_values[j]
                if cumulative - half <= _EPS:    # exactly half: average with the next value
                    for m in range(j + 1, n):
                        if weights[r, order[m]] > 0.0:
                            out[r] = (sorted_values[j] + sorted_values[m]) / 2.0
                            break
                break
    return out


class _MedianAbsoluteError(MetricImpl):
    """Weighted median of the absolute errors: each entry's errors are sorted once."""

    def prepare(self, y_true: np.ndarray,
                preds: Sequence[np.ndarray]) -> list[tuple[np.ndarray, np.ndarray]]:
        prepared = []
        for y_pred in preds:
            errors = _absolute(*_as_values(y_true, y_pred))
            order = np.argsort(errors, kind="stable")
            prepared.append((errors[order], order))
        return prepared

    def evaluate(self, prepared: list[tuple[np.ndarray, np.ndarray]],
                 weights: np.ndarray) -> np.ndarray:
        weights = np.ascontiguousarray(weights, dtype=float)
        if not prepared:
            return np.empty((0, len(weights)))
        return np.stack([_weighted_medians(values, order, weights) for values, order in prepared])


def _values(name: str, label: str, aliases: tuple[str, ...], factory: Callable[[], MetricImpl],
            higher_is_better: bool = False, lower: float = 0.0, upper: float = _INF,
            kind: str = "values") -> Metric:
    return Metric(name, label, higher_is_better, aliases, lower, upper, kind=kind, factory=factory)


METRICS: tuple[Metric, ...] = (
    _values("explained_variance", "explained variance", ("explained_variance_score", "evs"),
            lambda: _Moments(explained_variance=True), higher_is_better=True, lower=-_INF,
            upper=1.0),
    _values("mae", "MAE", ("mean_absolute_error", "l1_loss"), lambda: _MeanError(_absolute)),
    _values("mse", "MSE", ("mean_squared_error", "l2_loss"), lambda: _MeanError(_squared)),
    _values("rmse", "RMSE", ("root_mean_squared_error", "root_mean_square_error", "rmsd",
                             "root_mean_squared_deviation"),
            lambda: _MeanError(_squared, root=True)),
    _values("medae", "median absolute error", ("median_absolute_error", "mdae"),
            _MedianAbsoluteError),
    _values("msle", "MSLE", ("mean_squared_log_error", "mean_squared_logarithmic_error"),
            lambda: _MeanError(_squared_log)),
    _values("rmsle", "RMSLE", ("root_mean_squared_log_error",
                               "root_mean_squared_logarithmic_error", "root_mean_square_log_error"),
            lambda: _MeanError(_squared_log, root=True)),
    _values("r2", "R squared", ("r2_score", "r_squared", "coefficient_of_determination"),
            lambda: _Moments(explained_variance=False), higher_is_better=True, lower=-_INF,
            upper=1.0),
    _values("mape", "MAPE", ("mean_absolute_percentage_error", "mean_absolute_percent_error"),
            lambda: _MeanError(_absolute_percentage)),
    _values("smape", "SMAPE", ("symmetric_mean_absolute_percentage_error",
                               "symmetric_mean_absolute_percent_error"),
            lambda: _MeanError(_symmetric_percentage), upper=200.0),
    _values("kl_ctr", "KL divergence of click-through rates",
            ("ctr_kl", "kl_divergence", "kullback_leibler_divergence"), _KLClickRate,
            kind="probabilities"),
)
