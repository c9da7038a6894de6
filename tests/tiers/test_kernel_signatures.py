"""One compiled version per kernel where the inputs allow one (issue 27): numba compiles a
kernel again for each distinct argument type, so a Fortran-ordered or read-only copy of the same
numbers, int32 instead of int64 indices, or a constant True passed from compiled code (a type of
its own, ``Literal[bool]``) each cost a compilation on a user's first run and in every test
worker. The call sites hand the kernels one canonical form; these checks feed them the forms
that used to leak through (a bootstrap's Fortran-ordered replicates, pandas' read-only arrays,
stored int32 pairs) and look at every version compiled in this process, whichever test ran first.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from numba import types

from leaderboard.noise import _curve_kernels
from leaderboard.noise.curves import point_curves, resampled_curves
from leaderboard.tiers import RankReplicates, _pair_kernels, _rank_kernel, replicates, shown_better
from leaderboard.tiers.best_set import best_set
from leaderboard.tiers.closed_small import SMALL
from leaderboard.tiers.rank_sets import rank_confidence_sets
from leaderboard.tiers.stability import rank_probabilities
from leaderboard.tiers.winners_curse import winners_curse


def _bootstrap_board(n=12, r=64, seed=0):
    rng = np.random.default_rng(seed)
    point = np.sort(rng.uniform(0.7, 0.8, n))[::-1]
    draws = np.asfortranarray(point[:, None] + rng.normal(0, 0.01, (n, r)))   # as a bootstrap
    return RankReplicates.from_bootstrap(point, draws, True)


def _compiled(kernel) -> set:
    """Every version of ``kernel`` compiled here or kept in numba's cache for this source (a
    kernel called only from compiled code and loaded with its caller from the cache is not
    compiled in this process: its cache index still lists what its callers compiled)."""
    kept = {key[0] for key in kernel._cache._cache_file._load_index()}
    found = set(kernel.signatures) | kept
    assert found, f"{kernel} never compiled"
    return found


def _arrays(sig):
    return [a for a in sig if isinstance(a, types.Array)]


def test_pair_tiles_compile_their_helpers_once():
    reps = _bootstrap_board()
    for simultaneous in (True, False):
        rank_confidence_sets(reps, simultaneous=simultaneous, batch=4)   # several tiles
    best_set(reps)
    for sig in _compiled(_pair_kernels._side):
        assert not isinstance(sig[15], types.Literal), sig          # own_a: a run-time bool
    for kernel, index_args in ((_pair_kernels._se4, slice(4, 9)),
                               (_pair_kernels._near_into, slice(2, 4))):
        for sig in _compiled(kernel):
            assert all(t == types.int64 for t in sig[index_args]), (kernel, sig)


def test_unresolved_pairs_take_int32_pairs_from_either_step_down():
    reps = _bootstrap_board()
    rank_confidence_sets(reps)            # boot_small's numpy step-down: int64 pairs, strided
    rank_confidence_sets(reps, batch=4)   # the pair tiles: stored int32 pairs
    for sig in _compiled(shown_better._unresolved_csr):
        assert all(a.dtype == types.int32 and a.layout == "C" for a in sig[1:3]), sig


def test_gathers_and_walks_read_c_ordered_rows():
    reps = _bootstrap_board(n=SMALL + 8)   # a small board's ranks and curse are numpy's
    rank_probabilities(reps, top_k=(3,))
    winners_curse(reps)
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 300)
    resampled_curves(y, [y + rng.normal(size=300)], replicates=40, seed=2)
    point_curves(y, y + rng.normal(size=300))
    for kernel in (_rank_kernel._gather_tiles, _curve_kernels._walk_rows):
        for sig in _compiled(kernel):
            assert all(a.layout == "C" for a in _arrays(sig)), (kernel, sig)
    # unit weights go as the bootstrap's byte counts do: one walk for both
    assert {sig[0].dtype for sig in _compiled(_curve_kernels._walk_rows)} <= {
        types.uint8, types.float64}


def test_normal_replicates_take_read_only_and_strided_sds():
    n = SMALL + 1   # past the boards whose replicates numpy writes
    table = pd.DataFrame({"sd": np.linspace(0.01, 0.03, n)})
    for sd in (table["sd"].to_numpy(), np.broadcast_to(0.02, n), np.linspace(0.01, 0.03, n)):
        RankReplicates.normal(np.linspace(0.9, 0.7, n), sd, 0.0, True, replicates=8)
    for sig in _compiled(replicates._write_block):
        assert all(a.layout == "C" and a.mutable for a in _arrays(sig)), sig


def test_replicate_walks_take_run_time_counts():
    """The marginal and best sets' walks (``side_max``) take a list of replicates and its length
    counted at run time: a count that starts at a literal 0 compiled them a second time for
    ``Literal[int](0)`` (issue 41)."""
    from leaderboard.tiers import _block_walks

    rng = np.random.default_rng(3)
    point = np.sort(rng.uniform(0.7, 0.8, 40))[::-1]
    reps = RankReplicates.normal(point, np.linspace(0.01, 0.02, 40), 0.3, True, replicates=32)
    rank_confidence_sets(reps, simultaneous=False, batch=8)   # the block searches, not numpy's
    best_set(reps, batch=8)
    for sig in _compiled(_block_walks.side_max):
        assert sig[2] == types.int64 and not isinstance(sig[2], types.Literal), sig
