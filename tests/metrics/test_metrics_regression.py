"""Regression metrics: scikit-learn point values, replicates as repeated rows, edge cases."""
import numpy as np
import pytest
from sklearn import metrics as skm

from leaderboard.metrics import get_metric

SKLEARN = {
    "explained_variance": skm.explained_variance_score,
    "mae": skm.mean_absolute_error,
    "mse": skm.mean_squared_error,
    "rmse": skm.root_mean_squared_error,
    "medae": skm.median_absolute_error,
    "msle": skm.mean_squared_log_error,
    "rmsle": skm.root_mean_squared_log_error,
    "r2": skm.r2_score,
    "mape": skm.mean_absolute_percentage_error,
}
ALL = (*SKLEARN, "smape", "kl_ctr")


def smape_reference(y, p, w=None):
    """Kaggle's SMAPE written out row by row (0/0 counts as 0)."""
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=float)
    rows = [0.0 if a == 0 and b == 0 else 200 * abs(b - a) / (abs(a) + abs(b))
            for a, b in zip(y, p)]
    return float(np.dot(w, rows) / w.sum())


def kl_reference(y, p, w=None):
    """Bernoulli KL divergence row by row, 0 log 0 = 0, rates clipped to [1e-15, 1 - 1e-15]."""
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=float)
    rows = []
    for t, q in zip(y, np.clip(p, 1e-15, 1 - 1e-15)):
        rows.append((t * np.log(t / q) if t > 0 else 0.0)
                    + ((1 - t) * np.log((1 - t) / (1 - q)) if t < 1 else 0.0))
    return float(np.dot(w, rows) / w.sum())


def reference(name, y, p, w=None):
    if name == "smape":
        return smape_reference(y, p, w)
    if name == "kl_ctr":
        return kl_reference(y, p, w)
    return SKLEARN[name](y, p, sample_weight=w)


def data(name, rng, n):
    """Targets and predictions valid for the metric; ties and an exact hit included."""
    if name == "kl_ctr":
        y = rng.beta(0.5, 5, n)
        y[:3] = [0.0, 1.0, 0.2][:n]
        p = np.clip(y + rng.normal(0, 0.05, n), 0.0, 1.0)
        return y, p
    y = np.round(rng.gamma(2.0, 3.0, n), 1)        # non-negative, with ties
    p = np.round(y + rng.normal(0, 2.0, n), 1)
    if name in ("msle", "rmsle"):
        p = np.abs(p)
    p[0] = y[0]
    return y, p


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("n", [1, 2, 7, 60])
def test_point_values_agree_with_reference(name, n):
    rng = np.random.default_rng(n)
    y, p = data(name, rng, n)
    metric = get_metric(name)
    if n == 1 and name in ("r2", "explained_variance"):
        return                                   # scikit-learn warns and returns NaN for 1 row
    assert metric.score(y, p) == pytest.approx(reference(name, y, p), rel=1e-9, abs=1e-12)
    w = rng.uniform(0.1, 3.0, n)
    assert metric.score(y, p, sample_weight=w) == pytest.approx(reference(name, y, p, w),
                                                                rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("name", ALL)
def test_integer_weights_are_repeated_rows(name):
    rng = np.random.default_rng(3)
    n = 40
    y, p = data(name, rng, n)
    weights = rng.multinomial(n, np.full(n, 1 / n), size=25)
    weights[0] = 0
    weights[0, [5, 9]] = [3, 1]                   # a replicate of two distinct rows, even count
    got = get_metric(name).impl.replicates(y, [p], weights)
    assert got.shape == (1, len(weights))
    want = [reference(name, np.repeat(y, w), np.repeat(p, w)) for w in weights]
    np.testing.assert_allclose(got[0], want, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", ALL)
def test_entries_together_equal_entries_alone_and_blocks_do_not_matter(name):
    rng = np.random.default_rng(4)
    n = 30
    y, p1 = data(name, rng, n)
    _, p2 = data(name, rng, n)
    impl = get_metric(name).impl
    weights = rng.multinomial(n, np.full(n, 1 / n), size=12).astype(float)
    together = impl.replicates(y, [p1, p2, p1], weights)
    np.testing.assert_array_equal(together[0], impl.replicates(y, [p1], weights)[0])
    np.testing.assert_array_equal(together[1], impl.replicates(y, [p2], weights)[0])
    np.testing.assert_array_equal(together[0], together[2])
    halves = np.hstack([impl.replicates(y, [p1, p2], weights[:5]),
                        impl.replicates(y, [p1, p2], weights[5:])])
    np.testing.assert_allclose(halves, together[:2], rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("name", ["r2", "explained_variance"])
def test_constant_target_follows_sklearn_conventions(name):
    y = np.full(5, 2.5)
    metric = get_metric(name)
    assert metric.score(y, y) == 1.0 == SKLEARN[name](y, y)
    p = np.array([2.0, 2.5, 3.0, 2.5, 2.5])
    assert metric.score(y, p) == 0.0 == SKLEARN[name](y, p)
    # A replicate that draws rows with one target value only, far from the centring value.
    y = np.array([0.1, 0.1, 0.1, 1e4, 5e4])
    p = np.array([0.3, 0.2, 0.0, 1e4, 5e4])
    got = metric.impl.replicates(y, [p], np.array([[2.0, 7.0, 1.0, 0.0, 0.0]]))
    assert got[0, 0] == SKLEARN[name](np.repeat(y, [2, 7, 1, 0, 0]), np.repeat(p, [2, 7, 1, 0, 0]))


def test_r2_keeps_precision_with_a_large_offset():
    rng = np.random.default_rng(5)
    y = 1e7 + rng.normal(size=200)
    p = y + rng.normal(0, 0.5, 200)
    for name in ("r2", "explained_variance"):
        assert get_metric(name).score(y, p) == pytest.approx(SKLEARN[name](y, p), rel=1e-9)


def test_median_absolute_error_weighted_median():
    metric = get_metric("median_absolute_error")
    y, p = np.zeros(4), np.array([1.0, 2.0, 3.0, 4.0])
    assert metric.score(y, p) == 2.5                             # even count: middle two averaged
    assert metric.score(y, p, sample_weight=[1, 1, 1, 3]) == 3.5  # 1 2 3 4 4 4
    assert metric.score(y, p, sample_weight=[2, 0, 1, 1]) == 2.0  # 1 1 3 4: zero weight skipped
    assert metric.score(y, p, sample_weight=[1, 1, 0, 0]) == 1.5
    assert metric.score(y, p, sample_weight=[0.6, 0.2, 0.1, 0.1]) == 1.0
    # Cumulative weight exactly half way: averaged with the next value, as scikit-learn does.
    assert metric.score(y, p, sample_weight=[0.5, 0.25, 0.125, 0.125]) == 1.5


def test_percentage_errors():
    y, p = np.array([0.0, 0.0, 2.0]), np.array([0.0, 1.0, 1.0])
    assert get_metric("smape").score(y, p) == pytest.approx((0 + 200 + 200 / 3) / 3)
    assert get_metric("smape").score(np.array([1.0]), np.array([-1.0])) == 200.0
    mape = get_metric("mean_absolute_percentage_error")
    assert mape.score(y, p) == pytest.approx(skm.mean_absolute_percentage_error(y, p), rel=1e-12)
    assert mape.score(y, p) > 1e15                               # a zero target costs 1 / eps


def test_kl_ctr():
    metric = get_metric("kl_ctr")
    assert metric.kind == "probabilities"
    y = np.array([0.0, 0.3, 1.0])
    assert metric.score(y, y) == pytest.approx(0.0, abs=1e-14)   # clipping costs ~1e-15 at 1
    assert np.isfinite(metric.score(y, np.array([1.0, 0.3, 0.0])))   # clipped, not infinite
    assert metric.score(y, np.array([0.1, 0.3, 0.9])) == pytest.approx(
        (np.log(1 / 0.9) + np.log(1 / 0.9)) / 3)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        metric.score(np.array([0.5, 1.2]), np.array([0.5, 0.5]))


def test_invalid_input_raises():
    with pytest.raises(ValueError, match="negative"):
        get_metric("rmsle").score(np.array([1.0, 2.0]), np.array([1.0, -0.5]))
    with pytest.raises(ValueError, match="negative"):
        get_metric("msle").impl.replicates(np.array([-1.0, 2.0]), [np.array([1.0, 1.0])],
                                           np.ones((1, 2)))
    for name in ALL:
        with pytest.raises(ValueError, match="rows"):
            get_metric(name).score(np.array([0.1, 0.2, 0.3]), np.array([0.1, 0.2]))
    with pytest.raises(ValueError, match="NaN"):
        get_metric("mae").score(np.array([0.1, np.nan]), np.array([0.1, 0.2]))
    with pytest.raises(ValueError, match="one number per row"):
        get_metric("mse").score(np.ones((3, 2)), np.ones((3, 2)))


def test_zero_weight_replicate_is_nan():
    y, p = np.array([1.0, 2.0, 4.0]), np.array([1.5, 2.0, 3.0])
    for name in ALL:
        scale = 0.25 if name == "kl_ctr" else 1.0
        got = get_metric(name).impl.replicates(y * scale, [p * scale], np.zeros((1, 3)))
        assert np.isnan(got[0, 0]), name


def test_names_and_aliases():
    spellings = {"mean_absolute_error": "mae", "Mean Squared Error": "mse",
                 "root-mean-squared-error": "rmse", "RMSLE": "rmsle",
                 "root_mean_squared_log_error": "rmsle", "mean_squared_log_error": "msle",
                 "median_absolute_error": "medae", "r2_score": "r2", "R squared": "r2",
                 "coefficient_of_determination": "r2", "explained_variance_score":
                 "explained_variance", "mean_absolute_percentage_error": "mape",
                 "symmetric_mean_absolute_percentage_error": "smape", "kl_ctr": "kl_ctr"}
    for spelling, name in spellings.items():
        assert get_metric(spelling).name == name
    assert get_metric("r2").higher_is_better and not get_metric("rmse").higher_is_better
    assert (get_metric("smape").lower_bound, get_metric("smape").upper_bound) == (0.0, 200.0)
