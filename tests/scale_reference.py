"""The ranks stage as it was before issue 16 (100,000-entry boards), kept as references.

The package's versions work in blocks and bounded memory; these hold whole (E, R) arrays, as the
old code did, and must give the same numbers on the same :class:`RankReplicates`. The tests
(tests/engine/test_scale.py) compare the two on small boards; benchmarks/bench_scale_scores.py times
them against the package's to print the old-code ratios. Not part of the package.
"""
from __future__ import annotations

import numpy as np

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


def _min_ranks(block, out):
    """Rank each row of ``block``: 1 + number of strictly larger values. numpy (it was a
    parallel numba kernel, 3-4 s of compiling in every fresh test run): each row sorted
    descending, every member of a run of equal values gets the run's first position."""
    n_rep, n = block.shape
    order = np.argsort(-block, axis=1, kind="stable")
    ordered = np.take_along_axis(block, order, axis=1)
    pos = np.broadcast_to(np.arange(n), (n_rep, n))
    starts = np.where(np.c_[np.ones((n_rep, 1), bool), ordered[:, 1:] != ordered[:, :-1]], pos, 0)
    np.put_along_axis(out, order, np.maximum.accumulate(starts, axis=1) + 1, axis=1)


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


def board_ranks(scores, kind=None):
    """(As it was: numpy's argsort, ``kind`` None its quicksort.) Ranks of each row of ``scores`` (shape (c, n), higher is better).

    Returns the "min" ranks (int32: 1 + the number strictly better), the average ranks (float, for
    Spearman) and the order of each row, best first.
    """
    c, n = scores.shape
    order = np.argsort(-scores, axis=1, kind=kind)
    ordered = np.take_along_axis(scores, order, axis=1)
    new_group = np.ones((c, n), dtype=bool)
    np.not_equal(ordered[:, 1:], ordered[:, :-1], out=new_group[:, 1:])
    positions = np.arange(n, dtype=np.int32)
    min_rank = np.empty((c, n), dtype=np.int32)
    if new_group.all():  # no ties (the usual case): place = position, average rank = min rank
        np.put_along_axis(min_rank, order, np.broadcast_to(positions + 1, (c, n)), axis=1)
        return min_rank, min_rank.astype(float), order
    first = np.maximum.accumulate(np.where(new_group, positions, 0), axis=1)
    np.put_along_axis(min_rank, order, first + 1, axis=1)
    group_end = np.ones((c, n), dtype=bool)
    group_end[:, :-1] = new_group[:, 1:]
    last = np.minimum.accumulate(np.where(group_end, positions, n - 1)[:, ::-1], axis=1)[:, ::-1]
    avg = np.empty((c, n))
    np.put_along_axis(avg, order, (first + last) / 2 + 1, axis=1)
    return min_rank, avg, order


def shakeup_baseline_arrays(draws, observed, batch=None, kind=None):
    """The noise baseline's per-replicate statistics and place band as they were: from the
    whole (E, R) error arrays, every private rank by public place kept, np.quantile over them."""
    from leaderboard.shakeup.observed import row_pearson, tau_b_rows, top_count
    pub_all, priv_all = draws.public_errors, draws.private_errors
    e, r = pub_all.shape
    batch = batch or max(1, (1 << 20) // e)
    top = top_count(e, observed.top_fraction)
    out = {k: np.empty(r) for k in ("spearman", "mean_abs", "mean_abs_top", "kendall")}
    out["winners"] = np.empty(r, dtype=np.int32)
    by_place = np.empty((e, r), dtype=np.int32)
    for r0 in range(0, r, batch):
        cols = slice(r0, min(r0 + batch, r))
        public = draws.truth + pub_all[:, cols].T
        private = draws.truth + priv_all[:, cols].T
        pub_rank, pub_avg, pub_order = board_ranks(public, kind)
        priv_rank, priv_avg, _ = board_ranks(private, kind)
        out["spearman"][cols] = row_pearson(pub_avg, priv_avg)
        moved = np.abs(pub_rank - priv_rank)
        out["mean_abs"][cols] = moved.mean(axis=1) / e
        in_top = priv_rank <= top
        out["mean_abs_top"][cols] = (moved * in_top).sum(axis=1) / in_top.sum(axis=1) / e
        out["winners"][cols] = np.where(priv_rank == 1, pub_rank, e + 1).min(axis=1)
        by_place[:, cols] = np.take_along_axis(priv_rank, pub_order, axis=1).T
        taus = np.empty(pub_rank.shape[0])
        xy_order = np.argsort(pub_rank.astype(np.int64) * (e + 1) + priv_rank, axis=1)
        tau_b_rows(pub_rank, priv_rank, xy_order, taus)
        out["kendall"][cols] = taus
    out["band"] = np.quantile(by_place, [0.025, 0.5, 0.975], axis=1,
                              method="inverted_cdf").astype(np.int32)
    return out


def overfit_null_arrays(draws, top, batch=None):
    """The overfitting test's gap SDs and null statistics from the whole error arrays."""
    pub_all, priv_all = draws.public_errors, draws.private_errors
    e, r = pub_all.shape
    batch = batch or max(1, (1 << 20) // e)
    sd_gap = np.std(pub_all - priv_all, axis=1, ddof=1)
    safe = np.where(sd_gap > 0, sd_gap, 1.0)
    null = np.empty(r)
    for r0 in range(0, r, batch):
        cols = slice(r0, min(r0 + batch, r))
        pub_err = pub_all[:, cols].T
        gap = pub_err - priv_all[:, cols].T
        centred = gap - np.median(gap, axis=-1, keepdims=True)
        sim_z = np.where(sd_gap > 0, centred / safe, 0.0)
        sim_leaders = np.argpartition(-(draws.truth + pub_err), top - 1, axis=1)[:, :top]
        null[cols] = np.take_along_axis(sim_z, sim_leaders, axis=1).mean(axis=1)
    return sd_gap, null


def posterior_means(x, sd, grid_points=200, iterations=300):
    """estimate_truth's posterior means as they were, with every temporary."""
    lo, hi = float(x.min()), float(x.max())
    half = grid_points // 2
    grid = np.unique(np.r_[np.linspace(lo, hi, half), np.quantile(x, np.linspace(0, 1, half))])
    sd = np.maximum(sd, 1e-9 * (hi - lo))
    z2 = ((x[:, None] - grid[None, :]) / sd[:, None]) ** 2
    log_lik = 0.5 * (z2 - z2.min(axis=1, keepdims=True))
    lik = np.exp(-log_lik)
    lik[log_lik > 700] = 0.0
    weights = np.full(grid.size, 1.0 / grid.size)
    for _ in range(iterations):
        weights *= lik.T @ (1.0 / np.maximum(lik @ weights, 1e-300)) / x.size
        weights[weights < 1e-200] = 0.0
    post = lik * weights
    return post @ grid / post.sum(axis=1)
