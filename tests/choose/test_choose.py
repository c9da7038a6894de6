"""Tests of leaderboard.choose: the pair to select and the Ladder check (the corrected estimates
are tested in test_choose_shrinkage.py).

References are independent of the code under test: Clark's closed form of E max(X, Y) and a plain
Monte Carlo loop for the pair search, and simulations with known truth (tolerances are 3-4 Monte
Carlo standard errors).
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import norm

from leaderboard.choose import candidate_posterior, choose_pair, ladder_check
from leaderboard.choose import pairs as pairs_module

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_choose.py"


def equicorrelated(sd, rho):
    sd = np.asarray(sd, dtype=float)
    return rho * np.outer(sd, sd) + (1 - rho) * np.diag(sd ** 2)


# --- pairs -------------------------------------------------------------------------------------

def family_board():
    """Two near-copies lead; the others come from other families."""
    s = np.array([0.850, 0.849, 0.845, 0.838, 0.830])
    cov = equicorrelated([0.005] * 5, 0.3)
    cov[0, 1] = cov[1, 0] = 0.95 * 0.005 ** 2
    return s, cov


def clark_expected_max(m1, m2, v1, v2, c12):
    """Clark (1961): E max(X, Y) for a bivariate normal."""
    theta = np.sqrt(v1 + v2 - 2 * c12)
    a = (m1 - m2) / theta
    return m1 * norm.cdf(a) + m2 * norm.cdf(-a) + theta * norm.pdf(a)


def test_expected_best_of_two_matches_clark():
    s, cov = family_board()
    post = candidate_posterior(s, cov, True)
    private = cov / 5
    choice = choose_pair(post, private, True, draws=8000, seed=2)
    pred = post.cov + private
    for i in range(5):
        for j in range(i + 1, 5):
            ref = clark_expected_max(post.mean[i], post.mean[j], pred[i, i], pred[j, j],
                                     pred[i, j])
            # MC SE of the spread term E|p_i - p_j| / 2, from its half-normal-like variance.
            se = np.sqrt(pred[i, i] + pred[j, j] - 2 * pred[i, j]) / 2 / np.sqrt(choice.draws)
            assert abs(choice.pair_expected[i, j] - ref) < 4 * se


def naive_shares(post, private, margin, draws, seed):
    """Plain loop over draws with numpy's own multivariate normal sampler."""
    rng = np.random.default_rng(seed)
    k = post.mean.size
    theta = rng.multivariate_normal(post.mean, post.cov, size=draws)
    p = theta + rng.multivariate_normal(np.zeros(k), private, size=draws)
    best, true_best, pair = np.zeros(k), np.zeros(k), np.zeros((k, k))
    for r in range(draws):
        best[np.argmax(p[r])] += 1
        true_best[np.argmax(theta[r])] += 1
        tier = theta[r] >= theta[r].max() - margin
        pair += np.logical_or.outer(tier, tier)
    return best / draws, true_best / draws, pair / draws


def test_shares_match_a_plain_loop():
    s, cov = family_board()
    post = candidate_posterior(s, cov, True)
    private = cov / 5
    choice = choose_pair(post, private, True, draws=6400, seed=4)
    best, true_best, pair = naive_shares(post, private, choice.margin, 6400, seed=99)
    binom_se = np.sqrt(2 * 0.25 / 6400)           # two independent estimates, p(1-p) <= 1/4
    assert np.abs(choice.p_best - best).max() < 4 * binom_se
    assert np.abs(choice.p_true_best - true_best).max() < 4 * binom_se
    assert np.abs(choice.pair_p_top_tier - pair).max() < 4 * binom_se
    assert choice.margin == pytest.approx(1.96 * np.sqrt(2) * 0.005 / np.sqrt(5))


def test_spreads_bets_across_families_and_gains():
    s, cov = family_board()
    post = candidate_posterior(s, cov, True)
    choice = choose_pair(post, cov / 10, True, draws=8000)
    assert choice.top_two_public == (0, 1)
    assert choice.recommended[0] == 0 and choice.recommended[1] != 1
    assert choice.gain_over_top_two > 4 * choice.gain_se
    i, j = choice.recommended
    assert choice.recommended_expected == pytest.approx(choice.pair_expected[i, j])
    assert choice.recommended_expected >= choice.pair_expected.max() - 1e-15


def test_results_do_not_depend_on_chunking(monkeypatch):
    s, cov = family_board()
    post = candidate_posterior(s, cov, True)
    whole = choose_pair(post, cov / 10, True, draws=3200, seed=7)
    monkeypatch.setattr(pairs_module, "CHUNK_ELEMENTS", 64)   # one block per chunk
    chunked = choose_pair(post, cov / 10, True, draws=3200, seed=7)
    for field in ("p_best", "p_true_best", "p_top_tier", "pair_expected", "pair_p_top_tier"):
        np.testing.assert_array_equal(getattr(whole, field), getattr(chunked, field))
    assert whole.gain_se == chunked.gain_se


@pytest.mark.parametrize("method", ["bayes", "reml"])
def test_tied_candidates_cannot_be_told_apart(method):
    s = np.array([0.80, 0.801, 0.799, 0.800])       # spread far below the noise: tau estimate 0
    cov = equicorrelated([0.01] * 4, 0.3)
    post = candidate_posterior(s, cov, True, method=method)
    assert post.prior_sd_estimate == 0
    choice = choose_pair(post, cov / 4, True, draws=3200)
    assert not choice.distinguishable and "noise" in choice.reason
    if method == "reml":                            # tau = 0 plugged in: true scores all equal
        np.testing.assert_allclose(choice.p_true_best, 0.25)
        np.testing.assert_allclose(choice.p_top_tier, 1.0)


def test_clear_leader_is_distinguishable_and_copies_share():
    s = np.array([0.90, 0.90, 0.80, 0.79, 0.78])
    copy = [0, 0, 2, 3, 4]                         # candidate 1 is a copy of candidate 0
    cov = equicorrelated([0.01] * 5, 0.3)[np.ix_(copy, copy)]
    post = candidate_posterior(s, cov, True)
    choice = choose_pair(post, cov / 4, True, draws=3200)
    assert choice.distinguishable
    assert set(choice.recommended) != {0, 1}       # a copy adds nothing as a second pick
    assert choice.p_best[0] == pytest.approx(choice.p_best[1])


def test_lower_is_better_choice_mirrors():
    s, cov = family_board()
    up = choose_pair(candidate_posterior(s, cov, True), cov / 10, True, draws=3200)
    down = choose_pair(candidate_posterior(-s, cov, False), cov / 10, False, draws=3200)
    assert up.recommended == down.recommended and up.safest == down.safest
    assert down.recommended_expected == pytest.approx(-up.recommended_expected)
    assert down.gain_over_top_two == pytest.approx(up.gain_over_top_two)


def test_pair_search_is_restricted():
    rng = np.random.default_rng(0)
    s = rng.normal(0.8, 0.02, 30)
    cov = equicorrelated([0.01] * 30, 0.3)
    choice = choose_pair(candidate_posterior(s, cov, True), cov, True, draws=320,
                         max_candidates=5)
    assert choice.searched.size <= 7 and choice.pair_expected.shape[0] == choice.searched.size
    assert set(choice.top_two_public) <= set(choice.searched.tolist())
    assert choice.p_best.size == 30 and choice.p_best.sum() == pytest.approx(1.0)


def test_reason_uses_names():
    s, cov = family_board()
    post = candidate_posterior(s, cov, True)
    names = ["lgbm", "lgbm-seed2", "cnn", "linear", "knn"]
    choice = choose_pair(post, cov / 10, True, draws=320, names=names)
    assert "lgbm" in choice.reason and "candidate" not in choice.reason
    with pytest.raises(ValueError, match="names"):
        choose_pair(post, cov / 10, True, draws=320, names=names[:2])


def test_choose_input_checks():
    s, cov = family_board()
    post = candidate_posterior(s, cov, True)
    with pytest.raises(ValueError, match="higher_is_better"):
        choose_pair(post, cov, False)
    with pytest.raises(ValueError, match="private_cov"):
        choose_pair(post, cov[:2, :2], True)
    with pytest.raises(ValueError, match="at least 2"):
        choose_pair(candidate_posterior(s[:1], cov[:1, :1], True), cov[:1, :1], True)
    with pytest.raises(ValueError, match="semi-definite"):
        choose_pair(post, -cov, True)


def test_simulated_teams_benchmark(monkeypatch):
    """Small run of benchmarks/bench_choose.py (known truth, n_public = 100)."""
    spec = importlib.util.spec_from_file_location("bench_choose", BENCH)
    bench = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "bench_choose", bench)   # dataclasses look their module up
    spec.loader.exec_module(bench)
    res = bench.run(100, 60, replicates=200, draws=2000, seed=0)
    # Measured at this size over seeds 0-9: true gain +0.05 to +0.20 points, positive in all ten,
    # 1.1 to 3.0 SE (so "beyond 2 SE" would not be robust with 60 teams; the full benchmark's 300
    # teams show it). The mechanism: ours spreads its two picks over two model families.
    assert res["ours_gain_true"] > 0
    assert res["ours_two_families"] > 0.8 > 0.6 > res["top2_two_families"]
    # The estimates keep their level: the mean error over every candidate is the common-mode
    # noise, zero on average (measured over seeds 0-9: -0.11 to +0.13 public SEs, SE 0.07-0.09;
    # the model before the fix drifted +0.37 +- 0.04 up on the full benchmark's teams). The
    # public leader's winner's curse is mostly removed (measured: +0.28 to +0.56 SEs left of raw
    # +1.21 to +1.52).
    assert abs(res["error_all_in_se"]) < 4 * res["error_all_in_se_se"]
    assert res["error_leader"] + 4 * res["error_leader_se"] < res["error_leader_raw"]


# --- ladder ------------------------------------------------------------------------------------

def test_ladder_by_hand():
    res = ladder_check(np.array([0.50, 0.45, 0.40, 0.41, 0.37]), np.array([1, 1, 2, 1, 1.0]) / 100,
                       False, alpha=0.05)
    z = norm.ppf(0.95)
    # 0.05 > z * 0.01 (step); 0.05 > z * 0.02 (step); 0.41 worse; 0.03 > z * 0.01 (step).
    assert res.is_step.tolist() == [False, True, True, False, True]
    assert res.best_index.tolist() == [0, 1, 2, 2, 4]
    assert res.ladder_best.tolist() == [0.50, 0.45, 0.40, 0.40, 0.37]
    assert res.margin[2] == pytest.approx(z * 0.02)
    assert res.climb == pytest.approx(0.13) and res.climb_beyond_noise == pytest.approx(0.13)
    assert res.share_within_noise == pytest.approx(0.0, abs=1e-12)


def test_ladder_matrix_form_uses_the_current_best():
    scores = np.array([0.80, 0.81, 0.815])
    sd = np.full((3, 3), 0.1)
    sd[1, 0], sd[2, 1], sd[2, 0] = 0.001, 0.001, 0.1
    res = ladder_check(scores, sd, True)
    assert res.is_step.tolist() == [False, True, True]   # 2 is tested against 1, not 0
    same = ladder_check(scores, 0.004, True)
    assert np.array_equal(same.is_step, ladder_check(scores, np.full((3, 3), 0.004), True).is_step)


def test_ladder_false_steps_under_the_null():
    """Pure noise, correlated errors: the first comparison is a step with probability alpha, and
    later ones (against a lucky ladder best) at most alpha."""
    rng = np.random.default_rng(8)
    t, n, rho, sd = 10, 4000, 0.6, 0.01
    shared = rng.standard_normal((n, 1))
    scores = 0.8 + sd * (np.sqrt(rho) * shared + np.sqrt(1 - rho) * rng.standard_normal((n, t)))
    steps = np.array([ladder_check(s, np.sqrt(2 * (1 - rho)) * sd, True).is_step for s in scores])
    se = np.sqrt(0.05 * 0.95 / n)
    assert abs(steps[:, 1].mean() - 0.05) < 4 * se
    assert steps[:, 1:].mean() < 0.05 + 3 * se / np.sqrt(t - 1)


def test_ladder_finds_real_steps():
    rng = np.random.default_rng(9)
    truth = 0.8 + 0.01 * np.arange(6)               # each a real 5-SD improvement
    hits = [ladder_check(truth + 0.002 * rng.standard_normal(6) / np.sqrt(2), 0.002, True)
            for _ in range(500)]
    assert np.mean([h.n_steps for h in hits]) > 4.9
    assert np.mean([h.share_within_noise for h in hits]) < 0.02


def test_ladder_input_checks():
    with pytest.raises(ValueError, match="sd_diff"):
        ladder_check(np.array([1.0, 2.0]), np.ones(3), True)
    with pytest.raises(ValueError, match="alpha"):
        ladder_check(np.array([1.0, 2.0]), 0.1, True, alpha=1.5)
    with pytest.raises(ValueError, match="finite"):
        ladder_check(np.array([1.0, np.nan]), 0.1, True)
