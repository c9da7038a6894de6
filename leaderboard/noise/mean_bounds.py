"""Intervals for means of per-item values that stay within the values' range (issue 39).

A mean of 0/1 values (a model's accuracy in one category) has a skewed sampling law near 0 and 1:
37 of 40 correct is 0.925, and a symmetric interval around it (mean plus or minus a multiple of its
SE) runs past 1 above and stops short below, where the truth is when the score was lucky. Here
every interval is read off the binomial law instead:

* **0/1 values, items independent**: the Clopper-Pearson interval, exact: it holds the true mean
  with probability at least its level whatever the number of items and wherever the mean lies,
  and it never leaves [0, 1].
* **values in [0, 1] that are not all 0 or 1**: the same interval, as if every value were 0 or 1.
  A value in [0, 1] with mean ``p`` has variance at most ``p (1 - p)``, the 0/1 value's, so this
  is the widest law the values can have: conservative, and wide when they spread little.
* **items in clusters** (``--cluster-col``): Korn and Graubard's (1998) effective number of items,
  ``n / deff``, with the design effect ``deff`` of the cluster-robust variance against the
  binomial one (at least 1: clusters never add information), and the degrees-of-freedom
  correction for ``G`` clusters, ``n_eff * (z_q / t_{q, G-1})^2`` at the interval's own quantile
  ``q``. Approximate (the design effect is estimated from ``G`` clusters); measured in
  docs/categories.md.

The level of each interval is the caller's (``1 - alpha / K`` for ``K`` intervals that must hold
together, by Bonferroni's inequality, which needs no assumption about how they depend on each
other). Values outside [0, 1] have no such bound: :func:`value_range` says so and the caller keeps
a bootstrap interval, stated as approximate.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ValueRange:
    """What the per-item values are: ``binary`` (every value 0 or 1), ``unit`` (in [0, 1], not all
    0 or 1) or ``unbounded`` (some value outside [0, 1]: no range to respect).

    Examples
    --------
    >>> value_range(np.array([[0.0, 1.0], [1.0, 1.0]])).kind
    'binary'
    >>> value_range(np.array([0.5, 1.0])).kind, value_range(np.array([2.0, 1.0])).bounded
    ('unit', False)
    """

    kind: str

    @property
    def bounded(self) -> bool:
        """Whether the values lie in [0, 1], so the binomial bounds apply."""
        return self.kind != "unbounded"


def value_range(values: np.ndarray) -> ValueRange:
    """The :class:`ValueRange` of ``values`` (NaN ignored)."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if v.size and ((v == 0) | (v == 1)).all():
        return ValueRange("binary")
    if v.size and v.min() >= 0 and v.max() <= 1:
        return ValueRange("unit")
    return ValueRange("unbounded")


def clopper_pearson(mean: np.ndarray, n: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """The Clopper-Pearson interval of a proportion ``mean`` of ``n`` trials at ``level``.

    ``n`` may be fractional (an effective number of items): the beta quantiles take ``k = mean n``
    successes as a real number. At ``mean = 0`` the lower end is 0, at ``mean = 1`` the upper is 1.

    Examples
    --------
    >>> low, high = clopper_pearson(np.array([37 / 40]), np.array([40.0]), 0.95)
    >>> round(float(low[0]), 4), round(float(high[0]), 4)     # 37 of 40: inside [0, 1], skewed
    (0.7961, 0.9843)
    >>> [round(float(x[0]), 4) for x in clopper_pearson(np.array([1.0]), np.array([10.0]), 0.95)]
    [0.6915, 1.0]
    """
    from scipy.special import betaincinv

    mean = np.clip(np.asarray(mean, dtype=float), 0.0, 1.0)
    n = np.asarray(n, dtype=float) * np.ones_like(mean)
    k = mean * n
    tail = (1.0 - level) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.where(k > 0, betaincinv(np.maximum(k, 1e-300), n - k + 1, tail), 0.0)
        high = np.where(n - k > 0, betaincinv(k + 1, np.maximum(n - k, 1e-300), 1 - tail), 1.0)
    return low, high


@dataclass(frozen=True)
class ClusterDesign:
    """One category's clusters: each item's cluster code (0..G-1), for the design effect."""

    codes: np.ndarray

    @property
    def clusters(self) -> int:
        return int(self.codes.max()) + 1 if self.codes.size else 0

    def design_effects(self, values: np.ndarray) -> np.ndarray:
        """Each model's design effect: the cluster-robust variance of its mean (CR1, with the
        ``G / (G - 1)`` factor) over the binomial ``p (1 - p) / n``; NaN where the mean is 0 or 1.

        Examples
        --------
        >>> d = ClusterDesign(np.array([0, 0, 1, 1, 2, 2, 3, 3]))
        >>> d.design_effects(np.array([[1, 1, 0, 0, 1, 1, 0, 0.]])).round(3).tolist()   # pairs agree
        [2.667]
        """
        n, g = values.shape[1], self.clusters
        p = values.mean(axis=1)
        totals = np.zeros((values.shape[0], g))
        np.add.at(totals.T, self.codes, values.T)
        sizes = np.bincount(self.codes, minlength=g)
        robust = ((totals - p[:, None] * sizes[None, :]) ** 2).sum(axis=1) / n ** 2
        robust *= g / max(g - 1, 1)
        binomial = p * (1 - p) / n
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(binomial > 0, robust / binomial, np.nan)

    def kish(self) -> float:
        """Kish's effective number of clusters, ``(sum m_g)^2 / sum m_g^2`` (sizes ``m_g``)."""
        sizes = np.bincount(self.codes).astype(float)
        return float(sizes.sum() ** 2 / (sizes ** 2).sum())


def effective_items(values: np.ndarray, level: float, design: ClusterDesign | None,
                    fallback_deff: float | None = None) -> np.ndarray:
    """Each model's effective number of items for :func:`clopper_pearson` at ``level``.

    Without clusters, the number of items. With clusters (Korn and Graubard 1998): ``n / deff``,
    ``deff`` at least 1; a model whose mean is 0 or 1 (no spread to measure) takes the median
    design effect of the others, else ``fallback_deff``, else the worst case (every item of a
    cluster alike: Kish's effective number of clusters); then the degrees-of-freedom correction
    ``(z_q / t_{q, G-1})^2`` at ``q = 1 - (1 - level) / 2``.

    Examples
    --------
    >>> v = np.array([[1, 1, 0, 0, 1, 1, 0, 0.], [1, 0, 1, 0, 1, 0, 1, 0]])
    >>> effective_items(v, 0.95, None).tolist()
    [8.0, 8.0]
    >>> pairs = ClusterDesign(np.array([0, 0, 1, 1, 2, 2, 3, 3]))  # 4 clusters: t with 3 df
    >>> effective_items(v, 0.95, pairs).round(2).tolist()   # 8 / deff 2.67 and 8 / 1, times 0.38
    [1.14, 3.03]
    """
    n = values.shape[1]
    if design is None:
        return np.full(values.shape[0], float(n))
    from scipy.stats import norm, t

    deff = design.design_effects(values)
    known = deff[np.isfinite(deff)]
    fill = (float(np.median(known)) if known.size else
            fallback_deff if fallback_deff is not None else n / design.kish())
    deff = np.maximum(np.where(np.isfinite(deff), deff, fill), 1.0)
    g = design.clusters
    q = 1 - (1 - level) / 2
    df_factor = (norm.ppf(q) / t.ppf(q, g - 1)) ** 2 if g >= 2 else 0.0
    return n / deff * df_factor


def bounded_interval(values: np.ndarray, level: float, design: ClusterDesign | None = None,
                     fallback_deff: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Each model's (row's) interval for its mean of ``values`` in [0, 1] at ``level``: the
    Clopper-Pearson interval at the effective number of items (:func:`effective_items`).

    Examples
    --------
    >>> low, high = bounded_interval(np.array([[1.0] * 37 + [0.0] * 3]), 0.95)
    >>> bool(0 < low[0] < 37 / 40 < high[0] < 1)
    True
    """
    n_eff = effective_items(values, level, design, fallback_deff)
    return clopper_pearson(values.mean(axis=1), n_eff, level)
