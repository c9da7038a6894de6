"""Compiled kernels of the closed-form rank confidence sets (:mod:`~leaderboard.tiers.closed_sets`).

With normal errors of known SDs and one correlation rho, a pair's standard error is
``se(s_j, s_k) = sqrt(s_j**2 + s_k**2 - 2 rho s_j s_k)``: a function of the two SDs alone, bounded
over any group of entries by the group's SD range. Entries are in rank order and cut into
*blocks* of ``K`` *sub-blocks* of consecutive entries; every (replicate, block) and (replicate,
sub-block) keeps the largest and smallest *standardised* error z = e / s (so that entries with
large SDs do not crowd the top of every list). A group's bound says how large ``(e_j - e_i) /
se_ij`` or ``t_ji`` can be for any member j, so the searches visit a group's members only when
its bound could beat what they look for. Nothing E x E is ever held.

Bounds are kept as ranges of 1 / se (``ilo``, ``ihi``; ``ihi`` infinite when some pair may have
se = 0, whose values are 0 by convention), so the hot loops multiply instead of divide. Why the
answers are exact: every pruning compares an upper bound (widened by a relative slack far above
rounding error) with a value the result may not go below, and maxima are exact, so critical
values, verdicts and counts equal those of the plain loop over all pairs; the tests compare them
with a brute force. Kernels that run on threads release the GIL and write disjoint outputs.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from leaderboard._jit import njit

from leaderboard.tiers._pair_kernels import t_stat

SLACK = 1e-9   # relative slack of every bound (rounding is ~1e-16; never changes an answer)
K = 8          # sub-blocks per block


class Layout(NamedTuple):
    """The board cut into blocks and sub-blocks; per-replicate arrays are replicate-major
    (r, group) unless said otherwise. Built by :func:`~leaderboard.tiers.closed_sets.layout`."""

    om: np.ndarray       # (R, nb) blocks by decreasing largest z
    on: np.ndarray       # (R, nb) blocks by increasing smallest z
    bzmax: np.ndarray    # (R, nb) block extremes of z, in each replicate's order om (bzmax:
    bzmin: np.ndarray    # bzmax[r, h] is block om[r, h]'s) and on (bzmin)
    first_up: np.ndarray  # (R, 3): om[r, 0], its z, the next block's z (for the filters)
    first_dn: np.ndarray  # (R, 3): on[r, 0], its z, the next block's z
    suf_arg: np.ndarray  # (nb, R) entry of largest z in blocks b.. end
    pre_arg: np.ndarray  # (nb, R) entry of smallest z in blocks 0..b
    suf_e: np.ndarray    # (nb, R) their errors
    pre_e: np.ndarray
    szmax: np.ndarray    # (R, nsub) sub-block extremes of z, their entries and errors, the
    szmin: np.ndarray    # runners-up' z
    samax: np.ndarray
    samin: np.ndarray
    semax: np.ndarray
    semin: np.ndarray
    sz2max: np.ndarray
    sz2min: np.ndarray
    blo: np.ndarray      # (nb,) block SD ranges
    bhi: np.ndarray
    slo: np.ndarray      # (nsub,) sub-block SD ranges
    shi: np.ndarray


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
def inv_range(se_lo, se_hi):
    """(1 / se_hi, 1 / se_lo), widened; 1 / se_lo is infinite where se may be 0."""
    ihi = np.inf if se_lo <= 0 else 1.0 / se_lo * (1 + SLACK)
    ilo = np.inf if se_hi <= 0 else 1.0 / se_hi * (1 - SLACK)
    return ilo, ihi


@njit(cache=True)
def se_range(s, lo, hi, rho):
    """1 / se(s, x) over x in [lo, hi] (se is convex in x, least at x = rho s)."""
    m = min(max(rho * s, lo), hi)
    return inv_range(se_pair(s, m, rho), max(se_pair(s, lo, rho), se_pair(s, hi, rho)))


@njit(cache=True)
def se_box(alo, ahi, blo, bhi, rho):
    """1 / se(x, y) over the box x in [alo, ahi], y in [blo, bhi]."""
    low = np.inf
    for x in (alo, ahi):
        low = min(low, se_pair(x, min(max(rho * x, blo), bhi), rho))
    for y in (blo, bhi):
        low = min(low, se_pair(min(max(rho * y, alo), ahi), y, rho))
    high = max(max(se_pair(alo, blo, rho), se_pair(alo, bhi, rho)),
               max(se_pair(ahi, blo, rho), se_pair(ahi, bhi, rho)))
    return inv_range(low, high)


@njit(cache=True, forceinline=True)
def bound(x, ilo, ihi):
    """Upper bound of ``x' / se`` (0 where se = 0) over x' <= x and 1 / se in [ilo, ihi]."""
    if x > 0:
        return x * ihi
    return 0.0 if ihi == np.inf else x * ilo


@njit(cache=True, forceinline=True)
def low_value(x, ilo, ihi):
    """Lower bound of ``x / se`` (0 where se = 0) over 1 / se in [ilo, ihi]."""
    if x >= 0:
        return 0.0 if ilo == np.inf else x * ilo
    return -np.inf if ihi == np.inf else x * ihi


@njit(cache=True, forceinline=True)
def t_range(glo, ghi, ilo, ihi):
    """Bounds of t = gap / se over gap in [glo, ghi] and 1 / se in [ilo, ihi]."""
    if ihi == np.inf:
        return -np.inf, np.inf
    return (glo * ilo if glo >= 0 else glo * ihi), (ghi * ihi if ghi >= 0 else ghi * ilo)


@njit(cache=True, forceinline=True)
def top_of(z, lo, hi, up):
    """Largest (up) or smallest s * z' over s in [lo, hi] and z' <= z (up) or z' >= z, widened
    by the rounding of z = e / s."""
    if up:
        v = hi * z if z >= 0 else lo * z
    else:
        v = lo * z if z >= 0 else hi * z
    return v + (1e-12 if up else -1e-12) * abs(v)


@njit(cache=True, nogil=True)
def sub_extremes(err, s, size, zmax, zmin, amax, amin, z2max, z2min, g0, g1):
    """Per group of ``size`` consecutive entries (g0 <= g < g1) and replicate: max/min of
    z = e / s (0 where s = 0, whose errors are 0), the entry holding each extreme and the
    runner-up z, so that a search can settle a group from one entry when the runner-up cannot
    matter. The runners-up only bound values: they are found in float64 and written to float32
    ``z2max``/``z2min`` rounded outward (up for the largest, down for the smallest), the
    layout's form of them, so no float64 copy of them is made (issue 41)."""
    n, n_rep = err.shape
    up2, down2 = np.empty(n_rep), np.empty(n_rep)
    for g in range(g0, g1):
        zmax[g, :] = -np.inf
        zmin[g, :] = np.inf
        up2[:] = -np.inf
        down2[:] = np.inf
        for j in range(g * size, min(n, g * size + size)):
            a = inv(s[j])
            for r in range(n_rep):
                v = np.float64(err[j, r]) * a
                if v > zmax[g, r]:
                    up2[r], zmax[g, r], amax[g, r] = zmax[g, r], v, j
                elif v > up2[r]:
                    up2[r] = v
                if v < zmin[g, r]:
                    down2[r], zmin[g, r], amin[g, r] = zmin[g, r], v, j
                elif v < down2[r]:
                    down2[r] = v
        for r in range(n_rep):
            z2max[g, r] = outward32(up2[r], True)
            z2min[g, r] = outward32(down2[r], False)


@njit(cache=True, forceinline=True)
def outward32(v, up):
    """``v`` rounded to float32, then one step up (``up``) or down where that rounding went the
    other way, so that a bound stays a bound (numpy's ``astype`` then ``nextafter``: the same
    bits)."""
    f = np.float32(v)
    if up and f < v:
        f = np.nextafter(f, np.float32(np.inf))
    elif not up and f > v:
        f = np.nextafter(f, np.float32(-np.inf))
    return f


@njit(cache=True)
def extreme_entries(err, zmax, zmin, szmax, szmin, samax, samin, suf_arg, pre_arg, suf_e,
                    pre_e):
    """``suf_arg[b, r]``: the entry of largest z in blocks b.. end, ``suf_e`` its error;
    ``pre_arg``, ``pre_e``: of smallest z in blocks 0..b (the higher block, then the first
    sub-block, on ties); found through the sub-blocks' extreme entries (group-major arrays)."""
    n_rep = err.shape[1]
    nb = zmax.shape[0]
    for r in range(n_rep):
        best, arg = -np.inf, -1
        for b in range(nb - 1, -1, -1):
            if zmax[b, r] >= best:
                best = zmax[b, r]
                arg = _holder(szmax, samax, b, r, best)
            suf_arg[b, r], suf_e[b, r] = arg, err[arg, r]
        best, arg = np.inf, -1
        for b in range(nb):
            if zmin[b, r] < best:
                best = zmin[b, r]
                arg = _holder(szmin, samin, b, r, best)
            pre_arg[b, r], pre_e[b, r] = arg, err[arg, r]


@njit(cache=True, forceinline=True)
def _holder(sz, sa, b, r, value):
    """The entry holding block ``b``'s extreme ``value`` in replicate ``r``: its first sub-block
    with that extreme (a block's extreme is reduced from its sub-blocks', so one always has it)."""
    for q in range(b * K, min(sz.shape[0], b * K + K)):
        if sz[q, r] == value:
            return sa[q, r]
    return -1


@njit(cache=True, forceinline=True)
def sub_ranges(i, q, s_i, rho, slo_q, shi_q, cache):
    """1 / se range of entry i (SD ``s_i``) against sub-block q (SDs ``slo_q`` .. ``shi_q``),
    computed once per owner: ``cache[q]`` = (owner, ilo, ihi).

    Scalars, not the SD arrays: an array read only on the branch that fills the cache kept
    numba from pruning its reference counting, two atomic operations per array and call (the
    marginal sets spent ~40% of their time there, issue 41)."""
    if cache[q, 0] != i:
        cache[q, 0] = i
        cache[q, 1], cache[q, 2] = se_range(s_i, slo_q, shi_q, rho)
    return cache[q, 1], cache[q, 2]


@njit(cache=True)
def reach(si, rho, lo, hi):
    """What :func:`beyond` needs of entry i: (s_i, rho, the board's smallest and largest SD,
    1 / se(s_i, each of them), 1 / ((1 - rho^2) s_i^2))."""
    return (si, rho, lo, hi, inv(se_pair(si, lo, rho)), inv(se_pair(si, hi, rho)),
            inv((1 - rho ** 2) * si * si))


@njit(cache=True, forceinline=True)
def beyond(z, w, reach_i):
    """Upper bound of ``(s z' + w) / se(s_i, s)`` over every SD s of the board and z' <= z: what
    any entry of a group whose extreme z is ``z`` can reach (up: w = -e_i; down: pass -z and
    w = e_i). As a function of s it rises, then falls: the maximum lies at an end of the range
    unless the one stationary point, s_i (z s_i + rho w) / (rho z s_i + w), lies inside, where
    Cauchy-Schwarz bounds it by sqrt(z^2 + (w + rho s_i z)^2 / ((1 - rho^2) s_i^2))."""
    si, rho, lo, hi, ilo, ihi, k = reach_i
    z = max(z, 0.0)
    if si == 0:   # e_i = 0 and se(0, s) = s
        return z * (1 + SLACK) + 1e-12
    best = max((lo * z + w) * ilo if ilo > 0 else (0.0 if lo * z + w <= 0 else np.inf),
               (hi * z + w) * ihi)
    den = rho * z * si + w
    if den != 0:
        st = si * (z * si + rho * w) / den
        if lo < st < hi:
            u = w + rho * si * z
            best = max(best, np.sqrt(z * z + u * u * k))
    return best + SLACK * abs(best) + 1e-12
