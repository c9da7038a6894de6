"""The compiled loop behind :mod:`leaderboard.noise.curves`: one walk down an entry's ranking per
replicate, reading every curve on the grid as it goes.

Arrays of every threshold's counts for a block of replicates (replicates x distinct scores) cost
more to build than the walk itself (measured at n = 100,000: 0.6 s a block of 32 replicates with
numpy cumulative sums, searches and rates); the walk holds two running sums per replicate and
writes the grid values when the curve passes them. The weights come already in score order (one
gather per entry and block, as bytes when they are bootstrap counts: measured at n = 100,000,
0.015 s a block against 0.12 s for float64), so the walk reads memory in sequence. Replicates
run on threads (:func:`~leaderboard._threads.threaded`, not numba's ``parallel=True``, whose
compile took 3.5 s of CPU); each is summed in a fixed order, so a replicate's values do not
depend on how replicates are split.
"""
from __future__ import annotations

import numpy as np
from leaderboard._jit import njit

from leaderboard._threads import threaded


@njit(cache=True, nogil=True)
def _walk_rows(weights, totals, positives, positive, group_end, grid, roc, pr, cap, auc,
               ar, r0, r1):
    n = positive.size
    g = grid.size
    for r in range(r0, r1):
        total = totals[r]
        total_pos = positives[r]
        total_neg = total - total_pos
        if total_pos <= 0.0 or total_neg <= 0.0:
            continue
        tp = 0.0
        seen = 0.0
        x0 = y0 = s0 = 0.0          # the previous point: FPR, TPR, share of rows
        k_roc = k_pr = k_cap = 0
        area = under = 0.0
        for i in range(n):
            w = np.float64(weights[r, i])
            seen += w
            if positive[i]:
                tp += w
            if not group_end[i]:
                continue
            y1 = tp / total_pos
            x1 = (seen - tp) / total_neg
            s1 = seen / total
            while k_roc < g and grid[k_roc] < x1:          # on the segment from x0 to x1
                roc[r, k_roc] = y0 + (grid[k_roc] - x0) / (x1 - x0) * (y1 - y0)
                k_roc += 1
            while k_cap < g and grid[k_cap] < s1:
                cap[r, k_cap] = y0 + (grid[k_cap] - s0) / (s1 - s0) * (y1 - y0)
                k_cap += 1
            if seen > 0.0:
                while k_pr < g and grid[k_pr] <= y1:           # the first threshold reaching it
                    pr[r, k_pr] = tp / seen
                    k_pr += 1
            area += (x1 - x0) * (y1 + y0) / 2.0
            under += (s1 - s0) * (y1 + y0) / 2.0
            x0, y0, s0 = x1, y1, s1
        for k in range(k_roc, g):       # past the last point (grid values at 1)
            roc[r, k] = y0
        for k in range(k_cap, g):
            cap[r, k] = y0
        auc[r] = area
        ar[r] = (under - 0.5) / ((1.0 - total_pos / total) / 2.0)


def walk(weights: np.ndarray, totals: np.ndarray, positives: np.ndarray, positive: np.ndarray,
         group_end: np.ndarray, grid: np.ndarray) -> tuple[np.ndarray, ...]:
    """ROC, PR and CAP on ``grid`` and the AUC and accuracy ratio, per row of ``weights``.

    ``weights`` holds the rows' weights in descending score order (the walk reads them in
    sequence); ``totals`` and ``positives`` are each replicate's weight of all rows and of the
    positive rows; ``positive[i]`` and ``group_end[i]`` (the last of a run of equal scores) are in
    the same order. Returns ``roc, pr, cap`` of shape (R, G) and
    ``auc, ar`` of shape (R,); NaN where a replicate lacks a class.
    """
    weights = np.ascontiguousarray(weights)   # rows read in sequence; one compiled layout
    n_rep, g = weights.shape[0], grid.size
    roc, pr, cap = (np.full((n_rep, g), np.nan) for _ in range(3))
    auc, ar = np.full(n_rep, np.nan), np.full(n_rep, np.nan)
    threaded(_walk_rows, n_rep, weights, totals, positives, positive, group_end, grid, roc, pr,
             cap, auc, ar)
    return roc, pr, cap, auc, ar
