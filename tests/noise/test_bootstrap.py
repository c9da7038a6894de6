"""The paired bootstrap engine: weights, determinism, and agreement with analytic variances.

Tolerances come from Monte Carlo error: the standard deviation of R bootstrap replicates estimates
the true one with a relative standard error of about 1 / sqrt(2 (R - 1)) (normal replicates), and
a coverage estimate from T trials has binomial standard error sqrt(p (1 - p) / T). Three of them.
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from leaderboard.metrics import get_metric
from leaderboard.noise.bootstrap import ResamplingPlan, paired_bootstrap, weight_block
from oracles.delong import delong


def _sd_tolerance(replicates: int) -> float:
    return 3 / np.sqrt(2 * (replicates - 1))


def _binormal(rng, n, prevalence, mus, shared=0.6):
    y = (rng.random(n) < prevalence).astype(int)
    z = rng.standard_normal(n)
    preds = [mu * y + shared * z + np.sqrt(1 - shared**2) * rng.standard_normal(n) for mu in mus]
    return y, preds


def test_plain_weights_are_multinomial_counts_of_n():
    w = weight_block(ResamplingPlan("plain", 500), seed=3, block=0)
    assert w.shape == (32, 500)
    assert np.all(w.sum(axis=1) == 500) and np.all(w >= 0) and np.all(w == np.round(w))
    # each row is drawn with probability 1/n per draw: mean weight 1, variance (1 - 1/n)
    assert abs(w.mean() - 1) < 1e-12
    assert abs(w.var() - (1 - 1 / 500)) < 3 * np.sqrt(2 / w.size)


def test_stratified_weights_keep_class_counts():
    y = np.r_[np.zeros(90, int), np.ones(10, int)]
    plan = ResamplingPlan("stratified", 100, strata=(np.flatnonzero(y == 0), np.flatnonzero(y == 1)))
    w = weight_block(plan, seed=1, block=5)
    assert np.all(w[:, y == 1].sum(axis=1) == 10) and np.all(w[:, y == 0].sum(axis=1) == 90)


def test_grouped_weights_are_constant_within_groups():
    groups = np.repeat(np.arange(40), 3)
    plan = ResamplingPlan("grouped", 120, group_index=groups, n_groups=40)
    w = weight_block(plan, seed=2, block=0)
    assert np.all(w.reshape(32, 40, 3).std(axis=2) == 0)
    assert np.all(w.reshape(32, 40, 3)[:, :, 0].sum(axis=1) == 40)  # 40 groups drawn each time


@pytest.mark.parametrize("name", ["auc", "logloss", "accuracy"])
def test_same_numbers_whatever_the_chunking(name):
    rng = np.random.default_rng(0)
    y, scores = _binormal(rng, 700, 0.3, [1.0, 0.8, 0.5, 0.5, 0.2])
    preds = {"auc": scores, "logloss": [norm.cdf(s - 0.5) for s in scores],
             "accuracy": [(s > 0.8).astype(int) for s in scores]}[name]
    impl = get_metric(name).impl
    base = paired_bootstrap(impl, y, preds, replicates=200, seed=11)
    for batch, per_pass in ((32, 1), (96, 2), (512, 5)):
        other = paired_bootstrap(impl, y, preds, replicates=200, seed=11, batch=batch,
                                 entries_per_pass=per_pass)
        np.testing.assert_array_equal(other.replicates, base.replicates)
        np.testing.assert_array_equal(other.point, base.point)
    # replicate r does not depend on how many replicates were asked for
    shorter = paired_bootstrap(impl, y, preds, replicates=70, seed=11)
    np.testing.assert_array_equal(shorter.replicates, base.replicates[:, :70])


def test_row_mean_metrics_match_the_analytic_standard_error():
    """For a row mean the plain bootstrap variance is exactly (plug-in variance of rows) / n."""
    rng = np.random.default_rng(5)
    y, scores = _binormal(rng, 3000, 0.2, [1.2])
    p = norm.cdf(scores[0] - 1)
    R = 3000
    boot = paired_bootstrap(get_metric("logloss").impl, y, [p], replicates=R, seed=1)
    losses = -(y * np.log(p) + (1 - y) * np.log(1 - p))
    assert abs(boot.sd[0] / (losses.std() / np.sqrt(len(y))) - 1) < _sd_tolerance(R)
    labels = (scores[0] > 1).astype(int)
    boot = paired_bootstrap(get_metric("accuracy").impl, y, [labels], replicates=R, seed=2)
    acc = np.mean(labels == y)
    assert abs(boot.sd[0] / np.sqrt(acc * (1 - acc) / len(y)) - 1) < _sd_tolerance(R)


def test_auc_variance_and_paired_difference_match_delong():
    """DeLong and the bootstrap estimate the same variance up to O(1/m) terms (m = smaller class)."""
    rng = np.random.default_rng(7)
    y, scores = _binormal(rng, 2000, 0.15, [1.3, 1.2, 0.6])
    R = 3000
    boot = paired_bootstrap(get_metric("auc").impl, y, scores, replicates=R, seed=3)
    dl = delong(y, np.vstack(scores))
    np.testing.assert_allclose(boot.point, dl.auc, rtol=0, atol=1e-12)
    m = min(y.sum(), (1 - y).sum())
    tol = _sd_tolerance(R) + 1 / m
    np.testing.assert_array_less(np.abs(boot.sd / np.sqrt(np.diag(dl.cov)) - 1), tol)
    for i, j in ((0, 1), (0, 2)):
        sd_diff = np.std(boot.replicates[i] - boot.replicates[j], ddof=1)
        delong_sd = np.sqrt(dl.cov[i, i] + dl.cov[j, j] - 2 * dl.cov[i, j])
        assert abs(sd_diff / delong_sd - 1) < tol
        # models sharing row difficulty are positively correlated, so pairing removes noise: the
        # paired difference is less noisy than two independent scores (what overlap checks assume)
        assert dl.cov[i, j] > 0
        assert sd_diff < np.hypot(boot.sd[i], boot.sd[j]) * (1 - tol)


def test_stratified_resampling_never_leaves_a_class_out():
    rng = np.random.default_rng(9)
    y, scores = _binormal(rng, 60, 0.05, [1.0])
    y[:2] = 1  # at least two positives
    plain = paired_bootstrap(get_metric("auc").impl, y, scores, replicates=500, seed=4)
    strat = paired_bootstrap(get_metric("auc").impl, y, scores, replicates=500, seed=4,
                             resample="stratified")
    assert strat.undefined[0] == 0
    # with ~3 positives in 60 rows, some plain replicates draw none (probability ~ e^-3 each)
    assert plain.undefined[0] > 0


def test_grouped_resampling_sees_duplicated_rows_as_one():
    """Rows copied k times are one unit of evidence: the grouped bootstrap's SD is sqrt(k) times the
    plain bootstrap's on the copies (which wrongly counts each copy as independent)."""
    rng = np.random.default_rng(10)
    y, scores = _binormal(rng, 400, 0.3, [1.0])
    k = 4
    y4, s4 = np.repeat(y, k), np.repeat(scores[0], k)
    groups = np.repeat(np.arange(400), k)
    R = 2000
    impl = get_metric("auc").impl
    plain = paired_bootstrap(impl, y4, [s4], replicates=R, seed=5)
    grouped = paired_bootstrap(impl, y4, [s4], replicates=R, seed=5, resample="grouped",
                               groups=groups)
    assert grouped.n_units == 400
    assert abs(grouped.sd[0] / (np.sqrt(k) * plain.sd[0]) - 1) < 2 * _sd_tolerance(R)


def test_percentile_interval_covers_a_known_true_auc():
    """Binormal scores with separation mu have true AUC Phi(mu / sqrt(2))."""
    rng = np.random.default_rng(11)
    mu, trials = 1.0, 300
    truth = norm.cdf(mu / np.sqrt(2))
    impl = get_metric("auc").impl
    covered = 0
    for t in range(trials):
        y, scores = _binormal(rng, 800, 0.25, [mu], shared=0.0)
        low, high = paired_bootstrap(impl, y, scores, replicates=400, seed=t).percentile_interval()
        covered += low[0] <= truth <= high[0]
    assert abs(covered / trials - 0.95) < 3 * np.sqrt(0.95 * 0.05 / trials)


def test_identical_entries_are_never_separated():
    rng = np.random.default_rng(12)
    y, scores = _binormal(rng, 500, 0.3, [1.0])
    boot = paired_bootstrap(get_metric("auc").impl, y, [scores[0], scores[0].copy()],
                            replicates=300, seed=0)
    assert _paired_p(boot)(0, np.array([1]))[0] == 0.5


def test_bad_arguments_are_value_errors():
    impl = get_metric("auc").impl
    y = np.array([0, 1, 0, 1])
    with pytest.raises(ValueError, match="resample"):
        paired_bootstrap(impl, y, [y * 1.0], resample="jackknife")
    with pytest.raises(ValueError, match="group"):
        paired_bootstrap(impl, y, [y * 1.0], resample="grouped")
    with pytest.raises(ValueError, match="entry 0"):
        paired_bootstrap(impl, y, [np.ones(3)])


def test_paired_tiers_match_delong_with_holm():
    """15 models on one 2000-row test set at about 6% prevalence: the tied-with-best set from
    paired bootstrap tests equals the one from paired DeLong tests, both with Holm."""
    from oracles.delong import delong_paired_test
    from leaderboard.tiers import leader_anchored_tiers

    rng = np.random.default_rng(2024)
    mus = np.r_[1.6, 1.58, 1.55, 1.5, 1.45, 1.4, 1.3, 1.2, 1.1, 1.0, 0.9, 0.8, 0.6, 0.4, 0.2]
    y, scores = _binormal(rng, 2000, 0.06, mus, shared=0.7)
    dl = delong(y, np.vstack(scores))
    order = np.argsort(-dl.auc, kind="stable")
    ranked = [scores[i] for i in order]
    boot = paired_bootstrap(get_metric("auc").impl, y, ranked, replicates=4000, seed=8)
    dl_ranked = delong(y, np.vstack(ranked))

    def delong_p(anchor, others):
        return delong_paired_test(dl_ranked, anchor, np.asarray(others)).p_value

    by_boot = leader_anchored_tiers(len(mus), _paired_p(boot), 0.05)
    by_delong = leader_anchored_tiers(len(mus), delong_p, 0.05)
    tied_boot = set(np.flatnonzero(by_boot.tier == 1))
    tied_delong = set(np.flatnonzero(by_delong.tier == 1))
    assert tied_boot == tied_delong
    assert 1 < len(tied_boot) < len(mus)          # a real test: neither everything nor nothing


def test_d95_of_replicates_is_that_of_two_independent_normal_scores():
    """For a row mean the replicates are close to normal, and the 95th percentile of |X - X'| for
    independent N(mu, s^2) draws is 1.96 sqrt(2) s exactly. The tolerance is three relative
    standard errors of a d95 estimate from R draws, measured at about 1.1% for R = 4000 (noise
    tests), plus three of the sd estimate, 3 / sqrt(2 (R - 1))."""
    rng = np.random.default_rng(13)
    y, scores = _binormal(rng, 3000, 0.2, [1.2])
    p = norm.cdf(scores[0] - 1)
    R = 4000
    boot = paired_bootstrap(get_metric("logloss").impl, y, [p], replicates=R, seed=6)
    expected = norm.ppf(0.975) * np.sqrt(2) * boot.sd[0]
    assert abs(boot.d95()[0] / expected - 1) < 3 * 0.011 + _sd_tolerance(R)
    assert boot.distribution(0).d95 == boot.d95()[0]


def _paired_p(boot):
    """The production path: the bootstrap's replicates as RankReplicates, paired z p-values."""
    from leaderboard.tiers import RankReplicates
    from leaderboard.tiers.holm import paired_p_values

    return paired_p_values(RankReplicates.from_bootstrap(boot.point, boot.replicates, True))


# --- Poisson weights ---------------------------------------------------------------------------

def _mc_se_of_sd(draws: np.ndarray) -> float:
    """Monte Carlo SE of an SD estimated from these draws: sd sqrt((kurtosis - 1) / (4 R))."""
    z = (draws - draws.mean()) / draws.std()
    return draws.std(ddof=1) * np.sqrt(((z ** 4).mean() - 1) / (4 * draws.size))


def test_poisson_weights_do_not_depend_on_batching_and_regenerate_by_slice():
    from leaderboard.noise.bootstrap import ROW_BLOCK, poisson_weights

    rng = np.random.default_rng(0)
    y = rng.normal(size=700)
    mae = get_metric("mae").impl
    a = paired_bootstrap(mae, y, [np.zeros(700), np.ones(700)], replicates=100, seed=4,
                         resample="poisson")
    b = paired_bootstrap(mae, y, [np.zeros(700), np.ones(700)], replicates=100, seed=4,
                         resample="poisson", batch=32, entries_per_pass=1)
    np.testing.assert_array_equal(a.replicates, b.replicates)
    n = 2 * ROW_BLOCK + 10
    full = poisson_weights(1, 2, slice(0, n), n)
    for cut in (slice(ROW_BLOCK - 5, ROW_BLOCK + 5), slice(n - 3, n), slice(0, 1)):
        np.testing.assert_array_equal(poisson_weights(1, 2, cut, n), full[:, cut])
    assert abs(full.mean() - 1) < 4 * np.sqrt(1 / full.size)       # Poisson(1): mean 1


def test_poisson_se_of_a_mean_and_of_an_auc_difference_match_the_analytic_ones():
    from oracles.delong import delong, delong_paired_test

    rng = np.random.default_rng(5)
    n, replicates = 3000, 4000
    y = np.abs(rng.normal(size=n))
    boot = paired_bootstrap(get_metric("mae").impl, y, [np.zeros(n)], replicates=replicates,
                            seed=1, resample="poisson")
    analytic = y.std(ddof=0) / np.sqrt(n)
    assert abs(boot.sd[0] - analytic) < 3 * _mc_se_of_sd(boot.replicates[0])
    labels = rng.integers(0, 2, n)
    a = labels + rng.normal(0, 1.2, n)
    b = labels * 1.2 + rng.normal(0, 1.2, n)
    boot = paired_bootstrap(get_metric("auc").impl, labels, [a, b], replicates=replicates,
                            seed=2, resample="poisson")
    diff = boot.replicates[1] - boot.replicates[0]
    exact = float(delong_paired_test(delong(labels, np.vstack([a, b])), 0, 1).se)
    assert abs(diff.std(ddof=1) - exact) < 3 * _mc_se_of_sd(diff)


def test_poisson_percentile_interval_covers_a_known_mean():
    mae = get_metric("mae").impl
    rng = np.random.default_rng(8)
    trials, covered = 200, 0
    for trial in range(trials):
        y = np.abs(rng.normal(size=500))                   # E|Z| = sqrt(2 / pi)
        res = paired_bootstrap(mae, y, [np.zeros(500)], replicates=400, seed=trial,
                               resample="poisson")
        low, high = res.percentile_interval(0.05)
        covered += bool(low[0] <= np.sqrt(2 / np.pi) <= high[0])
    assert abs(covered / trials - 0.95) < 3 * np.sqrt(0.95 * 0.05 / trials)


def test_poisson_inversion_matches_the_poisson_distribution():
    """Frequencies of 0..5 within 4 binomial SEs of exp(-1) / k! over 2 million draws, and the
    rare tail (k >= 8) is reached too."""
    import math

    from leaderboard.noise.bootstrap import poisson_one

    u = np.random.default_rng(11).random(2_000_000)
    k = poisson_one(u)
    for j in range(6):
        p = math.exp(-1) / math.factorial(j)
        assert abs((k == j).mean() - p) < 4 * np.sqrt(p * (1 - p) / k.size)
    assert k.max() >= 8 and poisson_one(np.array([1 - 1e-12]))[0] > 10
