"""The noise stage against independent references: scikit-learn, exact variances, brute force."""
import numpy as np
import pytest
from scipy.spatial.distance import pdist
from scipy.stats import binom, norm
from sklearn.metrics import roc_auc_score

from leaderboard.metrics import get_metric
from leaderboard.noise.d95 import pairwise_abs_diff_ecdf, pairwise_abs_diff_quantile
from leaderboard.noise.grid import build_noise_model
from leaderboard.noise.rng import BLOCK, block_rng
from leaderboard.noise.universes import (BinomialAccuracyUniverse, SeedsAUCUniverse,
                                         UniverseOptions, class_counts)
from leaderboard.errors import InputError

UNIVERSE = SeedsAUCUniverse()
SEEDS = UniverseOptions(name="linspace")   # build_noise_model with the universe above
Z975 = norm.ppf(0.975)


def sd_tolerance(draws: np.ndarray, n_se: float = 4.0) -> float:
    """n_se Monte Carlo standard errors of a sample standard deviation (kurtosis-aware)."""
    centred = draws - draws.mean()
    sd = centred.std(ddof=1)
    kurtosis = np.mean(centred ** 4) / sd ** 4
    return n_se * sd * np.sqrt((kurtosis - 1) / (4 * draws.size))


@pytest.mark.parametrize("auc", [0.5, 0.62, 0.8, 0.97, 1.0, 0.3])
def test_universe_auc_equals_sklearn_on_the_whole_universe(auc):
    neg, pos = UNIVERSE._grids(max(auc, 1 - auc))
    labels = np.r_[np.zeros(neg.size), np.ones(pos.size)]
    reference = roc_auc_score(labels, np.r_[neg, pos])
    reference = reference if auc >= 0.5 else 1 - reference
    assert UNIVERSE.universe_auc(auc) == pytest.approx(reference, abs=1e-12)
    assert UNIVERSE.universe_auc(auc) == pytest.approx(auc, abs=2e-5)  # the seeds' construction


def test_each_simulated_auc_equals_sklearn_on_the_same_test_set():
    levels = np.array([0.3, 0.5, 0.8, 0.95])
    n_test, prevalence = 200, 0.1
    simulated = UNIVERSE.simulate(levels, n_test, prevalence, draws=BLOCK, seed=3)
    m, k = class_counts(n_test, prevalence)
    rng = block_rng(3, 0, 0)  # rebuild the same test sets the simulation drew
    neg_idx = rng.integers(0, 50_000, size=(BLOCK, k))
    pos_idx = rng.integers(0, 50_000, size=(BLOCK, m))
    labels = np.r_[np.zeros(k), np.ones(m)]
    for g, auc in enumerate(levels):
        neg, pos = UNIVERSE._grids(max(auc, 1 - auc))
        for r in range(0, BLOCK, 5):
            ref = roc_auc_score(labels, np.r_[neg[neg_idx[r]], pos[pos_idx[r]]])
            ref = ref if auc >= 0.5 else 1 - ref
            assert simulated[g, r] == pytest.approx(ref, abs=1e-12)


@pytest.mark.parametrize("n_test,prevalence", [(1000, 0.01), (10000, 0.2), (1000, 0.5)])
def test_simulated_sd_matches_exact_universe_variance(n_test, prevalence):
    draws = UNIVERSE.simulate(np.array([0.8]), n_test, prevalence, draws=4000, seed=11)[0]
    exact = UNIVERSE.exact_sd(0.8, n_test, prevalence)
    assert abs(draws.std(ddof=1) - exact) < sd_tolerance(draws)


def test_exact_sd_continuous_limit_matches_closed_form():
    # Negatives U(0,1), positives U(a,1): Q1 = a + (1-a)/3, Q2 = (1 + a + a^2)/3.
    a, m, k = 0.6, 10, 990
    q1, q2, theta = a + (1 - a) / 3, (1 + a + a * a) / 3, (1 + a) / 2
    var = (theta * (1 - theta) + (m - 1) * (q1 - theta ** 2) + (k - 1) * (q2 - theta ** 2)) / (m * k)
    assert UNIVERSE.exact_sd(0.8, 1000, 0.01) == pytest.approx(np.sqrt(var), rel=1e-3)


@pytest.mark.parametrize("n_test,prevalence,seed_figure", [(1000, 0.01, 0.10), (10000, 0.2, 0.012),
                                                           (1000, 0.5, 0.04)])
def test_d95_reproduces_the_seeds_and_the_exact_variance(n_test, prevalence, seed_figure):
    # d95 of two independent test sets is about z_.975 * sqrt(2) * SD; the Monte Carlo error is
    # measured from five independent replications rather than guessed.
    estimates = [pairwise_abs_diff_quantile(UNIVERSE.simulate(np.array([0.8]), n_test, prevalence,
                                                              2000, seed=s)[0]) for s in range(5)]
    mc_se = np.std(estimates, ddof=1) / np.sqrt(len(estimates))
    expected = Z975 * np.sqrt(2) * UNIVERSE.exact_sd(0.8, n_test, prevalence)
    # 1% allowance: the measured non-normality of the difference (<0.7% at 20,000 draws)
    assert abs(np.mean(estimates) - expected) < 4 * mc_se + 0.01 * expected
    assert abs(np.mean(estimates) - seed_figure) < 0.15 * seed_figure  # "about" the seeds' number


def test_auc_mirror_below_one_half():
    above = UNIVERSE.simulate(np.array([0.7]), 300, 0.2, 64, seed=5)
    below = UNIVERSE.simulate(np.array([0.3]), 300, 0.2, 64, seed=5)
    np.testing.assert_allclose(below, 1 - above, atol=1e-12)
    assert UNIVERSE.exact_sd(0.3, 300, 0.2) == UNIVERSE.exact_sd(0.7, 300, 0.2)


def test_simulation_is_deterministic_and_independent_of_levels_and_draw_count():
    both = UNIVERSE.simulate(np.array([0.7, 0.9]), 500, 0.1, 100, seed=9)
    alone = UNIVERSE.simulate(np.array([0.9]), 500, 0.1, 100, seed=9)
    more = UNIVERSE.simulate(np.array([0.9]), 500, 0.1, 170, seed=9)
    np.testing.assert_array_equal(both[1], alone[0])
    np.testing.assert_array_equal(more[0, :100], alone[0])
    assert not np.array_equal(UNIVERSE.simulate(np.array([0.9]), 500, 0.1, 100, seed=10), alone)


def test_common_random_numbers_make_draws_monotone_in_the_true_auc():
    sims = UNIVERSE.simulate(np.array([0.6, 0.7, 0.8, 0.9]), 400, 0.25, 200, seed=2)
    assert np.all(np.diff(sims, axis=0) >= -1e-12)


def test_accuracy_universe_is_the_binomial():
    universe = BinomialAccuracyUniverse()
    draws = universe.simulate(np.array([0.9]), 500, None, 4000, seed=1)[0]
    assert universe.exact_sd(0.9, 500) == pytest.approx(np.sqrt(0.9 * 0.1 / 500))
    assert abs(draws.std(ddof=1) - universe.exact_sd(0.9, 500)) < sd_tolerance(draws)
    # d95 against the exact distribution of |X - Y| for two independent Binomial(500, 0.9) counts
    support = np.arange(501)
    pmf = binom.pmf(support, 500, 0.9)
    diff_pmf = np.convolve(pmf, pmf[::-1])          # P(X - Y = d), d = -500..500
    abs_cdf = np.cumsum(np.r_[diff_pmf[500], 2 * diff_pmf[501:]])
    exact_d95 = np.searchsorted(abs_cdf, 0.95) / 500
    assert abs(pairwise_abs_diff_quantile(draws) - exact_d95) <= 1 / 500 + 1e-12


def test_pairwise_quantile_equals_brute_force_including_ties():
    rng = np.random.default_rng(0)
    for trial in range(60):
        size = int(rng.integers(2, 300))
        x = rng.normal(size=size) if trial % 2 else rng.integers(0, 15, size=size) / 15
        for q in (0.0, 0.5, 0.95, 0.99, 1.0):
            assert pairwise_abs_diff_quantile(x, q) == pytest.approx(
                np.quantile(pdist(x[:, None]), q), abs=1e-12)


def test_neighbouring_pair_distances_found_together_equal_the_sorted_pairs():
    """The interpolated quantile asks for two neighbouring ranks in one bracketing; runs of up to
    40 ranks make a bisection step fall between them (the branch that falls back to one rank at
    a time) as well as ties and masses of equal distances."""
    from leaderboard.noise.d95 import _kth_pair_distances
    rng = np.random.default_rng(3)
    for trial in range(80):
        size = int(rng.integers(2, 400))
        x = np.sort(rng.normal(size=size) if trial % 2 else rng.integers(0, 9, size=size) / 9)
        pairs = np.sort(pdist(x[:, None]))
        count = int(rng.choice([1, 2, 40]))
        k = int(rng.integers(0, max(1, pairs.size - count + 1)))
        count = min(count, pairs.size - k)
        together = _kth_pair_distances(x, k, count)
        np.testing.assert_allclose(together, pairs[k:k + count], rtol=0, atol=1e-12)
        # the same bits as each rank alone (a mass of equal distances returns the bracket's end)
        assert together == [_kth_pair_distances(x, rank)[0] for rank in range(k, k + count)]


def test_pairwise_ecdf_matches_brute_force():
    x = np.random.default_rng(1).normal(size=150)
    t, frac = pairwise_abs_diff_ecdf(x, points=25)
    distances = pdist(x[:, None])
    np.testing.assert_allclose(frac, [(distances <= ti + 1e-12).mean() for ti in t], atol=1e-12)
    assert frac[-1] == 1.0


def test_interval_coverage_with_known_truth():
    """Observed AUCs drawn from the universe (seed 100) against intervals simulated with seed 7."""
    metric = get_metric("auc")
    n_test, prevalence, alpha = 600, 0.1, 0.05
    truths = np.array([0.65, 0.75, 0.85, 0.93])
    observed = UNIVERSE.simulate(truths, n_test, prevalence, draws=400, seed=100)
    model = build_noise_model(metric, observed.ravel(), leader_score=observed.max(), n_test=n_test,
                              prevalence=prevalence, draws=4000, seed=7, alpha=alpha,
                              options=SEEDS)
    low, high = model.interval(observed.ravel())
    covered = (low <= np.repeat(truths, 400)) & (np.repeat(truths, 400) <= high)
    n = covered.size
    # Binomial error of the coverage estimate, plus the error of the simulated quantiles themselves
    # (a 2.5% quantile from 4000 draws moves the tail mass by about sqrt(.025*.975/4000) = 0.0025).
    tolerance = 3 * np.sqrt(alpha * (1 - alpha) / n) + 3 * 2 * np.sqrt(0.025 * 0.975 / 4000)
    assert abs(covered.mean() - (1 - alpha)) < tolerance


def test_grid_interpolation_matches_direct_simulation():
    metric = get_metric("auc")
    scores = np.array([0.71, 0.78, 0.83, 0.9])
    model = build_noise_model(metric, scores, leader_score=0.9, n_test=800, prevalence=0.15,
                              draws=2000, seed=4, options=SEEDS)
    for s in scores[:3]:  # not grid levels: interpolated
        direct = UNIVERSE.simulate(np.array([s]), 800, 0.15, 2000, seed=4)[0]
        assert model.sd_at(s) == pytest.approx(direct.std(ddof=1), rel=0.02)


def test_bad_settings_are_input_errors():
    with pytest.raises(InputError, match="prevalence"):
        build_noise_model(get_metric("auc"), np.array([0.8]), leader_score=0.8, n_test=100,
                          prevalence=None)
    with pytest.raises(InputError, match="at least one of each"):
        build_noise_model(get_metric("auc"), np.array([0.8]), leader_score=0.8, n_test=100,
                          prevalence=0.001)


@pytest.mark.parametrize("n_test,prevalence", [(120_000, 0.5), (120_000, 0.05)])
def test_large_test_sets_drawn_as_counts_keep_the_exact_variance(n_test, prevalence):
    """Above 50,000 rows per class the draws are multinomial counts; same law, bounded memory."""
    draws = UNIVERSE.simulate(np.array([0.8]), n_test, prevalence, draws=640, seed=13)[0]
    assert abs(draws.std(ddof=1) - UNIVERSE.exact_sd(0.8, n_test, prevalence)) < sd_tolerance(draws)
    assert abs(draws.mean() - UNIVERSE.universe_auc(0.8)) < 4 * draws.std(ddof=1) / np.sqrt(640)


def test_accuracy_interval_coverage_with_known_truth():
    """Binomial scores are discrete: the inverted interval must still cover at the nominal rate."""
    rng = np.random.default_rng(100)
    n_test, truths, per_truth, draws = 300, np.array([0.7, 0.9, 0.97]), 2000, 4000
    observed = rng.binomial(n_test, np.repeat(truths, per_truth)) / n_test
    model = build_noise_model(get_metric("accuracy"), observed, leader_score=observed.max(),
                              n_test=n_test, prevalence=None, draws=draws, seed=7)
    low, high = model.interval(observed)
    truth = np.repeat(truths, per_truth)
    coverage = np.mean((low <= truth) & (truth <= high))
    tolerance = 3 * np.sqrt(0.95 * 0.05 / observed.size) + 3 * 2 * np.sqrt(0.025 * 0.975 / draws)
    assert coverage > 0.95 - tolerance


def test_merge_and_running_count_paths_give_identical_aucs(monkeypatch):
    """The seeds' universe counts negatives below each positive either by a running count over the
    universe or by merging each draw's sorted negatives; both must give the same numbers, ties
    included (at 0.5 every positive ties a negative; at 0.75 every other one does)."""
    import leaderboard.noise.universes.seeds as seeds

    levels = np.array([0.5, 0.75, 0.8])
    runs = {}
    for name, cost in (("merge", 0.0), ("running count", 1e12)):
        monkeypatch.setattr(seeds, "MERGE_COST", cost)
        runs[name] = SeedsAUCUniverse().simulate(levels, 3000, 0.2, 2 * BLOCK, seed=5)
    np.testing.assert_array_equal(runs["merge"], runs["running count"])


@pytest.mark.parametrize("metric, observed, n", [("dice", 0.0, 4406), ("dice", 1.0, 1000),
                                                 ("accuracy", 1.0, 300)])
def test_an_edge_score_gets_an_interval_that_errs_wide_and_a_positive_sd(metric, observed, n):
    """At a Dice of 0 or a perfect score the binomial's quantiles are flat (the noise at the score
    itself vanishes). The exact test inversion's far bound solves P(X = edge | p) = alpha / 2,
    e.g. 1 - p = 0.025 ** (1 / n) at 0; the grid's bound must not be narrower than that (it runs
    to the next simulated level) nor absurdly wider (levels close in geometrically, ratio sqrt 2),
    and the entry's noise is the positive SD its interval implies."""
    model = build_noise_model(get_metric(metric), np.array([observed, 0.5]), leader_score=0.5,
                              n_test=n, prevalence=None, draws=2000, seed=0)
    low, high = (v[0] for v in model.interval(np.array([observed])))
    exact_width = 1.0 - 0.025 ** (1.0 / n)
    width = high - low
    assert (low, high)[0 if observed == 0 else 1] == observed
    # the next level is at most sqrt 2 further out; 5% slack for the 2.5% quantile of 2000 draws
    assert 0.95 * exact_width <= width <= 1.5 * exact_width
    assert model.interval_sd(np.array([observed]))[0] > 0
    assert model.noise_level(np.array([observed]))[0] == pytest.approx(0.5 * (low + high))
