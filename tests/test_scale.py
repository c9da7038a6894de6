"""Issue 16 (100,000-entry boards): the block-wise ranks stage gives the numbers of the old
whole-array code (tests/scale_reference.py) on the same replicates, in bounded memory."""
import tracemalloc

import numpy as np
import pytest
from scipy.stats import rankdata

import scale_reference as ref
from leaderboard.tiers import rank_quantiles, stability
from leaderboard.tiers.replicates import RankReplicates, all_finite
from leaderboard.tiers.stability import (kendall_taus, rank_frequencies, rank_probabilities,
                                         resampled_ranks)


def gamma_board(n, replicates=200, correlation=0.0, seed=0):
    """The benchmark's board: AUC-like scores, dense near the top, rounded to 5 decimals."""
    rng = np.random.default_rng(seed)
    scores = -np.sort(-np.clip(0.93 - rng.gamma(2.0, 0.03, size=n), 0.5, 1.0).round(5))
    sd = 0.004 + 0.01 * (1 - scores)
    return RankReplicates.normal(scores, sd, correlation, True, replicates=replicates, seed=seed)


def tied_board(seed, n=40, replicates=150):
    """Coarse scores and errors (float64, bootstrap-like), so ranks tie often."""
    rng = np.random.default_rng(seed)
    point = -np.sort(-rng.integers(0, 4, n)).astype(float)
    errors = rng.integers(-2, 3, (n, replicates)).astype(float)
    return RankReplicates(point=point, errors=errors, sd=errors.std(axis=1, ddof=1),
                          correlation=None, sign=1.0, source="test")


@pytest.mark.parametrize("correlation", [0.0, 0.6])
def test_normal_errors_are_todays_draws_in_float32(correlation):
    point = -np.sort(-np.random.default_rng(1).uniform(0.6, 0.9, 300))
    sd = np.linspace(0.001, 0.03, 300)
    reps = RankReplicates.normal(point, sd, correlation, True, replicates=101, seed=5)
    assert reps.errors.dtype == np.float32 and reps.errors.flags.c_contiguous
    old = ref.normal_errors(point, sd, correlation, 101, 5)
    np.testing.assert_array_equal(reps.errors, old.astype(np.float32))


def test_normal_errors_make_no_full_size_temporary():
    n, r = 20000, 256
    point = np.linspace(0.9, 0.6, n)
    tracemalloc.start()
    RankReplicates.normal(point, np.full(n, 0.01), 0.3, True, replicates=r, seed=0)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    final = n * r * 4
    # the float32 array and one block of float64 draws (32 x E, a few copies), nothing E x R more
    assert peak < final + 8 * 32 * n * 8


def test_all_finite_checks_every_block():
    values = np.zeros((50, 7), dtype=np.float32)
    assert all_finite(values, chunk_elements=7)
    values[49, 6] = np.inf
    assert not all_finite(values, chunk_elements=7)


@pytest.mark.parametrize("make", [lambda: gamma_board(3000, 130), lambda: gamma_board(500, 64, 0.7),
                                  lambda: tied_board(0), lambda: tied_board(1, n=7, replicates=9)])
def test_stability_equals_the_whole_array_code(make):
    reps = make()
    k = min(3, reps.n_entries)
    new = stability.stability(reps, [1, k], min(20, reps.n_entries))
    old = ref.rank_probabilities(reps, [1, k])
    for got in (new.probabilities, rank_probabilities(reps, [1, k])):
        np.testing.assert_array_equal(got.p_best, old.p_best)
        for key in (1, k):
            np.testing.assert_array_equal(got.p_top[key], old.p_top[key])
        np.testing.assert_array_equal(got.median_rank, old.median_rank)
        np.testing.assert_array_equal(got.rank_percentiles, old.rank_percentiles)
        assert got.median_rank.dtype == old.median_rank.dtype
    np.testing.assert_array_equal(new.taus, ref.kendall_taus(reps))
    np.testing.assert_array_equal(kendall_taus(reps), new.taus)
    top = min(20, reps.n_entries)
    np.testing.assert_array_equal(new.frequencies, ref.rank_frequencies(reps, top))
    np.testing.assert_array_equal(rank_frequencies(reps, top), new.frequencies)


def test_ranks_match_scipy_on_float32_errors():
    reps = gamma_board(2000, 40)
    naive = rankdata(-(reps.point[:, None] + reps.errors.astype(float)), method="min", axis=0)
    np.testing.assert_array_equal(resampled_ranks(reps), naive)


@pytest.mark.parametrize("limit", [0, 2, 25])
def test_clipped_rank_offsets_are_ranked_again_exactly(monkeypatch, limit):
    """Offsets past the int16 range happen only beyond 32,768 entries; a tiny limit makes every
    path run on a small board (limit 0: every entry needs the second pass)."""
    reps = gamma_board(1500, 90, seed=3)
    old = ref.rank_probabilities(reps, [3], level=0.9)
    monkeypatch.setattr(rank_quantiles, "OFFSET_LIMIT", limit)
    monkeypatch.setattr(rank_quantiles, "EXACT_ELEMENTS", 90 * 400)   # several groups
    monkeypatch.setattr(rank_quantiles, "SELECT_ELEMENTS", 90 * 333)  # several blocks
    new = rank_probabilities(reps, [3], level=0.9)
    np.testing.assert_array_equal(new.median_rank, old.median_rank)
    np.testing.assert_array_equal(new.rank_percentiles, old.rank_percentiles)
    np.testing.assert_array_equal(new.p_top[3], old.p_top[3])
