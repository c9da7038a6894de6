"""The counting steps shared by the compiled Kendall tau-b kernels (ranks stage and post-mortem).

Both count, for integer ranks in 1..n, the pairs tied in rank and the inversions of a sequence
(pairs out of order), the latter with a Fenwick tree in O(n log n).
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def tied_pairs(ranks, n):
    """Pairs of equal values among ``ranks`` (integers in 1..n)."""
    counts = np.zeros(n + 1, dtype=np.int64)
    for i in range(ranks.size):
        counts[ranks[i]] += 1
    ties = 0
    for v in range(n + 1):
        ties += counts[v] * (counts[v] - 1) // 2
    return ties


@njit(cache=True)
def inversions(seq, n):
    """Pairs ``i < j`` with ``seq[i] > seq[j]`` (integers in 1..n): earlier and strictly larger."""
    tree = np.zeros(n + 1, dtype=np.int64)
    count = 0
    for j in range(seq.size):
        k = seq[j]
        at_most = 0  # earlier values at most this one
        while k > 0:
            at_most += tree[k]
            k -= k & -k
        count += j - at_most
        k = seq[j]
        while k <= n:
            tree[k] += 1
            k += k & -k
    return count
