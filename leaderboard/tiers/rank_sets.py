"""Confidence sets for ranks, for the best entry, and the tiers they imply.

The method of Mogstad, Romano, Shaikh and Wilhelm (2023, "Inference for ranks with applications
to mobility across neighbourhoods and academic achievement across countries", REStud), computed
from one :class:`~leaderboard.tiers.RankReplicates`.

**Tests.** For an ordered pair (j, k) the hypothesis H_jk is "theta_j <= theta_k" (true scores,
higher is better), with statistic ``t_jk = (point_j - point_k) / se_jk`` (``se_jk`` as
:meth:`RankReplicates.pair_se`); rejecting it says "j is surely better than k". A family of them
is tested by the step-down max-t procedure (Romano and Wolf): with K the hypotheses not yet
rejected, c(K) is the ceil((1 - alpha) R)-th smallest over the R replicates of ``max over (j, k)
in K of (errors_j - errors_k) / se_jk``; every hypothesis of K with t above c(K) is rejected, and
rounds repeat until one rejects nothing. As the replicates are draws of (observed - true), the
chance that any true hypothesis is ever rejected is at most alpha, asymptotically. *Assumed:* the
replicates approximate the joint law of the studentised estimates (a consistent paired
bootstrap, or normal errors with the right SDs and correlation). Pairs with ``se == 0``
(identical submissions) get t = 0 if their scores tie, else +-inf, and centred replicates of 0.

**Guarantees.**

* Simultaneous rank sets (family: all E(E-1) ordered pairs): entry i's set is ``[1 + #{j surely
  better than i}, E - #{j that i is surely better than}]``; with probability >= 1 - alpha every
  entry's true rank (1 + the number of entries with a strictly higher true score, so tied
  entries share their tie's best rank) is in its set, all at once.
* Marginal rank sets (entry i's own family {(i, j), (j, i)}): each set covers its own entry's
  rank with probability >= 1 - alpha; nothing is claimed about all at once.
* :func:`~leaderboard.tiers.best_set.best_set`: i is left out iff the max-t test of the one-sided
  family {(j, i)} finds a j surely better. A truly best entry b is left out only if a true
  hypothesis of b's own family is rejected (chance <= alpha); the other entries' tests cannot
  affect b, so no correction across entries is needed: every truly best entry is in the set with
  probability >= 1 - alpha (each of them, when several tie).
* Tiers (:func:`~leaderboard.tiers.shown_better.rank_set_tiers`): the layers of the
  simultaneous family's verdicts, kept in :attr:`RankSets.shown_better`; tier 1 is exactly the
  entries with ``low == 1`` (see :mod:`~leaderboard.tiers.shown_better` for the guarantee).

**Two engines, the same answers.** Scores-only boards (``reps.correlation`` set: every pair's SE
is a function of the two SDs) go to :mod:`~leaderboard.tiers.closed_sets`, which never visits
E^2 pairs and holds nothing per pair (100,000 entries in about a minute on 2 cores). Bootstrap
replicates (SEs from the replicates themselves) go through the pair tiles below, whose cost is
quadratic; submissions boards have thousands of entries at most. Bootstrap boards of up to
:data:`~leaderboard.tiers.boot_small.SMALL` entries (with the default ``batch``) take the numpy
step-downs of :mod:`~leaderboard.tiers.boot_small` instead: the same bits, without compiling
the tiles on a first run.

**The pair tiles: scale, and why the answer is still exact.** The family has E(E-1) pairs (25
million at E = 5000), so nothing E x E is held except the near pairs defined below.

1. *Screen.* A pair with |t| > ``z_B = norm.isf(alpha / m)`` (m the family's size) is *far*: its
   better orientation is rejected at step one. Its other orientation is very likely true and
   stays in every K, so it must stay in every maximum: dropping it would lower c(K) below what
   the guarantee needs. Near pairs (|t| <= z_B) are stored for the later rounds.
2. *One pass over all pairs* in tiles gives the exact se, the screen, and replicate maxima over
   all pairs (first round, c1) and over the far pairs' surviving orientations (c_f).
3. *Exactness.* If c1 <= z_B, the first round rejects every far pair anyway and the screen has
   changed nothing; otherwise the pass is redone with c1 as the screen value, which makes the
   screen exactly the first round. Tests compare the result with a brute force over all pairs.
   (Even without this check the screen keeps the guarantee: the first true hypothesis to be
   rejected falls either to the Bonferroni step, whose value is at least the max-quantile of
   any sub-family of true hypotheses under normality, or to a later round whose K still holds
   every true hypothesis, so that c(K) >= c(true hypotheses).)
4. *Pruning that changes nothing.* A critical value is an order statistic of replicate maxima;
   values below a lower bound of it cannot move it. Every later K holds the far pairs'
   surviving orientations, so c(K) >= c_f >= that order statistic over the far pairs seen so
   far; the pass skips (row, replicate) cells of a tile whose bound is below it, and later
   rounds skip near pairs whose largest |replicate| is (``pairs_examined``: near pairs, 2 each).

Cost: O(E^2) pair setup (plus O(E^2 R) sums of squares for bootstrap SEs) and the replicate work
the bounds leave, a few percent of E^2 R; memory O(E R) plus 24 bytes per near pair (all pairs on
a fully tied board: 300 MB at E = 5000) while it runs, and 4 bytes per unresolved pair of
unequal scores kept in the result (:class:`~leaderboard.tiers.shown_better.ShownBetter`).
Measured by ``benchmarks/bench_rank_sets.py`` on 2 shared cores, E = 5000 on a Kaggle-shaped
board (before the closed-form engine took the scores-only boards): simultaneous sets 0.7 s
(R = 1000), 1.0 s (R = 2000), 1.7 s with bootstrap SEs, 1.1 s fully tied; marginal sets 5-10 s;
the best set 0.04-0.1 s, 1.5 s fully tied. The best set screens with sd_i + sd_j >= se_ij and the E - 1
Bonferroni value, re-screens
exactly against the 16 highest entries and runs the exact max-t test on the rest; a screened-out
entry is excluded by a valid Bonferroni test, which can differ from the max-t test only when the
bootstrap max-quantile exceeds z_B.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri   # norm.isf(q) is -ndtri(q), bit for bit, without scipy.stats

from leaderboard.params import DEFAULT_ALPHA, check_alpha
from leaderboard.tiers import _pair_kernels as pk
from leaderboard.tiers import boot_small, closed_sets
from leaderboard._threads import threaded as _threaded
from leaderboard.tiers.methods import RANK_SETS
from leaderboard.tiers.replicates import RankReplicates
from leaderboard.tiers.shown_better import ShownBetter, from_step_down, rank_set_tiers

__all__ = ["RankSets", "rank_confidence_sets", "rank_set_tiers"]
METHOD = RANK_SETS.procedure
TILE_ROWS = 128        # rows per tile block (measured best at E = 5000, R = 1000-2000)
LO_EVERY = 16          # marginal: refresh the per-entry lower bounds after rounds 1, 2, 4, 8
                       # and every this many (each refresh sorts two E x R arrays)


@dataclass(frozen=True)
class RankSets:
    """Rank confidence sets of entries in rank order (1 = best).

    Attributes
    ----------
    low, high : ndarray of int, shape (E,)
        Each entry's set of ranks is ``low[i] .. high[i]`` (1-based, inclusive).
    simultaneous : bool
        True: all sets cover the true ranks at once with probability >= 1 - alpha; False: each
        set covers its own entry's rank with that probability.
    alpha : float
    steps : int
        Step-down rounds (the most any entry's family needed, for marginal sets).
    pairs_examined : int
        Ordered hypotheses left to the exact step-down by the screen (summed over families).
    pairs_screened : int
        Ordered hypotheses rejected by the screen at the first step (summed over families).
    critical_value : ndarray, shape (E,)
        The last round's critical value of each entry's family (all equal if simultaneous).
    shown_better : ShownBetter or None
        Simultaneous sets: the family's verdicts, which entry is shown better than which (the
        tiers and the significance map read them); None for marginal sets.
    """

    low: np.ndarray
    high: np.ndarray
    simultaneous: bool
    alpha: float
    steps: int
    pairs_examined: int
    pairs_screened: int
    critical_value: np.ndarray
    shown_better: ShownBetter | None = None


@dataclass(frozen=True)
class _Data:
    err: np.ndarray
    cen: np.ndarray
    point: np.ndarray
    sd: np.ndarray     # sd for closed-form SEs; for the bootstrap the row SDs that bound se_jk
    rho: float
    boot: bool
    kq: int            # the critical value is the kq-th smallest replicate maximum
    ib: int            # rows per tile block


def rank_sets_data(reps: RankReplicates, alpha: float, batch: int | None) -> _Data:
    """The replicates checked once and laid out for the max-t passes of the rank sets and of
    :func:`~leaderboard.tiers.best_set.best_set`: errors (centred for the bootstrap), points, SDs,
    the correlation, the critical value's rank ``kq`` and the tile's rows. ``ValueError`` naming
    what is wrong (shapes, non-finite values, entries out of rank order, ``alpha``, ``batch``).

    Examples
    --------
    >>> reps = RankReplicates.normal(np.array([1.0, 0.5]), np.full(2, 0.1), 0.0, True,
    ...                              replicates=100, seed=0)
    >>> d = rank_sets_data(reps, 0.05, None)
    >>> d.kq, d.boot, d.err.shape
    (95, False, (2, 100))
    """
    if not isinstance(reps, RankReplicates):
        raise TypeError("reps must be a RankReplicates")
    check_alpha(alpha)   # the one check of an error rate (a ValueError)
    boot = reps.correlation is None
    # closed form: float32 or float64 as stored (a float64 copy of a 100,000-entry board is 1.6 GB)
    keep = not boot and reps.errors.dtype in (np.float32, np.float64)
    err = np.ascontiguousarray(reps.errors, dtype=None if keep else np.float64)
    point = np.ascontiguousarray(reps.point, dtype=np.float64)
    if err.ndim != 2 or err.shape[0] != point.size or err.shape[1] < 2:
        raise ValueError("errors must have shape (E, R) with R >= 2")
    n_rep = err.shape[1]
    if not (_all_finite(err) and np.isfinite(point).all()):
        raise ValueError("point and errors must be finite")
    if not boot and not (np.isfinite(reps.sd).all() and np.all(reps.sd >= 0)):
        raise ValueError("sd must be finite and non-negative")
    if np.any(np.diff(point) > 0):
        raise ValueError("entries must be in rank order (point non-increasing)")
    if batch is not None and (int(batch) != batch or batch < 1):
        raise ValueError(f"batch must be a positive integer, got {batch!r}")
    if boot:
        cen = np.ascontiguousarray(err - err.mean(axis=1, keepdims=True))
        sd = np.sqrt((cen * cen).sum(axis=1) / (n_rep - 1))
    else:
        cen, sd = err, np.ascontiguousarray(reps.sd, dtype=np.float64)
    kq = min(n_rep, max(1, int(np.ceil(round((1 - alpha) * n_rep, 9)))))
    ib = int(batch) if batch is not None else TILE_ROWS
    return _Data(err, cen, point, sd, float(reps.correlation or 0.0), boot, kq, ib)


def _all_finite(x: np.ndarray, rows: int = 4096) -> bool:
    """np.isfinite(x).all() without an x-sized temporary."""
    return all(np.isfinite(x[a:a + rows]).all() for a in range(0, x.shape[0], rows))


def order_stat(m: np.ndarray, kq: int) -> np.ndarray:
    """The ``kq``-th smallest of ``m`` along its last axis (contiguous): the max-t critical
    values of the rank sets and of the best set.

    Examples
    --------
    >>> order_stat(np.array([[3.0, 1.0, 2.0], [0.0, 9.0, 4.0]]), 2).tolist()
    [2.0, 4.0]
    """
    out = np.partition(m, kq - 1, axis=-1)[..., kq - 1]
    return np.ascontiguousarray(out) if out.ndim else out   # contiguous: one kernel signature


def t_stats(gap: np.ndarray, se: np.ndarray) -> np.ndarray:
    """Vectorised :func:`~leaderboard.tiers._pair_kernels.t_stat`: ``gap / se``, and for a
    zero ``se`` the gap's sign as an infinite t (0 for no gap).

    Examples
    --------
    >>> t_stats(np.array([0.2, 0.1, 0.0, -0.1]), np.array([0.1, 0.0, 0.0, 0.0])).tolist()
    [2.0, inf, 0.0, -inf]
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(se > 0, gap / se, np.where(gap == 0, 0.0, np.sign(gap) * np.inf))


def _schedule(nb: int):
    """Rounds of tiles (block a, block b) that share no block (circle method), diagonal first."""
    yield np.arange(nb), np.arange(nb)
    n = nb + nb % 2
    for rnd in range(n - 1):
        listed = [(n - 1, rnd)] + [((rnd + s) % (n - 1), (rnd - s) % (n - 1))
                                   for s in range(1, n // 2)]
        pairs = np.array([p for p in listed if max(p) < nb], dtype=np.int64).reshape(-1, 2)
        if pairs.size:
            yield pairs[:, 0].copy(), pairs[:, 1].copy()


def _full_pass(d: _Data, z: float, marginal: bool):
    """Every pair once: far/near screen at ``z``, counts, replicate maxima, stored near pairs."""
    n, n_rep = d.err.shape
    nb = -(-n // d.ib)
    shape = (n, n_rep) if marginal else (nb, n_rep)
    mf, ma = np.full(shape, -np.inf), np.full(shape, -np.inf)
    beats, beaten = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    min_far = np.full(n, np.inf)
    parts = []
    lo_f = np.full(n, -np.inf)   # lower bounds of the critical values to come (pk._side)
    lo_nf = lo_f.copy()
    for rnd, (ta, tb) in enumerate(_schedule(nb)):
        cap = pk.tile_candidates(d.point, d.sd, d.rho, d.boot, z, ta, tb, d.ib)
        off = np.concatenate(([0], np.cumsum(cap)))
        ni, nk = np.empty(off[-1], np.int32), np.empty(off[-1], np.int32)
        nse, npm = np.empty(off[-1]), np.empty(off[-1])
        written = np.zeros(ta.size, dtype=np.int64)
        _threaded(pk.tile_pass, ta.size, d.err, d.cen, d.point, d.sd, d.rho, d.boot, z, lo_f,
                  lo_nf, ta, tb, d.ib, marginal, mf, ma, beats, beaten, min_far, off, ni, nk,
                  nse, npm, written)
        if np.any(written > cap):
            raise RuntimeError("near-pair bound violated; please report this as a bug")
        if np.any(written < cap):   # the bootstrap's bound overcounts: compact
            seg = np.repeat(np.arange(ta.size), cap)
            keep = np.arange(off[-1]) - off[seg] < written[seg]
            ni, nk, nse, npm = ni[keep], nk[keep], nse[keep], npm[keep]
        parts.append((ni, nk, nse, npm))
        # The maxima so far bound c_f (so every later critical value) and c1 from below.
        if not marginal:
            lo_f[:] = order_stat(mf.max(axis=0), d.kq)
            lo_nf[:] = lo_f if lo_f[0] > -np.inf else order_stat(ma.max(axis=0), d.kq)
        elif rnd & (rnd - 1) == 0 or rnd % LO_EVERY == 0:
            lo_f = order_stat(mf, d.kq)
            lo_nf = np.where(lo_f > -np.inf, lo_f, order_stat(ma, d.kq))
    near = tuple(np.concatenate(p) for p in zip(*parts))
    if not marginal:
        mf, ma = mf.max(axis=0), ma.max(axis=0)
    return mf, ma, beats, beaten, min_far, near


def _simultaneous(d: _Data, alpha: float) -> RankSets:
    n = d.point.size
    z = float(-ndtri(alpha / (n * (n - 1))))
    mf, ma, beats, beaten, min_far, near = _full_pass(d, z, False)
    c = float(order_stat(ma, d.kq))
    if c > z:   # the screen rejected pairs the first round would not: make it the first round
        mf, ma, beats, beaten, min_far, near = _full_pass(d, c, False)
    ni, nk, nse, npm = near
    state = np.full(ni.size, 3, dtype=np.uint8)
    new = pk.near_reject(d.point, ni, nk, nse, state, c)
    steps, again = 1, new > 0 or beats.sum() > 0
    # Later rounds' K always holds the far pairs' surviving orientations, so c(K) >= c_floor; a
    # near pair never above c_floor cannot move the quantile and is left out of the maximum.
    c_floor = float(order_stat(mf, d.kq))
    act = np.flatnonzero(npm > c_floor)
    while again:
        m = mf
        if act.size:
            m = np.maximum(mf, pk.near_max(d.err, ni[act], nk[act], nse[act], state[act]))
        c = float(order_stat(m, d.kq))
        if c < -min_far.min():
            raise RuntimeError("critical value below a screened pair's surviving statistic; "
                               "the replicates are too biased for rank sets")
        new = pk.near_reject(d.point, ni, nk, nse, state, c)
        steps, again = steps + 1, new > 0
    n_far = int(beats.sum())
    beats = beats + np.bincount(ni, state & 1 == 0, n) + np.bincount(nk, state & 2 == 0, n)
    beaten = beaten + np.bincount(nk, state & 1 == 0, n) + np.bincount(ni, state & 2 == 0, n)
    # Final verdicts: {t > c}. Far pairs fell in their better orientation (|t| > screen >= c);
    # near pairs keep their state bits, from which the unresolved ones are stored.
    return RankSets(low=1 + beaten.astype(int), high=n - beats.astype(int), simultaneous=True,
                    alpha=alpha, steps=steps, pairs_examined=2 * ni.size, pairs_screened=n_far,
                    critical_value=np.full(n, c),
                    shown_better=from_step_down(d.point, ni, nk, state, c))


def _csr(owner: np.ndarray, partner: np.ndarray, se: np.ndarray, pm: np.ndarray, n: int):
    owner, partner = owner.astype(np.int32), partner.astype(np.int32)
    indptr = np.concatenate(([0], np.cumsum(np.bincount(owner, minlength=n))))
    return (indptr, *pk.csr_fill(owner, partner, se, pm, indptr))


def _marginal(d: _Data, alpha: float) -> RankSets:
    n, n_rep = d.err.shape
    z = float(-ndtri(alpha / (2 * (n - 1))))
    mf, ma, beats, beaten, min_far, (ni, nk, nse, npm) = _full_pass(d, z, True)
    c1 = order_stat(ma, d.kq)
    del ma
    fallback = np.flatnonzero(c1 > z)
    indptr, partner, se, pm = _csr(np.r_[ni, nk], np.r_[nk, ni], np.r_[nse, nse],
                                   np.r_[npm, npm], n)
    c_first = np.where(c1 > z, np.inf, c1)   # fallback entries are redone below
    out = np.zeros((n, 5))
    _threaded(pk.entry_rounds, n, d.err, d.point, np.arange(n), mf, c_first, beats + beaten,
              min_far, indptr, partner, se, pm, order_stat(mf, d.kq), d.kq, out)
    far = np.stack([beats, beaten], axis=1).astype(float)
    near_count = np.diff(indptr)
    if fallback.size:   # screen value c1 instead of z for these entries (see module docstring)
        m = fallback.size
        owner, other = np.repeat(np.arange(m), n), np.tile(np.arange(n), m)
        keep = fallback[owner] != other
        owner, other = owner[keep], other[keep]
        i_of, other = fallback[owner].astype(np.int32), other.astype(np.int32)
        ose = pk.pair_se_list(d.cen, d.sd, d.rho, d.boot, i_of, other)
        tt = t_stats(d.point[i_of] - d.point[other], ose)
        is_far = np.abs(tt) > c1[fallback][owner]
        stats = np.zeros((m, 3))
        np.add.at(stats, (owner[is_far], np.where(tt[is_far] > 0, 0, 1)), 1)
        stats[:, 2] = np.inf
        np.minimum.at(stats[:, 2], owner[is_far], np.abs(tt[is_far]))
        fmf = np.full((m, n_rep), -np.inf)
        for q in range(m):   # the surviving orientation: (k, i) if i is better, else (i, k)
            f = np.flatnonzero(is_far & (owner == q))
            if f.size:
                fmf[q] = pk.near_max(d.err, i_of[f], other[f], ose[f],
                                     np.where(tt[f] > 0, 2, 1).astype(np.uint8))
        f_indptr, f_partner, f_se, f_pm = _csr(owner[~is_far], other[~is_far], ose[~is_far],
                                               np.full((~is_far).sum(), np.inf), m)
        f_out = np.zeros((m, 5))
        _threaded(pk.entry_rounds, m, d.err, d.point, fallback, fmf, c1[fallback],
                  (stats[:, 0] + stats[:, 1]).astype(np.int64), stats[:, 2].copy(), f_indptr,
                  f_partner, f_se, f_pm, np.full(m, -np.inf), d.kq, f_out)
        out[fallback], far[fallback] = f_out, stats[:, :2]
        near_count[fallback] = np.diff(f_indptr)
    if np.any(out[:, 4]):
        raise RuntimeError("critical value below a screened pair's surviving statistic; "
                           "the replicates are too biased for rank sets")
    n_beats, n_beaten = far[:, 0] + out[:, 0], far[:, 1] + out[:, 1]
    return RankSets(low=1 + n_beaten.astype(int), high=n - n_beats.astype(int),
                    simultaneous=False, alpha=alpha, steps=int(out[:, 2].max()),
                    pairs_examined=int(2 * near_count.sum()), pairs_screened=int(far.sum()),
                    critical_value=out[:, 3].copy())


def rank_confidence_sets(reps: RankReplicates, alpha: float = DEFAULT_ALPHA, *,
                         simultaneous: bool = True, batch: int | None = None) -> RankSets:
    """Confidence sets for the ranks of all entries (Mogstad, Romano, Shaikh and Wilhelm).

    Parameters
    ----------
    reps : RankReplicates
        Scores in rank order and paired error draws (see the module docstring for what they
        must approximate).
    alpha : float, default 0.05
        One minus the coverage.
    simultaneous : bool, default True
        True: the sets cover all true ranks at once; False: each set covers its own entry's.
    batch : int, optional
        Rows per tile block in the pass over pairs (speed only: results do not depend on it).

    Returns
    -------
    RankSets

    Examples
    --------
    Two entries 10 standard errors apart and two tied ones below them:

    >>> reps = RankReplicates.normal(np.array([2.0, 1.0, 0.0, 0.0]), np.full(4, 0.07), 0.0,
    ...                              True, replicates=1000, seed=0)
    >>> sets = rank_confidence_sets(reps)
    >>> sets.low.tolist(), sets.high.tolist()
    ([1, 2, 3, 3], [1, 2, 4, 4])
    >>> rank_set_tiers(sets).tier.tolist()
    [1, 2, 3, 3]
    """
    d = rank_sets_data(reps, alpha, batch)
    n = d.point.size
    if n == 1:
        one = np.ones(1, dtype=int)
        rel = ShownBetter(d.point, np.zeros(2, dtype=np.int64), np.empty(0, np.int32), np.nan)
        return RankSets(one, one.copy(), simultaneous, alpha, 0, 0, 0, np.full(1, np.nan),
                        rel if simultaneous else None)
    if not d.boot:
        return _closed(d, alpha, simultaneous, batch)
    if batch is None and n <= boot_small.SMALL:
        return _small(d, alpha, simultaneous)
    return _simultaneous(d, alpha) if simultaneous else _marginal(d, alpha)


def _small(d: _Data, alpha: float, simultaneous: bool) -> RankSets:
    """A small bootstrap board: the numpy step-downs of :mod:`~leaderboard.tiers.boot_small`
    (the same bits as the pair tiles, without compiling them)."""
    n = d.point.size
    if simultaneous:
        beats, beaten, steps, c, ni, nk, state, n_far = boot_small.simultaneous(
            d.err, d.cen, d.point, d.sd, d.kq, alpha)
        return RankSets(low=1 + beaten.astype(int), high=n - beats.astype(int),
                        simultaneous=True, alpha=alpha, steps=steps,
                        pairs_examined=2 * ni.size, pairs_screened=n_far,
                        critical_value=np.full(n, c),
                        shown_better=from_step_down(d.point, ni, nk, state, c))
    beats, beaten, steps, crit, examined, n_far = boot_small.marginal(
        d.err, d.cen, d.point, d.sd, d.kq, alpha)
    return RankSets(low=1 + beaten.astype(int), high=n - beats.astype(int), simultaneous=False,
                    alpha=alpha, steps=steps, pairs_examined=examined, pairs_screened=n_far,
                    critical_value=crit)


def _closed(d: _Data, alpha: float, simultaneous: bool, batch: int | None) -> RankSets:
    """Closed-form SEs: the block searches of :mod:`~leaderboard.tiers.closed_sets`."""
    n = d.point.size
    if simultaneous:
        beats, beaten, steps, c, first, rel = closed_sets.simultaneous(
            d.err, d.point, d.sd, d.rho, d.kq, batch)
        return RankSets(low=1 + beaten, high=n - beats, simultaneous=True, alpha=alpha,
                        steps=steps, pairs_examined=n * (n - 1) - first, pairs_screened=first,
                        critical_value=np.full(n, c), shown_better=rel)
    beats, beaten, steps, crit, first = closed_sets.marginal(d.err, d.point, d.sd, d.rho, d.kq,
                                                             batch)
    return RankSets(low=1 + beaten, high=n - beats, simultaneous=False, alpha=alpha, steps=steps,
                    pairs_examined=2 * n * (n - 1) - first, pairs_screened=first,
                    critical_value=crit)
