"""Quantiles of |x_i - x_j| over all pairs of a sample, without building the pairs.

The seeds measure how far apart two equally good models land as the 95th percentile ("d95") of the
absolute differences between all pairs of simulated scores. With B draws that is B(B-1)/2 pairs; here
the sample is sorted once and pairs are *counted* below a threshold with binary searches, so a
quantile costs O(B log B) per bisection step and O(B) memory.
"""
from __future__ import annotations

import numpy as np


def _kth_pair_distances(x: np.ndarray, k: int, count: int = 1, bracket: tuple | None = None
                        ) -> list[float]:
    """The k-th to (k + count - 1)-th smallest (0-based) pairwise distances of sorted ``x``.

    Neighbouring ranks (an interpolated quantile needs two) share the bisection: a rank alone
    would take the same steps until a midpoint falls between the ranks, and from there each
    side goes on from that step (``bracket``), so every value is the one its rank alone gives.
    """
    last = k + count - 1
    ones = np.arange(1, x.size + 1)
    # invariant: count(lo) <= k and last < count(hi); hi has slack so that x[0] + hi >= x[-1]
    # despite rounding. lower/upper: for each draw, one past the last later draw within lo
    # (resp. hi) of it, so that each bisection step searches once, at its midpoint.
    if bracket is None:
        hi = 2.0 * float(x[-1] - x[0]) + 1.0
        bracket = (-1.0, hi, 0, ones, np.searchsorted(x, x + hi, "right"))
    lo, hi, n_lo, lower, upper = bracket
    budget = 4 * x.size
    for _ in range(200):
        # Narrow the bracket until few enough pairs lie between lo and hi to list them outright.
        between = int((upper - lower).sum())
        if between <= budget or hi - lo <= 8 * np.finfo(float).eps * max(abs(hi), 1.0):
            break
        mid = lo + (hi - lo) / 2 if lo >= 0 else hi / 2
        at_mid = np.searchsorted(x, x + mid, "right")
        n_mid = int((at_mid - ones).sum())
        if n_mid > last:
            hi, upper = mid, at_mid
        elif n_mid <= k:
            lo, n_lo, lower = mid, n_mid, np.maximum(at_mid, ones)
        else:   # ranks k .. n_mid - 1 lie at or below mid, the others above it
            return (_kth_pair_distances(x, k, n_mid - k, (lo, mid, n_lo, lower, at_mid))
                    + _kth_pair_distances(x, n_mid, last - n_mid + 1,
                                          (mid, hi, n_mid, np.maximum(at_mid, ones), upper)))
    if between > budget:  # a mass of pairs at one distance (e.g. discrete scores): any will do
        return [hi] * count
    starts = np.repeat(np.arange(x.size), upper - lower)
    offsets = np.arange(starts.size) - np.repeat(np.cumsum(upper - lower) - (upper - lower),
                                                 upper - lower)
    candidates = np.sort(x[lower[starts] + offsets] - x[starts])
    return [float(v) for v in candidates[k - n_lo:last - n_lo + 1]]


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
    if k + 1 >= n_pairs or position == k:
        return _kth_pair_distances(x, k)[0]
    low, high = _kth_pair_distances(x, k, 2)
    return low + (position - k) * (high - low)


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


def d95_of(sample: np.ndarray) -> float:
    """d95 of a sample of scores: the 95% quantile of |x_i - x_j| over all pairs
    (:func:`pairwise_abs_diff_quantile`), and exactly 0 for a sample that does not move beyond
    the rounding of its arithmetic (a perfect AUC rescored on every replicate gives 6e-61, which
    a page would print as a number instead of saying that no resample moved the score).

    Examples
    --------
    >>> d95_of(np.array([1.0, 1.0 - 1e-16, 1.0]))
    0.0
    >>> round(d95_of(np.array([0.1, 0.4, 0.35, 0.9])), 4)
    0.7375
    """
    x = np.asarray(sample, dtype=float)
    d = pairwise_abs_diff_quantile(x, 0.95)
    dust = 64 * np.finfo(float).eps * max(1.0, float(np.abs(x).max(initial=0.0)))
    return 0.0 if d <= dust else d
