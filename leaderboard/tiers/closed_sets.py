"""Rank confidence sets, the best set and the tiers when every pair's SE has a closed form.

Scores-only boards give each entry normal errors with a known SD and one correlation rho
(:meth:`~leaderboard.tiers.RankReplicates.normal`), so a pair's standard error is a function of
the two SDs alone. The procedures and guarantees are those of
:mod:`~leaderboard.tiers.rank_sets` (the Romano-Wolf max-t step-down of Mogstad, Romano, Shaikh
and Wilhelm; every answer equals the plain loop over all ordered pairs, as the tests check
against a brute force); only the way the replicate maxima and the verdicts are found differs.

**How, without visiting E^2 pairs.** Entries stay in rank order, cut into blocks of consecutive
entries with each block's largest and smallest error per replicate and its SD range
(:mod:`~leaderboard.tiers._block_kernels`). Scores sort the t statistics: a block far above an
entry beats it as a whole, a block below cannot, and only the block or two around the boundary
need their pairs. Replicate maxima are searched block by block in order of the blocks' extreme
errors, stopping when no later block can matter; and a family's critical value is an order
statistic, so replicates whose maxima lie below a lower bound of it (from values that are always
in the family) are never searched in full. The verdicts (how many entries beat an entry at a
critical value, its strongest challenger, the tiers) are searched through a tree over the blocks
(:mod:`~leaderboard.tiers._block_tree`): O(log(E / 256)) nodes per entry on a board whose SDs
follow its scores, where scanning every block cost E^2 / 256 (160 s of the simultaneous sets at
1,000,000 entries). Memory: O(E R / 32) for the extremes, nothing E x E; time O(E R) for the
common case plus O(E log E) for the verdicts, measured by ``benchmarks/bench_rank_sets.py`` and
``benchmarks/bench_stage_memory.py``.

Boards of up to :data:`~leaderboard.tiers.closed_small.SMALL` entries take the numpy step-downs of
:mod:`~leaderboard.tiers.closed_small` instead (the same bits), so that a first run on a small
board does not compile the block searches (about 12 s of CPU) and, warm, finishes sooner;
``batch`` still selects the blocks.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np

from leaderboard.tiers._block_kernels import K, Layout, extreme_entries, sub_extremes
from leaderboard.tiers._block_searches import (best_owners, closed_layers, counts_at,
                                               marginal_owners, simultaneous_max)
from leaderboard.tiers._pair_kernels import kth
from leaderboard.tiers import closed_small
from leaderboard._threads import threaded

SUB = 32   # entries per sub-block (blocks hold K = 8 of them)


@dataclass(frozen=True)
class ShownBetterClosed:
    """The simultaneous family's verdicts for closed-form SEs: j is shown better than k iff
    ``t_jk = (point_j - point_k) / se(sd_j, sd_k) > critical_value``; nothing per pair is stored.

    Same reading as :class:`~leaderboard.tiers.shown_better.ShownBetter` (``matrix``, ``tiers``,
    ``n_unresolved``, ``critical_value``, ``point``).
    """

    point: np.ndarray
    sd: np.ndarray
    rho: float
    critical_value: float
    n_unresolved: int
    sub: int = SUB

    def matrix(self, top: int) -> np.ndarray:
        """``m[j, k]``: entry j shown better than entry k, for the first ``top`` entries."""
        top = int(top)
        p = self.point[:top]
        return (p[:, None] > p[None, :]) & (self.t(top) > self.critical_value)

    def t(self, top: int) -> np.ndarray:
        """t statistics ``t[j, k]`` of the first ``top`` entries (the numbers the verdicts use)."""
        top = int(top)
        t = closed_small.t_matrix(self.point[:top],
                                  closed_small.se_matrix(np.asarray(self.sd[:top], float), self.rho))
        np.fill_diagonal(t, 0.0)
        return t

    def tiers(self) -> np.ndarray:
        """Tier of every entry: 1 + the highest tier of the entries shown better (1 if none)."""
        if self.point.size <= closed_small.SMALL:
            return closed_small.layers(self.point, self.sd, self.rho, self.critical_value)
        blo, bhi = _ranges(self.sd, self.sub * K)
        slo, shi = _ranges(self.sd, self.sub)
        return closed_layers(self.point, self.sd, self.rho, self.critical_value, self.sub, blo,
                             bhi, slo, shi)


def _ranges(sd: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Smallest and largest SD of each group of ``size`` consecutive entries."""
    starts = np.arange(0, sd.size, size)
    return np.minimum.reduceat(sd, starts), np.maximum.reduceat(sd, starts)


_LAST: list = []   # [weakref to err, sd bytes, sub, Layout]: the three searches share one layout


def layout(err: np.ndarray, sd: np.ndarray, sub: int) -> Layout:
    """Blocks and sub-blocks of the board (see :class:`~leaderboard.tiers._block_kernels.Layout`);
    the last one is kept while its error array lives, since each search of a board needs it, and
    let go with it (a layout outliving its errors held ~125 MB per 1,000 replicates of a
    100,000-entry board through the rest of the run: issue 41)."""
    if _LAST and _LAST[0]() is err and _LAST[2] == sub and _LAST[1] == sd.tobytes():
        return _LAST[3]
    _LAST.clear()   # the old layout goes before the new one is built
    lay = _layout(err, sd, sub)
    _LAST[:] = [weakref.ref(err, _forget), sd.tobytes(), sub, lay]
    return lay


def _forget(dead: weakref.ref) -> None:
    """The kept layout's error array is gone: so is the layout."""
    if _LAST and _LAST[0] is dead:
        _LAST.clear()


def _layout(err: np.ndarray, sd: np.ndarray, sub: int) -> Layout:
    n, n_rep = err.shape
    bs, nsub = sub * K, -(-n // sub)
    nb = -(-n // bs)
    # computed group-major, stored replicate-major (a search walks one replicate's groups)
    # the extremes' holders as int32 and the runners-up as float32 (their stored forms: the
    # holders index entries, the runners-up are rounded outward by the kernel): a third less
    # memory than float64 and int64 while the layout is built
    sub_z = [np.empty((nsub, n_rep)) for _ in range(2)] + [
        np.empty((nsub, n_rep), np.float32) for _ in range(2)]
    sub_a = [np.empty((nsub, n_rep), np.int32) for _ in range(2)]
    threaded(sub_extremes, nsub, err, sd, sub, sub_z[0], sub_z[1], sub_a[0], sub_a[1],
             sub_z[2], sub_z[3])
    # a block is K whole sub-blocks: its extremes are theirs, no second pass over the errors
    starts = np.arange(0, nsub, K)
    bzmax, bzmin = np.maximum.reduceat(sub_z[0], starts), np.minimum.reduceat(sub_z[1], starts)
    suf, pre = np.empty((nb, n_rep), np.int64), np.empty((nb, n_rep), np.int64)
    suf_e, pre_e = np.empty((nb, n_rep)), np.empty((nb, n_rep))
    extreme_entries(err, bzmax, bzmin, sub_z[0], sub_z[1], sub_a[0], sub_a[1], suf, pre, suf_e,
                    pre_e)
    bzmax, bzmin = np.ascontiguousarray(bzmax.T), np.ascontiguousarray(bzmin.T)
    om = np.ascontiguousarray(np.argsort(-bzmax, axis=1, kind="stable"))
    on = np.ascontiguousarray(np.argsort(bzmin, axis=1, kind="stable"))
    rows = np.arange(n_rep)
    first = []
    for order, z, none in ((om, bzmax, -np.inf), (on, bzmin, np.inf)):
        nxt = z[rows, order[:, 1]] if nb > 1 else np.full(n_rep, none)
        first.append(np.column_stack([order[:, 0], z[rows, order[:, 0]], nxt]))
    # each replicate's block z kept in its walk order, so that a walk reads them one after
    # another, not at random across a row of nb (issue 41)
    bzmax, bzmin = np.take_along_axis(bzmax, om, axis=1), np.take_along_axis(bzmin, on, axis=1)
    # sub-block z only bounds values, so float32 rounded outward will do (half the memory). The
    # eight replicate-major parts are made one at a time, each straight into its transposed
    # float32 or int32 array, and each float64 or int64 source is let go once nothing more is
    # made from it: the build holds the sources and one part's rounding mask beside the parts
    # (its rise at 100,000 entries and 2,000 replicates went from 0.4-0.55 GB to 0.2 GB: issue 41)
    z_left, a_left = dict(enumerate(sub_z)), dict(enumerate(sub_a))   # popped as they are used
    del sub_z, sub_a
    subs = [_outward_t(z_left.pop(0), 1), _outward_t(z_left.pop(1), -1)]
    subs += [np.ascontiguousarray(a_left.pop(k).T) for k in range(2)]
    rows = np.arange(n_rep)[:, None]
    subs += [err[subs[2], rows], err[subs[3], rows]]   # the holders' errors
    subs += [np.ascontiguousarray(z_left.pop(k).T) for k in (2, 3)]
    blo, bhi = _ranges(sd, bs)
    slo, shi = _ranges(sd, sub)
    szmax, szmin, samax, samin, semax, semin, sz2max, sz2min = subs
    return Layout(om, on, bzmax, bzmin, first[0], first[1], suf, pre, suf_e, pre_e, szmax,
                  szmin, samax, samin, semax, semin, sz2max, sz2min, blo, bhi, slo, shi)


def _outward_t(z: np.ndarray, way: int) -> np.ndarray:
    """float32 copy of ``z.T`` (C-contiguous) rounded up (way = 1) or down (-1), so that bounds
    stay bounds; rounded in place in its own array (no float32 copy of ``z`` beside it)."""
    out = np.empty(z.shape[::-1], dtype=np.float32)
    np.copyto(out, z.T, casting="same_kind")
    off = out < z.T if way > 0 else out > z.T
    out[off] = np.nextafter(out[off], np.float32(np.inf * way))
    return out


def _sub(batch: int | None) -> int:
    """Entries per sub-block: ``batch`` (rows per tile elsewhere) sets it, for tests of the
    bounds; it changes speed only."""
    return SUB if batch is None else max(1, int(batch) // K)


def _small(n: int, batch: int | None) -> bool:
    """A small board takes the numpy step-downs (:mod:`~leaderboard.tiers.closed_small`), whose
    answers are the kernels' bits, unless a test asks for blocks of ``batch``."""
    return batch is None and n <= closed_small.SMALL


def simultaneous(err, point, sd, rho, kq, batch=None):
    """Simultaneous step-down over all ordered pairs: (beats, beaten, rounds, c, first-round
    rejections, ShownBetterClosed)."""
    n, n_rep = err.shape
    if _small(n, batch):
        beats, beaten, steps, c, first = closed_small.simultaneous(err, point, sd, rho, kq)
        below = np.r_[0, np.flatnonzero(np.diff(point) < 0) + 1]
        higher = np.repeat(below, np.diff(np.r_[below, n]))
        rel = ShownBetterClosed(point, sd, rho, c, int((higher - beaten).sum()))
        return beats, beaten, steps, c, first, rel
    sub = _sub(batch)
    lay = layout(err, sd, sub)
    a_all = (1 + 1e-9) / np.sqrt(1 - rho ** 2)   # s_a / se_ab <= 1 / sqrt(1 - rho^2)
    m, work = np.empty(n_rep), np.empty(n_rep)
    args = np.full((n_rep, 2), -1, dtype=np.int64)
    counts = np.zeros((n, 2), dtype=np.int64)
    c_prev, done, steps, first = np.inf, -1, 0, None
    while True:
        threaded(simultaneous_max, n_rep, err, point, sd, rho, sub, lay, c_prev, a_all, m, args)
        c = float(kth(m, kq - 1, work))
        steps += 1
        threaded(counts_at, n, point, sd, rho, sub, lay.blo, lay.bhi, lay.slo, lay.shi, c, counts)
        total = int(counts[:, 0].sum())
        first = total if first is None else first
        if total == done:
            break
        done, c_prev = total, c
    below = np.r_[0, np.flatnonzero(np.diff(point) < 0) + 1]   # start of each tie group
    higher = np.repeat(below, np.diff(np.r_[below, n]))        # entries scoring strictly higher
    rel = ShownBetterClosed(point, sd, rho, c, int((higher - counts[:, 1]).sum()), sub)
    return counts[:, 0], counts[:, 1], steps, c, first, rel


def marginal(err, point, sd, rho, kq, batch=None):
    """Each entry's own step-down: (beats, beaten, rounds, critical values, first-round
    rejections)."""
    n = err.shape[0]
    if _small(n, batch):
        return closed_small.marginal(err, point, sd, rho, kq)
    sub = _sub(batch)
    lay = layout(err, sd, sub)
    out = np.zeros((n, 5))
    threaded(marginal_owners, n, err, point, sd, rho, sub, lay, float(sd.min()),
             float(sd.max()), kq, out)
    return (out[:, 0].astype(np.int64), out[:, 1].astype(np.int64), int(out[:, 2].max()),
            out[:, 3].copy(), int(out[:, 4].sum()))


def best(err, point, sd, rho, kq, batch=None) -> np.ndarray:
    """The max-t test of every entry's one-sided family: True where the entry is kept."""
    n = err.shape[0]
    if _small(n, batch):
        return closed_small.best(err, point, sd, rho, kq)
    sub = _sub(batch)
    lay = layout(err, sd, sub)
    out = np.zeros((n, 3))
    threaded(best_owners, n, err, point, sd, rho, sub, lay, float(sd.min()), float(sd.max()),
             lay.bzmax.max(axis=1), kq, out)
    return out[:, 0] > 0
