"""Clustering metrics: scikit-learn point values, replicates as repeated rows, edge cases."""
import warnings

import numpy as np
import pytest
from sklearn import metrics as skm

from leaderboard.metrics import get_metric

SKLEARN = {
    "ari": skm.adjusted_rand_score,
    "ami": skm.adjusted_mutual_info_score,
    "nmi": skm.normalized_mutual_info_score,
    "v_measure": skm.v_measure_score,
    "homogeneity": skm.homogeneity_score,
    "completeness": skm.completeness_score,
    "fowlkes_mallows": skm.fowlkes_mallows_score,
}
NAMES = tuple(SKLEARN)


def labelings(rng, n, n_classes, n_clusters, agreement=0.6):
    """True classes and a clustering that follows them for a share of rows, with other ids."""
    truth = rng.integers(0, n_classes, n)
    pred = np.where(rng.random(n) < agreement, truth % n_clusters, rng.integers(0, n_clusters, n))
    return truth, np.array([f"c{j}" for j in pred])


def cases():
    rng = np.random.default_rng(0)
    yield labelings(rng, 50, 3, 3)
    yield labelings(rng, 200, 5, 8, agreement=0.3)
    yield labelings(rng, 31, 7, 2)
    yield labelings(rng, 12, 2, 12, agreement=0.0)
    truth = rng.integers(0, 4, 40)
    yield truth, (truth + 1) % 4                                   # perfect, renamed
    yield truth, np.zeros(40, dtype=int)                           # one cluster
    yield np.zeros(40, dtype=int), truth                           # one class
    yield np.zeros(5, dtype=int), np.zeros(5, dtype=int)
    yield np.arange(6), np.arange(6)[::-1]                         # all singletons
    yield np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1])           # independent: MI = 0
    yield np.array([3]), np.array([7])


def sklearn_score(name, truth, pred):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SKLEARN[name](truth, pred)


@pytest.mark.parametrize("name", NAMES)
def test_point_values_agree_with_sklearn(name):
    metric = get_metric(name)
    for truth, pred in cases():
        assert metric.score(truth, pred) == pytest.approx(sklearn_score(name, truth, pred),
                                                          rel=1e-9, abs=1e-9), (truth, pred)


def test_ami_on_a_large_table():
    # EMI walks each hypergeometric pmf out from its mode; check it where the pmfs are wide.
    rng = np.random.default_rng(5)
    truth, pred = labelings(rng, 20000, 6, 9, agreement=0.05)
    impl = get_metric("ami").impl
    weights = np.vstack([np.ones(20000), rng.multinomial(20000, np.full(20000, 1 / 20000))])
    got = impl.replicates(truth, [pred], weights)[0]
    want = [sklearn_score("ami", np.repeat(truth, w.astype(int)), np.repeat(pred, w.astype(int)))
            for w in weights]
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_integer_weights_are_repeated_rows(name):
    rng = np.random.default_rng(1)
    impl = get_metric(name).impl
    for truth, pred in [labelings(rng, 30, 3, 4), labelings(rng, 25, 6, 3, agreement=0.2)]:
        n = len(truth)
        weights = rng.multinomial(n, np.full(n, 1 / n), size=15)
        weights[0] = 0
        weights[0, :3] = [2, 1, 0]                                 # few rows: degenerate tables
        weights[1] = 0
        weights[1, 4] = 5                                          # one row drawn five times
        got = impl.replicates(truth, [pred], weights)
        want = [sklearn_score(name, np.repeat(truth, w), np.repeat(pred, w)) for w in weights]
        np.testing.assert_allclose(got[0], want, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("name", NAMES)
def test_entries_together_equal_entries_alone_and_blocks_do_not_matter(name):
    rng = np.random.default_rng(2)
    truth, pred1 = labelings(rng, 60, 4, 4)
    _, pred2 = labelings(rng, 60, 4, 9, agreement=0.3)
    pred3 = rng.integers(0, 2, 60)
    impl = get_metric(name).impl
    weights = rng.multinomial(60, np.full(60, 1 / 60), size=10)
    together = impl.replicates(truth, [pred1, pred2, pred3], weights)
    for e, pred in enumerate([pred1, pred2, pred3]):
        np.testing.assert_allclose(together[e], impl.replicates(truth, [pred], weights)[0],
                                   rtol=1e-13, atol=1e-15)
    halves = np.hstack([impl.replicates(truth, [pred1, pred2, pred3], weights[:3]),
                        impl.replicates(truth, [pred1, pred2, pred3], weights[3:])])
    np.testing.assert_array_equal(halves, together)


@pytest.mark.parametrize("name", ["nmi", "v_measure", "homogeneity", "completeness"])
def test_entropy_metrics_take_fractional_frequency_weights(name):
    # Entropies and mutual information depend on proportions only: halving weights changes nothing.
    rng = np.random.default_rng(3)
    truth, pred = labelings(rng, 40, 3, 5)
    w = rng.integers(0, 4, 40)
    got = get_metric(name).score(truth, pred, sample_weight=w / 2)
    assert got == pytest.approx(sklearn_score(name, np.repeat(truth, w), np.repeat(pred, w)),
                                rel=1e-9)


def test_pair_metrics_take_fractional_weights_and_ami_refuses_them():
    rng = np.random.default_rng(4)
    truth, pred = labelings(rng, 40, 3, 5)
    w = rng.uniform(0.5, 2.0, 40)
    for name in ("ari", "fowlkes_mallows"):
        assert np.isfinite(get_metric(name).score(truth, pred, sample_weight=w))
    with pytest.raises(ValueError, match="integer weights"):
        get_metric("ami").score(truth, pred, sample_weight=w)


def test_zero_weight_replicate_is_nan():
    truth, pred = np.array([0, 1, 1]), np.array([1, 1, 0])
    for name in NAMES:
        got = get_metric(name).impl.replicates(truth, [pred], np.zeros((2, 3)))
        assert np.isnan(got).all(), name


def test_labels_of_any_type():
    truth = np.array(["cat", "dog", "dog", "cat", "eel"], dtype=object)
    pred = [2.5, 1.0, 1.0, 2.5, 1.0]
    codes = np.array([0, 1, 1, 0, 2])
    for name in NAMES:
        assert get_metric(name).score(truth, pred) == get_metric(name).score(codes, pred)


def test_invalid_input_raises():
    metric = get_metric("ari")
    with pytest.raises(ValueError, match="rows"):
        metric.score([0, 1, 1], [0, 1])
    with pytest.raises(ValueError, match="missing"):
        metric.score([0, 1, 1], [0, np.nan, 1])
    with pytest.raises(ValueError, match="one cluster id per row"):
        metric.score(np.zeros((3, 2)), np.zeros((3, 2)))
    with pytest.raises(ValueError, match="shape"):
        metric.impl.replicates([0, 1, 1], [[0, 1, 1]], np.ones((2, 4)))


def test_names_and_aliases():
    spellings = {"adjusted_rand_score": "ari", "Adjusted Rand Index": "ari",
                 "adjusted_mutual_info_score": "ami", "normalized_mutual_info_score": "nmi",
                 "v_measure_score": "v_measure", "V-measure": "v_measure",
                 "homogeneity_score": "homogeneity", "completeness_score": "completeness",
                 "fowlkes_mallows_score": "fowlkes_mallows", "FMI": "fowlkes_mallows"}
    for spelling, name in spellings.items():
        metric = get_metric(spelling)
        assert metric.name == name and metric.kind == "clusters" and metric.higher_is_better
