"""Compiled pair loops behind the rank confidence sets (:mod:`leaderboard.tiers.rank_sets`).

Shared names: ``err`` (E, R) paired error draws (observed minus true, higher is better), ``cen``
the rows centred on their means (for standard errors only), ``point`` (E,), ``sd`` (E,), ``rho``.
``boot`` True: a pair's SE is the SD over replicates of ``err[i] - err[k]`` (ddof 1, as
:meth:`RankReplicates.pair_se`); False: ``sqrt(sd_i**2 + sd_k**2 - 2 rho sd_i sd_k)``. For the
ordered pair (i, k) the statistic is ``t = (point_i - point_k) / se`` and its centred replicate
``(err_i - err_k) / se``; ``se == 0`` gives t = 0 or +-inf by the gap and centred replicates 0.

Layout, and why (2 cores, E = 5000, R = 1000):

* Pairs are visited in *tiles*, a block of rows against another. Tiles run at the same time share
  no row (the caller's round-robin schedule), so per-row outputs need no locks.
* Most replicate values cannot matter: a critical value is an order statistic of replicate
  maxima, and values below a lower bound of it cannot move it. :func:`_side` bounds a whole
  (row, replicate) cell of a tile and skips it when the bound is below the running lower bound
  the caller keeps, so a dense board costs about a tenth of the plain loop, with the same numbers.
* Bootstrap sums of squares are compiled with reassociation so that LLVM vectorises them (0.06
  instead of 0.4 ns per pair and replicate); each pair's sum runs through the one compiled loop
  in its own lane, whatever the grouping. Maxima use ``nnan``/``nsz`` (values are finite).
* Maxima are exact, so splitting them over threads or tiles cannot change them: results are
  deterministic and independent of the tile size. Kernels release the GIL and take a range of
  tasks that the caller runs on threads (numba's parallel loops took seconds each to compile).
"""
from __future__ import annotations

import numpy as np
from leaderboard._jit import njit

NEAR_SLACK = 1e-9  # relative slack on the bound sd_i + sd_k >= se_ik (rounding; never binding)
MAX_MATH = {"nnan", "nsz"}  # maxima of finite values: lets LLVM vectorise them, same values
LO_REFRESH = 32    # marginal rounds: refresh the running lower bound every this many partners
# numba compiles a kernel once per distinct argument types, and a constant True/False passed
# from compiled code is a type of its own (Literal[bool]): run-time booleans and int64 indices
# (the stored near pairs are int32) keep one compiled version of each helper (issue 27).
OWN_A, OWN_B = np.bool_(True), np.bool_(False)


@njit(cache=True, fastmath={"reassoc"})
def _sumsq4(c0, c1, c2, c3, ck):
    """Sums over replicates of (c_l - ck)**2 for four rows at once (vectorised, see module)."""
    s0 = s1 = s2 = s3 = 0.0
    for r in range(ck.size):
        x = ck[r]
        d = c0[r] - x
        s0 += d * d
        d = c1[r] - x
        s1 += d * d
        d = c2[r] - x
        s2 += d * d
        d = c3[r] - x
        s3 += d * d
    return s0, s1, s2, s3


@njit(cache=True)
def se_closed(si, sk, rho):
    """Closed-form standard error of a difference, in the operation order of ``pair_se``."""
    var = si ** 2 + sk ** 2 - 2 * rho * si * sk
    return np.sqrt(max(var, 0.0))


@njit(cache=True)
def t_stat(gap, se):
    """Studentised gap; a zero standard error gives 0, +inf or -inf by the gap's sign."""
    if se > 0:
        return gap / se
    if gap > 0:
        return np.inf
    if gap < 0:
        return -np.inf
    return 0.0


@njit(cache=True)
def kth(x, k, work):
    """The k-th smallest (0-based) of ``x``, by quickselect in ``work`` (np.partition compiles
    for seconds; this is the same number)."""
    for t in range(x.size):   # not work[:] = x: its shape check compiles numba's string code
        work[t] = x[t]
    lo, hi = 0, work.size - 1
    while lo < hi:
        pivot = work[(lo + hi) // 2]
        i, j = lo, hi
        while i <= j:
            while work[i] < pivot:
                i += 1
            while work[j] > pivot:
                j -= 1
            if i <= j:
                work[i], work[j] = work[j], work[i]
                i += 1
                j -= 1
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            break
    return work[k]


@njit(cache=True)
def _inv(se):
    return 1.0 / se if se > 0 else 0.0


@njit(cache=True)
def _se4(cen, sd, rho, boot, i0, i1, i2, i3, k):
    """Standard errors of the pairs (i_l, k)."""
    if boot:
        s0, s1, s2, s3 = _sumsq4(cen[i0], cen[i1], cen[i2], cen[i3], cen[k])
        n = cen.shape[1] - 1
        return np.sqrt(s0 / n), np.sqrt(s1 / n), np.sqrt(s2 / n), np.sqrt(s3 / n)
    return (se_closed(sd[i0], sd[k], rho), se_closed(sd[i1], sd[k], rho),
            se_closed(sd[i2], sd[k], rho), se_closed(sd[i3], sd[k], rho))


@njit(cache=True)
def tile_candidates(point, bound, rho, boot, z, ta, tb, ib):
    """Per tile, how many of its pairs may be near (storage for :func:`tile_pass`)."""
    n = point.size
    out = np.zeros(ta.size, dtype=np.int64)
    for t in range(ta.size):
        a0, b0 = ta[t] * ib, tb[t] * ib
        a1, b1 = min(n, a0 + ib), min(n, b0 + ib)
        c = 0
        for k in range(b0, b1):
            for i in range(a0, min(a1, k) if ta[t] == tb[t] else a1):
                gap = abs(point[i] - point[k])   # bootstrap: sd_i + sd_k bounds se_ik
                if boot:
                    c += gap <= z * (bound[i] + bound[k]) * (1 + NEAR_SLACK)
                else:
                    c += abs(t_stat(gap, se_closed(bound[i], bound[k], rho))) <= z
        out[t] = c
    return out


@njit(cache=True, fastmath=MAX_MATH)
def _pair_contrib(mf, ma, ej, ek, a, o):
    """One pair's replicates (ek - ej) a into shared maxima; returns the largest |value|."""
    g = 0.0
    for r in range(ek.size):
        v = (ek[r] - ej[r]) * a
        u = abs(v)
        w = v + o
        mf[r] = w if w > mf[r] else mf[r]
        ma[r] = u if u > ma[r] else ma[r]
        g = u if u > g else g
    return g


@njit(cache=True)
def _side(err, mf, ma, slot, a0, a1, b0, b1, diag, coef, offs, pm, lo, mx, mn, own_a, skip):
    """Replicate maxima of one tile seen from one block's rows ("own" rows, block a or b).

    For own row j and replicate r every pair (j, k) of the tile has |(e_kr - e_jr) a_jk| <=
    max(max_k e_kr - e_jr, e_jr - min_k e_kr) * max_k |a_jk|; cells whose bound is below
    ``lo[j]`` are left out (``skip[j]`` then records ``lo[j]``). ``lo`` never exceeds a critical
    value the values feed, and values below every critical value cannot move an order statistic
    that lies above them, so the results are unchanged. ``slot`` >= 0: shared maxima
    ``mf[slot]`` (simultaneous, one side suffices); -1: each own row's maxima (marginal, both
    sides are run).
    """
    n_rep = err.shape[1]
    o0, o1, p0, p1 = (a0, a1, b0, b1) if own_a else (b0, b1, a0, a1)
    w = p1 - p0
    other = np.empty((n_rep, w))   # the other block transposed: replicate-major for the cells
    mx[:] = -np.inf
    mn[:] = np.inf
    for q in range(w):
        eq = err[p0 + q]
        for r in range(n_rep):
            other[r, q] = eq[r]
            mx[r] = max(mx[r], eq[r])
            mn[r] = min(mn[r], eq[r])
    sgn = 1.0 if own_a else -1.0   # the pair's replicate is (e_b - e_a) a_ab either way
    crow, orow, prow = np.empty(w), np.empty(w), np.empty(w)
    for j in range(o0, o1):
        q0, q1 = 0, w
        if diag:
            q0, q1 = (j + 1 - p0, w) if own_a else (0, j - p0)
        if q0 >= q1:
            continue
        ej = err[j]
        tf = mf[slot] if slot >= 0 else mf[j]
        ta = ma[slot] if slot >= 0 else ma[j]
        ub = 0.0
        for q in range(q0, q1):
            ia, ib_ = (j - a0, q) if own_a else (q, j - b0)
            crow[q], orow[q], prow[q] = sgn * coef[ia, ib_], offs[ia, ib_], pm[ia, ib_]
            ub = max(ub, abs(crow[q]))
        cut = lo[j]
        hits = 0
        for r in range(n_rep):
            hits += max(mx[r] - ej[r], ej[r] - mn[r]) * ub >= cut
        if 4 * hits > n_rep:   # most cells needed: plain loops are faster
            for q in range(q0, q1):
                g = _pair_contrib(tf, ta, ej, err[p0 + q], crow[q], orow[q])
                prow[q] = max(prow[q], g)
        else:
            skip[j] = cut
            for r in range(n_rep):
                x = ej[r]
                if max(mx[r] - x, x - mn[r]) * ub < cut:
                    continue
                orr = other[r]
                for q in range(q0, q1):
                    v = (orr[q] - x) * crow[q]
                    u = abs(v)
                    prow[q] = max(prow[q], u)
                    tf[r] = max(tf[r], v + orow[q])
                    ta[r] = max(ta[r], u)
        for q in range(q0, q1):
            if own_a:
                pm[j - a0, q] = prow[q]
            else:
                pm[q, j - b0] = prow[q]


@njit(cache=True, nogil=True)
def tile_pass(err, cen, point, sd, rho, boot, z, lo_f, lo_nf, ta, tb, ib, marginal, mf, ma,
              beats, beaten, min_far, off, near_i, near_k, near_se, near_pm, written, t0, t1):
    """Every pair of the tiles (ta[t], tb[t]), t0 <= t < t1: SE, screen and replicate maxima.

    A pair with |t| > z is *far*: its better orientation is rejected (``beats``/``beaten``,
    ``min_far`` the smallest far |t| per row) and the replicates of its surviving orientation go
    into ``mf`` (slot t, or both entries' rows if ``marginal``). Every pair's |centred
    replicates| go into ``ma``. Near pairs are stored from ``off[t]`` on, with an upper bound of
    their largest |centred replicate| (``near_pm``, exact where above the cut). Cells below the
    cut may be skipped (:func:`_side`): ``lo_f`` bounds the later rounds' critical values (from
    the far maxima so far); a tile without far pairs feeds no far maximum and uses ``lo_nf``,
    which the caller sets from all maxima so far where ``lo_f`` is still -inf (tied regions).
    ``written[t]`` gets how many near pairs tile t stored.
    """
    n, n_rep = err.shape
    for t in range(t0, t1):
        diag = ta[t] == tb[t]
        a0, b0 = ta[t] * ib, tb[t] * ib
        a1, b1 = min(n, a0 + ib), min(n, b0 + ib)
        cap = off[t + 1] - off[t]
        ses = np.zeros((ib, ib))
        coef = np.zeros((ib, ib))
        offs = np.full((ib, ib), -np.inf)
        pm = np.zeros((ib, ib))
        has_far = False
        for k in range(b0, b1):
            hi = min(a1, k) if diag else a1
            for i in range(a0, hi, 4):
                m = min(4, hi - i)
                i1, i2, i3 = i + min(1, m - 1), i + min(2, m - 1), i + min(3, m - 1)
                s = _se4(cen, sd, rho, boot, i, i1, i2, i3, k)
                for q in range(m):
                    j = i + q
                    ses[j - a0, k - b0] = s[q]
                    tt = t_stat(point[j] - point[k], s[q])
                    a = _inv(s[q])
                    if abs(tt) > z:
                        offs[j - a0, k - b0] = 0.0
                        has_far = True
                        if tt > 0:      # j surely better: (k, j) survives, (e_k - e_j)/se
                            beats[j] += 1
                            beaten[k] += 1
                        else:           # k surely better: (j, k) survives, (e_j - e_k)/se
                            a = -a
                            beats[k] += 1
                            beaten[j] += 1
                        min_far[j] = min(min_far[j], abs(tt))
                        min_far[k] = min(min_far[k], abs(tt))
                    coef[j - a0, k - b0] = a
        slot = np.int64(-1) if marginal else np.int64(t)
        lo = lo_f if has_far else lo_nf
        mx, mn = np.empty(n_rep), np.empty(n_rep)
        skip_a, skip_b = np.full(n, -np.inf), np.full(n, -np.inf)
        _side(err, mf, ma, slot, a0, a1, b0, b1, diag, coef, offs, pm, lo, mx, mn, OWN_A, skip_a)
        if marginal:
            _side(err, mf, ma, slot, a0, a1, b0, b1, diag, coef, offs, pm, lo, mx, mn, OWN_B,
                  skip_b)
        # A value left out on every side it feeds lies below those sides' cuts, so this keeps
        # pm an upper bound of the pair's largest |statistic| (exact above the cut).
        for j in range(a0, a1):
            for k in range(b0, b1):
                cut = min(skip_a[j], skip_b[k]) if marginal else skip_a[j]
                pm[j - a0, k - b0] = max(pm[j - a0, k - b0], cut)
        cnt = 0
        for k in range(b0, b1):
            for j in range(a0, min(a1, k) if diag else a1):
                if offs[j - a0, k - b0] != 0.0:
                    if cnt < cap:
                        near_i[off[t] + cnt] = j
                        near_k[off[t] + cnt] = k
                        near_se[off[t] + cnt] = ses[j - a0, k - b0]
                        near_pm[off[t] + cnt] = pm[j - a0, k - b0]
                    cnt += 1
        written[t] = cnt


@njit(cache=True, fastmath=MAX_MATH)
def _near_into(out, err, i, k, se, state):
    """Replicates of the surviving orientations of one near pair into ``out``."""
    a = _inv(se)
    ei, ek = err[i], err[k]
    for r in range(ei.size):
        v = (ei[r] - ek[r]) * a
        if state == 3:
            v = abs(v)
        elif state == 2:
            v = -v
        out[r] = v if v > out[r] else out[r]


@njit(cache=True, nogil=True)
def near_max(err, near_i, near_k, near_se, state):
    """Replicate maxima over the surviving orientations of the listed pairs (state 0: none)."""
    out = np.full(err.shape[1], -np.inf)
    for p in range(near_i.size):
        if state[p]:
            _near_into(out, err, np.int64(near_i[p]), np.int64(near_k[p]), near_se[p], state[p])
    return out


@njit(cache=True)
def _order_down(x):
    """Positions of ``x`` from its largest value to its smallest (a heap sort; ties in no
    particular order). numba's ``np.argsort`` compiles its generic quicksort for about 1.5 s of
    CPU; :func:`entry_rounds`, the one caller, only needs some descending order (see there)."""
    n = x.size
    idx = np.empty(n, np.int64)
    for h in range(n):
        idx[h] = h
    # a min-heap of idx by x, built bottom-up; then its smallest is moved to the end one at a
    # time, which leaves idx in descending order of x (one sift loop serves both phases)
    half = n // 2
    for step in range(half + n - 1):
        if step < half:
            root, end = half - 1 - step, n
        else:
            end = n - 1 - (step - half)
            idx[0], idx[end] = idx[end], idx[0]
            root = 0
        while True:
            child = 2 * root + 1
            if child >= end:
                break
            if child + 1 < end and x[idx[child + 1]] < x[idx[child]]:
                child += 1
            if x[idx[child]] < x[idx[root]]:
                idx[root], idx[child] = idx[child], idx[root]
                root = child
            else:
                break
    return idx


@njit(cache=True)
def _reject(tt, st, c):
    """Reject the surviving orientations of a pair with t > c: (new state, rejections made)."""
    new = 0
    if st & 1 and tt > c:
        st &= 2
        new += 1
    if st & 2 and -tt > c:
        st &= 1
        new += 1
    return st, new


@njit(cache=True)
def near_reject(point, near_i, near_k, near_se, state, c):
    """Reject surviving orientations with t > c (bit 1: i over k, bit 2: k over i); count new."""
    new = 0
    for p in range(near_i.size):
        state[p], m = _reject(t_stat(point[near_i[p]] - point[near_k[p]], near_se[p]), state[p], c)
        new += m
    return new


@njit(cache=True)
def csr_fill(owner, partner, se, pm, indptr):
    """Group (partner, se, pm) by owner (counting sort; order within an owner is irrelevant)."""
    pos = indptr[:-1].copy()
    p_out, se_out, pm_out = np.empty(owner.size, np.int64), np.empty(owner.size), np.empty(
        owner.size)
    for h in range(owner.size):
        o = owner[h]
        p_out[pos[o]], se_out[pos[o]], pm_out[pos[o]] = partner[h], se[h], pm[h]
        pos[o] += 1
    return p_out, se_out, pm_out


@njit(cache=True, nogil=True)
def entry_rounds(err, point, ents, mf, c_first, far_count, min_far, indptr, partner, se,
                 pm, c_floor, kq, out, q0, q1):
    """Step-down of each entry's own family {(i, j), (j, i)}, q0 <= q < q1 (marginal sets).

    Entry ``ents[q]`` uses ``mf[q]`` (replicate maxima of its far pairs' surviving orientations),
    its near partners ``partner[indptr[q]:indptr[q + 1]]`` and the first round's critical value
    ``c_first[q]``. Partners with ``pm`` (largest |centred statistic|) at most ``c_floor[q]``
    (a lower bound of every later critical value) cannot move the maximum's quantile and are
    left out of it (still tested). ``out[q]`` gets: near pairs it beats, near pairs that beat
    it, rounds, the last critical value, and 1 if a critical value ever fell below -min far |t|
    (a far pair's surviving orientation would then be rejected; the caller refuses).
    """
    n_rep = err.shape[1]
    for q in range(q0, q1):
        i = ents[q]
        lo, hi = indptr[q], indptr[q + 1]
        state = np.full(hi - lo, 3, dtype=np.uint8)
        tt = np.empty(hi - lo)
        for p in range(lo, hi):
            tt[p - lo] = t_stat(point[i] - point[partner[p]], se[p])
        c, new = c_first[q], 0
        for p in range(hi - lo):
            state[p], m = _reject(tt[p], state[p], c)
            new += m
        steps = 1
        again = new > 0 or far_count[q] > 0
        buf, work = np.empty(n_rep), np.empty(n_rep)
        # Partners in decreasing order of their largest |statistic| (ties in any order: the
        # critical value is the same whatever order the partners are added in, so
        # only that the order is decreasing matters, for the cut below).
        order = lo + _order_down(pm[lo:hi])
        mq = mf[q]
        while again:
            # once a partner's largest |statistic| falls to the running lower bound of this
            # round's critical value, the rest cannot move it
            for r in range(n_rep):   # not buf[:] = mf[q]: its shape check compiles string code
                buf[r] = mq[r]
            bound = max(c_floor[q], kth(buf, kq - 1, work))
            for h in range(order.size):
                p = order[h]
                if pm[p] <= bound:
                    break
                if state[p - lo]:
                    _near_into(buf, err, i, partner[p], se[p], state[p - lo])
                if h % LO_REFRESH == LO_REFRESH - 1:
                    bound = max(bound, kth(buf, kq - 1, work))
            c = kth(buf, kq - 1, work)
            if c < -min_far[q]:
                out[q, 4] = 1.0
            new = 0
            for p in range(hi - lo):
                state[p], m = _reject(tt[p], state[p], c)
                new += m
            steps += 1
            again = new > 0
        n_beats = n_beaten = 0
        for p in range(hi - lo):
            n_beats += 1 - (state[p] & 1)
            n_beaten += 1 - (state[p] >> 1)
        out[q, 0], out[q, 1], out[q, 2], out[q, 3] = n_beats, n_beaten, steps, c



@njit(cache=True, nogil=True)
def best_pass(err, cen, point, sd, rho, boot, owners, kb, block_max, kq, m, tmax, q0, q1):
    """Max-t test of owner q's family {(k, i): k != i}, q0 <= q < q1 (set for the best).

    ``m[q]`` gets the replicate maxima of (e_k - e_i)/se over k and ``tmax[q]`` the largest
    t_ki. Blocks of ``kb`` rows k are taken in turn; ``block_max[b, r]`` bounds e_kr over block
    b, so replicates whose bound is below the critical value's running lower bound (the order
    statistic of the maxima so far) are skipped, which cannot change the final order statistic.
    """
    n, n_rep = err.shape
    for q in range(q0, q1):
        i = owners[q]
        ei, mq = err[i], m[q]
        coef, work = np.empty(kb), np.empty(n_rep)
        lo = -np.inf
        for b in range(block_max.shape[0]):
            k0, k1 = b * kb, min(n, b * kb + kb)
            ub = 0.0
            for k in range(k0, k1, 4):
                c = min(4, k1 - k)
                s = _se4(cen, sd, rho, boot, k, k + min(1, c - 1), k + min(2, c - 1),
                         k + min(3, c - 1), i)
                for l in range(c):   # noqa: E741 - the lane of the 4-wide step (a kernel's body)
                    if k + l == i:
                        coef[k + l - k0] = 0.0
                        continue
                    tmax[q] = max(tmax[q], t_stat(point[k + l] - point[i], s[l]))
                    coef[k + l - k0] = _inv(s[l])
                    ub = max(ub, coef[k + l - k0])
            bm = block_max[b]
            for r in range(n_rep):
                x = ei[r]
                if (bm[r] - x) * ub < lo:
                    continue
                best = -np.inf
                for k in range(k0, k1):
                    if k != i:
                        best = max(best, (err[k, r] - x) * coef[k - k0])
                mq[r] = max(mq[r], best)
            lo = kth(mq, kq - 1, work)



@njit(cache=True)
def pair_se_list(cen, sd, rho, boot, ii, kk):
    """Standard errors of the listed pairs (ii[p], kk[p])."""
    out = np.empty(ii.size)
    for p in range(ii.size):
        i, k = np.int64(ii[p]), np.int64(kk[p])
        s = _se4(cen, sd, rho, boot, i, i, i, i, k)
        out[p] = s[0]
    return out
