"""Classification metrics against scikit-learn: point values, sample weights, bootstrap replicates
(integer weights = repeated rows), several entries at once, edge cases and input errors."""
from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn import metrics as skm

from leaderboard.metrics import get_metric
from leaderboard.metrics.classification import METRICS, CohenKappa
from leaderboard.metrics.base import exact_columns

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning",
                                        "ignore:.*y_pred contains classes not in y_true")

STRING_CLASSES = np.array(["cat", "dog", "emu"], dtype=object)
LABEL_KINDS = ("binary", "multiclass", "strings", "multilabel")


def _labels(kind: str, n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """True and predicted labels with some agreement (ties and every class present)."""
    rng = np.random.default_rng(seed)
    if kind == "multilabel":
        y = (rng.random((n, 4)) < 0.4).astype(np.int64)
        return y, np.where(rng.random((n, 4)) < 0.75, y, 1 - y)
    k = {"binary": 2, "multiclass": 5, "strings": 3}[kind]
    y = rng.integers(0, k, n)
    pred = np.where(rng.random(n) < 0.6, y, rng.integers(0, k, n))
    if kind == "strings":
        return STRING_CLASSES[y], STRING_CLASSES[pred]
    return y, pred


def _prf(function, average, **kw):
    return lambda y, p, w: function(y, p, average=average, sample_weight=w, **kw)


# canonical name -> (scikit-learn reference (y_true, y_pred, sample_weight), label kinds it takes)
LABEL_CASES = {
    "accuracy": (lambda y, p, w: skm.accuracy_score(y, p, sample_weight=w), LABEL_KINDS),
    "zero_one_loss": (lambda y, p, w: skm.zero_one_loss(y, p, sample_weight=w), LABEL_KINDS),
    "hamming_loss": (lambda y, p, w: skm.hamming_loss(y, p, sample_weight=w), LABEL_KINDS),
    "balanced_accuracy": (lambda y, p, w: skm.balanced_accuracy_score(y, p, sample_weight=w),
                          LABEL_KINDS[:3]),
    "mcc": (lambda y, p, w: skm.matthews_corrcoef(y, p, sample_weight=w), LABEL_KINDS[:3]),
    "cohen_kappa": (lambda y, p, w: skm.cohen_kappa_score(y, p, sample_weight=w),
                    LABEL_KINDS[:3]),
    "qwk": (lambda y, p, w: skm.cohen_kappa_score(y, p, weights="quadratic", sample_weight=w),
            LABEL_KINDS[:3]),
}
for _name, _function in (("precision", skm.precision_score), ("recall", skm.recall_score),
                         ("f1", skm.f1_score)):
    LABEL_CASES[_name] = (_prf(_function, "binary"), ("binary",))
    for _average in ("micro", "macro", "weighted"):
        LABEL_CASES[f"{_name}_{_average}"] = (_prf(_function, _average), LABEL_KINDS)
    LABEL_CASES[f"{_name}_samples"] = (_prf(_function, "samples"), ("multilabel",))
LABEL_CASES["fbeta"] = (_prf(skm.fbeta_score, "binary", beta=1.0), ("binary",))
for _average in ("micro", "macro", "weighted", "samples"):
    LABEL_CASES[f"fbeta_{_average}"] = (_prf(skm.fbeta_score, _average, beta=1.0),
                                        LABEL_CASES[f"f1_{_average}"][1])

LABEL_PARAMS = [(name, kind) for name, (_, kinds) in LABEL_CASES.items() for kind in kinds]


def _scores(kind: str, n: int, seed: int = 0):
    """``(y_true, prediction, class labels)`` for the probability and score metrics."""
    rng = np.random.default_rng(seed)
    if kind == "binary":
        y = rng.integers(0, 2, n)
        p = np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1)
        p[:3] = [0.0, 1.0, 0.5]                    # clipping at both ends, and a tie
        return y, p, np.array([0, 1])
    k = 4 if kind == "multiclass" else 3
    y = rng.integers(0, k, n)
    raw = rng.random((n, k)) + 1.5 * np.eye(k)[y]
    p = raw / raw.sum(1, keepdims=True)
    p[0] = np.eye(k)[(y[0] + 1) % k]               # a zero probability for the true class
    if kind == "strings":
        return STRING_CLASSES[y], p, np.array(["cat", "dog", "emu"])
    return y, p, np.arange(k)


def _decision(kind: str, n: int, seed: int = 0):
    y, p, classes = _scores(kind, n, seed)
    return y, 4.0 * (p - 0.5), classes


# name -> (prediction maker, scikit-learn reference (y, pred, w, classes), kinds)
SCORE_CASES = {
    "logloss": (_scores, lambda y, p, w, c: skm.log_loss(y, p, sample_weight=w, labels=c),
                ("binary", "multiclass", "strings")),
    "brier": (_scores, lambda y, p, w, c: skm.brier_score_loss(y, p, sample_weight=w, pos_label=1),
              ("binary",)),
    "hinge_loss": (_decision, lambda y, p, w, c: skm.hinge_loss(
        y, p, sample_weight=w, labels=c if p.ndim == 2 else None), ("binary", "multiclass",
                                                                     "strings")),
}
SCORE_PARAMS = [(name, kind) for name, (_, _, kinds) in SCORE_CASES.items() for kind in kinds]


def _close(actual, expected):
    np.testing.assert_allclose(actual, expected, rtol=1e-9, atol=1e-12)


def _bootstrap(n: int, replicates: int, seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).multinomial(n, np.full(n, 1 / n), size=replicates)


# --- point values and sample weights ------------------------------------------------------------

@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("name, kind", LABEL_PARAMS)
def test_label_metrics_match_sklearn(name, kind, weighted):
    y, pred = _labels(kind, 120)
    w = np.random.default_rng(2).uniform(0.2, 3.0, len(y)) if weighted else None
    reference, _ = LABEL_CASES[name]
    _close(get_metric(name).score(y, pred, w), reference(y, pred, w))


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("name, kind", SCORE_PARAMS)
def test_score_metrics_match_sklearn(name, kind, weighted):
    make, reference, _ = SCORE_CASES[name]
    y, pred, classes = make(kind, 150)
    w = np.random.default_rng(2).uniform(0.2, 3.0, len(y)) if weighted else None
    _close(get_metric(name).score(y, pred, w), reference(y, pred, w, classes))


@pytest.mark.parametrize("average", ["binary", "micro", "macro", "weighted", "samples"])
@pytest.mark.parametrize("beta", [0.0, 0.5, 2.0])
def test_fbeta_option(average, beta):
    y, pred = _labels("multilabel" if average == "samples" else "binary", 90)
    name = "fbeta" if average == "binary" else f"fbeta_{average}"
    metric = get_metric(name).configure(beta=beta)
    _close(metric.score(y, pred), skm.fbeta_score(y, pred, beta=beta, average=average))


def test_qwk_uses_class_positions_like_sklearn():
    # Labels 0, 3, 10: sklearn's quadratic weights use positions 0, 1, 2, not the values.
    rng = np.random.default_rng(3)
    y = rng.choice([0, 3, 10], 60)
    pred = np.where(rng.random(60) < 0.5, y, rng.choice([0, 3, 10], 60))
    _close(CohenKappa("quadratic").score(y, pred),
           skm.cohen_kappa_score(y, pred, weights="quadratic"))


# --- bootstrap replicates: integer weights are repeated rows ------------------------------------

@pytest.mark.parametrize("name, kind", LABEL_PARAMS)
def test_label_replicates_are_repeated_rows(name, kind):
    # Few rows and many classes: replicates lose classes (also middle ones for QWK).
    y, pred = _labels(kind, 25, seed=4)
    weights = _bootstrap(len(y), 25)
    reference, _ = LABEL_CASES[name]
    got = get_metric(name).impl.replicates(y, [pred], weights)
    assert got.shape == (1, len(weights))
    expected = [reference(np.repeat(y, w, axis=0), np.repeat(pred, w, axis=0), None)
                for w in weights]
    _close(got[0], expected)


@pytest.mark.parametrize("name, kind", SCORE_PARAMS)
def test_score_replicates_are_repeated_rows(name, kind):
    make, reference, _ = SCORE_CASES[name]
    y, pred, classes = make(kind, 30, seed=5)
    weights = _bootstrap(len(y), 40)
    if name == "hinge_loss" and kind == "binary":
        # sklearn maps a y_true with a single class to all -1; keep both classes.
        weights = weights[[len(np.unique(np.repeat(y, w))) == 2 for w in weights]]
    got = get_metric(name).impl.replicates(y, [pred], weights)[0]
    expected = [reference(np.repeat(y, w), np.repeat(pred, w, axis=0), None, classes)
                for w in weights]
    _close(got, expected)


def test_qwk_replicates_with_a_missing_middle_class():
    # Class 1 is rare: replicates without it shift sklearn's positions of classes 2 and 3.
    rng = np.random.default_rng(6)
    y = rng.choice([0, 2, 3], 40)
    y[:2] = 1
    pred = np.where(rng.random(40) < 0.6, y, rng.choice([0, 2, 3], 40))
    weights = _bootstrap(len(y), 60)
    gaps = [not ((np.repeat(y, w) == 1) | (np.repeat(pred, w) == 1)).any() for w in weights]
    assert any(gaps) and not all(gaps)
    got = get_metric("qwk").impl.replicates(y, [pred], weights)[0]
    expected = [skm.cohen_kappa_score(np.repeat(y, w), np.repeat(pred, w), weights="quadratic")
                for w in weights]
    _close(got, expected)


# --- several entries at once ----------------------------------------------------------------------

@pytest.mark.parametrize("name, kind", LABEL_PARAMS)
def test_label_entries_at_once_equal_one_at_a_time(name, kind):
    y, _ = _labels(kind, 60)
    # Entries with different label sets: the union of classes differs from each entry's.
    preds = [_labels(kind, 60, seed)[1] for seed in (11, 12, 13)]
    if kind == "multiclass":
        # Only entry 1 predicts class 2 (a middle class for the others) and class 7.
        y, preds[0], preds[2] = (np.where(a == 2, 4, a) for a in (y, preds[0], preds[2]))
        preds[1] = np.where(preds[1] == 3, 7, preds[1])
    weights = np.vstack([np.ones(60), _bootstrap(60, 15)])
    impl = get_metric(name).impl
    together = impl.replicates(y, preds, weights)
    alone = np.vstack([impl.replicates(y, [p], weights) for p in preds])
    np.testing.assert_array_equal(together, alone)
    reference = LABEL_CASES[name][0]
    _close(together[:, 0], [reference(y, p, None) for p in preds])


@pytest.mark.parametrize("name, kind", SCORE_PARAMS)
def test_score_entries_at_once_equal_one_at_a_time(name, kind):
    make = SCORE_CASES[name][0]
    y = make(kind, 50)[0]
    preds = [make(kind, 50, seed)[1] for seed in (0, 21, 22)]
    weights = _bootstrap(50, 10)
    impl = get_metric(name).impl
    together = impl.replicates(y, preds, weights)
    alone = np.vstack([impl.replicates(y, [p], weights) for p in preds])
    np.testing.assert_array_equal(together, alone)


@pytest.mark.parametrize("name", ["f1_macro", "f1_weighted", "precision_macro", "recall_weighted",
                                  "balanced_accuracy", "mcc", "cohen_kappa", "qwk",
                                  "expected_cost"])
def test_many_classes_entries_at_once_are_bit_identical(name):
    # 12 classes; classes only some entries predict change the encoding of the others (and
    # numpy's pairwise sums regroup from 8 terms on): scores must not move by a single bit.
    rng = np.random.default_rng(0)
    y = rng.integers(0, 12, 400)
    y = np.where(y == 5, 6, y)
    preds = [np.where(rng.random(400) < 0.5, y, rng.integers(0, 12, 400)) for _ in range(4)]
    preds = [np.where(p == 5, 6, p) for p in preds]
    preds[1][:3] = 5                                  # a middle class only entry 1 predicts
    preds[2] = np.where(preds[2] == 11, 13, preds[2])
    metric = get_metric(name)
    if name == "expected_cost":
        metric = metric.configure(costs=tuple(map(tuple, rng.random((14, 14)))))
    weights = _bootstrap(400, 40)
    together = metric.impl.replicates(y, preds, weights)
    alone = np.vstack([metric.impl.replicates(y, [p], weights) for p in preds])
    np.testing.assert_array_equal(together, alone)
    if name in LABEL_CASES:
        _close(alone[:, :5], [[LABEL_CASES[name][0](np.repeat(y, w), np.repeat(p, w), None)
                               for w in weights[:5]] for p in preds])


CHUNKING_CASES = {
    "accuracy": "multiclass", "f1_macro": "multiclass", "mcc": "multiclass", "qwk": "multiclass",
    "cohen_kappa": "multiclass", "balanced_accuracy": "multiclass", "hamming_loss": "multilabel",
    "f1_samples": "multilabel", "expected_cost": "multiclass", "logloss": "scores",
    "brier": "scores", "hinge_loss": "scores",
}


@pytest.mark.parametrize("name", sorted(CHUNKING_CASES))
def test_replicates_do_not_depend_on_chunking(name):
    """Bit-identical replicates whatever the blocks of replicates and the groups of entries."""
    n, kind = 300, CHUNKING_CASES[name]
    if kind == "scores":
        make = _scores if name != "hinge_loss" else _decision
        y = make("binary", n)[0]
        preds = [make("binary", n, seed)[1] for seed in range(4)]
    else:
        y = _labels(kind, n)[0]
        preds = [_labels(kind, n, seed)[1] for seed in range(1, 5)]
    metric = get_metric(name)
    if name == "expected_cost":
        metric = metric.configure(costs=tuple(map(tuple, np.random.default_rng(0).random((5, 5)))))
    impl = metric.impl
    weights = _bootstrap(n, 50)
    whole = impl.replicates(y, preds, weights)
    for entries, replicates in ((1, 7), (3, 16), (2, 50)):
        chunked = np.vstack([
            np.hstack([impl.replicates(y, preds[e:e + entries], weights[r:r + replicates])
                       for r in range(0, len(weights), replicates)])
            for e in range(0, len(preds), entries)])
        np.testing.assert_array_equal(chunked, whole)


def test_exact_parts_sum_exactly_under_integer_weights():
    rng = np.random.default_rng(10)
    values = rng.lognormal(0, 3, 1000) * rng.choice([-1, 1], 1000)
    parts = exact_columns(values[:, None])
    assert parts.shape == (1000, 1)
    # rounded to 52 - ceil(log2 1000) = 42 bits below the largest value
    np.testing.assert_allclose(parts[:, 0], values, rtol=0, atol=2.0**-41 * np.abs(values).max())
    weights = rng.multinomial(1000, np.full(1000, 1e-3))
    exact = [math.fsum(w * p for w, p in zip(weights, column)) for column in parts.T]
    np.testing.assert_array_equal(weights @ parts, exact)            # every column sum is exact
    np.testing.assert_array_equal(weights[::-1] @ parts[::-1], exact)


# --- expected cost --------------------------------------------------------------------------------

def test_expected_cost_against_numpy_and_confusion_matrix():
    rng = np.random.default_rng(8)
    y, pred = _labels("multiclass", 200)
    costs = rng.uniform(0, 5, (5, 5))
    np.fill_diagonal(costs, 0)
    metric = get_metric("expected_cost").configure(costs=tuple(map(tuple, costs)))
    w = rng.uniform(0.5, 2, 200)
    _close(metric.score(y, pred), costs[y, pred].mean())
    _close(metric.score(y, pred, w), np.average(costs[y, pred], weights=w))
    confusion = skm.confusion_matrix(y, pred, labels=range(5), sample_weight=w)
    _close(metric.score(y, pred, w), (confusion * costs).sum() / w.sum())
    weights = _bootstrap(200, 10)
    _close(metric.impl.replicates(y, [pred], weights)[0],
           [costs[np.repeat(y, c), np.repeat(pred, c)].mean() for c in weights])


def test_expected_cost_default_and_string_labels():
    y, pred = _labels("strings", 100)
    _close(get_metric("expected_cost").score(y, pred), skm.zero_one_loss(y, pred))
    costs = ((0, 1, 2), (1, 0, 1), (2, 1, 0))       # rows/columns: cat, dog, emu (sorted)
    codes = {"cat": 0, "dog": 1, "emu": 2}
    t, p = np.array([codes[v] for v in y]), np.array([codes[v] for v in pred])
    metric = get_metric("misclassification_cost").configure(costs=costs)
    _close(metric.score(y, pred), np.asarray(costs)[t, p].mean())
    with pytest.raises(ValueError, match="cost matrix does not fit"):
        get_metric("expected_cost").configure(costs=((0, 1), (1, 0))).score(y, pred)
    with pytest.raises(ValueError, match="cost matrix does not fit"):      # "emu" never true
        metric.score(np.where(y == "emu", "cat", y), pred)


# --- edge cases -----------------------------------------------------------------------------------

def test_replicate_without_positives_scores_zero():
    y = np.array([0, 0, 1, 1, 0])
    pred = np.array([0, 1, 1, 0, 0])
    no_positive = np.array([[2, 1, 0, 0, 2], [1, 1, 1, 1, 1]])   # rows 2, 3 (true 1s) not drawn
    for name in ("precision", "recall", "f1", "fbeta", "recall_macro"):
        got = get_metric(name).impl.replicates(y, [pred], no_positive)[0]
        expected = [LABEL_CASES[name][0](np.repeat(y, w), np.repeat(pred, w), None)
                    for w in no_positive]
        _close(got, expected)
    assert get_metric("recall").impl.replicates(y, [pred], no_positive)[0, 0] == 0.0


def test_single_class_replicates():
    y, pred = np.array([0, 1, 2, 1]), np.array([0, 1, 1, 1])
    only_one = np.array([[0, 3, 0, 0]])             # a single class in truth and predictions
    assert get_metric("mcc").impl.replicates(y, [pred], only_one)[0, 0] == 0.0
    assert np.isnan(get_metric("cohen_kappa").impl.replicates(y, [pred], only_one)[0, 0])
    assert np.isnan(get_metric("qwk").impl.replicates(y, [pred], only_one)[0, 0])
    assert get_metric("balanced_accuracy").impl.replicates(y, [pred], only_one)[0, 0] == 1.0


# --- registry and input errors --------------------------------------------------------------------

def test_names_aliases_and_kinds():
    assert get_metric("log-loss").name == "logloss" and get_metric("mlogloss").name == "logloss"
    assert get_metric("ACC").noise_model == "binomial"
    assert get_metric("f1_score").name == "f1" and get_metric("Mean F Score").name == "f1"
    assert get_metric("sensitivity").name == "recall"
    assert get_metric("macro_f1").name == "f1_macro"
    assert get_metric("matthews_corrcoef").name == "mcc"
    assert get_metric("kappa").name == "cohen_kappa"
    assert get_metric("quadratic_weighted_kappa").name == "qwk"
    assert get_metric("brier_score_loss").name == "brier"
    assert not get_metric("zero_one_loss").higher_is_better
    kinds = {m.name: m.kind for m in METRICS}
    assert kinds["logloss"] == "probabilities" and kinds["hinge_loss"] == "scores"
    assert kinds["f1_samples"] == "multilabel" and kinds["accuracy"] == "labels"
    assert all(m.can_score for m in METRICS)


@pytest.mark.parametrize("name, y, pred, message", [
    ("accuracy", [0, 1, 1], [0, 1], "shape"),
    ("f1_macro", ["a", "b"], [0, 1], "mix label input types"),
    ("f1", [0, 1, 2], [0, 1, 2], "binary"),
    ("precision", ["a", "b"], ["a", "b"], "positive label 1"),
    ("recall_samples", [0, 1], [0, 1], "multilabel"),
    ("mcc", [[0, 1], [1, 0]], [[0, 1], [1, 1]], "one label per row"),
    ("logloss", [0, 1], [0.5, 1.5], r"\[0, 1\]"),
    ("logloss", [0, 1, 2], [[0.5, 0.5], [0.5, 0.5], [0.5, 0.5]], "classes"),
    ("brier", [0, 1], [[0.5, 0.5], [0.5, 0.5]], "one positive-class probability"),
    ("hinge_loss", [0, 1], [np.nan, 1.0], "finite"),
])
def test_invalid_input_raises(name, y, pred, message):
    with pytest.raises(ValueError, match=message):
        get_metric(name).score(np.array(y, dtype=object if isinstance(y[0], str) else None),
                               np.array(pred))
