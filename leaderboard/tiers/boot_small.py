"""Bootstrap rank sets of a small board with numpy: every pair at once, no pair-tile kernels.

The pair tiles of :mod:`~leaderboard.tiers._pair_kernels` (``tile_pass``, ``_side``,
``entry_rounds``, ``best_pass``) take about 7-8 s of CPU to compile on a fresh install; they are
built to avoid holding E^2 pairs on boards of thousands of entries. Up to :data:`SMALL` entries
(within one tile: :data:`~leaderboard.tiers.rank_sets.TILE_ROWS`) the plain step-downs over all pairs
are run here instead, with the kernels' arithmetic: each pair's SE from the one compiled sum
:func:`~leaderboard.tiers._pair_kernels.pair_se_list` (a small kernel; the sums of squares are
symmetric to the bit), ``d * (1 / se)`` for a centred replicate, ``gap / se`` for t. So the
answers are the same bits: the same sets, critical values, rounds, screen counts, verdicts and
the order of the stored near pairs (one tile: k-major, as ``tile_pass`` writes them);
tests/tiers/test_boot_small.py compares both on random and tied boards.

The step-downs follow the kernels' rounds exactly: the first round's critical value is over all
pairs; a pair is *far* (counted in ``pairs_screened``) when ``|t|`` exceeds the Bonferroni value,
or the first round's value where that is larger (the kernels' redo); the rounds go on while a
round rejects something, and a critical value below a far pair's surviving statistic raises the
same "too biased" RuntimeError.
"""
from __future__ import annotations

import numpy as np
from scipy.special import ndtri

from leaderboard.tiers import _pair_kernels as pk
from leaderboard.tiers.closed_small import inverse_se, kth_smallest, pairs_max, rows_max, t_matrix

# Entries up to which a bootstrap board takes the numpy step-downs. Within one tile of the kernels
# (rank_sets.TILE_ROWS = 128), so the stored near pairs come out in the kernels' order. Measured
# warm (simultaneous + marginal sets + best set, 2 shared cores, CPU s, numpy against kernels):
# E = 48: 0.10 / 0.02 (R = 1000), 0.18 / 0.04 (R = 2000); E = 64: 0.14 / 0.03, 0.19 / 0.05;
# E = 96: 0.18 / 0.04, 0.45 / 0.09; E = 128: 0.68 / 0.09, 1.40 / 0.18, peak 35-39 MB (chunks
# of 16 MB). Up to 64 a warm ``analyze`` pays at most ~0.15 s (within its run-to-run noise)
# while a first run skips ~5 s of compiling; above, a warm run would pay up to a second.
SMALL = 64
BIASED = ("critical value below a screened pair's surviving statistic; the replicates are too "
          "biased for rank sets")


def _upper_z(p: float) -> float:
    """``norm.isf(p)``, bit for bit (scipy's is ``-ndtri(p)``), without its ~0.2 ms of argument
    checks: a known-truth study asks it a few times per board, thousands of boards.

    Examples
    --------
    >>> _upper_z(0.025)
    1.9599639845400545
    """
    return float(-ndtri(p))


def board(cen: np.ndarray, sd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(se, 1/se)`` of every pair, ``se`` from :func:`~leaderboard.tiers._pair_kernels.pair_se_list`.

    Examples
    --------
    >>> cen = np.array([[1.0, -1.0], [0.0, 0.0]])
    >>> board(cen, np.ones(2))[0].round(3).tolist()
    [[0.0, 1.414], [1.414, 0.0]]
    """
    n = cen.shape[0]
    ii, kk = np.triu_indices(n, 1)
    s = pk.pair_se_list(cen, sd, 0.0, True, ii.astype(np.int32), kk.astype(np.int32))
    se = np.zeros((n, n))
    se[ii, kk] = s
    se[kk, ii] = s
    return se, inverse_se(se)


def simultaneous(err, cen, point, sd, kq, alpha):
    """The max-t step-down over all ordered pairs as ``rank_sets._simultaneous`` runs it:
    (beats, beaten, rounds, c, near pairs (i, k), their state bits, far pairs).

    Examples
    --------
    >>> err = np.random.default_rng(0).normal(0, 0.01, (3, 400))
    >>> cen = err - err.mean(axis=1, keepdims=True)
    >>> out = simultaneous(err, cen, np.array([1.0, 0.5, 0.49]), np.full(3, 0.01), 380, 0.05)
    >>> out[0].tolist(), out[1].tolist(), out[2]
    ([2, 0, 0], [0, 1, 1], 2)
    """
    n = point.size
    se, a = board(cen, sd)
    t = t_matrix(point, se)
    off = ~np.eye(n, dtype=bool)
    rows, cols = np.nonzero(off)
    c = kth_smallest(pairs_max(err, a, rows, cols), kq)          # first round: all pairs
    screen = max(_upper_z(alpha / (n * (n - 1))), c)
    upper = np.triu(off)
    far = upper & (np.abs(t) > screen)
    min_far = np.abs(t[far]).min() if far.any() else np.inf
    shown = off & (t > c)
    steps, again = 1, bool(shown.any())
    while again:
        rows, cols = np.nonzero(off & ~shown)
        c = kth_smallest(pairs_max(err, a, rows, cols), kq)
        if c < -min_far:
            raise RuntimeError(BIASED)
        new = off & ~shown & (t > c)
        shown |= new
        steps, again = steps + 1, bool(new.any())
    nk, ni = np.nonzero((upper & ~far).T)                # k-major, i < k: tile_pass's order
    state = (~shown[ni, nk]).astype(np.uint8) | ((~shown[nk, ni]).astype(np.uint8) << 1)
    return shown.sum(axis=1), shown.sum(axis=0), steps, c, ni, nk, state, int(far.sum())


def marginal(err, cen, point, sd, kq, alpha):
    """Each entry's own step-down over {(i, j), (j, i)} as ``rank_sets._marginal`` runs it:
    (beats, beaten, rounds, critical values, near pairs, far pairs).

    Examples
    --------
    >>> err = np.random.default_rng(0).normal(0, 0.01, (3, 400))
    >>> cen = err - err.mean(axis=1, keepdims=True)
    >>> out = marginal(err, cen, np.array([1.0, 0.5, 0.49]), np.full(3, 0.01), 380, 0.05)
    >>> out[0].tolist(), out[1].tolist()
    ([2, 0, 0], [0, 1, 1])
    """
    n = point.size
    se, a = board(cen, sd)
    t = t_matrix(point, se)
    z = _upper_z(alpha / (2 * (n - 1)))
    beats, beaten = np.zeros(n, np.int64), np.zeros(n, np.int64)
    steps, crit = np.zeros(n, np.int64), np.zeros(n)
    n_near = n_far = 0
    for i in range(n):
        others = np.arange(n) != i
        up = (err - err[i]) * a[:, i][:, None]     # j over i: (e_j - e_i) / se
        down = (err[i] - err) * a[i][:, None]      # i over j
        t_up, t_down = t[:, i], t[i]
        c = kth_smallest(np.maximum(rows_max(up, others), rows_max(down, others)), kq)
        far = others & (np.abs(t_down) > max(z, c))
        n_far += int(far.sum())
        n_near += int((others & ~far).sum())
        min_far = np.abs(t_down[far]).min() if far.any() else np.inf
        out_up, out_down = others & (t_up > c), others & (t_down > c)
        steps[i], again = 1, bool(out_up.any() or out_down.any())
        while again:
            c = kth_smallest(np.maximum(rows_max(up, others & ~out_up),
                                rows_max(down, others & ~out_down)), kq)
            if c < -min_far:
                raise RuntimeError(BIASED)
            new_up, new_down = others & ~out_up & (t_up > c), others & ~out_down & (t_down > c)
            out_up |= new_up
            out_down |= new_down
            steps[i], again = steps[i] + 1, bool(new_up.any() or new_down.any())
        beats[i], beaten[i], crit[i] = out_down.sum(), out_up.sum(), c
    return beats, beaten, int(steps.max()), crit, 2 * n_near, n_far


def best(err, cen, point, sd, kq, cand) -> np.ndarray:
    """The max-t test of each candidate's family {(k, i): k != i}, as ``best_pass``: True where
    kept (``tmax <= `` the order statistic of the replicate maxima).

    Examples
    --------
    >>> err = np.random.default_rng(0).normal(0, 0.01, (3, 400))
    >>> cen = err - err.mean(axis=1, keepdims=True)
    >>> best(err, cen, np.array([1.0, 0.99, 0.5]), np.full(3, 0.01), 380, np.arange(3)).tolist()
    [True, True, False]
    """
    n = point.size
    se, a = board(cen, sd)
    t = t_matrix(point, se)
    keep = np.zeros(cand.size, dtype=bool)
    for q, i in enumerate(cand):
        others = np.arange(n) != i
        m = rows_max((err - err[i]) * a[:, i][:, None], others)
        keep[q] = t[others, i].max() <= kth_smallest(m, kq)
    return keep
