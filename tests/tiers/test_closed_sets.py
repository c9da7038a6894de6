"""Closed-form rank sets (scores only): the block searches against a brute force over every pair,
and against the pair-tile step-down they replace, on boards where both run."""
from __future__ import annotations

import numpy as np
import pytest

from leaderboard.tiers import RankReplicates
from leaderboard.tiers.best_set import best_set
from leaderboard.tiers.rank_sets import (_marginal, rank_sets_data, _simultaneous,
                                         rank_confidence_sets, rank_set_tiers)
from leaderboard.tiers.shown_better import significance_map
from tests.tiers.test_rank_sets import ALPHA, brute_best, brute_marginal, brute_simultaneous, brute_tiers


def board(rng, n, *, sds="smooth", rho=None, ties=True, dtype=np.float64, zero_sd=False):
    """A scores-only board in rank order; SDs smooth in the score, random, or tenfold apart."""
    point = np.sort(rng.normal(0, 0.04, n))[::-1]
    if ties:
        point[1:3] = point[0]
        point[n // 2:n // 2 + 3] = point[n // 2]
    if sds == "smooth":
        sd = 0.01 + 0.1 * (point.max() - point)
    elif sds == "random":
        sd = rng.uniform(0.005, 0.03, n)
    else:
        sd = np.where(rng.random(n) < 0.3, 0.05, 0.005)
    if zero_sd:
        sd[n // 3] = 0.0
    rho = float(rng.choice([0.0, 0.3, 0.6, 0.9])) if rho is None else rho
    reps = RankReplicates.normal(point, sd, rho, True, replicates=int(rng.integers(150, 400)),
                                 seed=int(rng.integers(1 << 30)))
    return RankReplicates(reps.point, reps.errors.astype(dtype), reps.sd, reps.correlation,
                          1.0, "test")


def cases(seed, count):
    rng = np.random.default_rng(seed)
    for c in range(count):
        n = int(rng.integers(2, 5)) if c % 7 == 6 else int(rng.integers(4, 70))
        yield board(rng, n, sds=("smooth", "random", "hetero")[c % 3], ties=n > 5,
                    dtype=np.float32 if c % 2 else np.float64, zero_sd=c % 5 == 4 and n > 5,
                    rho=0.99 if c % 11 == 10 else None)


# None: the default (numpy step-downs up to closed_small.SMALL entries, else sub-blocks of 32);
# 8 and 24: sub-blocks of 1 and 3 entries (closed_sets._sub: batch // K, K = 8), many blocks.
# Batch 3 was also here until issue 27: it makes the same sub-blocks of 1 as 8, and the
# closed-form searches read nothing else of the batch, so it repeated 8's run exactly.
BATCHES = (None, 8, 24)


def test_simultaneous_sets_relation_and_tiers_equal_brute_force():
    for reps in cases(21, 30):
        n = reps.n_entries
        low, high, _, _, rej = brute_simultaneous(reps, relation=True)
        for batch in BATCHES:
            sets = rank_confidence_sets(reps, ALPHA, batch=batch)
            np.testing.assert_array_equal(sets.low, low)
            np.testing.assert_array_equal(sets.high, high)
            np.testing.assert_array_equal(sets.shown_better.matrix(n), rej)
            np.testing.assert_array_equal(rank_set_tiers(sets).tier, brute_tiers(rej))
            unresolved = (reps.point[:, None] > reps.point[None, :]) & ~rej
            assert sets.shown_better.n_unresolved == unresolved.sum()
        k = min(n, 20)
        np.testing.assert_array_equal(significance_map(sets, reps, k).significant, rej[:k, :k])


def test_marginal_sets_equal_brute_force():
    for reps in cases(22, 24):
        low, high, _ = brute_marginal(reps)
        for batch in BATCHES:
            sets = rank_confidence_sets(reps, ALPHA, simultaneous=False, batch=batch)
            np.testing.assert_array_equal(sets.low, low)
            np.testing.assert_array_equal(sets.high, high)


def test_best_set_is_the_max_t_test():
    """Every entry's one-sided max-t test, exactly (no Bonferroni screen in the closed form)."""
    for reps in cases(23, 30):
        keep, _, _ = brute_best(reps)
        for batch in BATCHES:
            np.testing.assert_array_equal(best_set(reps, ALPHA, batch=batch), keep)


def test_critical_values_and_rounds_do_not_depend_on_blocks():
    reps = board(np.random.default_rng(3), 300, dtype=np.float32)
    ref_s = rank_confidence_sets(reps)
    ref_m = rank_confidence_sets(reps, simultaneous=False)
    for batch in (1, 8, 40, 512):
        s = rank_confidence_sets(reps, batch=batch)
        m = rank_confidence_sets(reps, simultaneous=False, batch=batch)
        for got, ref in ((s, ref_s), (m, ref_m)):
            np.testing.assert_array_equal(got.low, ref.low)
            np.testing.assert_array_equal(got.high, ref.high)
            np.testing.assert_array_equal(got.critical_value, ref.critical_value)
            assert (got.steps, got.pairs_examined) == (ref.steps, ref.pairs_examined)


def test_small_boards_numpy_equals_the_block_searches(monkeypatch):
    """Boards up to closed_small.SMALL entries take numpy step-downs instead of the compiled block
    searches: the same bits (critical values, rounds, screened pairs, verdicts, t, tiers, best
    set), float32 and float64 errors, ties, zero SDs and rho near 1 included."""
    from leaderboard.tiers import closed_small
    from leaderboard.tiers._block_kernels import t_of
    boards = [r for r in cases(24, 24) if r.n_entries <= closed_small.SMALL]
    boards.append(board(np.random.default_rng(5), closed_small.SMALL))
    small = [(rank_confidence_sets(r), rank_confidence_sets(r, simultaneous=False),
              best_set(r)) for r in boards]
    monkeypatch.setattr(closed_small, "SMALL", 0)   # every board through the block searches
    for reps, (s_small, m_small, b_small) in zip(boards, small):
        s_block = rank_confidence_sets(reps)
        m_block = rank_confidence_sets(reps, simultaneous=False)
        for got, ref in ((s_small, s_block), (m_small, m_block)):
            for field in ("low", "high", "critical_value"):
                assert getattr(got, field).tobytes() == getattr(ref, field).tobytes(), field
            assert ((got.steps, got.pairs_examined, got.pairs_screened) ==
                    (ref.steps, ref.pairs_examined, ref.pairs_screened))
        rel_s, rel_b = s_small.shown_better, s_block.shown_better
        assert rel_s.n_unresolved == rel_b.n_unresolved
        monkeypatch.setattr(closed_small, "SMALL", 10 ** 6)
        tiers_small = rel_s.tiers()
        monkeypatch.setattr(closed_small, "SMALL", 0)
        np.testing.assert_array_equal(tiers_small, rel_b.tiers())
        np.testing.assert_array_equal(b_small, best_set(reps))
        n = reps.n_entries
        t_kernel = np.array([[t_of(reps.point, rel_b.sd, rel_b.rho, j, k) if j != k else 0.0
                              for k in range(n)] for j in range(n)])
        assert rel_s.t(n).tobytes() == t_kernel.tobytes()


def kaggle_board(seed, n, rho, spread=True):
    """Dense at the top, a long tail, SDs that grow as scores fall (as a universe gives them)."""
    rng = np.random.default_rng(seed)
    point = np.sort(np.clip(0.93 - rng.gamma(2.0, 0.03, n), 0.5, 1.0).round(5))[::-1]
    sd = 0.0057 + (0.02 if spread else 0.0) * (0.93 - point)
    # 500 draws (1,000 until issue 27): both methods read the same draws, so their count only
    # sets the cost; the board's size, density and SDs are what drive the block paths
    return RankReplicates.normal(point, sd, rho, True, replicates=500, seed=seed)


@pytest.mark.parametrize("n, rho", [(400, 0.0), (1500, 0.363), (900, 0.8)])
def test_same_answers_as_the_pair_tiles(n, rho):
    """The pair-tile step-down (still the bootstrap's) on the same closed-form draws."""
    reps = kaggle_board(n, n, rho)
    d = rank_sets_data(RankReplicates(reps.point, reps.errors, reps.sd, None, 1.0, "x"), ALPHA,
                      None)
    d = type(d)(d.err, d.err, d.point, np.asarray(reps.sd, float), rho, False, d.kq, d.ib)
    old_s, old_m = _simultaneous(d, ALPHA), _marginal(d, ALPHA)
    new_s = rank_confidence_sets(reps, ALPHA)
    new_m = rank_confidence_sets(reps, ALPHA, simultaneous=False)
    for new, old in ((new_s, old_s), (new_m, old_m)):
        np.testing.assert_array_equal(new.low, old.low)
        np.testing.assert_array_equal(new.high, old.high)
    np.testing.assert_array_equal(rank_set_tiers(new_s).tier, old_s.shown_better.tiers())
    np.testing.assert_array_equal(new_s.shown_better.matrix(30), old_s.shown_better.matrix(30))
    assert new_s.shown_better.n_unresolved == old_s.shown_better.n_unresolved


def test_reach_bound_holds_over_every_sd():
    """``beyond`` bounds (s z + w) / se(s_i, s) over the whole SD range (dense grid check)."""
    from leaderboard.tiers._block_kernels import beyond, reach
    rng = np.random.default_rng(8)
    slack = []
    for _ in range(3000):
        si = 0.0 if rng.random() < 0.05 else rng.uniform(0, 0.02)
        rho = float(rng.choice([0.0, 0.3, 0.6, 0.95]))
        lo = rng.uniform(0, 0.01)
        hi = lo + rng.uniform(0, 0.02)
        z, e = rng.normal(0, 3), si * rng.normal(0, 2)
        grid = np.linspace(lo, hi, 2001)
        a, b = np.minimum(si, grid), np.maximum(si, grid)
        se = np.sqrt(np.maximum(a ** 2 + b ** 2 - 2 * rho * a * b, 0))
        for w in (-e, e):
            v = grid * max(z, 0.0) + w
            vals = np.where(se > 0, v / np.where(se > 0, se, 1), np.where(v <= 0, 0, np.inf))
            got = beyond(z, w, reach(si, rho, lo, hi))
            assert vals.max() <= got
            if np.isfinite(got) and si > 0:
                slack.append(got - vals.max())
    assert np.median(slack) < 1e-3   # and it is tight, not merely an upper bound
