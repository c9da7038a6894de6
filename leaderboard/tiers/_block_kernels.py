"""Compiled kernels of the closed-form rank confidence sets (:mod:`~leaderboard.tiers.closed_sets`).

With normal errors of known SDs and one correlation rho, a pair's standard error is
``se(s_j, s_k) = sqrt(s_j**2 + s_k**2 - 2 rho s_j s_k)``: a function of the two SDs alone, bounded
over any group of entries by the group's SD range. Entries are in rank order and cut into
*blocks* of ``K`` *sub-blocks* of consecutive entries; every (block, replicate) and (sub-block,
replicate) keeps the largest and smallest *standardised* error z = e / s (so that entries with
large SDs do not crowd the top of every list). A group's bound says how large ``(e_j - e_i) /
se_ij`` can be for any member j, so the searches visit a group's members only when its bound
could beat what they look for. Nothing E x E is ever held.

Why the answers are exact: every pruning compares an upper bound (computed with slack far above
rounding error) with a value the result may not go below, and maxima are exact, so the critical
values, verdicts and counts equal those of the plain loop over all pairs; the tests compare them
with a brute force. Kernels that run on threads release the GIL and write disjoint outputs.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from leaderboard.tiers._pair_kernels import t_stat

SLACK = 1e-9   # relative slack of every bound (rounding is ~1e-16; never changes an answer)
K = 8          # sub-blocks per block


@njit(cache=True)
def se_pair(a, b, rho):
    """The pair's standard error, symmetric in its arguments (the same bits either way)."""
    lo, hi = (a, b) if a <= b else (b, a)
    var = lo ** 2 + hi ** 2 - 2 * rho * lo * hi
    return np.sqrt(max(var, 0.0))


@njit(cache=True)
def inv(se):
    return 1.0 / se if se > 0 else 0.0


@njit(cache=True)
def t_of(p, s, rho, j, k):
    """t of the ordered pair (j, k): j's point over k's, studentised."""
    return t_stat(p[j] - p[k], se_pair(s[j], s[k], rho))


@njit(cache=True)
def se_range(s, lo, hi, rho):
    """Smallest and largest se(s, x) over x in [lo, hi] (convex in x, least at x = rho s)."""
    m = min(max(rho * s, lo), hi)
    return (se_pair(s, m, rho) * (1 - SLACK),
            max(se_pair(s, lo, rho), se_pair(s, hi, rho)) * (1 + SLACK))


@njit(cache=True)
def se_box(alo, ahi, blo, bhi, rho):
    """Smallest and largest se(x, y) over the box x in [alo, ahi], y in [blo, bhi]."""
    low = np.inf
    for x in (alo, ahi):
        low = min(low, se_pair(x, min(max(rho * x, blo), bhi), rho))
    for y in (blo, bhi):
        low = min(low, se_pair(min(max(rho * y, alo), ahi), y, rho))
    high = max(max(se_pair(alo, blo, rho), se_pair(alo, bhi, rho)),
               max(se_pair(ahi, blo, rho), se_pair(ahi, bhi, rho)))
    return low * (1 - SLACK), high * (1 + SLACK)


@njit(cache=True)
def bound(x, se_lo, se_hi):
    """Upper bound of ``x' / se`` (0 where se = 0) over x' <= x and se in [se_lo, se_hi]."""
    if x > 0:
        return x / se_lo * (1 + SLACK) if se_lo > 0 else np.inf
    if se_lo <= 0:
        return 0.0
    return x / se_hi * (1 - SLACK)


@njit(cache=True)
def top_of(z, lo, hi, up):
    """Largest (up) or smallest s * z' over s in [lo, hi] and z' <= z (up) or z' >= z, widened
    by the rounding of z = e / s."""
    if up:
        v = hi * z if z >= 0 else lo * z
    else:
        v = lo * z if z >= 0 else hi * z
    return v + (1e-12 if up else -1e-12) * abs(v)


@njit(cache=True)
def gap_range_t(glo, ghi, se_lo, se_hi):
    """Bounds of t = gap / se over gap in [glo, ghi] and se in [se_lo, se_hi] (se_lo > 0)."""
    if se_lo <= 0:
        return -np.inf, np.inf
    tlo = glo / se_hi if glo >= 0 else glo / se_lo
    thi = ghi / se_lo if ghi >= 0 else ghi / se_hi
    return (tlo * (1 + SLACK) if tlo < 0 else tlo * (1 - SLACK),
            thi * (1 - SLACK) if thi < 0 else thi * (1 + SLACK))


@njit(cache=True, nogil=True)
def group_extremes(err, s, size, zmax, zmin, g0, g1):
    """Per group of ``size`` consecutive entries (g0 <= g < g1) and replicate: max/min of
    z = e / s (0 where s = 0, whose errors are 0)."""
    n, n_rep = err.shape
    for g in range(g0, g1):
        zmax[g, :] = -np.inf
        zmin[g, :] = np.inf
        for j in range(g * size, min(n, g * size + size)):
            a = inv(s[j])
            for r in range(n_rep):
                v = np.float64(err[j, r]) * a
                zmax[g, r] = v if v > zmax[g, r] else zmax[g, r]
                zmin[g, r] = v if v < zmin[g, r] else zmin[g, r]


@njit(cache=True)
def extreme_entries(err, s, size, zmax, zmin, suf_arg, pre_arg):
    """``suf_arg[b, r]``: the entry of largest z in blocks b.. end; ``pre_arg[b, r]``: of
    smallest z in blocks 0..b (the first in rank order on ties)."""
    n, n_rep = err.shape
    nb = zmax.shape[0]
    for r in range(n_rep):
        best, arg = -np.inf, -1
        for b in range(nb - 1, -1, -1):
            if zmax[b, r] >= best:
                best = zmax[b, r]
                for j in range(b * size, min(n, b * size + size)):
                    if np.float64(err[j, r]) * inv(s[j]) == best:
                        arg = j
                        break
            suf_arg[b, r] = arg
        best, arg = np.inf, -1
        for b in range(nb):
            if zmin[b, r] < best:
                best = zmin[b, r]
                for j in range(b * size, min(n, b * size + size)):
                    if np.float64(err[j, r]) * inv(s[j]) == best:
                        arg = j
                        break
            pre_arg[b, r] = arg


@njit(cache=True)
def owner_ranges(i, s, rho, blo, bhi, se_lo, se_hi):
    """SE ranges of entry i against every block (filled into ``se_lo``, ``se_hi``)."""
    for b in range(blo.size):
        se_lo[b], se_hi[b] = se_range(s[i], blo[b], bhi[b], rho)


@njit(cache=True)
def _verdicts(i, c, above, p, s, rho, a0, a1, lo, hi):
    """How many j in [a0, a1) have t_ji > c (above) or t_ij > c: decided by the group's gap and
    SE ranges when it can be, else pair by pair (-1 when the range holds i itself)."""
    if not a0 <= i < a1:
        if above:   # gap p_j - p_i over the group: [p[a1-1] - p_i, p[a0] - p_i]
            tlo, thi = gap_range_t(p[a1 - 1] - p[i], p[a0] - p[i], lo, hi)
        else:
            tlo, thi = gap_range_t(p[i] - p[a0], p[i] - p[a1 - 1], lo, hi)
        if thi <= c:
            return 0
        if tlo > c:
            return a1 - a0
    return -1


@njit(cache=True)
def count_over(i, c, above, p, s, rho, sub, se_lo, se_hi, slo, shi, cache):
    """``above``: #{j: t_ji > c} (entries shown better than i); else #{j: t_ij > c}. ``se_lo``,
    ``se_hi``: i's SE ranges per block (:func:`owner_ranges`); sub-blocks refine the blocks the
    ranges leave undecided."""
    n = p.size
    bs = sub * K
    total = 0
    for b in range(se_lo.size):
        a0, a1 = b * bs, min(n, b * bs + bs)
        got = _verdicts(i, c, above, p, s, rho, a0, a1, se_lo[b], se_hi[b])
        if got >= 0:
            total += got
            continue
        for q in range(a0 // sub, -(-a1 // sub)):
            q0, q1 = q * sub, min(n, q * sub + sub)
            lo, hi = sub_ranges(i, q, s, rho, slo, shi, cache)
            got = _verdicts(i, c, above, p, s, rho, q0, q1, lo, hi)
            if got >= 0:
                total += got
                continue
            for j in range(q0, q1):
                if j != i:
                    t = t_of(p, s, rho, j, i) if above else t_of(p, s, rho, i, j)
                    total += t > c
    return total


@njit(cache=True)
def blocked(i, c, above, p, sub, se_lo, se_hi, out):
    """``out[b]``: every j of block b has its hypothesis against i rejected at ``c`` (above:
    t_ji > c, j shown better; else t_ij > c), so none of them can enter i's maxima."""
    n = p.size
    bs = sub * K
    for b in range(out.size):
        a0, a1 = b * bs, min(n, b * bs + bs)
        if a0 <= i < a1 or c == np.inf:
            out[b] = False
        elif above:
            out[b] = gap_range_t(p[a1 - 1] - p[i], p[a0] - p[i], se_lo[b], se_hi[b])[0] > c
        else:
            out[b] = gap_range_t(p[i] - p[a0], p[i] - p[a1 - 1], se_lo[b], se_hi[b])[0] > c


@njit(cache=True)
def reach(i, s, rho, s_lo, s_hi):
    """max over s' in [s_lo, s_hi] of s' / se(s_i, s') (it rises up to s' = s_i / rho), and the
    board-wide SE range of entry i: what :func:`side_max` needs to stop early."""
    x = s_hi if rho <= 0 else min(max(s[i] / rho, s_lo), s_hi)
    a = max(max(x * inv(se_pair(s[i], x, rho)), s_lo * inv(se_pair(s[i], s_lo, rho))),
            s_hi * inv(se_pair(s[i], s_hi, rho)))
    lo, hi = se_range(s[i], s_lo, s_hi, rho)
    return a * (1 + SLACK), lo, hi


@njit(cache=True)
def sub_ranges(i, q, s, rho, slo, shi, cache):
    """SE range of entry i against sub-block q, computed once per owner: ``cache[q]`` =
    (owner, low, high)."""
    if cache[q, 0] != i:
        cache[q, 0] = i
        cache[q, 1], cache[q, 2] = se_range(s[i], slo[q], shi[q], rho)
    return cache[q, 1], cache[q, 2]


@njit(cache=True)
def side_max(i, r, up, err, p, s, rho, c_prev, skip, order, bz, sz, blo, bhi, slo, shi, sub,
             se_lo, se_hi, reach_i, cut, cache):
    """Largest (up) (e_j - e_i) / se_ij or (down) (e_i - e_j) / se_ij in replicate r over the j
    whose hypothesis against i survives (t <= c_prev), looking only for values of at least
    ``cut``: (value, j), or (-inf, -1) when none reaches it.

    Blocks come in the order of their extreme z (``order[r]``); a value from a block whose
    extreme is z is at most ``z * a + (-e_i) / se`` (up) with a = max s_j / se_ij over the
    board's SDs (``reach_i`` = (a, board SE range)), so the walk stops once that falls below
    what is sought. Within a sub-block, an entry's gap over the sub-block's smallest SE bounds
    its value before its own SE is computed.
    """
    n = p.size
    e_i = np.float64(err[i, r])
    a_i, g_lo, g_hi = reach_i
    own = bound(-e_i if up else e_i, g_lo, g_hi)
    best, arg = -np.inf, -1
    nsub = -(-n // sub)
    for h in range(order.shape[1]):
        b = order[r, h]
        z = bz[r, b]
        if max(z if up else -z, 0.0) * a_i + own < max(best, cut):
            break
        if skip[b]:
            continue
        x = top_of(z, blo[b], bhi[b], up)
        if bound(x - e_i if up else e_i - x, se_lo[b], se_hi[b]) < max(best, cut):
            continue
        for q in range(b * K, min(b * K + K, nsub)):
            xq = top_of(sz[r, q], slo[q], shi[q], up)
            lo, hi = sub_ranges(i, q, s, rho, slo, shi, cache)
            if bound(xq - e_i if up else e_i - xq, lo, hi) < max(best, cut):
                continue
            for j in range(q * sub, min(n, q * sub + sub)):
                d = np.float64(err[j, r]) - e_i if up else e_i - np.float64(err[j, r])
                if j == i or bound(d, lo, hi) < max(best, cut):
                    continue
                se = se_pair(s[i], s[j], rho)
                if c_prev < np.inf:
                    t = t_stat(p[j] - p[i], se) if up else t_stat(p[i] - p[j], se)
                    if t > c_prev:
                        continue
                v = d * inv(se)
                if v > best:
                    best, arg = v, j
    return (best, arg) if best >= cut else (-np.inf, -1)


@njit(cache=True)
def candidate(i, r, up, err, s, rho, ext_arg, blk_of_i):
    """A value always in i's family, whatever is rejected: the extreme-z entry of the blocks
    wholly below i (up: ``ext_arg[b]`` over blocks b.. end) or wholly above i (down: over blocks
    0..b); their hypotheses against i have t <= 0."""
    b = blk_of_i + 1 if up else blk_of_i - 1
    if b < 0 or b >= ext_arg.shape[1]:
        return -np.inf
    j = ext_arg[r, b]
    d = np.float64(err[j, r]) - np.float64(err[i, r]) if up else \
        np.float64(err[i, r]) - np.float64(err[j, r])
    return d * inv(se_pair(s[i], s[j], rho))
