"""The binormal universe's AUC without sorting (leaderboard/noise/universes/sorted_auc.py).

Independent references: scikit-learn's roc_auc_score for the truth (ties half), and the general
weighted kernel (CalibratedUniverse.simulate) for the simulated test sets, which must agree to the
last bit: both count pairs of integer row counts exactly."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from leaderboard.metrics import get_metric
from leaderboard.noise.rng import BLOCK, block_rng, draw_rows, row_counts
from leaderboard.noise.universes.binary import BinormalUniverse
from leaderboard.noise.universes import sorted_auc
from leaderboard.noise.universes.finite import STREAM, CalibratedUniverse
from leaderboard.noise.universes.sorted_auc import (merge_places, simulate_sorted_auc,
                                                   sorted_classes_auc, sorted_classes_aucs)


def test_sorted_classes_auc_is_sklearns_with_ties_and_either_direction():
    rng = np.random.default_rng(1)
    neg = np.sort(rng.integers(0, 20, 300)).astype(float)    # many ties, within and across
    pos = np.sort(rng.integers(5, 30, 70)).astype(float)
    y = np.r_[np.zeros(neg.size), np.ones(pos.size)]
    pairs = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    for a, b in ((neg, pos), (neg[::-1], pos), (neg, pos[::-1]), (neg[::-1], pos[::-1])):
        # the exact pair count, correctly rounded (scikit-learn's trapezoids round on the way)
        assert sorted_classes_auc(a, b) == pairs / (neg.size * pos.size)
        assert sorted_classes_auc(a, b) == pytest.approx(roc_auc_score(y, np.r_[a, b]),
                                                         rel=0, abs=1e-14)
    shuffled = rng.permutation(neg)
    assert np.isnan(sorted_classes_auc(shuffled, pos))
    assert np.isnan(sorted_classes_auc(neg, np.r_[pos[:-1], np.nan]))


@pytest.mark.parametrize("spread", [1.0, 2.0])
def test_binormal_auc_truth_is_exact(spread):
    u = BinormalUniverse(get_metric("auc"), 0.1, spread=spread)
    params = np.linspace(*u.param_range, 9)   # reversed models below no skill too
    truth = u.truth(params)
    exact = [roc_auc_score(u.y, m) for m in u.predictions(params)]
    assert np.allclose(truth, exact, rtol=0, atol=1e-14)
    # the weighted kernel's truth agrees far below the 1e-7 that calibration solves to
    assert np.allclose(truth, CalibratedUniverse._truth_of_rows(u, u.predictions(params)),
                       rtol=0, atol=1e-12)


@pytest.mark.parametrize("spread, prevalence, n_test", [(2.0, 0.1, 300), (1.0, 0.1, 3000),
                                                        (2.0, 0.7, 1000), (2.0, 0.01, 20000)])
def test_simulated_aucs_are_the_weighted_kernels_to_the_bit(spread, prevalence, n_test):
    """Same random test sets, same values: levels on both sides of no skill (the negatives run
    backwards below it), a partial last block, and a test set with more negatives than the
    universe has rows (counted draws)."""
    u = BinormalUniverse(get_metric("auc"), prevalence, spread=spread)
    levels = np.array([0.3, 0.5, 0.72, 0.9, 0.995])
    new = u.simulate(levels, n_test, prevalence, 70, seed=5)
    old = CalibratedUniverse.simulate(u, levels, n_test, prevalence, 70, seed=5)
    assert np.array_equal(new, old)
    assert np.all((new >= 0) & (new <= 1)) and np.all(new.std(axis=1) > 0)


@pytest.mark.parametrize("gather", [None, 1])
def test_ties_across_classes_count_half_as_the_kernel_does(gather, monkeypatch):
    """Tied and untied models, in both directions, scored together; and one test set at a time
    (``_GATHER``: how many places _pairs looks up at once), which must not change a bit."""
    if gather is not None:
        monkeypatch.setattr(sorted_auc, "_GATHER", gather)
    neg = np.repeat(np.arange(10.0), 40)    # 400 rows, in order
    pos = np.repeat(np.arange(3.0, 13.0), 40)
    distinct = np.linspace(0.0, 9.0, 400), np.linspace(3.05, 12.05, 400)
    out = simulate_sorted_auc([(neg, pos), (-neg, -pos), distinct], [60, 20], 64, 2, draw_rows,
                              fallback=None)
    impl = get_metric("auc").impl
    y = np.r_[np.zeros(neg.size, int), np.ones(pos.size, int)]
    prepared = impl.prepare(y, [np.r_[neg, pos], np.r_[-neg, -pos], np.r_[distinct]])
    for block in range(2):
        rng = block_rng(2, STREAM, block)
        weights = np.hstack([row_counts(draw_rows(rng, 60, 400, sort=False), 60, 400),
                             row_counts(draw_rows(rng, 20, 400, sort=False), 20, 400)])
        expected = impl.evaluate(prepared, weights.astype(float))
        assert np.array_equal(out[:, block * BLOCK:(block + 1) * BLOCK], expected)


def test_out_of_order_negatives_and_many_positives_fall_back():
    neg, pos = np.linspace(0, 1, 100), np.linspace(0.5, 1.5, 100)
    called = []
    fallback = lambda: called.append(1) or "general"
    assert simulate_sorted_auc([(neg[::-1].copy()[np.r_[1, 0, 2:100]], pos)], [50, 10], 32, 0,
                               draw_rows, fallback=fallback) == "general"
    assert simulate_sorted_auc([(neg, pos)], [40, 60], 32, 0, draw_rows,
                               fallback=fallback) == "general"
    assert len(called) == 2


@pytest.mark.parametrize("case", ["distinct", "ties", "signed zeros", "descending positives"])
def test_merge_places_are_searchsorteds_left_and_right(case):
    """The merge's counts are numpy's binary searches' on every kind of tie: positives tied with
    one negative, with several, and -0.0 against 0.0 (equal, as the sort and the search see)."""
    rng = np.random.default_rng(3)
    neg = np.sort(rng.standard_normal(500))
    pos = rng.standard_normal(200)
    if case == "ties":
        neg = np.sort(rng.integers(0, 30, 500)).astype(float)
        pos = rng.integers(-2, 33, 200).astype(float)
    elif case == "signed zeros":
        neg = np.sort(np.r_[neg, 0.0, 0.0])
        pos = np.r_[pos, -0.0, 0.0, neg[7]]
    elif case == "descending positives":
        pos = np.r_[np.sort(pos)[::-1], neg[::50]]
    below, up_to = merge_places(neg, pos)
    assert np.array_equal(below, np.searchsorted(neg, pos, "left"))
    assert np.array_equal(up_to, np.searchsorted(neg, pos, "right"))
    assert (below is up_to) == (case == "distinct")


def test_many_models_at_once_are_each_alone():
    """The batched truth equals the one-model function, model by model, across the binormal
    path (reversed models, no skill, spread 1 whose log-odds tie near no skill)."""
    for spread in (1.0, 2.0):
        u = BinormalUniverse(get_metric("auc"), 0.1, spread=spread)
        models = u.predictions(np.r_[np.linspace(*u.param_range, 41), 0.0, 1e-9, -1e-9])
        each = [sorted_classes_auc(m[:8192], m[8192:]) for m in models]
        assert np.array_equal(sorted_classes_aucs(models, 8192), each)
        exact = [roc_auc_score(u.y, m) for m in models[::8]]
        assert np.allclose(each[::8], exact, rtol=0, atol=1e-14)
