"""The confidence set for the best entry (Mogstad, Romano, Shaikh and Wilhelm, 2023).

Entry i is left out iff the max-t test of its own one-sided family {(j, i): j != i} finds some j
surely better than i. A truly best entry b is left out only if a true hypothesis of b's own family
is rejected (chance <= alpha); the other entries' tests cannot affect b, so no correction across
entries is needed. It shares the data checks, the threaded kernels and the studentisation of
:mod:`~leaderboard.tiers.rank_sets`.
"""
from __future__ import annotations

import numpy as np
from scipy.special import ndtri   # norm.isf(q) is -ndtri(q), bit for bit, without scipy.stats

from leaderboard.tiers import _pair_kernels as pk
from leaderboard.tiers import boot_small, closed_sets
from leaderboard._threads import threaded
from leaderboard.tiers.rank_sets import order_stat, rank_sets_data, t_stats
from leaderboard.tiers.replicates import RankReplicates
from leaderboard.params import DEFAULT_ALPHA

TOP_RESCREEN = 16      # exact re-screen against this many of the highest entries


def best_set(reps: RankReplicates, alpha: float = DEFAULT_ALPHA, *,
             batch: int | None = None) -> np.ndarray:
    """Confidence set for the best entry: which entries may have the highest true score.

    Entry i is left out iff the max-t test of its one-sided family {(j, i): j != i} finds some j
    surely better than i. Every truly best entry is in the set with probability >= 1 - alpha
    (only its own family's test can leave it out; see the module docstring).

    Parameters
    ----------
    reps : RankReplicates
    alpha : float, default 0.05
    batch : int, optional
        Rows per block in the exact test (speed only: results do not depend on it).

    Returns
    -------
    ndarray of bool, shape (E,)

    Examples
    --------
    >>> reps = RankReplicates.normal(np.array([1.0, 0.99, 0.5]), np.full(3, 0.02), 0.0, True,
    ...                              replicates=1000, seed=0)
    >>> best_set(reps).tolist()
    [True, True, False]
    """
    d = rank_sets_data(reps, alpha, batch)
    n, n_rep = d.err.shape
    if n == 1:
        return np.ones(1, dtype=bool)
    if not d.boot:
        return closed_sets.best(d.err, d.point, d.sd, d.rho, d.kq, batch)
    z = float(-ndtri(alpha / (n - 1)))
    # Bonferroni screen with sd_j + sd_i >= se_ji: i is out if p_j - z u_j > p_i + z u_i.
    w = d.point - z * d.sd * (1 + pk.NEAR_SLACK)
    top2 = np.argsort(-w, kind="stable")[:2]
    w_other = np.where(np.arange(n) == top2[0], w[top2[1]], w[top2[0]])
    cand = np.flatnonzero(~(w_other > d.point + z * d.sd * (1 + pk.NEAR_SLACK)))
    # Exact re-screen against the highest entries, then the exact max-t test on what is left.
    top = np.argsort(-d.point, kind="stable")[:TOP_RESCREEN]
    jj, ii = np.repeat(top, cand.size).astype(np.int32), np.tile(cand, top.size).astype(np.int32)
    se = pk.pair_se_list(d.cen, d.sd, d.rho, d.boot, jj, ii)
    out = np.zeros(cand.size, dtype=bool)
    np.logical_or.at(out, np.tile(np.arange(cand.size), top.size),
                     (jj != ii) & (t_stats(d.point[jj] - d.point[ii], se) > z))
    cand = cand[~out]
    keep = np.zeros(n, dtype=bool)
    if cand.size and batch is None and n <= boot_small.SMALL:   # numpy, the same bits
        keep[cand] = boot_small.best(d.err, d.cen, d.point, d.sd, d.kq, cand)
    elif cand.size:
        starts = np.arange(0, n, d.ib)
        m = np.full((cand.size, n_rep), -np.inf)
        tmax = np.full(cand.size, -np.inf)
        threaded(pk.best_pass, cand.size, d.err, d.cen, d.point, d.sd, d.rho, d.boot, cand,
                  d.ib, np.maximum.reduceat(d.err, starts, axis=0), d.kq, m, tmax)
        keep[cand] = tmax <= order_stat(m, d.kq)
    return keep
