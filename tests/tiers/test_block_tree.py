"""The block tree's searches (issue 41) against loops over every entry, on boards made to break a
wrong pruning: ties and wholly tied boards, one entry with a huge or a zero SD, blocks of one
entry, sizes that are not a multiple of the block, critical values equal to a pair's t."""
from __future__ import annotations

import numpy as np

from leaderboard.tiers import RankReplicates, closed_small
from leaderboard.tiers._block_kernels import K, se_box
from leaderboard.tiers._block_searches import closed_layers, counts_at
from leaderboard.tiers._block_tree import STACK, rejected, sd_tree, tree_max_t
from leaderboard.tiers.best_set import best_set
from leaderboard.tiers.closed_sets import _ranges
from leaderboard.tiers.rank_sets import rank_confidence_sets
from tests.tiers.test_rank_sets import ALPHA, brute_best, brute_marginal, brute_simultaneous, brute_tiers


def _board(rng, case):
    """Points in rank order and SDs of an adversarial shape (``case`` picks it)."""
    n = int(rng.choice([1, 2, 5, 8, 9, 17, 25, 33, 49, 57, 70]))
    point = np.sort(rng.normal(0, 0.05, n))[::-1]
    shape = case % 6
    if shape == 1:                       # tie groups
        point = np.sort(rng.choice(point[:max(1, n // 4)], n))[::-1]
    elif shape == 2:                     # one score for all
        point[:] = 0.7
    sd = 0.01 + 0.05 * (point.max() - point)   # smooth in the score
    if shape == 3:
        sd = rng.uniform(0.001, 0.05, n)       # unrelated to the score
    elif shape == 4:
        sd[rng.integers(n)] = 50.0             # one huge SD
    elif shape == 5:
        sd[rng.integers(n)] = 0.0              # one zero SD (se = 0 with a like entry at rho 0)
        sd[rng.integers(n)] = 1e-9
    sub = int(rng.choice([1, 2, 3]))           # blocks of 8, 16, 24: many blocks, a last one of 1
    rho = float(rng.choice([0.0, 0.5, 0.95]))
    return np.ascontiguousarray(point), np.ascontiguousarray(sd), rho, sub


def _critical_values(rng, t):
    """Values the searches compare with: some exact t of a pair (a wrong > vs >= shows), zero,
    a negative and a usual one."""
    finite = t[np.isfinite(t)]
    picks = rng.choice(finite, size=min(4, finite.size), replace=False) if finite.size else []
    return [float(c) for c in picks] + [0.0, -0.7, 2.5]


def test_counts_largest_t_and_tiers_equal_loops_over_every_entry():
    rng = np.random.default_rng(41)
    for case in range(60):
        point, sd, rho, sub = _board(rng, case)
        n = point.size
        t = closed_small.t_matrix(point, closed_small.se_matrix(sd, rho))   # t[j, k]: j over k
        off = ~np.eye(n, dtype=bool)
        blo, bhi = _ranges(sd, sub * K)
        slo, shi = _ranges(sd, sub)
        for c in _critical_values(rng, t):
            out = np.zeros((n, 2), dtype=np.int64)
            counts_at(point, sd, rho, sub, blo, bhi, slo, shi, c, out, 0, n)
            np.testing.assert_array_equal(out[:, 0], ((t > c) & off).sum(axis=1), err_msg=case)
            np.testing.assert_array_equal(out[:, 1], ((t > c) & off).sum(axis=0), err_msg=case)
            shown = (point[:, None] > point[None, :]) & (t > c)
            np.testing.assert_array_equal(closed_layers(point, sd, rho, c, sub, blo, bhi, slo, shi),
                                          brute_tiers(shown), err_msg=case)
        if n > 1:
            tree, stack = sd_tree(blo, bhi), np.empty(STACK, np.int64)
            largest = np.where(off, t, -np.inf).max(axis=0)
            got = [tree_max_t(i, point, sd, rho, sub, tree, stack) for i in range(n)]
            np.testing.assert_array_equal(got, largest, err_msg=case)


def test_blocks_passed_over_by_the_walks_are_wholly_rejected():
    """A block the marginal walks pass over (``rejected``, with its owner block's 1 / se box)
    has every member's hypothesis against i rejected, on the side asked; and some are."""
    rng = np.random.default_rng(43)
    passed = 0
    for case in range(30):
        point, sd, rho, sub = _board(rng, case)
        n, bs = point.size, sub * K
        t = closed_small.t_matrix(point, closed_small.se_matrix(sd, rho))
        blo, bhi = _ranges(sd, bs)
        for c in _critical_values(rng, t):
            for i in range(n):
                for b in range(blo.size):
                    ilo, ihi = se_box(blo[i // bs], bhi[i // bs], blo[b], bhi[b], rho)
                    members = slice(b * bs, min(n, b * bs + bs))
                    for up, shown in ((True, t[members, i]), (False, t[i, members])):
                        if rejected(i, b, c, up, n, bs, point[i], point[members][0],
                                    point[members][-1], ilo, ihi):
                            passed += 1
                            assert np.all(shown > c), (case, i, b, c, up)
    assert passed > 1000


def test_rank_and_best_sets_on_adversarial_boards_equal_brute_force():
    """The whole step-downs (marginal walks with their lazily bounded blocks) on the shapes above."""
    rng = np.random.default_rng(7)
    for case in range(6):
        point, sd, rho, sub = _board(rng, case + 3 * (case % 2))
        if point.size < 2:
            continue
        reps = RankReplicates.normal(point, sd, rho, True, replicates=200, seed=case)
        batch = sub * K
        low, high, *_ = brute_simultaneous(reps)
        sets = rank_confidence_sets(reps, ALPHA, batch=batch)
        np.testing.assert_array_equal(sets.low, low, err_msg=case)
        np.testing.assert_array_equal(sets.high, high, err_msg=case)
        low, high, _ = brute_marginal(reps)
        sets = rank_confidence_sets(reps, ALPHA, simultaneous=False, batch=batch)
        np.testing.assert_array_equal(sets.low, low, err_msg=case)
        np.testing.assert_array_equal(sets.high, high, err_msg=case)
        np.testing.assert_array_equal(best_set(reps, ALPHA, batch=batch), brute_best(reps)[0],
                                      err_msg=case)


def test_marginal_walks_filling_flags_as_reached_equal_brute_force():
    """Fewer replicates than blocks: the marginal walks fill each block's flags where they reach
    it (``verdicts``), not all at once as on the boards above; the same sets as the brute force
    on the adversarial shapes (blocks of 8 entries, 4 replicates, up to 70 entries)."""
    rng = np.random.default_rng(11)
    lazy = 0
    for case in range(18):
        point, sd, rho, _ = _board(rng, case)
        if point.size < 2:
            continue
        reps = RankReplicates.normal(point, sd, rho, True, replicates=4, seed=case)
        lazy += -(-point.size // K) > 4
        low, high, _ = brute_marginal(reps)
        sets = rank_confidence_sets(reps, ALPHA, simultaneous=False, batch=K)
        np.testing.assert_array_equal(sets.low, low, err_msg=case)
        np.testing.assert_array_equal(sets.high, high, err_msg=case)
    assert lazy >= 3
