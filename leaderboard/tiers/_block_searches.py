"""The closed-form step-downs, one compiled loop each (see :mod:`~leaderboard.tiers._block_kernels`
for the block layout and why pruning leaves every answer exact).

Shared names: ``err`` (E, R) error draws in rank order, ``p`` points, ``s`` SDs, ``rho``; ``sub``
entries per sub-block; the layout tuple ``lay`` = (order_max, order_min, bzmax, bzmin, suf_arg,
pre_arg, szmax, szmin, blo, bhi, slo, shi): blocks in decreasing order of their largest z and
increasing order of their smallest, per replicate; block z extremes; the extreme-z entries of
block suffixes and prefixes; sub-block z extremes; block and sub-block SD ranges.

A step-down round with critical value c rejects every hypothesis of the family with t > c; the
critical values never increase from round to round, so the rejections after a round are exactly
{t > c}, and the family stops when a round adds none (the brute force in the tests does the
same). A later round's maxima differ from the last only in replicates whose maximising
hypothesis was just rejected (the family only shrinks), so only those are searched again.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from leaderboard.tiers._block_kernels import (K, blocked, bound, candidate, count_over,
                                              gap_range_t, inv, owner_ranges, reach, se_box,
                                              se_pair, se_range, side_max, t_of, top_of)
from leaderboard.tiers._pair_kernels import kth, t_stat


@njit(cache=True)
def _cache(nsub):
    """Per-owner sub-block SE ranges (see :func:`~leaderboard.tiers._block_kernels.sub_ranges`)."""
    out = np.zeros((nsub, 3))
    out[:, 0] = -1.0
    return out


@njit(cache=True)
def _lower_bounds(i, err, s, rho, lay, blk, up_only, cand):
    """Per replicate, a value always in i's family (:func:`candidate`), into ``cand``."""
    for r in range(err.shape[1]):
        v = candidate(i, r, True, err, s, rho, lay[4], blk)
        if not up_only:
            v = max(v, candidate(i, r, False, err, s, rho, lay[5], blk))
        cand[r] = v


@njit(cache=True, inline="always")
def _first_two(i, r, up, err, order, bz, skip, blo, bhi, se_lo, se_hi, reach_i):
    """The first two steps of :func:`side_max`'s walk, inlined: an upper bound of what the
    walk can find (a call passes some twenty arrays, which costs more than these steps)."""
    e_i = np.float64(err[i, r])
    a_i, g_lo, g_hi = reach_i
    b = order[r, 0]
    z = bz[r, b]
    out = -np.inf
    if not skip[b]:
        x = top_of(z, blo[b], bhi[b], up)
        out = bound(x - e_i if up else e_i - x, se_lo[b], se_hi[b])
    if order.shape[1] > 1:
        z = bz[r, order[r, 1]]
        out = max(out, max(z if up else -z, 0.0) * a_i + bound(-e_i if up else e_i, g_lo, g_hi))
    return out


@njit(cache=True, nogil=True)
def marginal_owners(err, p, s, rho, sub, lay, s_lo, s_hi, kq, out, i0, i1):
    """Step-down of each entry's own family {(i, j), (j, i)}, i0 <= i < i1 (marginal sets).

    ``out[i]`` gets: entries i beats, entries that beat i, rounds, the last critical value, the
    first round's rejections. Replicate maxima are exact wherever they reach ``lo``, the order
    statistic of values always in the family; below it they are only known to be below, which
    cannot move the order statistic (it is at least ``lo``).
    """
    n_rep = err.shape[1]
    om, on, bzmax, bzmin, _, _, szmax, szmin, blo, bhi, slo, shi = lay
    nb = om.shape[1]
    m, work, cand = np.empty(n_rep), np.empty(n_rep), np.empty(n_rep)
    arg, up = np.empty(n_rep, np.int64), np.empty(n_rep, np.bool_)
    skip_up, skip_dn = np.zeros(nb, np.bool_), np.zeros(nb, np.bool_)
    se_lo, se_hi = np.empty(nb), np.empty(nb)
    cache = _cache(slo.size)
    for i in range(i0, i1):
        owner_ranges(i, s, rho, blo, bhi, se_lo, se_hi)
        reach_i = reach(i, s, rho, s_lo, s_hi)
        _lower_bounds(i, err, s, rho, lay, i // (sub * K), False, cand)
        lo = kth(cand, kq - 1, work)
        c_prev, done, steps, c = np.inf, -1, 0, np.inf
        beats = beaten = 0
        arg[:] = -2   # -2: not searched yet
        while True:
            if c_prev < 0:   # candidates (t <= 0) may have left the family: no lower bound
                lo, arg[:] = -np.inf, -2
            blocked(i, c_prev, True, p, sub, se_lo, se_hi, skip_up)
            blocked(i, c_prev, False, p, sub, se_lo, se_hi, skip_dn)
            for r in range(n_rep):
                j = arg[r]
                if j >= 0:   # its maximiser still in the family: the maximum stands
                    t = t_of(p, s, rho, j, i) if up[r] else t_of(p, s, rho, i, j)
                    if t <= c_prev:
                        continue
                elif j == -1:
                    continue   # below lo, and stays below as the family shrinks
                if (_first_two(i, r, True, err, om, bzmax, skip_up, blo, bhi, se_lo, se_hi,
                               reach_i) < lo and
                        _first_two(i, r, False, err, on, bzmin, skip_dn, blo, bhi, se_lo, se_hi,
                                   reach_i) < lo):
                    m[r], arg[r] = cand[r] if c_prev >= 0 else -np.inf, -1
                    continue
                a, ja = side_max(i, r, True, err, p, s, rho, c_prev, skip_up, om, bzmax, szmax,
                                 blo, bhi, slo, shi, sub, se_lo, se_hi, reach_i, lo, cache)
                b, jb = side_max(i, r, False, err, p, s, rho, c_prev, skip_dn, on, bzmin,
                                 szmin, blo, bhi, slo, shi, sub, se_lo, se_hi, reach_i, lo, cache)
                m[r], arg[r], up[r] = (a, ja, True) if a >= b else (b, jb, False)
                if arg[r] < 0:
                    m[r] = cand[r] if c_prev >= 0 else -np.inf
            c = kth(m, kq - 1, work)
            steps += 1
            beaten = count_over(i, c, True, p, s, rho, sub, se_lo, se_hi, slo, shi, cache)
            beats = count_over(i, c, False, p, s, rho, sub, se_lo, se_hi, slo, shi, cache)
            if steps == 1:
                out[i, 4] = beats + beaten
            if beats + beaten == done:
                break
            done, c_prev = beats + beaten, c
        out[i, 0], out[i, 1], out[i, 2], out[i, 3] = beats, beaten, steps, c


@njit(cache=True)
def _pair_block(err, p, s, rho, sub, lay, r, a, b, c_prev, best, arg):
    """Exact search of the pairs (u in block a, w in block b) through their sub-blocks."""
    n = p.size
    szmax, szmin, slo, shi = lay[6], lay[7], lay[10], lay[11]
    nsub = -(-n // sub)
    for qa in range(a * K, min(a * K + K, nsub)):
        for qb in range(b * K, min(b * K + K, nsub)):
            x = top_of2(szmax[r, qa], slo[qa], shi[qa], szmin[r, qb], slo[qb], shi[qb])
            lo, hi = se_box(slo[qa], shi[qa], slo[qb], shi[qb], rho)
            if bound(x, lo, hi) < best:
                continue
            for u in range(qa * sub, min(n, qa * sub + sub)):
                eu = np.float64(err[u, r])
                for w in range(qb * sub, min(n, qb * sub + sub)):
                    if u == w:
                        continue
                    se = se_pair(s[u], s[w], rho)
                    if t_stat(p[u] - p[w], se) > c_prev:
                        continue
                    v = (eu - np.float64(err[w, r])) * inv(se)
                    if v > best:
                        best, arg[0], arg[1] = v, u, w
    return best


@njit(cache=True)
def top_of2(za, alo, ahi, zb, blo, bhi):
    """Upper bound of s_a z_a - s_b z_b over the two groups' SD ranges and z extremes."""
    va = ahi * za if za >= 0 else alo * za
    vb = blo * zb if zb >= 0 else bhi * zb
    return va - vb + 1e-12 * (abs(va) + abs(vb))


@njit(cache=True, nogil=True)
def simultaneous_max(err, p, s, rho, sub, lay, c_prev, a_all, m, args, r0, r1):
    """Replicate maxima, r0 <= r < r1, of (e_a - e_b) / se_ab over every ordered pair whose
    hypothesis survives (t_ab <= c_prev), with their pairs in ``args``; replicates whose pair
    still survives keep their maximum (``args[r, 0] >= 0``). Block pairs come in order of their
    extreme z; ``a_all`` bounds s / se over the board."""
    n = p.size
    om, on, bzmax, bzmin = lay[0], lay[1], lay[2], lay[3]
    blo, bhi = lay[8], lay[9]
    nb, bs = om.shape[1], sub * K
    arg = np.empty(2, np.int64)
    for r in range(r0, r1):
        if args[r, 0] >= 0 and t_of(p, s, rho, args[r, 0], args[r, 1]) <= c_prev:
            continue
        best, arg[0], arg[1] = -np.inf, -1, -1
        floor = max(-bzmin[r, on[r, 0]], 0.0)
        for h1 in range(nb):
            a = om[r, h1]
            za = bzmax[r, a]
            if (max(za, 0.0) + floor) * a_all < best:
                break
            a0, a1 = a * bs, min(n, a * bs + bs)
            for h2 in range(nb):
                b = on[r, h2]
                if (max(za, 0.0) + max(-bzmin[r, b], 0.0)) * a_all < best:
                    break
                b0, b1 = b * bs, min(n, b * bs + bs)
                lo, hi = se_box(blo[a], bhi[a], blo[b], bhi[b], rho)
                if a != b and gap_range_t(p[a1 - 1] - p[b0], p[a0] - p[b1 - 1], lo,
                                          hi)[0] > c_prev:
                    continue   # every pair's hypothesis already rejected
                x = top_of2(za, blo[a], bhi[a], bzmin[r, b], blo[b], bhi[b])
                if bound(x, lo, hi) < best:
                    continue
                best = _pair_block(err, p, s, rho, sub, lay, r, a, b, c_prev, best, arg)
        m[r], args[r, 0], args[r, 1] = best, arg[0], arg[1]


@njit(cache=True, nogil=True)
def counts_at(p, s, rho, sub, blo, bhi, slo, shi, c, out, i0, i1):
    """``out[i]`` = (entries i is shown better than, entries shown better than i) at ``c``."""
    se_lo, se_hi = np.empty(blo.size), np.empty(blo.size)
    cache = _cache(slo.size)
    for i in range(i0, i1):
        owner_ranges(i, s, rho, blo, bhi, se_lo, se_hi)
        out[i, 0] = count_over(i, c, False, p, s, rho, sub, se_lo, se_hi, slo, shi, cache)
        out[i, 1] = count_over(i, c, True, p, s, rho, sub, se_lo, se_hi, slo, shi, cache)


@njit(cache=True)
def _largest_t(i, p, s, rho, sub, se_lo, se_hi):
    """max over j != i of t_ji (entry i's strongest challenger)."""
    n = p.size
    bs = sub * K
    best = -np.inf
    for b in range(se_lo.size):
        a0, a1 = b * bs, min(n, b * bs + bs)
        if gap_range_t(p[a1 - 1] - p[i], p[a0] - p[i], se_lo[b], se_hi[b])[1] <= best:
            continue
        for j in range(a0, a1):
            if j != i:
                best = max(best, t_of(p, s, rho, j, i))
    return best


@njit(cache=True, nogil=True)
def best_owners(err, p, s, rho, sub, lay, s_lo, s_hi, zmax_all, kq, out, i0, i1):
    """Max-t test of each entry's one-sided family {(j, i): j != i}, i0 <= i < i1 (best set).

    ``out[i]`` = (kept, critical value or NaN when bounds decided, largest t_ji); ``zmax_all``
    the board's largest z per replicate. Entries whose
    largest t is at most a lower bound of the critical value are kept, those above an upper
    bound (each replicate's maximum bounded through the board's largest z) left out; the rest
    get the exact critical value.
    """
    n_rep = err.shape[1]
    om, bzmax, szmax, blo, bhi, slo, shi = lay[0], lay[2], lay[6], lay[8], lay[9], lay[10], lay[11]
    nb = om.shape[1]
    m, work, cand = np.empty(n_rep), np.empty(n_rep), np.empty(n_rep)
    none = np.zeros(nb, np.bool_)
    se_lo, se_hi = np.empty(nb), np.empty(nb)
    cache = _cache(slo.size)
    for i in range(i0, i1):
        owner_ranges(i, s, rho, blo, bhi, se_lo, se_hi)
        tmax = _largest_t(i, p, s, rho, sub, se_lo, se_hi)
        out[i, 2], out[i, 1] = tmax, np.nan
        reach_i = reach(i, s, rho, s_lo, s_hi)
        for r in range(n_rep):
            m[r] = max(zmax_all[r], 0.0) * reach_i[0] + bound(-np.float64(err[i, r]),
                                                              reach_i[1], reach_i[2])
        if tmax > kth(m, kq - 1, work):
            out[i, 0] = 0.0
            continue
        _lower_bounds(i, err, s, rho, lay, i // (sub * K), True, cand)
        lo = kth(cand, kq - 1, work)
        if tmax <= lo:
            out[i, 0] = 1.0
            continue
        for r in range(n_rep):
            m[r] = max(cand[r], side_max(i, r, True, err, p, s, rho, np.inf, none, om, bzmax,
                                         szmax, blo, bhi, slo, shi, sub, se_lo, se_hi, reach_i,
                                         lo, cache)[0])
        c = kth(m, kq - 1, work)
        out[i, 0], out[i, 1] = 1.0 if tmax <= c else 0.0, c


@njit(cache=True)
def closed_layers(p, s, rho, c, sub, blo, bhi):
    """Tiers: 1 + the highest tier among the entries shown better (t_jk > c), in rank order.

    Entries tied on points cannot beat each other (t = 0 < c), so a tie group is placed once
    every entry above it is; a block all of whose members beat k contributes its highest tier
    without being scanned.
    """
    n = p.size
    bs = sub * K
    nb = blo.size
    tier = np.zeros(n, dtype=np.int64)
    top = np.zeros(nb, dtype=np.int64)
    g0 = 0
    while g0 < n:
        g1 = g0
        while g1 + 1 < n and p[g1 + 1] == p[g0]:
            g1 += 1
        for k in range(g0, g1 + 1):
            t = 0
            for b in range(nb):
                a0, a1 = b * bs, min(n, b * bs + bs)
                if a0 >= g0:
                    break
                if a1 <= g0:
                    if top[b] <= t:
                        continue
                    lo, hi = se_range(s[k], blo[b], bhi[b], rho)
                    tlo, thi = gap_range_t(p[a1 - 1] - p[k], p[a0] - p[k], lo, hi)
                    if thi <= c:
                        continue
                    if tlo > c:
                        t = top[b]
                        continue
                for j in range(a0, min(a1, g0)):
                    if tier[j] > t and t_of(p, s, rho, j, k) > c:
                        t = tier[j]
            tier[k] = t + 1
        for k in range(g0, g1 + 1):
            top[k // bs] = max(top[k // bs], tier[k])
        g0 = g1 + 1
    return tier
