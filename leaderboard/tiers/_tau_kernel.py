"""The counting steps shared by the compiled Kendall tau-b kernels (ranks stage and post-mortem).

Both count, for integer ranks in 1..n, the pairs tied in rank and the inversions of a sequence
(pairs out of order), the latter with a Fenwick tree in O(n log n).
"""
from __future__ import annotations

import numpy as np
from leaderboard._jit import njit

from leaderboard.tiers._rank_kernel import ascending_order


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
def sort_runs(seq, run_starts):
    """Sort ``seq`` in place within each run ``run_starts[g]:run_starts[g + 1]``: short runs by
    insertion (no allocation; most tied runs hold two or three entries), long ones by the radix
    sort of :func:`~leaderboard.tiers._rank_kernel.ascending_order` (integers sort to one result
    whatever the algorithm)."""
    for g in range(run_starts.size - 1):
        a, b = run_starts[g], run_starts[g + 1]
        if b - a > 32:
            run = np.empty(b - a, dtype=np.int64)   # int64 whatever seq's type: one compiled
            for t in range(b - a):                  # ascending_order for every caller
                run[t] = seq[a + t]
            order = ascending_order(run)
            for t in range(b - a):
                seq[a + t] = run[order[t]]
            continue
        for t in range(a + 1, b):
            v = seq[t]
            u = t - 1
            while u >= a and seq[u] > v:
                seq[u + 1] = seq[u]
                u -= 1
            seq[u + 1] = v


@njit(cache=True)
def inversions(seq, n):
    """Pairs ``i < j`` with ``seq[i] > seq[j]`` (integers in 1..n): earlier and strictly larger."""
    # int32 counts (at most n each): a 100,000-entry tree takes 400 kB and stays in cache
    tree = np.zeros(n + 1, dtype=np.int32)
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
