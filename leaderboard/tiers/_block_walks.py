"""The searches of one replicate's maximum for one entry (see :mod:`~leaderboard.tiers._block_kernels`).

For entry i and replicate r, "up" seeks the largest (e_j - e_i) / se_ij and "down" the largest
(e_i - e_j) / se_ij over the j whose hypothesis against i survives (t <= c_prev). Blocks come in
the order of their extreme z, and what a block whose extreme is z can give is bounded over every
SD of the board (:func:`~leaderboard.tiers._block_kernels.beyond`), so a walk stops once that
falls below what is sought. A sub-block is settled from its extreme entry alone
when its runner-up z cannot reach what is sought. The small ones are inlined into their callers
(a call passing the layout's arrays costs more than a typical walk) by LLVM (``forceinline``):
each is typed and lowered once per signature and its machine code copied where it is called,
where numba's ``inline="always"`` typed and lowered a copy at every call site (the block searches
compiled 20% faster without it, the same bits and warm speed; issue 27). :func:`side_max` is not
inlined: it is compiled once and called (inlined at its three call sites it tripled the compile
time of the block searches, 10 s of CPU on a first run, for no measured gain at 5,000 and 10,000
entries), once per side and round for every replicate that round searches, not once per
replicate: a call costs two atomic reference-count operations per array it is passed, which
were 35-40% of the marginal sets' time at 1,000 entries (issue 41).
"""
from __future__ import annotations

import numpy as np
from leaderboard._jit import njit

from leaderboard.tiers._block_kernels import (K, beyond, bound, inv, low_value, se_pair,
                                              sub_ranges, top_of)
from leaderboard.tiers._block_tree import box, verdicts
from leaderboard.tiers._pair_kernels import t_stat


@njit(cache=True, forceinline=True)
def first_two(e_i, up, z_first, z_next, skipped, blo_b, bhi_b, ilo_b, ihi_b, reach_i):
    """An upper bound of what :func:`side_max` can find: its walk's first two steps. The
    layout's ``first_up`` or ``first_dn`` row of the replicate gives the first block b, its z
    (``z_first``) and the next block's (``z_next``); the caller passes block b's values
    (``skip[b]``, ``blo[b]``, ...) as scalars: with the arrays, read only on one branch, numba
    kept two atomic reference-count operations per array and call (issue 41)."""
    out = -np.inf
    if not skipped:
        x = top_of(z_first, blo_b, bhi_b, up)
        out = bound(x - e_i if up else e_i - x, ilo_b, ihi_b)
    return max(out, beyond(z_next if up else -z_next, -e_i if up else e_i, reach_i))


@njit(cache=True, forceinline=True)
def _entry(i, j, up, e_i, e_j, p_i, p_j, s_i, s_j, rho, c_prev, qlo, qhi, floor):
    """Entry j's value (its error ``e_j``, point ``p_j``, SD ``s_j``) if it survives and
    reaches ``floor``, else -inf. Scalars, not the arrays: see
    :func:`~leaderboard.tiers._block_kernels.sub_ranges`."""
    d = e_j - e_i if up else e_i - e_j
    if j == i or bound(d, qlo, qhi) < floor:
        return -np.inf
    se = se_pair(s_i, s_j, rho)
    if c_prev < np.inf:
        t = t_stat(p_j - p_i, se) if up else t_stat(p_i - p_j, se)
        if t > c_prev:
            return -np.inf
    return d * inv(se)


@njit(cache=True)
def side_max(i, rs, nr, up, err, p, s, rho, c_prev, tag, stamp, stag, skip, order, bz, sz, sa,
             se, sz2, blo, bhi, slo, shi, sub, ilo, ihi, reach_i, cut, cache, val, at):
    """For each replicate r = ``rs[k]``, k < ``nr``: the largest value (see the module
    docstring) of at least ``cut[r]`` into ``val[r]``, ``at[r]`` (value, j), or (-inf, -1)
    when none reaches it (one call for many replicates: see the module docstring).
    ``order``, ``bz``, ``sz``, ``sa``, ``se``, ``sz2``: the layout's arrays of the side
    (``om``, ``bzmax``, ``szmax``, ``samax``, ``semax``, ``sz2max`` up); ``ilo``, ``ihi``: 1 /
    se ranges of i's block against each block and ``skip`` the blocks all of whose hypotheses
    are rejected at ``c_prev`` (passed over), filled as the walk reaches them
    (:func:`~leaderboard.tiers._block_tree.verdicts`, for the entry and round ``tag``); within
    a sub-block an entry's gap bounds its value before its own SE is computed. The walks share
    only the flags and ``cache``, which hold the same numbers whichever replicate fills them,
    so the order of the replicates changes nothing."""
    n, bs = p.size, sub * K
    nsub, own = -(-n // sub), i // bs
    for k in range(nr):
        r = rs[k]
        cut_r = cut[r]
        e_i, p_i, s_i = np.float64(err[i, r]), p[i], s[i]
        w = -e_i if up else e_i
        best, arg = -np.inf, -1
        for h in range(order.shape[1]):
            b, z = order[r, h], bz[r, h]
            if beyond(z if up else -z, w, reach_i) < max(best, cut_r):
                break
            if stag[b] != tag:   # the block's flags, written here (see verdicts)
                ilo[b], ihi[b], skip[b, 0], skip[b, 1] = verdicts(
                    i, b, c_prev, rho, n, bs, p_i, p[b * bs], p[min(n, b * bs + bs) - 1],
                    blo[own], bhi[own], blo[b], bhi[b], ilo[b], ihi[b], stamp[b] == own)
                stamp[b], stag[b] = own, tag
            if skip[b, 0 if up else 1]:
                continue
            x = top_of(z, blo[b], bhi[b], up)
            if bound(x - e_i if up else e_i - x, ilo[b], ihi[b]) < max(best, cut_r):
                continue
            for q in range(b * K, min(b * K + K, nsub)):
                xq = top_of(sz[r, q], slo[q], shi[q], up)
                qlo, qhi = sub_ranges(i, q, s_i, rho, slo[q], shi[q], cache)
                if bound(xq - e_i if up else e_i - xq, qlo, qhi) < max(best, cut_r):
                    continue
                j1 = sa[r, q]
                v = _entry(i, j1, up, e_i, np.float64(se[r, q]), p_i, p[j1], s_i, s[j1], rho,
                           c_prev, qlo, qhi, max(best, cut_r))
                if v > best:
                    best, arg = v, j1
                x2 = top_of(sz2[r, q], slo[q], shi[q], up)
                if bound(x2 - e_i if up else e_i - x2, qlo, qhi) < max(best, cut_r):
                    continue   # every other member's z is at most the runner-up's
                for j in range(q * sub, min(n, q * sub + sub)):
                    if j != j1:
                        v = _entry(i, j, up, e_i, np.float64(err[j, r]), p_i, p[j], s_i, s[j],
                                   rho, c_prev, qlo, qhi, max(best, cut_r))
                        if v > best:
                            best, arg = v, j
        val[r], at[r] = (best, arg) if best >= cut_r else (-np.inf, -1)


@njit(cache=True)
def candidates(err, i, up, ext_arg, ext_e, bs, rho, blo, bhi, ilo, ihi, stamp, out):
    """``out[r]`` raised to a lower bound of a value always in i's family, whatever is
    rejected: that of the extreme-z entry of the blocks wholly below i (up: the layout's
    ``suf_arg``, ``suf_e``) or wholly above i (down: ``pre_arg``, ``pre_e``), whose hypotheses
    against i have t <= 0. One call per entry and side (a call per replicate passing these
    arrays cost their reference counts each time)."""
    blk = i // bs
    b = blk + 1 if up else blk - 1
    if b < 0 or b >= ext_arg.shape[0]:
        return
    for r in range(out.size):
        e_i = np.float64(err[i, r])
        j = ext_arg[b, r]
        jb = j // bs
        if stamp[jb] != blk:
            box(jb, blk, rho, blo, bhi, ilo, ihi, stamp)
        d = ext_e[b, r] - e_i if up else e_i - ext_e[b, r]
        out[r] = max(out[r], low_value(d, ilo[jb], ihi[jb]))
