"""The closed-form step-downs, one compiled loop each (see :mod:`~leaderboard.tiers._block_kernels`
for the block layout and why pruning leaves every answer exact).

Shared names: ``err`` (E, R) error draws in rank order, ``p`` points, ``s`` SDs, ``rho``; ``sub``
entries per sub-block; ``lay`` the :class:`~leaderboard.tiers._block_kernels.Layout`.

A step-down round with critical value c rejects every hypothesis of the family with t > c; the
critical values never increase from round to round, so the rejections after a round are exactly
{t > c}, and the family stops when a round adds none (the brute force in the tests does the
same). A later round's maxima differ from the last only in replicates whose maximising
hypothesis was just rejected (the family only shrinks), so only those are searched again.
"""
from __future__ import annotations

import numpy as np
from leaderboard._jit import njit

from leaderboard.tiers._block_kernels import (K, beyond, bound, inv, reach, se_box, se_pair,
                                              sub_ranges, t_of, t_range)
from leaderboard.tiers._block_tree import (STACK, all_flags, node_t, sd_tree, verdicts,
                                           tree_count, tree_max_t)
from leaderboard.tiers._block_walks import candidates, first_two, side_max
from leaderboard.tiers._pair_kernels import kth, t_stat


# The side of a walk or count as a run-time boolean: a constant True or False passed from
# compiled code is a type of its own (Literal[bool]), and numba would compile side_max,
# tree_count and the forceinline helpers twice each (about 3 s of CPU on a first run).
UP, DOWN = np.bool_(True), np.bool_(False)
# and a count that starts at 0 (a literal 0 would compile side_max for Literal[int](0) too)
NONE = np.int64(0)


@njit(cache=True)
def _cache(nsub):
    """Per-owner sub-block ranges (see :func:`~leaderboard.tiers._block_kernels.sub_ranges`)."""
    out = np.zeros((nsub, 3))
    out[:, 0] = -1.0
    return out


@njit(cache=True, nogil=True)
def marginal_owners(err, p, s, rho, sub, lay, s_lo, s_hi, kq, out, i0, i1):
    """Step-down of each entry's own family {(i, j), (j, i)}, i0 <= i < i1 (marginal sets).

    ``out[i]`` gets: entries i beats, entries that beat i, rounds, the last critical value, the
    first round's rejections. Replicate maxima are exact wherever they reach ``lo``, the order
    statistic of lower bounds of values always in the family; below it they are only known to
    be below, which cannot move the order statistic (it is at least ``lo``).
    """
    n_rep = err.shape[1]
    (om, on, bzmax, bzmin, fu, fd, suf, pre, sufe, pree, szmax, szmin, samax, samin, semax,
     semin, sz2max, sz2min, blo, bhi, slo, shi) = lay   # unpacked once: a field read costs
    # ~100 ns inside a loop
    nb, bs = blo.size, sub * K
    m, work, cand = np.empty(n_rep), np.empty(n_rep), np.empty(n_rep)
    arg, up = np.empty(n_rep, np.int64), np.empty(n_rep, np.bool_)
    va, vb, cut, other = np.empty(n_rep), np.empty(n_rep), np.empty(n_rep), np.empty(n_rep)
    ja, jb = np.empty(n_rep, np.int64), np.empty(n_rep, np.int64)
    lists = np.empty((4, n_rep), np.int64)   # replicates to search: up first, down first,
    up1, dn1, dn2, up2 = lists[0], lists[1], lists[2], lists[3]   # then down, then up second
    ilo, ihi, stamp = np.empty(nb), np.empty(nb), np.full(nb, -1, np.int64)
    stag, skip, tag = np.full(nb, -1, np.int64), np.zeros((nb, 2), np.bool_), 0
    tree, stack = sd_tree(blo, bhi), np.empty(STACK, np.int64)
    cache = _cache(slo.size)
    n = p.size
    for i in range(i0, i1):
        own = i // bs
        reach_i = reach(s[i], rho, s_lo, s_hi)
        cand[:] = -np.inf
        candidates(err, i, UP, suf, sufe, bs, rho, blo, bhi, ilo, ihi, stamp, cand)
        candidates(err, i, DOWN, pre, pree, bs, rho, blo, bhi, ilo, ihi, stamp, cand)
        lo = kth(cand, kq - 1, work)
        c_prev, done, steps, c = np.inf, -1, 0, np.inf
        beats = beaten = 0
        arg[:] = -2   # -2: not searched yet; -1: below lo
        while True:
            if c_prev < 0:   # candidates (t <= 0) may have left the family: no lower bound
                lo, arg[:] = -np.inf, -2
            tag += 1   # the blocks' flags of an earlier entry or round no longer hold
            if n_rep >= nb:   # O(blocks) per round is within the O(replicates) of its walks
                all_flags(i, c_prev, tag, rho, p, bs, blo, bhi, ilo, ihi, stamp, stag, skip)
            n_up = n_dn = NONE   # counts of the lists
            for r in range(n_rep):
                j = arg[r]
                if j >= 0:   # its maximiser still in the family: the maximum stands
                    if (t_of(p, s, rho, j, i) if up[r] else t_of(p, s, rho, i, j)) <= c_prev:
                        continue
                elif j == -1:
                    continue   # below lo, and stays below as the family shrinks
                e_i = np.float64(err[i, r])
                bu, bd = int(fu[r, 0]), int(fd[r, 0])
                for bk in (bu, bd):
                    if stag[bk] != tag:   # its flags, written here (see verdicts)
                        ilo[bk], ihi[bk], skip[bk, 0], skip[bk, 1] = verdicts(
                            i, bk, c_prev, rho, n, bs, p[i], p[bk * bs],
                            p[min(n, bk * bs + bs) - 1], blo[own], bhi[own], blo[bk], bhi[bk],
                            ilo[bk], ihi[bk], stamp[bk] == own)
                        stamp[bk], stag[bk] = own, tag
                top_up = first_two(e_i, UP, fu[r, 1], fu[r, 2], skip[bu, 0], blo[bu], bhi[bu],
                                   ilo[bu], ihi[bu], reach_i)
                top_dn = first_two(e_i, DOWN, fd[r, 1], fd[r, 2], skip[bd, 1], blo[bd], bhi[bd],
                                   ilo[bd], ihi[bd], reach_i)
                if top_up < lo and top_dn < lo:
                    m[r], arg[r] = cand[r] if c_prev >= 0 else -np.inf, -1
                    continue
                # the side that can reach further first; the other only where its bound can
                # reach what was found (a value at least the cut is all a search returns: the
                # maximum and its first holder in walk order are those of a search from lo)
                va[r], ja[r], vb[r], jb[r], cut[r] = -np.inf, -1, -np.inf, -1, lo
                if top_up >= top_dn:
                    up1[n_up], other[r], n_up = r, top_dn, n_up + 1
                else:
                    dn1[n_dn], other[r], n_dn = r, top_up, n_dn + 1
            # every replicate's first side in one call per side (see side_max), then the
            # other side where it can still reach what the first found
            side_max(i, up1, n_up, UP, err, p, s, rho, c_prev, tag, stamp, stag, skip, om, bzmax,
                     szmax, samax, semax, sz2max, blo, bhi, slo, shi, sub, ilo, ihi, reach_i, cut,
                     cache, va, ja)
            side_max(i, dn1, n_dn, DOWN, err, p, s, rho, c_prev, tag, stamp, stag, skip, on,
                     bzmin, szmin, samin, semin, sz2min, blo, bhi, slo, shi, sub, ilo, ihi,
                     reach_i, cut, cache, vb, jb)
            n2_dn = n2_up = NONE
            for k in range(n_up):
                r = up1[k]
                if other[r] >= max(lo, va[r]):
                    cut[r] = max(lo, va[r])
                    dn2[n2_dn], n2_dn = r, n2_dn + 1
            for k in range(n_dn):
                r = dn1[k]
                if other[r] >= max(lo, vb[r]):
                    cut[r] = max(lo, vb[r])
                    up2[n2_up], n2_up = r, n2_up + 1
            side_max(i, dn2, n2_dn, DOWN, err, p, s, rho, c_prev, tag, stamp, stag, skip, on,
                     bzmin, szmin, samin, semin, sz2min, blo, bhi, slo, shi, sub, ilo, ihi,
                     reach_i, cut, cache, vb, jb)
            side_max(i, up2, n2_up, UP, err, p, s, rho, c_prev, tag, stamp, stag, skip, om,
                     bzmax, szmax, samax, semax, sz2max, blo, bhi, slo, shi, sub, ilo, ihi,
                     reach_i, cut, cache, va, ja)
            for k in range(n_up + n_dn):
                r = up1[k] if k < n_up else dn1[k - n_up]
                m[r], arg[r], up[r] = ((va[r], ja[r], True) if va[r] >= vb[r]
                                       else (vb[r], jb[r], False))
                if arg[r] < 0:
                    m[r] = cand[r] if c_prev >= 0 else -np.inf
            c = kth(m, kq - 1, work)
            steps += 1
            beaten = tree_count(i, c, UP, p, s, rho, sub, tree, slo, shi, cache, stack)
            beats = tree_count(i, c, DOWN, p, s, rho, sub, tree, slo, shi, cache, stack)
            if steps == 1:
                out[i, 4] = beats + beaten
            if beats + beaten == done:
                break
            done, c_prev = beats + beaten, c
        out[i, 0], out[i, 1], out[i, 2], out[i, 3] = beats, beaten, steps, c


@njit(cache=True, forceinline=True)
def _top_of2(za, alo, ahi, zb, blo, bhi):
    """Upper bound of s_a z_a - s_b z_b over the two groups' SD ranges and z extremes."""
    va = ahi * za if za >= 0 else alo * za
    vb = blo * zb if zb >= 0 else bhi * zb
    return va - vb + 1e-12 * (abs(va) + abs(vb))


@njit(cache=True)
def _pair_block(err, p, s, rho, sub, szmax, szmin, slo, shi, r, a, b, c_prev, best, arg):
    """Exact search of the pairs (u in block a, w in block b) through their sub-blocks."""
    n = p.size
    nsub = -(-n // sub)
    for qa in range(a * K, min(a * K + K, nsub)):
        for qb in range(b * K, min(b * K + K, nsub)):
            ilo, ihi = se_box(slo[qa], shi[qa], slo[qb], shi[qb], rho)
            if bound(_top_of2(szmax[r, qa], slo[qa], shi[qa], szmin[r, qb], slo[qb], shi[qb]),
                     ilo, ihi) < best:
                continue
            for u in range(qa * sub, min(n, qa * sub + sub)):
                eu = np.float64(err[u, r])
                for w in range(qb * sub, min(n, qb * sub + sub)):
                    d = eu - np.float64(err[w, r])
                    if u == w or bound(d, ilo, ihi) < best:
                        continue
                    se = se_pair(s[u], s[w], rho)
                    if t_stat(p[u] - p[w], se) > c_prev:
                        continue
                    v = d * inv(se)
                    if v > best:
                        best, arg[0], arg[1] = v, u, w
    return best


@njit(cache=True, nogil=True)
def simultaneous_max(err, p, s, rho, sub, lay, c_prev, a_all, m, args, r0, r1):
    """Replicate maxima, r0 <= r < r1, of (e_a - e_b) / se_ab over every ordered pair whose
    hypothesis survives (t_ab <= c_prev), with their pairs in ``args``; replicates whose pair
    still survives keep their maximum. Block pairs come in order of their extreme z; ``a_all``
    bounds s / se over the board (1 / sqrt(1 - rho^2))."""
    n = p.size
    (om, on, bzmax, bzmin, _, _, _, _, _, _, szmax, szmin, _, _, _, _, _, _, blo, bhi, slo,
     shi) = lay
    nb, bs = om.shape[1], sub * K
    arg = np.empty(2, np.int64)
    for r in range(r0, r1):
        if args[r, 0] >= 0 and t_of(p, s, rho, args[r, 0], args[r, 1]) <= c_prev:
            continue
        best, arg[0], arg[1] = -np.inf, -1, -1
        floor = max(-bzmin[r, 0], 0.0)   # the layout's block z are in walk order
        for h1 in range(nb):
            a = om[r, h1]
            za = bzmax[r, h1]
            if (max(za, 0.0) + floor) * a_all < best:
                break
            a0, a1 = a * bs, min(n, a * bs + bs)
            for h2 in range(nb):
                b = on[r, h2]
                if (max(za, 0.0) + max(-bzmin[r, h2], 0.0)) * a_all < best:
                    break
                b0, b1 = b * bs, min(n, b * bs + bs)
                ilo, ihi = se_box(blo[a], bhi[a], blo[b], bhi[b], rho)
                if a != b and t_range(p[a1 - 1] - p[b0], p[a0] - p[b1 - 1], ilo,
                                      ihi)[0] > c_prev:
                    continue   # every pair's hypothesis already rejected
                if bound(_top_of2(za, blo[a], bhi[a], bzmin[r, h2], blo[b], bhi[b]), ilo,
                         ihi) < best:
                    continue
                best = _pair_block(err, p, s, rho, sub, szmax, szmin, slo, shi, r, a, b, c_prev,
                                   best, arg)
        m[r], args[r, 0], args[r, 1] = best, arg[0], arg[1]


@njit(cache=True, nogil=True)
def counts_at(p, s, rho, sub, blo, bhi, slo, shi, c, out, i0, i1):
    """``out[i]`` = (entries i is shown better than, entries shown better than i) at ``c``."""
    tree, stack = sd_tree(blo, bhi), np.empty(STACK, np.int64)
    cache = _cache(slo.size)
    for i in range(i0, i1):
        out[i, 0] = tree_count(i, c, DOWN, p, s, rho, sub, tree, slo, shi, cache, stack)
        out[i, 1] = tree_count(i, c, UP, p, s, rho, sub, tree, slo, shi, cache, stack)


@njit(cache=True, nogil=True)
def best_owners(err, p, s, rho, sub, lay, s_lo, s_hi, zmax_all, kq, out, i0, i1):
    """Max-t test of each entry's one-sided family {(j, i): j != i}, i0 <= i < i1 (best set).

    ``out[i]`` = (kept, critical value or NaN when bounds decided, largest t_ji); ``zmax_all``
    the board's largest z per replicate. Entries whose largest t is at most a lower bound of the
    critical value are kept, those above an upper bound (each replicate's maximum bounded
    through the board's largest z) left out; the rest get the exact critical value.
    """
    n_rep = err.shape[1]
    (om, _, bzmax, _, _, _, suf, _, sufe, _, szmax, _, samax, _, semax, _, sz2max, _, blo, bhi,
     slo, shi) = lay
    nb, bs = blo.size, sub * K
    m, work, cand = np.empty(n_rep), np.empty(n_rep), np.empty(n_rep)
    ilo, ihi, stamp = np.empty(nb), np.empty(nb), np.full(nb, -1, np.int64)
    stag, skip = np.full(nb, -1, np.int64), np.zeros((nb, 2), np.bool_)   # nothing skipped
    cut, at, every = np.empty(n_rep), np.empty(n_rep, np.int64), np.arange(n_rep)
    tree, stack = sd_tree(blo, bhi), np.empty(STACK, np.int64)
    cache = _cache(slo.size)
    for i in range(i0, i1):
        blk = i // bs   # the flags' tag: nothing is rejected at c = inf, the boxes are per block
        tmax = tree_max_t(i, p, s, rho, sub, tree, stack)
        out[i, 2], out[i, 1] = tmax, np.nan
        reach_i = reach(s[i], rho, s_lo, s_hi)
        for r in range(n_rep):
            e_i = np.float64(err[i, r])
            m[r] = beyond(zmax_all[r], -e_i, reach_i)
        if tmax > kth(m, kq - 1, work):
            out[i, 0] = 0.0
            continue
        cand[:] = -np.inf
        candidates(err, i, UP, suf, sufe, bs, rho, blo, bhi, ilo, ihi, stamp, cand)
        lo = kth(cand, kq - 1, work)
        if tmax <= lo:
            out[i, 0] = 1.0
            continue
        cut[:] = lo
        side_max(i, every, n_rep, UP, err, p, s, rho, np.inf, blk, stamp, stag, skip, om, bzmax,
                 szmax, samax, semax, sz2max, blo, bhi, slo, shi, sub, ilo, ihi, reach_i, cut,
                 cache, m, at)
        for r in range(n_rep):
            m[r] = max(cand[r], m[r])
        c = kth(m, kq - 1, work)
        out[i, 0], out[i, 1] = 1.0 if tmax <= c else 0.0, c


@njit(cache=True)
def closed_layers(p, s, rho, c, sub, blo, bhi, slo, shi):
    """Tiers: 1 + the highest tier among the entries shown better (t_jk > c), in rank order.

    Entries tied on points cannot beat each other (t = 0 < c), so a tie group is placed once
    every entry above it is; a node of the block tree (:mod:`~leaderboard.tiers._block_tree`)
    all of whose members beat k contributes its highest tier (``top``) without being opened,
    and one whose highest tier cannot raise k's is passed over.
    """
    n = p.size
    tier = np.zeros(n, dtype=np.int64)
    tree, stack = sd_tree(blo, bhi), np.empty(STACK, np.int64)
    size = tree[0].size // 2
    top = np.zeros(2 * size, dtype=np.int64)   # per node: the highest tier placed under it
    cache = _cache(slo.size)
    g0 = 0
    while g0 < n:
        g1 = g0
        while g1 + 1 < n and p[g1 + 1] == p[g0]:
            g1 += 1
        for k in range(g0, g1 + 1):
            tier[k] = 1 + _highest_above(k, g0, c, p, s, rho, sub, tree, top, tier, slo,
                                         shi, cache, stack)
        for k in range(g0, g1 + 1):
            node = size + k // (sub * K)
            while node >= 1 and top[node] < tier[k]:
                top[node] = tier[k]
                node //= 2
        g0 = g1 + 1
    return tier


@njit(cache=True)
def _highest_above(k, g0, c, p, s, rho, sub, tree, top, tier, slo, shi, cache,
                   stack):
    """The highest tier among the j < g0 (placed) with t_jk > c; 0 if none."""
    bs = sub * K
    size = tree[0].size // 2
    b0, b1 = tree[2], tree[3]
    t, depth = 0, 1
    stack[0] = 1
    while depth > 0:
        depth -= 1
        node = stack[depth]
        if b0[node] >= b1[node] or b0[node] * bs >= g0 or top[node] <= t:
            continue
        tlo, thi, a0, a1 = node_t(k, node, p, s, rho, bs, tree)
        if thi <= c:
            continue
        if a1 <= g0 and tlo > c:
            t = top[node]
            continue
        if node < size:   # the later-ranked half first: its tiers are the higher ones
            stack[depth], stack[depth + 1] = 2 * node, 2 * node + 1
            depth += 2
            continue
        for q in range(a0 // sub, -(-min(a1, g0) // sub)):
            q0, q1 = q * sub, min(min(a1, g0), q * sub + sub)
            qlo, qhi = sub_ranges(k, q, s[k], rho, slo[q], shi[q], cache)
            if t_range(p[q1 - 1] - p[k], p[q0] - p[k], qlo, qhi)[1] <= c:
                continue
            for j in range(q0, q1):
                if tier[j] > t and t_of(p, s, rho, j, k) > c:
                    t = tier[j]
    return t
