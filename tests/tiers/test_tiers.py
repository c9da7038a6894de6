"""Tiers: Holm against an independent formulation, and the tier-1 guarantee by simulation."""
import numpy as np
import pandas as pd
import pytest

from leaderboard.pipelines.scores import rank_entries
from leaderboard.tiers.holm import paired_p_values
from leaderboard.tiers import RankReplicates, holm_reject, leader_anchored_tiers


def holm_by_adjusted_p(p, alpha):
    """Holm through adjusted p-values: p_adj(i) = max_{j<=i} min(1, (m - j) p_(j)), 0-based."""
    order = np.argsort(p, kind="stable")
    m = len(p)
    adjusted = np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * np.asarray(p)[order]))
    out = np.zeros(m, dtype=bool)
    out[order] = adjusted <= alpha
    return out


def test_holm_agrees_with_adjusted_p_values():
    rng = np.random.default_rng(0)
    for _ in range(500):
        p = rng.uniform(0, 0.2, size=rng.integers(1, 30)) ** 2
        np.testing.assert_array_equal(holm_reject(p, 0.05), holm_by_adjusted_p(p, 0.05))


def test_tiers_are_contiguous_and_start_at_one():
    rng = np.random.default_rng(1)
    scores = np.sort(rng.normal(size=60))[::-1]
    p_value = scores_only_p_values(scores, np.full(60, 0.3), 0.0, higher_is_better=True)
    tiers = leader_anchored_tiers(60, p_value).tier
    assert tiers[0] == 1
    assert np.all(np.diff(tiers) >= 0) and np.all(np.diff(tiers) <= 1)


def test_equal_scores_share_one_tier_and_far_apart_scores_do_not():
    equal = scores_only_p_values(np.full(5, 0.8), np.full(5, 0.01), 0.0, True)
    assert leader_anchored_tiers(5, equal).tier.tolist() == [1] * 5
    apart = scores_only_p_values(np.array([0.9, 0.8, 0.7]), np.full(3, 0.001), 0.0, True)
    result = leader_anchored_tiers(3, apart)
    assert result.tier.tolist() == [1, 2, 3]
    assert np.isnan(result.p_vs_anchor).all()  # every entry is its own tier's anchor


def test_direction_lower_is_better():
    scores = np.array([0.10, 0.11, 0.50])  # log loss, ranked best first
    p_value = scores_only_p_values(scores, np.full(3, 0.01), 0.0, higher_is_better=False)
    assert leader_anchored_tiers(3, p_value).tier.tolist() == [1, 1, 2]


def test_correlation_sharpens_comparisons():
    scores, sd = np.array([0.80, 0.78]), np.array([0.01, 0.01])
    independent = scores_only_p_values(scores, sd, 0.0, True)(0, np.array([1]))[0]
    correlated = scores_only_p_values(scores, sd, 0.8, True)(0, np.array([1]))[0]
    assert correlated < independent
    assert independent == pytest.approx(0.0786, abs=1e-3)  # 1 - Phi(0.02 / sqrt(2) / 0.01)


@pytest.mark.parametrize("n_entries,gap", [(3, 0.0), (10, 0.0), (10, 0.5), (40, 0.25)])
def test_true_best_is_in_tier_one_at_least_one_minus_alpha_of_the_time(n_entries, gap):
    """Known truth: entry 0 is best by `gap` sds (0 = tied, the hardest case); unit-sd noise."""
    alpha, boards = 0.05, 3000
    rng = np.random.default_rng(n_entries)
    truth = np.r_[0.0, np.full(n_entries - 1, -gap)] + 1e-9 * -np.arange(n_entries)
    missed = 0
    for _ in range(boards):
        observed = truth + rng.standard_normal(n_entries)
        order = np.argsort(-observed, kind="stable")
        p_value = scores_only_p_values(observed[order], np.ones(n_entries), 0.0, True)
        tiers = leader_anchored_tiers(n_entries, p_value, alpha).tier
        missed += tiers[np.flatnonzero(order == 0)[0]] != 1
    # allow three Monte Carlo standard errors above alpha
    assert missed / boards <= alpha + 3 * np.sqrt(alpha * (1 - alpha) / boards)


def test_rank_entries_ties_share_the_best_rank_and_keep_file_order():
    df = pd.DataFrame({"team": list("abcde"), "score": [0.3, 0.1, 0.3, 0.2, 0.1], "line": range(2, 7)})
    ranked = rank_entries(df, higher_is_better=False)
    assert ranked["team"].tolist() == ["b", "e", "d", "a", "c"]
    assert ranked["rank"].tolist() == [1, 1, 3, 4, 4]


def scores_only_p_values(scores, sd, correlation, higher_is_better):
    """Closed-form paired p-values for a scores-only board (the production path)."""
    reps = RankReplicates.normal(np.asarray(scores, dtype=float), np.asarray(sd, dtype=float),
                                 correlation, higher_is_better, replicates=32)
    return paired_p_values(reps)
