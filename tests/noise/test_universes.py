"""The calibrated universes: their truth, their exact variances and their simulations.

Independent references: scikit-learn computes each universe's true score (with the strata weights),
closed forms give the noise (row-mean variances, the U-statistic variance of AUC, the delta method
for RMSE), and a plain loop of scikit-learn calls on test sets drawn with ``numpy`` checks a ratio
metric (F1) whose variance has no closed form. Tolerances come from the Monte Carlo error of an SD
estimated from B draws: its relative standard error is sqrt((kurtosis - 1) / (4 B)), about
1/sqrt(2B) for near-normal draws; we allow 4 of them.
"""
from __future__ import annotations

import numpy as np
import pytest
from sklearn import metrics as skm

from leaderboard.errors import InputError
from leaderboard.metrics import METRICS, get_metric
from leaderboard.noise.rng import block_rng, draw_rows, row_counts
from leaderboard.noise.universes import (UniverseOptions, default_universe, get_universe,
                                         not_simulable_reason)
from leaderboard.noise.universes.finite import STREAM

SHARES3 = (0.5, 0.3, 0.2)


def _universe(metric_name, prevalence=0.1, **options):
    return get_universe(get_metric(metric_name), 1000, prevalence, UniverseOptions(**options))


def _sd_tolerance(draws: np.ndarray) -> float:
    """Four standard errors of the relative SD, from the draws' own kurtosis."""
    x = draws[np.isfinite(draws)]
    z = (x - x.mean()) / x.std()
    kurtosis = np.mean(z ** 4)
    return 4 * np.sqrt((kurtosis - 1) / (4 * x.size))


@pytest.mark.parametrize("name", ["auc", "accuracy", "log_loss", "rmse", "ari", "f1_macro"])
def test_default_universe_by_metric(name):
    expected = {"auc": "binormal", "accuracy": "binomial", "log_loss": "binormal",
                "rmse": "residuals", "ari": None, "f1_macro": "binormal"}[name]
    assert default_universe(get_metric(name)) == expected
    if name == "f1_macro":
        assert default_universe(get_metric(name), UniverseOptions(class_shares=SHARES3)) == \
            "multiclass"


def test_metrics_without_a_universe_say_why():
    assert "clusters predictions" in not_simulable_reason(get_metric("ari"))
    assert "cannot compute it" in not_simulable_reason(get_metric("log_mae"))
    assert "click-through rate" in not_simulable_reason(get_metric("kl_ctr"))
    assert not_simulable_reason(get_metric("rmse")) is None
    with pytest.raises(InputError, match="does not fit"):
        get_universe(get_metric("rmse"), 100, None, UniverseOptions(name="binormal"))
    with pytest.raises(InputError, match="--prevalence is needed"):
        get_universe(get_metric("log_loss"), 100, None)
    with pytest.raises(InputError, match="--df must be at least 2"):
        get_universe(get_metric("rmse"), 100, None, UniverseOptions(residuals="t", df=1.5))


def test_bounded_universe_is_the_noisiest_mean_of_unit_values():
    """Mean Dice / IoU: the simulated SD is the binomial's, and any per-row distribution on [0, 1]
    with the same mean (here Beta rows, a plain numpy simulation) is less noisy."""
    universe = get_universe(get_metric("dice"), 400, None)
    assert universe.name == "bounded" and get_universe(get_metric("iou"), 400, None).name == "bounded"
    draws = universe.simulate(np.array([0.7]), 400, None, 4000, seed=3)[0]
    bound = np.sqrt(0.7 * 0.3 / 400)
    # SD of a 4000-draw sample SD: about sd / sqrt(2 * 4000); allow 4 of them.
    assert abs(draws.std(ddof=1) - bound) < 4 * bound / np.sqrt(2 * 4000)
    rng = np.random.default_rng(0)
    for a in (0.3, 2.0, 20.0):  # U-shaped to concentrated rows, all with mean 0.7
        rows = rng.beta(a, a * 0.3 / 0.7, size=(4000, 400))
        assert rows.mean(axis=1).std(ddof=1) < bound


# --- the truth: scikit-learn on the whole universe, strata weighted by their test-set shares ----

TRUTH_CASES = [
    ("roc_auc_score", "auc", 0.8, dict(name="binormal")),
    ("log_loss", "log_loss", 0.25, {}),
    ("brier_score_loss", "brier", 0.07, {}),
    ("f1_score", "f1", 0.55, {}),
    ("matthews_corrcoef", "mcc", 0.45, {}),
    ("average_precision_score", "average_precision", 0.5, {}),
    ("accuracy_score", "accuracy", 0.8, dict(class_shares=SHARES3)),
    ("log_loss", "log_loss", 0.7, dict(class_shares=SHARES3)),
    ("mean_absolute_error", "mae", 1.3, dict(residuals="laplace")),
    ("root_mean_squared_error", "rmse", 0.4, dict(residuals="t", df=6)),
    ("r2_score", "r2", 0.75, {}),
    ("mean_absolute_percentage_error", "mape", 0.15, {}),
]


@pytest.mark.parametrize("sk_name, name, target, options", TRUTH_CASES)
def test_calibrated_truth_matches_scikit_learn(sk_name, name, target, options):
    prevalence = None if ("class_shares" in options or get_metric(name).kind == "values") else 0.1
    u = _universe(name, prevalence, **options)
    param = u.calibrate([target])
    prediction = u.predictions(param)[0]
    weights = u._truth_weights()
    value = getattr(skm, sk_name)(u.y, prediction, sample_weight=weights)
    _, acceptable = u._tolerance(np.array([target]))
    assert value == pytest.approx(target, abs=max(acceptable[0], 1e-9))


def test_unreachable_scores_are_one_line_errors():
    """Every log loss a submission can get is reachable (up to -log of float64's eps, every row
    confidently wrong); beyond that is a one-line error naming the universe's span."""
    low, high = _universe("log_loss").reachable()
    assert low == pytest.approx(0, abs=1e-9)
    assert high == pytest.approx(-np.log(np.finfo(float).eps), rel=1e-6)
    with pytest.raises(InputError, match="cannot be reached.*worst model"):
        _universe("log_loss").calibrate([40.0])


# --- the noise: exact variances, closed forms and an independent scikit-learn loop --------------

EXACT_CASES = [("log_loss", 0.2, {}), ("brier", 0.06, {}), ("accuracy", 0.93, dict(name="binormal")),
               # worse than no skill: over-confident models, then hard labels mostly wrong
               ("log_loss", 0.9, {}), ("log_loss", 25.0, {}), ("brier", 0.4, {}),
               ("auc", 0.3, dict(name="binormal")), ("log_loss", 2.0, dict(class_shares=SHARES3)),
               ("auc", 0.85, dict(name="binormal")), ("gini", 0.6, dict(name="binormal")),
               ("mae", 2.0, dict(residuals="normal")), ("mae", 2.0, dict(residuals="laplace")),
               ("mae", 2.0, {}), ("mae", 1.0, dict(residuals="t", df=2)),
               ("accuracy", 0.75, dict(class_shares=SHARES3))]


@pytest.mark.parametrize("name, score, options", EXACT_CASES)
def test_simulated_sd_matches_the_exact_sd(name, score, options):
    prevalence = None if ("class_shares" in options or get_metric(name).kind == "values") else 0.1
    u = _universe(name, prevalence, **options)
    draws = u.simulate(np.array([score]), 1000, prevalence, 1600, seed=3)[0]
    exact = u.exact_sd(score, 1000, prevalence)
    assert exact is not None
    assert draws.std(ddof=1) == pytest.approx(exact, rel=_sd_tolerance(draws))
    if get_metric(name).kind != "scores":   # means of row values are unbiased
        assert draws.mean() == pytest.approx(score, abs=4 * exact / np.sqrt(draws.size))


@pytest.mark.parametrize("residuals, kurtosis", [("normal", 3.0), ("laplace", 6.0)])
def test_rmse_noise_matches_the_delta_method(residuals, kurtosis):
    """RMSE = sqrt(mean e^2): SD ~ RMSE * sqrt(kurtosis - 1) / (2 sqrt(n)) to first order."""
    u = _universe("rmse", None, residuals=residuals)
    n = 2000
    draws = u.simulate(np.array([1.5]), n, None, 1600, seed=4)[0]
    delta = 1.5 * np.sqrt(kurtosis - 1) / (2 * np.sqrt(n))
    # first-order: the next term is O(1/n) relative, under 1% here
    assert draws.std(ddof=1) == pytest.approx(delta, rel=_sd_tolerance(draws) + 0.01)


def test_f1_noise_matches_a_plain_scikit_learn_loop():
    """F1 has no closed-form variance: draw test sets with numpy, score each with scikit-learn."""
    u = _universe("f1", 0.2)
    mu = u.calibrate([0.6])
    labels = u.predictions(mu)[0]
    rng = np.random.default_rng(11)
    pos, neg = np.flatnonzero(u.y == 1), np.flatnonzero(u.y == 0)
    loop = []
    for _ in range(400):
        rows = np.concatenate([rng.choice(pos, 100), rng.choice(neg, 400)])
        loop.append(skm.f1_score(u.y[rows], labels[rows]))
    loop = np.array(loop)
    ours = u.simulate(np.array([0.6]), 500, 0.2, 1600, seed=5)[0]
    # two independent SD estimates: combine their relative standard errors
    tolerance = np.hypot(_sd_tolerance(loop), _sd_tolerance(ours))
    assert ours.std(ddof=1) == pytest.approx(loop.std(ddof=1), rel=tolerance)
    se_means = 4 * np.hypot(loop.std() / np.sqrt(loop.size), ours.std() / np.sqrt(ours.size))
    assert ours.mean() == pytest.approx(loop.mean(), abs=se_means)


# --- engineering: determinism, prefixes, the sparse path -----------------------------------------

def test_same_seed_same_draws_and_fewer_draws_are_a_prefix():
    u = _universe("log_loss")
    levels = np.array([0.2, 0.25])
    a = u.simulate(levels, 500, 0.1, 100, seed=9)
    b = _universe("log_loss").simulate(levels, 500, 0.1, 100, seed=9)
    c = u.simulate(levels, 500, 0.1, 40, seed=9)
    single = u.simulate(levels[1:], 500, 0.1, 100, seed=9)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a[:, :40], c)
    np.testing.assert_array_equal(a[1], single[0])  # a level's draws do not depend on the others


def test_sparse_and_dense_count_blocks_hold_the_same_counts():
    u = _universe("log_loss")
    counts = u.test_counts(200, 0.1)
    sparse = u._count_block(block_rng(1, STREAM, 0), counts).toarray()
    rng = block_rng(1, STREAM, 0)
    dense = np.concatenate([row_counts(draw_rows(rng, rows, s.stop - s.start), rows,
                                       s.stop - s.start) for s, rows in zip(u.strata, counts)],
                           axis=1)
    np.testing.assert_array_equal(sparse, dense)
    assert (sparse.sum(axis=1) == 200).all()


LABEL_METRICS = [m for m in METRICS if m.kind == "labels" and m.can_score]


@pytest.mark.parametrize("metric", LABEL_METRICS, ids=lambda m: m.name)
def test_label_truth_from_cells_equals_the_truth_from_rows(metric):
    """The universe's truth of a label metric from its K x K weighted (true, predicted) cells
    equals the generic evaluation on every row of the universe, for models from the reversed end
    to the best (a broken cell weight or a class dropped from the encoding would move it by at
    least one row's weight, ~1e-4); and a model's truth does not depend on the batch."""
    binary_only = metric.name in ("precision", "recall", "f1", "fbeta")
    universes = [get_universe(metric, 1000, 0.2, UniverseOptions(name="binormal"))]
    if not binary_only:
        universes.append(get_universe(metric, 1000, None, UniverseOptions(
            name="multiclass", class_shares=SHARES3)))
    for u in universes:
        models = u.predictions(np.linspace(*u.param_range, 7))
        cells, rows = u._truth_of(models), u._truth_of_rows(models)
        np.testing.assert_allclose(cells, rows, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(u._truth_of(models[3:4]), cells[3:4])


def test_sparse_count_blocks_give_the_dense_blocks_scores():
    """Confusion metrics (kappa's own evaluate, with the confusion-matrix redo of its gap
    replicates) score a sparse block of counts exactly as the same counts dense."""
    for name, options in [("qwk", {"class_shares": (0.4, 0.1, 0.1, 0.4)}),
                          ("f1_macro", {"class_shares": SHARES3}), ("mcc", {})]:
        u = get_universe(get_metric(name), 1000, 0.2, UniverseOptions(**options))
        prepared = u.impl.prepare(u.y, u.predictions(u.calibrate([0.1, 0.5])))
        counts = u.test_counts(12, 0.2)
        block = u._count_block(block_rng(3, STREAM, 0), counts)
        assert hasattr(block, "tocsr")
        np.testing.assert_array_equal(u.impl.evaluate(prepared, block),
                                      u.impl.evaluate(prepared, block.toarray()))


@pytest.mark.parametrize("metric", LABEL_METRICS, ids=lambda m: m.name)
def test_label_scores_on_cells_are_the_scores_on_rows(metric):
    """A label metric counted from whole numbers scores a sparse block of test sets on each
    model's K x K cells, weighted by the counts of its drawn rows: the very same scores, bit for
    bit (NaN where undefined), as the evaluation on every universe row, for models from the
    reversed end to the best, with kappa's gap replicates (a class absent from a small test set),
    12 or 60 rows a test set. A cell given another's weight, or a block row mixed with another's,
    moves a score by a row in 12; a metric with real-valued features (expected cost) keeps the
    rows' path."""
    binary_only = metric.name in ("precision", "recall", "f1", "fbeta")
    universes = [get_universe(metric, 1000, 0.2, UniverseOptions(name="binormal"))]
    if not binary_only:
        universes.append(get_universe(metric, 1000, None, UniverseOptions(
            name="multiclass", class_shares=(0.4, 0.1, 0.1, 0.4))))
    for u in universes:
        models = u.predictions(np.linspace(*u.param_range, 9))
        cells = u._cell_labels(models)
        if not metric.impl.whole_number_features:
            assert cells is None
            continue
        prepared = u.impl.prepare(u.y, models)
        for n_test in (12, 60):
            for block in range(3):
                weights = u._count_block(block_rng(5, STREAM, block), u.test_counts(n_test, 0.2))
                with np.errstate(divide="ignore", invalid="ignore"):
                    rows = u.impl.evaluate(prepared, weights)
                    np.testing.assert_array_equal(u._evaluate_cells(cells, weights), rows)
                assert np.isfinite(rows).mean() > 0.5 and np.nanstd(rows) > 0


@pytest.mark.parametrize("name", ["qwk", "f1_macro", "accuracy"])
def test_label_simulation_takes_the_cells_and_keeps_its_numbers(name, monkeypatch):
    """``simulate`` takes the cells' path on sparse blocks (a small test set) and gives the rows'
    numbers, bit for bit."""
    from leaderboard.noise.universes.finite import CalibratedUniverse
    u = get_universe(get_metric(name), 1000, None,
                     UniverseOptions(name="multiclass", class_shares=(0.4, 0.1, 0.1, 0.4)))
    levels = np.array([0.3, 0.5, 0.7])
    taken = []
    original = CalibratedUniverse._evaluate_cells
    monkeypatch.setattr(CalibratedUniverse, "_evaluate_cells",
                        lambda self, *a: taken.append(1) or original(self, *a))
    cells = u.simulate(levels, 40, None, 70, seed=5)
    assert len(taken) == 3                        # 70 draws: three blocks, each on the cells
    monkeypatch.setattr(CalibratedUniverse, "_cell_labels", lambda self, models: None)
    np.testing.assert_array_equal(cells, u.simulate(levels, 40, None, 70, seed=5))


def test_most_probable_class_is_softmax_argmax_even_at_near_ties():
    """Labels from the logits' argmax are softmax's argmax. Logits one or two ulps apart below
    0.5 make the rounded probabilities tie (softmax's first maximum wins where the logits' argmax
    picks the other: a third of these rows without the fallback)."""
    from scipy.special import softmax
    from leaderboard.noise.universes.multiclass import _most_probable
    rng = np.random.default_rng(4)
    logits = rng.normal(size=(20000, 5)) - 3.0
    logits[:, 0] = rng.uniform(0.0, 0.4, logits.shape[0])
    logits[::2, 1] = np.nextafter(logits[::2, 0], np.inf)
    logits[1::4, 1] = np.nextafter(logits[1::4, 1], np.inf)
    expected = softmax(logits, axis=1).argmax(axis=1)
    assert (logits.argmax(axis=1) != expected).sum() > 1000   # the case the fallback is for
    np.testing.assert_array_equal(_most_probable(logits), expected)


@pytest.mark.parametrize("classes", range(2, 10))
def test_most_probable_by_columns_is_numpys_argmax_path(classes):
    """The column-by-column labels (up to 7 classes) are those of numpy's argmax over the row
    axis with the softmax fallback at near ties: exact ties (the first column wins), ties two and
    three deep, logits an ulp apart whose probabilities tie, wide logits, and rows with a NaN
    (numpy's own path, the first NaN's column). A count of close logits that missed a column
    fails (every tie goes to softmax, so the loop's order among tied columns cannot matter), and
    so do infinite logits (a row whose floor is NaN clears no column) taken any other way."""
    from scipy.special import softmax
    from leaderboard.noise.universes.multiclass import _TIE, _most_probable
    rng = np.random.default_rng(100 + classes)
    logits = rng.normal(size=(6000, classes)) * rng.choice([1.0, 30.0, 1e5], size=(6000, 1))
    logits[::5, -1] = logits[::5, 0]                       # exact ties, first and last column
    logits[1::7, :3 if classes > 2 else 2] = 2.5            # several columns at the maximum
    logits[2::11, 1] = logits[2::11, 0] * (1 - 0.5 * _TIE)  # within the gap: softmax decides
    small = np.arange(4, logits.shape[0], 9)   # an ulp above the first column, whose rounded
    logits[small] = np.minimum(logits[small], -3.0)   # probabilities tie (softmax picks column 0)
    logits[small, 0] = rng.uniform(0.0, 0.4, small.size)
    logits[small, 1] = np.nextafter(logits[small, 0], np.inf)

    def numpys(x):   # argmax along the rows, softmax's where a second logit is within the gap
        pick, top = x.argmax(axis=1), x.max(axis=1)
        close = np.count_nonzero(x >= (top - _TIE * np.maximum(np.abs(top), 1.0))[:, None],
                                 axis=1) > 1
        pick[close] = softmax(x[close], axis=1).argmax(axis=1)
        return pick, close

    expected, close = numpys(logits)
    assert close.sum() > 300 and (expected != logits.argmax(axis=1)).sum() > 100
    np.testing.assert_array_equal(_most_probable(logits.copy()), expected)
    wide = logits.copy()
    wide[6::17, -1] = np.inf    # an infinite largest logit (its floor is NaN): the first maximum
    wide[6::34, 0] = np.inf     # two of them
    wide[8::19] = -np.inf       # all -inf: all close, softmax decides
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(_most_probable(wide), numpys(wide)[0])
    logits[3::13, classes // 2] = np.nan   # any NaN: numpy's argmax path, as before
    np.testing.assert_array_equal(_most_probable(logits.copy()), numpys(logits)[0])


@pytest.mark.parametrize("classes", range(2, 10))
def test_column_softmax_is_scipys_bit_for_bit(classes):
    """The multi-class universe's softmax (column by column up to 7 classes, scipy's beyond)
    gives scipy's bits, ties and wide logits included (numpy adds 8 or more values pairwise,
    which a column-by-column sum would not match)."""
    from scipy.special import softmax
    from leaderboard.noise.universes.multiclass import _softmax
    rng = np.random.default_rng(classes)
    logits = rng.normal(size=(5000, classes)) * rng.choice([1.0, 30.0, 1e5], size=(5000, 1))
    logits[::7, 1] = logits[::7, 0]
    np.testing.assert_array_equal(_softmax(logits.copy()), softmax(logits, axis=1))


@pytest.mark.parametrize("per_call", [1 << 20, 1000, 7])
def test_counted_draws_count_one_call_of_picks_however_split(monkeypatch, per_call):
    """More rows than individuals: the counts are those of the same uniform picks drawn in one call,
    whatever the memory bound splits them into (so the bound never changes a number)."""
    monkeypatch.setattr("leaderboard.noise.rng._PICKS_PER_CALL", per_call)
    counts = draw_rows(block_rng(5, STREAM, 3), 2500, 300)
    picks = block_rng(5, STREAM, 3).integers(0, 300, size=(counts.shape[0], 2500))
    expected = np.stack([np.bincount(p, minlength=300) for p in picks])
    np.testing.assert_array_equal(counts, expected)
    assert (counts.sum(axis=1) == 2500).all()


def test_test_counts_follow_the_shares():
    u = _universe("accuracy", None, class_shares=SHARES3)
    assert u.test_counts(1001, None) == [501, 300, 200]
    with pytest.raises(InputError, match="leaves a class without rows"):
        u.test_counts(2, None)


# --- the whole registry: every metric is simulated sensibly, or says why not --------------------

_NO_UNIVERSE_KINDS = ("multilabel", "rankings", "clusters")


@pytest.mark.parametrize("metric", METRICS, ids=lambda m: m.name)
def test_every_registry_metric_simulates_or_says_why(metric):
    reason = not_simulable_reason(metric)
    if reason is not None:
        assert metric.kind in _NO_UNIVERSE_KINDS or metric.name in ("kl_ctr", "mean") \
            or not metric.can_score
        assert metric.label in reason
        return
    prevalence = 0.2 if default_universe(metric) in ("linspace", "binormal") else None
    u = get_universe(metric, 500, prevalence)
    low, high = u.reachable()
    high = min(high, low + 10.0)
    level = low + (0.7 if metric.higher_is_better else 0.3) * (high - low)
    draws = u.simulate(np.array([level]), 500, prevalence, 64, seed=0)[0]
    assert np.isfinite(draws).mean() > 0.9
    finite = draws[np.isfinite(draws)]
    # the draws centre on the truth: within 3 SDs (a gross miscalibration lands far outside)
    assert abs(np.median(finite) - level) < 3 * finite.std() + 1e-9


def test_binary_metrics_refuse_several_classes_and_jumps_are_refused():
    with pytest.raises(InputError, match="takes binary predictions"):
        get_universe(get_metric("brier"), 500, None, UniverseOptions(class_shares=SHARES3))
    with pytest.raises(InputError, match="sits at a jump"):
        # precision at threshold 0.5 starts at 0 (nothing predicted positive) and leaps upwards
        _universe("precision", 0.2).calibrate([0.3])
