"""Quantiles of |x_i - x_j| over all pairs of a sample, without building the pairs.

The seeds measure how far apart two equally good models land as the 95th percentile ("d95") of the
absolute differences between all pairs of simulated scores. With B draws that is B(B-1)/2 pairs; here
the sample is sorted once and pairs are *counted* below a threshold with binary searches, so a
quantile costs O(B log B) per bisection step and O(B) memory.
"""
from __future__ import annotations

import numpy as np


def _pairs_within(x: np.ndarray, t: float) -> int:
    """Number of pairs i < j of sorted ``x`` with x[j] - x[i] <= t."""
    return int((np.searchsorted(x, x + t, "right") - np.arange(1, x.size + 1)).sum())


def _kth_pair_distance(x: np.ndarray, k: int) -> float:
    """The k-th smallest (0-based) pairwise distance of sorted ``x``."""
    # invariant: count(lo) <= k < count(hi); hi has slack so that x[0] + hi >= x[-1] despite rounding
    lo, hi = -1.0, 2.0 * float(x[-1] - x[0]) + 1.0
    n_lo = 0
    budget = 4 * x.size
    for _ in range(200):
        # Narrow the bracket until few enough pairs lie between lo and hi to list them outright.
        upper = np.searchsorted(x, x + hi, "right")
        lower = np.searchsorted(x, x + lo, "right") if lo >= 0 else np.arange(1, x.size + 1)
        lower = np.maximum(lower, np.arange(1, x.size + 1))
        between = int((upper - lower).sum())
        if between <= budget or hi - lo <= 8 * np.finfo(float).eps * max(abs(hi), 1.0):
            break
        mid = lo + (hi - lo) / 2 if lo >= 0 else hi / 2
        n_mid = _pairs_within(x, mid)
        if n_mid > k:
            hi = mid
        else:
            lo, n_lo = mid, n_mid
    if between > budget:  # a mass of pairs at one distance (e.g. discrete scores): any will do
        return hi
    starts = np.repeat(np.arange(x.size), upper - lower)
    offsets = np.arange(starts.size) - np.repeat(np.cumsum(upper - lower) - (upper - lower),
                                                 upper - lower)
    candidates = np.sort(x[lower[starts] + offsets] - x[starts])
    return float(candidates[k - n_lo])


def pairwise_abs_diff_quantile(sample: np.ndarray, q: float = 0.95) -> float:
    """The ``q`` quantile of |x_i - x_j| over all pairs i < j, interpolated linearly.

    Equal to ``np.quantile(scipy.spatial.distance.pdist(sample[:, None]), q)``, the seeds'
    computation, in O(B log B) time and O(B) memory instead of O(B^2).

    Examples
    --------
    >>> x = np.array([0.1, 0.4, 0.35, 0.9])
    >>> d = np.abs(x[:, None] - x[None, :])[np.triu_indices(4, 1)]
    >>> bool(np.isclose(pairwise_abs_diff_quantile(x, 0.95), np.quantile(d, 0.95)))
    True
    """
    x = np.sort(np.asarray(sample, dtype=float))
    if x.size < 2:
        raise ValueError("need at least two values")
    n_pairs = x.size * (x.size - 1) // 2
    position = (n_pairs - 1) * q
    k = int(np.floor(position))
    low = _kth_pair_distance(x, k)
    if k + 1 >= n_pairs or position == k:
        return low
    return low + (position - k) * (_kth_pair_distance(x, k + 1) - low)


def pairwise_abs_diff_ecdf(sample: np.ndarray, points: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """ECDF of |x_i - x_j| over all pairs, at ``points`` thresholds from 0 to the largest difference.

    Returns ``(t, F)`` with ``F[i]`` the fraction of pairs whose distance is at most ``t[i]``.
    """
    x = np.sort(np.asarray(sample, dtype=float))
    n_pairs = x.size * (x.size - 1) // 2
    t = np.linspace(0.0, float(x[-1] - x[0]), points)
    # many thresholds at once (rows of at most ~4M lookups): for each draw, the later draws
    # within t of it
    counts = np.empty(points)
    step = max(1, 4_000_000 // x.size)
    for start in range(0, points, step):
        ahead = np.searchsorted(x, x[None, :] + t[start:start + step, None], "right")
        counts[start:start + step] = (ahead - np.arange(1, x.size + 1)).sum(axis=1)
    fraction = counts / n_pairs
    fraction[-1] = 1.0  # t[-1] is the largest distance; x[0] + t[-1] may round just below x[-1]
    return t, fraction
