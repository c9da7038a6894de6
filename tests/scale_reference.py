"""The ranks stage as it was before issue 16 (100,000-entry boards), kept as references.

The package's versions work in blocks and bounded memory; these hold whole (E, R) arrays, as the
old code did, and must give the same numbers on the same :class:`RankReplicates`. The tests
(tests/test_scale.py) compare the two on small boards; benchmarks/bench_scale_scores.py times
them against the package's to print the old-code ratios. Not part of the package.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from leaderboard.noise.rng import BLOCK, block_rng
from leaderboard.tiers.replicates import STREAM
from leaderboard.tiers.stability import RankProbabilities, _tau_b

CHUNK_ELEMENTS = 1 << 21


def normal_errors(point, sd, correlation, replicates, seed):
    """``RankReplicates.normal``'s errors as they were: float64, through full-size arrays."""
    point, sd = np.asarray(point, dtype=float), np.asarray(sd, dtype=float)
    blocks = []
    for b in range(-(-int(replicates) // BLOCK)):
        rng = block_rng(seed, STREAM, b)
        shared = rng.standard_normal(BLOCK)
        own = rng.standard_normal((BLOCK, point.size))
        blocks.append(np.sqrt(correlation) * shared[:, None] + np.sqrt(1 - correlation) * own)
    z = np.vstack(blocks)[:replicates].T
    return sd[:, None] * z


@njit(cache=True, parallel=True)
def _min_ranks(block, out):
    """Rank each row of ``block``: 1 + number of strictly larger values (numba's argsort)."""
    n_rep, n = block.shape
    for r in prange(n_rep):
        row = block[r]
        order = np.argsort(row)
        p = n - 1
        while p >= 0:
            q = p
            while q > 0 and row[order[q - 1]] == row[order[p]]:
                q -= 1
            for t in range(q, p + 1):
                out[r, order[t]] = n - p
            p = q - 1


def _rank_blocks(reps):
    n_entries, n_rep = reps.errors.shape
    step = max(1, CHUNK_ELEMENTS // n_entries)
    errors = np.asarray(reps.errors, dtype=float)
    for r0 in range(0, n_rep, step):
        block = np.ascontiguousarray((reps.point[:, None] + errors[:, r0:r0 + step]).T)
        out = np.empty(block.shape, dtype=np.int32)
        _min_ranks(block, out)
        yield r0, out


def rank_probabilities(reps, top_k=(), level=0.95):
    """All (E, R) ranks kept, then partitioned."""
    n_entries, n_rep = reps.errors.shape
    ks = sorted({int(k) for k in top_k})
    ranks = np.empty((n_entries, n_rep), dtype=np.int32)
    credit = np.zeros(n_entries)
    in_top = {k: np.zeros(n_entries, dtype=np.int64) for k in ks}
    for r0, block in _rank_blocks(reps):
        ranks[:, r0:r0 + block.shape[0]] = block.T
        best = block == 1
        credit += (best / best.sum(axis=1, keepdims=True)).sum(axis=0)
        for k in ks:
            in_top[k] += np.count_nonzero(block <= k, axis=0)
    qs = [(1 - level) / 2, 0.5, (1 + level) / 2]
    idx = [min(n_rep - 1, max(0, int(np.ceil(q * n_rep - 1e-9)) - 1)) for q in qs]
    part = np.partition(ranks, sorted(set(idx)), axis=1)
    return RankProbabilities(p_best=credit / n_rep, p_top={k: in_top[k] / n_rep for k in ks},
                             median_rank=part[:, idx[1]],
                             rank_percentiles=part[:, [idx[0], idx[2]]], level=float(level),
                             n_replicates=n_rep)


def kendall_taus(reps):
    order = np.argsort(-reps.point, kind="stable")
    xs = reps.point[order]
    run_starts = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1], True]).astype(np.int64)
    sizes = np.diff(run_starts)
    x_ties = int((sizes * (sizes - 1) // 2).sum())
    taus = np.empty(reps.n_replicates)
    for r0, block in _rank_blocks(reps):
        out = np.empty(block.shape[0])
        _tau_b(np.ascontiguousarray(block[:, order]), run_starts, x_ties, out)
        taus[r0:r0 + out.size] = out
    return taus


def rank_frequencies(reps, top):
    counts = np.zeros(top * (top + 1), dtype=np.int64)
    offsets = np.arange(top) * (top + 1)
    for _, block in _rank_blocks(reps):
        cols = np.minimum(block[:, :top], top + 1) - 1
        counts += np.bincount((cols + offsets).ravel(), minlength=counts.size)
    return counts.reshape(top, top + 1)


def _selected_errors(truth, errors):
    scores = (truth if truth.ndim == 2 else truth[:, None]) + errors
    top = scores == scores.max(axis=0)
    return (errors * top).sum(axis=0) / top.sum(axis=0)


def winners_curse_levels(reps, shifts=3):
    """The winner's curse's per-replicate selected errors and maxima, from a float64 copy of
    every error (chunks of replicates gathered with fancy indexing)."""
    point = np.asarray(reps.point, dtype=float)
    errors = np.asarray(reps.errors, dtype=float)
    sd = np.asarray(reps.sd, dtype=float)
    n_entries, n_rep = errors.shape
    step = max(1, CHUNK_ELEMENTS // n_entries)
    safe_sd = np.where(sd > 0, sd, 1.0)
    levels = np.zeros((3, n_rep))
    max_t = np.empty(n_rep)
    for r0 in range(0, n_rep, step):
        cols = np.arange(r0, min(r0 + step, n_rep))
        e = errors[:, cols]
        levels[0, cols] = _selected_errors(point, e)
        for j in range(1, shifts + 1):
            once = point[:, None] + errors[:, (cols + j) % n_rep]
            levels[1, cols] += _selected_errors(once, e) / shifts
            twice = once + errors[:, (cols + shifts + j) % n_rep]
            levels[2, cols] += _selected_errors(twice, e) / shifts
        max_t[cols] = (e / safe_sd[:, None]).max(axis=0)
    return levels, max_t
