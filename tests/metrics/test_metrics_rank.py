"""Rank metrics (AUC family, normalized Gini, CAP accuracy ratio, average precision), weighted form.

Reference values come from scikit-learn wherever it has the metric, and from small direct
implementations written here otherwise (Kaggle's normalized Gini, the average over tie orders).
"""
from __future__ import annotations

from itertools import permutations

import numpy as np
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score

from leaderboard.metrics import get_metric

TOL = 1e-9
RANK_METRICS = ("auc", "auc_ovr", "auc_ovr_weighted", "auc_ovo", "auc_ovo_weighted", "gini",
                "cap_ar", "average_precision")
MULTICLASS = {"auc": ("ovr", "macro"), "auc_ovr": ("ovr", "macro"),
              "auc_ovr_weighted": ("ovr", "weighted"), "auc_ovo": ("ovo", "macro"),
              "auc_ovo_weighted": ("ovo", "weighted")}


def _binary(n=400, seed=0, decimals=1):
    """A 0/1 target and three entries' scores, rounded so that many scores tie."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.35).astype(int)
    preds = [np.round(y * skill + rng.normal(size=n), decimals) for skill in (0.5, 1.0, 2.0)]
    return y, preds


def _multiclass(n=300, n_classes=4, seed=1):
    """Class codes and three entries' probability matrices (rows sum to 1, with ties)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    preds = []
    for skill in (0.5, 1.0, 3.0):
        logits = np.round(skill * np.eye(n_classes)[y] + rng.normal(size=(n, n_classes)), 1)
        p = np.exp(logits)
        preds.append(p / p.sum(axis=1, keepdims=True))
    return y, preds


def _kaggle_gini(actual, pred):
    """Kaggle's Gini: rows by decreasing prediction, ties by row order; Lorenz sum - diagonal."""
    actual = np.asarray(actual, dtype=float)
    order = np.lexsort((np.arange(len(actual)), -np.asarray(pred, dtype=float)))
    lorenz = np.cumsum(actual[order]) / actual.sum()
    return lorenz.sum() / len(actual) - (len(actual) + 1) / (2.0 * len(actual))


def _kaggle_normalized_gini(actual, pred):
    return _kaggle_gini(actual, pred) / _kaggle_gini(actual, actual)


def _sklearn(name, y, p, sample_weight=None):
    """scikit-learn's value of a metric (None where scikit-learn has no such metric)."""
    if name == "average_precision":
        return average_precision_score(y, p, sample_weight=sample_weight)
    if name in MULTICLASS:
        if np.ndim(p) == 1:
            return roc_auc_score(y, p, sample_weight=sample_weight)
        multi_class, average = MULTICLASS[name]
        return roc_auc_score(y, p, multi_class=multi_class, average=average,
                             sample_weight=sample_weight)
    if name in ("gini", "cap_ar") and np.ndim(p) == 1:
        return 2.0 * roc_auc_score(y, p, sample_weight=sample_weight) - 1.0
    return None


# --- point values against scikit-learn -----------------------------------------------------------

@pytest.mark.parametrize("name", ["auc", "auc_ovo", "gini", "cap_ar", "average_precision"])
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_matches_sklearn(name, weighted):
    y, preds = _binary()
    w = np.random.default_rng(5).uniform(0.0, 3.0, len(y)) if weighted else None
    metric = get_metric(name)
    for p in preds:
        assert metric.score(y, p, w) == pytest.approx(_sklearn(name, y, p, w), abs=TOL)


@pytest.mark.parametrize("name", sorted(MULTICLASS))
def test_multiclass_auc_matches_sklearn(name):
    y, preds = _multiclass()
    metric = get_metric(name)
    for p in preds:
        assert metric.score(y, p) == pytest.approx(_sklearn(name, y, p), abs=TOL)
    if MULTICLASS[name][0] == "ovr":    # scikit-learn refuses sample_weight for one-vs-one
        w = np.random.default_rng(6).uniform(0.0, 3.0, len(y))
        assert metric.score(y, preds[1], w) == pytest.approx(_sklearn(name, y, preds[1], w),
                                                             abs=TOL)


def test_multiclass_average_precision_matches_sklearn():
    y, preds = _multiclass()
    w = np.random.default_rng(7).uniform(0.0, 3.0, len(y))
    metric = get_metric("average_precision")
    for p in preds:
        assert metric.score(y, p) == pytest.approx(average_precision_score(y, p), abs=TOL)
        assert metric.score(y, p, w) == pytest.approx(
            average_precision_score(y, p, sample_weight=w), abs=TOL)


def test_all_tied_and_perfect_scores():
    y = np.array([0, 1, 0, 1, 1])
    assert get_metric("auc").score(y, np.zeros(5)) == 0.5
    assert get_metric("cap_ar").score(y, np.zeros(5)) == pytest.approx(0.0, abs=1e-15)
    assert get_metric("auc").score(y, y * 2.0) == 1.0
    assert get_metric("average_precision").score(y, -y) == pytest.approx(
        average_precision_score(y, -y), abs=TOL)


# --- bootstrap replicates -------------------------------------------------------------------------

def _data_for(name):
    return _multiclass(n=120) if name.startswith("auc_o") else _binary(n=150)


@pytest.mark.parametrize("name", RANK_METRICS)
def test_integer_weights_equal_repeated_rows(name):
    """A replicate with counts w is the data with row i repeated w[i] times."""
    y, preds = _data_for(name)
    weights = np.random.default_rng(8).integers(0, 4, size=(5, len(y)))
    impl = get_metric(name).impl
    got = impl.replicates(y, preds, weights)
    for e, p in enumerate(preds):
        for r, w in enumerate(weights):
            y_rep, p_rep = np.repeat(y, w), np.repeat(p, w, axis=0)
            expected = _sklearn(name, y_rep, p_rep)
            assert got[e, r] == pytest.approx(expected, abs=TOL)
            assert got[e, r] == pytest.approx(impl.score(y_rep, p_rep), abs=TOL)


@pytest.mark.parametrize("name", RANK_METRICS)
@pytest.mark.parametrize("counts", [True, False])
def test_entries_and_replicates_in_any_chunks_give_identical_values(name, counts):
    y, preds = _data_for(name)
    rng = np.random.default_rng(9)
    weights = (rng.poisson(1.0, size=(7, len(y))).astype(float) if counts
               else rng.uniform(0.0, 2.0, size=(7, len(y))))
    impl = get_metric(name).impl
    together = impl.replicates(y, preds, weights)
    assert together.shape == (len(preds), len(weights))
    one_at_a_time = np.vstack([impl.replicates(y, [p], weights) for p in preds])
    split = np.hstack([impl.replicates(y, preds, weights[:3]),
                       impl.replicates(y, preds, weights[3:])])
    single = np.hstack([impl.replicates(y, preds, w[None]) for w in weights])
    np.testing.assert_array_equal(together, one_at_a_time)
    np.testing.assert_array_equal(together, split)
    np.testing.assert_array_equal(together, single)


@pytest.mark.parametrize("name", ["auc", "gini", "cap_ar", "average_precision"])
def test_small_counts_and_other_weights_give_identical_values(name, monkeypatch):
    """Counts in [0, 255] take a compact uint8 path in the kernels (past SMALL_TILE_ROWS rows,
    here every size); the values must not change."""
    from leaderboard.metrics import _rank_kernels
    monkeypatch.setattr(_rank_kernels, "SMALL_TILE_ROWS", 0)
    assert _rank_kernels.tile_prototype(np.ones((2, 3))).dtype == np.uint8
    y, preds = _data_for(name)
    weights = np.random.default_rng(12).poisson(1.0, size=(5, len(y))).astype(float)
    large = weights.copy()
    large[-1, 0] = 256.0                    # one count too large for uint8: the float64 path
    impl = get_metric(name).impl
    np.testing.assert_array_equal(impl.replicates(y, preds, weights)[:, :-1],
                                  impl.replicates(y, preds, large)[:, :-1])


def test_no_entries_gives_empty_result():
    y, _ = _binary(n=20)
    assert get_metric("auc").impl.replicates(y, [], np.ones((3, 20))).shape == (0, 3)


# --- degenerate replicates ------------------------------------------------------------------------

def test_replicate_without_positives_or_negatives_is_nan():
    y, preds = _binary(n=50)
    weights = np.ones((3, len(y)))
    weights[1, y == 1] = 0.0      # no positives
    weights[2, y == 0] = 0.0      # no negatives
    for name in ("auc", "gini", "cap_ar", "auc_ovo"):
        values = get_metric(name).impl.replicates(y, preds, weights)
        assert np.all(np.isfinite(values[:, 0])) and np.all(np.isnan(values[:, 1:])), name
    ap = get_metric("average_precision").impl.replicates(y, preds, weights)
    assert np.all(np.isnan(ap[:, 1])) and np.all(ap[:, 2] == 1.0)


def test_multiclass_replicate_averages_over_the_classes_present():
    y, preds = _multiclass(n=200)
    p = preds[1]
    weights = np.ones((3, len(y)))
    weights[1, y == 2] = 0.0                          # class 2 absent
    weights[2, y != 0] = 0.0                          # only class 0 left
    keep = y != 2
    ovr = np.mean([roc_auc_score(y[keep] == c, p[keep, c]) for c in (0, 1, 3)])
    ovo = np.mean([(roc_auc_score(y[m] == a, p[m, a]) + roc_auc_score(y[m] == b, p[m, b])) / 2
                   for a, b in ((0, 1), (0, 3), (1, 3)) for m in [np.isin(y, (a, b))]])
    ap = np.mean([average_precision_score(y[keep] == c, p[keep, c]) for c in (0, 1, 3)])
    for name, expected in (("auc_ovr", ovr), ("auc_ovo", ovo), ("average_precision", ap)):
        values = get_metric(name).impl.replicates(y, [p], weights)[0]
        assert values[1] == pytest.approx(expected, abs=TOL), name
        assert np.isnan(values[2]), name


# --- Gini and CAP ---------------------------------------------------------------------------------

def test_gini_and_cap_ar_are_2auc_minus_1_for_binary_targets():
    y, preds = _binary()
    weights = np.random.default_rng(10).poisson(1.0, size=(6, len(y))).astype(float)
    auc = get_metric("auc").impl.replicates(y, preds, weights)
    for name in ("gini", "cap_ar"):
        values = get_metric(name).impl.replicates(y, preds, weights)
        np.testing.assert_allclose(values, 2 * auc - 1, rtol=0, atol=1e-12)


def test_gini_of_a_continuous_target_is_kaggles_normalized_gini():
    rng = np.random.default_rng(11)
    n = 300
    claims = np.where(rng.random(n) < 0.3, rng.gamma(2.0, 100.0, n), 0.0)
    preds = [claims * skill + rng.gamma(2.0, 50.0, n) for skill in (0.0, 0.5, 2.0)]
    metric = get_metric("normalized_gini")
    for p in preds:   # continuous predictions: no ties, so Kaggle's tie-break plays no part
        assert metric.score(claims, p) == pytest.approx(_kaggle_normalized_gini(claims, p), abs=TOL)
        assert metric.score(claims, -p) == pytest.approx(-metric.score(claims, p), abs=TOL)
    assert metric.score(claims, claims) == pytest.approx(1.0, abs=1e-12)
    w = rng.integers(0, 4, n)
    assert metric.score(claims, preds[1], w.astype(float)) == pytest.approx(
        _kaggle_normalized_gini(np.repeat(claims, w), np.repeat(preds[1], w)), abs=TOL)


def test_gini_tied_predictions_score_the_average_over_tie_orders():
    target = np.array([0.0, 3.0, 1.0, 7.0, 0.0, 2.0, 5.0])
    pred = np.array([0.9, 0.5, 0.5, 0.5, 0.1, 0.5, 0.3])     # four rows tied at 0.5
    tied = np.flatnonzero(pred == 0.5)
    values = []
    for perm in permutations(tied):
        order = np.arange(len(pred))
        order[tied] = perm        # Kaggle breaks ties by row order: relabel the tied rows
        values.append(_kaggle_normalized_gini(target[order], pred))
    assert get_metric("gini").score(target, pred) == pytest.approx(np.mean(values), abs=TOL)


def test_gini_of_a_constant_target_is_nan():
    assert np.isnan(get_metric("gini").score(np.full(6, 2.5), np.arange(6.0)))
    assert np.isnan(get_metric("gini").score(np.zeros(6), np.arange(6.0)))


# --- input errors and registry --------------------------------------------------------------------

@pytest.mark.parametrize("name, y, p, message", [
    ("auc", [0, 1, 1], [0.1, 0.2], "shape"),
    ("auc", [0, 1, 2], [0.1, 0.2, 0.3], "0/1"),
    ("auc", [0, 1, 1], [0.1, np.nan, 0.3], "NaN"),
    ("auc_ovr", [0, 1, 3], np.eye(3), "class codes"),
    ("gini", [0, 1, 1], np.eye(3), "one score per row"),
    ("gini", [-1.0, 2.0, 3.0], [0.1, 0.2, 0.3], "non-negative"),
    ("cap_ar", [0.0, 2.0, 3.0], [0.1, 0.2, 0.3], "0/1"),
])
def test_invalid_input_raises(name, y, p, message):
    with pytest.raises(ValueError, match=message):
        get_metric(name).score(np.asarray(y), np.asarray(p))


def test_weights_of_the_wrong_shape_or_sign_raise():
    impl = get_metric("auc").impl
    with pytest.raises(ValueError, match="shape"):
        impl.replicates([0, 1, 1], [[0.1, 0.2, 0.3]], np.ones((2, 4)))
    with pytest.raises(ValueError, match="non-negative"):
        impl.replicates([0, 1, 1], [[0.1, 0.2, 0.3]], [[1.0, -1.0, 1.0]])


def test_entries_of_different_shapes_raise():
    with pytest.raises(ValueError, match="differ in shape"):
        get_metric("auc").impl.replicates([0, 1, 1], [[0.1, 0.2, 0.3], np.eye(3)], np.ones((1, 3)))


@pytest.mark.parametrize("spelling, name", [
    ("ROC_AUC", "auc"), ("roc-auc-score", "auc"), ("AUROC", "auc"), ("roc_auc_ovr", "auc_ovr"),
    ("roc_auc_ovo_weighted", "auc_ovo_weighted"), ("Normalized Gini", "gini"),
    ("gini_normalized", "gini"), ("accuracy_ratio", "cap_ar"), ("PR-AUC", "average_precision"),
    ("average_precision_score", "average_precision"), ("AP", "average_precision"),
])
def test_spellings_resolve(spelling, name):
    assert get_metric(spelling).name == name


def test_registry_entries():
    for name in RANK_METRICS:
        metric = get_metric(name)
        assert metric.kind == "scores" and metric.higher_is_better and metric.can_score
        assert metric.upper_bound == 1.0
    assert get_metric("auc").noise_model is None   # binormal by default; linspace when asked
    assert get_metric("gini").lower_bound == -1.0 and get_metric("cap_ar").lower_bound == -1.0
