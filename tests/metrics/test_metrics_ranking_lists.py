"""MAP@k and nDCG@k: an independent MAP, scikit-learn's ndcg_score, repeated rows, input forms."""
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import ndcg_score

from leaderboard.metrics import get_metric

ITEMS = [f"i{j}" for j in range(25)]


def apk(actual, predicted, k):
    """Kaggle's average precision at k, written out directly."""
    actual = set(actual)
    if not actual:
        return 0.0
    score, hits = 0.0, 0
    for i, item in enumerate(predicted[:k]):
        if item in actual and item not in predicted[:i]:
            hits += 1
            score += hits / (i + 1)
    return score / min(len(actual), k)


def map_reference(truth, preds, k, weights=None):
    weights = np.ones(len(truth)) if weights is None else np.asarray(weights, dtype=float)
    values = [apk(t, p, k) for t, p in zip(truth, preds)]
    return float(np.dot(weights, values) / weights.sum())


def ndcg_sklearn(truth, preds, k, weights=None):
    """scikit-learn's nDCG on relevance/score matrices built from the lists.

    Predicted items score by position; short lists are padded with never-relevant items so that
    the top k holds predicted items only; every other item gets a distinct lower score (no ties).
    """
    rng = np.random.default_rng(0)
    n_pad = k
    columns = ITEMS + [f"pad{j}" for j in range(n_pad)]
    index = {item: j for j, item in enumerate(columns)}
    relevance = np.zeros((len(truth), len(columns)))
    scores = np.zeros((len(truth), len(columns)))
    for i, (relevant, items) in enumerate(zip(truth, preds)):
        items = list(items) + [f"pad{j}" for j in range(max(0, k - len(items)))]
        scores[i] = rng.permutation(len(columns)) / len(columns)   # distinct, all below 1
        for position, item in enumerate(items):
            scores[i, index[item]] = 1 + len(items) - position
        for item in relevant:
            relevance[i, index[item]] = 1.0
    return ndcg_score(relevance, scores, k=k, sample_weight=weights)


def random_lists(rng, n, max_len=12):
    """Truth sets (some empty) and predicted lists without repeats (some short, some empty).

    Each prediction holds a random part of its row's truth among other items, so hits are common.
    """
    truth, preds = [], []
    for _ in range(n):
        relevant = list(rng.choice(ITEMS, size=rng.integers(0, 7), replace=False))
        others = [item for item in rng.permutation(ITEMS) if item not in relevant]
        kept = [item for item in relevant if rng.random() < 0.6]
        items = list(rng.permutation(kept + others[:rng.integers(0, max_len + 1)]))
        truth.append(relevant)
        preds.append(items[:rng.integers(0, max_len + 1)])
    return truth, preds


def as_strings(rows):
    return np.array([" ".join(row) for row in rows], dtype=object)


@pytest.mark.parametrize("k", [1, 3, 5, 10])
def test_point_values_agree_with_references(k):
    rng = np.random.default_rng(k)
    truth, preds = random_lists(rng, 80)
    weights = rng.uniform(0.1, 3.0, 80)
    mapk, ndcg = get_metric("map").configure(k=k), get_metric("ndcg").configure(k=k)
    y_true, y_pred = as_strings(truth), as_strings(preds)
    assert mapk.score(y_true, y_pred) == pytest.approx(map_reference(truth, preds, k), rel=1e-12)
    assert mapk.score(y_true, y_pred, weights) == pytest.approx(
        map_reference(truth, preds, k, weights), rel=1e-12)
    assert ndcg.score(y_true, y_pred) == pytest.approx(ndcg_sklearn(truth, preds, k), rel=1e-9)
    assert ndcg.score(y_true, y_pred, weights) == pytest.approx(
        ndcg_sklearn(truth, preds, k, weights), rel=1e-9)


@pytest.mark.parametrize("name", ["map", "ndcg"])
def test_integer_weights_are_repeated_rows(name):
    rng = np.random.default_rng(7)
    n, k = 30, 5
    truth, preds = random_lists(rng, n)
    weights = rng.multinomial(n, np.full(n, 1 / n), size=20)
    reference = map_reference if name == "map" else ndcg_sklearn
    got = get_metric(f"{name}@{k}").impl.replicates(as_strings(truth), [as_strings(preds)], weights)
    want = [reference([t for t, c in zip(truth, w) for _ in range(c)],
                      [p for p, c in zip(preds, w) for _ in range(c)], k) for w in weights]
    np.testing.assert_allclose(got[0], want, rtol=1e-9)


@pytest.mark.parametrize("name", ["map", "ndcg"])
def test_entries_together_equal_entries_alone_and_blocks_do_not_matter(name):
    rng = np.random.default_rng(8)
    n = 40
    truth, preds1 = random_lists(rng, n)
    _, preds2 = random_lists(rng, n)
    y_true, p1, p2 = as_strings(truth), as_strings(preds1), as_strings(preds2)
    impl = get_metric(name).impl
    weights = rng.multinomial(n, np.full(n, 1 / n), size=10)
    together = impl.replicates(y_true, [p1, p2], weights)
    np.testing.assert_array_equal(together[0], impl.replicates(y_true, [p1], weights)[0])
    np.testing.assert_array_equal(together[1], impl.replicates(y_true, [p2], weights)[0])
    halves = np.hstack([impl.replicates(y_true, [p1, p2], weights[:4]),
                        impl.replicates(y_true, [p1, p2], weights[4:])])
    np.testing.assert_allclose(halves, together, rtol=1e-13)


def test_input_forms_agree():
    truth = [["1", "2"], ["3"], [], ["4", "5", "6"]]
    preds = [["2", "9", "1"], ["3"], ["1"], ["7", "6"]]
    want = map_reference(truth, preds, 10)
    metric = get_metric("map")
    forms = [
        (as_strings(truth), as_strings(preds)),
        (np.array(truth, dtype=object), np.array(preds, dtype=object)),
        ([[int(x) for x in row] for row in truth], [tuple(int(x) for x in row) for row in preds]),
        (pd.Series([" ".join(row) or np.nan for row in truth]), pd.Series(as_strings(preds))),
        ([set(row) for row in truth], [np.array(row, dtype=int) for row in preds]),
    ]
    for y_true, y_pred in forms:
        assert metric.score(y_true, y_pred) == pytest.approx(want, rel=1e-12)


def test_conventions():
    mapk, ndcg = get_metric("map@3"), get_metric("ndcg@3")
    # A repeated prediction counts once, at its first position; later repeats are misses.
    assert mapk.score(["a b"], ["a a b"]) == pytest.approx((1 + 2 / 3) / 2)
    assert ndcg.score(["a b"], ["a a b"]) == pytest.approx((1 + 0.5) / (1 + 1 / np.log2(3)))
    # The truth is a set; only the first k predictions count; no relevant item scores 0.
    assert mapk.score(["a a"], ["a"]) == 1.0
    assert mapk.score(["d"], ["a b c d"]) == 0.0
    assert mapk.score([""], ["a"]) == 0.0 == ndcg.score([np.nan], ["a"])
    assert mapk.score(["a b c d e"], ["a b c"]) == 1.0 == ndcg.score(["a b c d e"], ["a b c"])
    assert mapk.score(["a"], [""]) == 0.0


def test_zero_weight_replicate_is_nan():
    impl = get_metric("ndcg").impl
    assert np.isnan(impl.replicates(["a", "b"], [["a", "b"]], np.zeros((1, 2)))[0, 0])


def test_options_and_invalid_input():
    assert get_metric("MAP@5").options == (("k", 5),)
    assert get_metric("mean_average_precision").options == (("k", 10),)
    assert get_metric("ndcg_at_k").configure(k=2).impl.k == 2
    for name in ("mapk", "normalized_dcg"):
        assert get_metric(name).kind == "rankings"
    with pytest.raises(ValueError, match="positive integer"):
        get_metric("map").configure(k=0).impl
    with pytest.raises(ValueError, match="rows"):
        get_metric("map").score(["a", "b"], ["a"])
    with pytest.raises(ValueError, match="one list of items per row"):
        get_metric("ndcg").score("a b", ["a"])
