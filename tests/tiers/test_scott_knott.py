"""Scott-Knott ESD tiers: hand-checked cases, a brute-force reference, and behaviour at scale."""
import time

import numpy as np
import pytest
from scipy.stats import chi2

from leaderboard.tiers.replicates import RankReplicates
from leaderboard.tiers.scott_knott import scott_knott_esd


def reps_of(point, sd, replicates=10, seed=0):
    point = np.asarray(point, dtype=float)
    return RankReplicates.normal(point, np.broadcast_to(np.asarray(sd, dtype=float), point.shape),
                                 0.0, True, replicates=replicates, seed=seed)


def brute_force_tiers(point, sd, alpha):
    """Scott-Knott splits written out directly: every split's sum of squares from its two means."""
    def split(a, b):
        k = b - a
        y = point[a:b]
        best, best_ss = None, 0.0
        for j in range(1, k):
            if y[j - 1] == y[j]:
                continue
            ss = j * (y[:j].mean() - y.mean()) ** 2 + (k - j) * (y[j:].mean() - y.mean()) ** 2
            if best is None or ss > best_ss + 1e-12 * max(1.0, abs(best_ss)):
                best, best_ss = j, ss
        if best is not None:
            lam = np.pi / (2 * (np.pi - 2)) * best_ss / np.mean(sd[a:b] ** 2)
            if lam > chi2.ppf(1 - alpha, k / (np.pi - 2)):
                return split(a, a + best) + split(a + best, b)
        return [(a, b)]
    tiers = np.zeros(point.size, dtype=int)
    for t, (a, b) in enumerate(split(0, point.size), start=1):
        tiers[a:b] = t
    return tiers


def test_three_well_separated_clusters_make_three_tiers():
    point = np.array([10.1, 10.0, 9.9, 5.1, 5.0, 4.9, 0.1, 0.0, -0.1])
    res = scott_knott_esd(reps_of(point, 0.1))
    assert res.tier.tolist() == [1, 1, 1, 2, 2, 2, 3, 3, 3]
    assert res.method == "Scott-Knott ESD (heuristic)"
    assert np.isnan(res.p_vs_anchor).all()


def test_all_equal_is_one_tier_and_one_entry_is_tier_one():
    assert scott_knott_esd(reps_of(np.full(50, 0.7), 0.01)).tier.tolist() == [1] * 50
    assert scott_knott_esd(reps_of([0.7], 0.01)).tier.tolist() == [1]
    assert scott_knott_esd(reps_of(np.full(5, 0.7), 0.0)).tier.tolist() == [1] * 5


def test_two_entries_split_exactly_at_the_chi_square_threshold():
    """y = (1, 0): B0 = 1/2 and lambda = pi / (2 (pi - 2)) / (2 sd^2); the split is kept iff
    lambda exceeds the chi-square(2 / (pi - 2)) quantile."""
    crit = chi2.ppf(0.95, 2 / (np.pi - 2))
    sd_star = np.sqrt(np.pi / (2 * (np.pi - 2)) * 0.5 / crit)
    assert scott_knott_esd(reps_of([1.0, 0.0], 0.99 * sd_star)).tier.tolist() == [1, 2]
    assert scott_knott_esd(reps_of([1.0, 0.0], 1.01 * sd_star)).tier.tolist() == [1, 1]


@pytest.mark.parametrize("seed", range(20))
def test_splits_match_a_brute_force_implementation(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 60))
    point = -np.sort(-np.round(rng.normal(size=n) * rng.choice([1, 5, 20]), 1))  # ties included
    sd = rng.uniform(0.2, 1.0, n)
    reps = RankReplicates.normal(point, sd, 0.0, True, replicates=4, seed=0)
    res = scott_knott_esd(reps, alpha=0.05, negligible=0.0)
    np.testing.assert_array_equal(res.tier, brute_force_tiers(point, sd, 0.05))


def test_merge_uses_cohens_d_of_the_pooled_score_distributions():
    """Groups {3, 3}, {0, 0}, {-2, -2}, SEs 0.5: Scott-Knott splits all three. Cohen's d between
    adjacent groups (no spread of points within a group) is 3 / 0.5 = 6 and 2 / 0.5 = 4. Merging
    the bottom pair gives a group with variance 0.25 + 1 and mean -1; against the top group the
    pooled variance is (2 * 0.25 + 4 * 1.25) / 6, so d = 4 / sqrt(0.9167) = 4.18."""
    point = [3.0, 3.0, 0.0, 0.0, -2.0, -2.0]
    reps = reps_of(point, 0.5)
    assert scott_knott_esd(reps, negligible=0.0).tier.tolist() == [1, 1, 2, 2, 3, 3]
    assert scott_knott_esd(reps, negligible=3.9).tier.tolist() == [1, 1, 2, 2, 3, 3]
    assert scott_knott_esd(reps, negligible=4.1).tier.tolist() == [1, 1, 2, 2, 2, 2]
    assert scott_knott_esd(reps, negligible=4.25).tier.tolist() == [1] * 6


def test_effect_size_matches_cohens_d_on_pooled_draws():
    """The merge's d equals Cohen's d computed on many pooled normal draws of each group's
    entries: find the negligible threshold where two groups merge and compare."""
    point = np.array([2.0, 1.6, -0.2, -0.5])
    sd = np.array([0.3, 0.5, 0.4, 0.2])
    rng = np.random.default_rng(0)
    draws = rng.normal(point[:, None], sd[:, None], (4, 400_000))
    a, b = draws[:2].ravel(), draws[2:].ravel()
    pooled = np.sqrt((a.var() * a.size + b.var() * b.size) / (a.size + b.size))
    d = (a.mean() - b.mean()) / pooled
    reps = RankReplicates.normal(point, sd, 0.0, True, replicates=4)
    assert scott_knott_esd(reps, negligible=0.0).tier.tolist() == [1, 1, 2, 2]
    assert scott_knott_esd(reps, negligible=d * 0.99).tier.tolist() == [1, 1, 2, 2]
    assert scott_knott_esd(reps, negligible=d * 1.01).tier.tolist() == [1, 1, 1, 1]


def test_tiers_do_not_depend_on_the_number_of_replicates():
    rng = np.random.default_rng(3)
    point = -np.sort(-rng.normal(size=200))
    few = scott_knott_esd(reps_of(point, 0.2, replicates=20, seed=1)).tier
    many = scott_knott_esd(reps_of(point, 0.2, replicates=3000, seed=2)).tier
    np.testing.assert_array_equal(few, many)
    assert few.max() > 1


def test_scales_to_five_thousand_entries():
    rng = np.random.default_rng(4)
    point = -np.sort(-rng.normal(0.8, 0.05, 5000))
    reps = RankReplicates(point=point, errors=np.zeros((5000, 1)), sd=np.full(5000, 0.002),
                          correlation=0.0, sign=1.0, source="test")
    start = time.perf_counter()
    tiers = scott_knott_esd(reps).tier
    elapsed = time.perf_counter() - start
    print(f"E=5000: {tiers.max()} tiers in {elapsed:.2f} s")
    assert elapsed < 10
    assert tiers[0] == 1 and np.all(np.isin(np.diff(tiers), [0, 1]))


def test_input_checks():
    with pytest.raises(ValueError, match="rank order"):
        scott_knott_esd(reps_of([0.1, 0.2], 0.01))
    with pytest.raises(ValueError):
        scott_knott_esd(reps_of([0.2, 0.1], 0.01), alpha=0)


@pytest.mark.parametrize("name,truth", [
    ("4 clusters of 5, 4 SE apart", np.repeat([0.0, -4.0, -8.0, -12.0], 5) - np.tile(
        0.5 * np.arange(5), 4)),
    ("20 entries 0.5 SE apart", -0.5 * np.arange(20)),
])
def test_cluster_simulation_tiers_are_contiguous_and_report_tier_one_rate(name, truth):
    """Known truth, unit SEs. Tiers must be contiguous and 1-based on every board; how often the
    truly best entry (index 0) lands in tier 1 is printed: no guarantee exists to test against."""
    rng = np.random.default_rng(5)
    boards, in_top, n_tiers, top_size = 400, 0, [], []
    for b in range(boards):
        observed = truth + rng.standard_normal(truth.size)
        order = np.argsort(-observed, kind="stable")
        tiers = scott_knott_esd(reps_of(observed[order], 1.0, replicates=2, seed=b)).tier
        assert tiers[0] == 1 and np.all(np.isin(np.diff(tiers), [0, 1]))
        in_top += tiers[np.flatnonzero(order == 0)[0]] == 1
        n_tiers.append(tiers.max())
        top_size.append(np.sum(tiers == 1))
    print(f"{name}: true best in tier 1 on {in_top / boards:.3f} of boards; mean tiers "
          f"{np.mean(n_tiers):.2f}, mean tier-1 size {np.mean(top_size):.1f}")
