"""Issue 16 (100,000-entry boards): the block-wise ranks stage gives the numbers of the old
whole-array code (tests/scale_reference.py) on the same replicates, in bounded memory."""
import tracemalloc

import numpy as np
import pytest
from scipy.stats import rankdata

import scale_reference as ref
from leaderboard.tiers import rank_quantiles, stability
from leaderboard.tiers import winners_curse as curse_module
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


@pytest.mark.parametrize("make", [lambda: gamma_board(2000, 77), lambda: tied_board(2),
                                  lambda: gamma_board(300, 7, 0.5)])
@pytest.mark.parametrize("chunk", [None, 1, 2500])
def test_winners_curse_equals_the_whole_array_code(monkeypatch, make, chunk):
    reps = make()
    if chunk is not None:   # blocks of one replicate, or a few, wrapping around the end
        monkeypatch.setattr(curse_module, "CHUNK_ELEMENTS", chunk)
    levels, max_t = ref.winners_curse_levels(reps)
    seen = {}
    real = curse_module._curse_block

    def spy(point, safe_sd, window, r0, lv, mt):
        real(point, safe_sd, window, r0, lv, mt)
        seen["levels"], seen["max_t"] = lv, mt

    monkeypatch.setattr(curse_module, "_curse_block", spy)
    res = curse_module.winners_curse(reps)
    np.testing.assert_array_equal(seen["levels"], levels)
    np.testing.assert_array_equal(seen["max_t"], max_t)
    b1, b2, b3 = levels.mean(axis=1)
    assert res.level_biases == (b1, b2, b3)
    assert res.bias == (3 * levels[0] - 3 * levels[1] + levels[2]).mean()


def plain(p_value):
    """The same p-values without the screen: every round tests the anchor against all below."""
    return lambda anchor, others: p_value(anchor, others)


def holm_boards():
    rng = np.random.default_rng(11)
    spread = -np.sort(-rng.uniform(0, 1, 3000))
    yield RankReplicates.normal(spread, np.full(3000, 1e-3), 0.0, True, replicates=2)  # 100s of tiers
    yield gamma_board(4000, 2, correlation=0.4)
    mixed = rng.uniform(0.0, 0.02, 600)
    mixed[::50] = 0.0              # entries without noise
    mixed[-1] = 5.0                # one enormous SD at the bottom: in reach of every anchor
    yield RankReplicates.normal(-np.sort(-rng.uniform(0, 1, 600).round(2)), mixed, 0.2, True,
                                replicates=2)
    yield tied_board(4, n=300, replicates=60)                       # bootstrap, ties
    yield RankReplicates.normal(np.zeros(50), np.full(50, 0.1), 0.0, True, replicates=2)


@pytest.mark.parametrize("alpha", [0.05, 0.2])
def test_holm_tiers_with_the_screen_equal_the_full_rounds(alpha):
    from leaderboard.tiers.holm import leader_anchored_tiers, paired_p_values
    for reps in holm_boards():
        fast = leader_anchored_tiers(reps.n_entries, paired_p_values(reps), alpha)
        full = leader_anchored_tiers(reps.n_entries, plain(paired_p_values(reps)), alpha)
        np.testing.assert_array_equal(fast.tier, full.tier)
        np.testing.assert_array_equal(fast.p_vs_anchor, full.p_vs_anchor)   # NaNs alike


def test_holm_screen_keeps_every_entry_it_cannot_rule_out():
    from leaderboard.tiers.holm import paired_p_values
    for reps in holm_boards():
        pv = paired_p_values(reps)
        level = 0.05 / max(1, reps.n_entries - 1)
        for anchor in range(0, reps.n_entries - 1, max(1, reps.n_entries // 25)):
            others = np.arange(anchor + 1, reps.n_entries)
            cand = pv.candidates(anchor, level)
            left_out = np.setdiff1d(others, cand)
            assert (pv(anchor, left_out) <= level).all()
            assert np.array_equal(cand, np.sort(cand))


def shakeup_case(n, replicates, correlation, seed, ties=False):
    from leaderboard.shakeup import NoiseDraws, shakeup_stats
    rng = np.random.default_rng(seed)
    truth = rng.uniform(0.7, 0.9, n)
    if ties:
        truth = truth.round(2)
    public = truth + 0.01 * rng.standard_normal(n)
    private = truth + 0.005 * rng.standard_normal(n)
    sd_pub = np.where(rng.uniform(size=n) < 0.05, 0.0, 0.01) if ties else np.full(n, 0.01)
    draws = NoiseDraws.normal(truth, sd_pub, 0.005, True, correlation=correlation,
                              replicates=replicates, seed=seed)
    return draws, shakeup_stats(public, private, True), public, private


@pytest.mark.parametrize("n,replicates,correlation,ties", [(400, 100, 0.0, False),
                                                          (3000, 70, 0.5, False),
                                                          (250, 45, 0.2, True)])
def test_noise_baseline_from_redrawn_blocks_equals_the_whole_arrays(n, replicates, correlation,
                                                                     ties):
    from leaderboard.shakeup import NoiseDraws, overfit_test, shakeup_baseline
    draws, observed, public, private = shakeup_case(n, replicates, correlation, 4, ties)
    arrays = NoiseDraws(truth=draws.truth, public_errors=np.array(draws.public_errors),
                        private_errors=np.array(draws.private_errors), sign=1.0, source="x")
    old = ref.shakeup_baseline_arrays(arrays, observed)
    # Tied public scores (entries without noise sharing a true score) held their places in
    # numpy's quicksort order before; now in index order, as a stable sort gives them.
    stable = ref.shakeup_baseline_arrays(arrays, observed, kind="stable")
    if not ties:
        np.testing.assert_array_equal(stable["band"], old["band"])
    for d in (draws, arrays):
        for batch in (None, 7):
            new = shakeup_baseline(d, observed, batch=batch)
            np.testing.assert_array_equal(new.spearman, old["spearman"])
            np.testing.assert_array_equal(new.mean_abs_rank_change, old["mean_abs"])
            np.testing.assert_array_equal(new.mean_abs_rank_change_top10, old["mean_abs_top"])
            np.testing.assert_array_equal(new.winner_public_ranks, old["winners"])
            np.testing.assert_array_equal(new.kendall, old["kendall"])
            np.testing.assert_array_equal(new.private_rank_given_public_place, stable["band"])
        test = overfit_test(public, private, d, True)
        sd_gap, null = ref.overfit_null_arrays(arrays, test.top_size)
        np.testing.assert_array_equal(test.sd_gap, sd_gap)
        np.testing.assert_array_equal(test.null, null)


def test_noise_baseline_place_band_survives_clipped_offsets(monkeypatch):
    from leaderboard.shakeup import shakeup_baseline
    draws, observed, _, _ = shakeup_case(600, 64, 0.0, 9)
    expected = shakeup_baseline(draws, observed).private_rank_given_public_place
    monkeypatch.setattr(rank_quantiles, "OFFSET_LIMIT", 1)
    np.testing.assert_array_equal(shakeup_baseline(draws, observed).private_rank_given_public_place,
                                  expected)


@pytest.mark.parametrize("seed", range(3))
def test_posterior_means_in_place_equal_the_old_temporaries(seed):
    from leaderboard.shakeup.truth import estimate_truth
    rng = np.random.default_rng(seed)
    x = rng.uniform(0.6, 0.9, 700).round(3)
    sd = rng.uniform(0.0, 0.02, 700)
    sd[:5] = 0.0
    np.testing.assert_array_equal(estimate_truth(x, sd), ref.posterior_means(x, np.asarray(sd)))
