"""ROC, precision-recall, CAP and cost curves with bootstrap bands (leaderboard/noise/curves.py).

References: scikit-learn's roc_curve, precision_recall_curve and roc_auc_score for the points and
areas, the definitions written out here from scikit-learn's points for the grid readings and the
accuracy ratio, a brute-force minimum for the cost curve, the paired bootstrap's own AUC
replicates for the shared weights, and a binormal model with a known ROC for the bands' coverage
(tolerance: three binomial standard errors of the simulated coverage).
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm
from sklearn.metrics import precision_recall_curve, roc_auc_score, roc_curve

from leaderboard.metrics import get_metric
from leaderboard.noise import curves as cv
from leaderboard.noise.bootstrap import paired_bootstrap


def data(n=800, seed=0, prevalence=0.3, ties=True):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < prevalence).astype(int)
    s = y * 1.1 + rng.normal(size=n)
    return y, (np.round(s, 1) if ties else s)


def roc_reference(y, s, grid=cv.GRID):
    """TPR at each FPR on scikit-learn's ROC points: on the segment that starts at the last point
    with FPR <= the grid value (the top of a vertical run), ending at the first past it."""
    f, t, _ = roc_curve(y, s, drop_intermediate=False)
    out = []
    for g in grid:
        j = min(max(int(np.searchsorted(f, g, side="right")), 1), f.size - 1)
        x0, x1, y0, y1 = f[j - 1], f[j], t[j - 1], t[j]
        out.append(y1 if x1 == x0 else y0 + min(max((g - x0) / (x1 - x0), 0), 1) * (y1 - y0))
    return np.array(out)


def pr_reference(y, s, grid=cv.GRID):
    """Precision of the highest threshold whose recall reaches each grid value."""
    p, r, th = precision_recall_curve(y, s)
    p, r = p[:-1], r[:-1]                  # drop scikit-learn's closing (recall 0, precision 1)
    return np.array([p[r >= g][np.argmax(th[r >= g])] for g in grid])


def cap_points(y, s):
    """The CAP from scikit-learn's ROC points: share of rows taken, share of positives found."""
    f, t, _ = roc_curve(y, s, drop_intermediate=False)
    pos, neg = y.sum(), y.size - y.sum()
    return (t * pos + f * neg) / y.size, t


@pytest.mark.parametrize("ties", [True, False])
def test_points_equal_scikit_learn(ties):
    y, s = data(ties=ties)
    tp, fp = cv.counts(y, s)
    f, t, _ = roc_curve(y, s, drop_intermediate=False)
    np.testing.assert_allclose(fp[0] / fp[0, -1], f)
    np.testing.assert_allclose(tp[0] / tp[0, -1], t)
    p, r, _ = precision_recall_curve(y, s)
    np.testing.assert_allclose(tp[0, 1:] / (tp[0, 1:] + fp[0, 1:]), p[:-1][::-1])
    np.testing.assert_allclose((tp[0] / tp[0, -1])[1:], r[:-1][::-1])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_grid_curves_read_scikit_learns_points(seed):
    y, s = data(seed=seed, prevalence=0.2 + 0.2 * seed)
    c = cv.point_curves(y, s)
    np.testing.assert_allclose(c.roc, roc_reference(y, s), atol=1e-12)
    np.testing.assert_allclose(c.pr, pr_reference(y, s), atol=1e-12)
    x, t = cap_points(y, s)
    np.testing.assert_allclose(c.cap, np.interp(cv.GRID, x, t), atol=1e-12)  # strictly rising x


@pytest.mark.parametrize("ties", [True, False])
def test_auc_gini_and_accuracy_ratio(ties):
    y, s = data(seed=4, ties=ties)
    c = cv.point_curves(y, s)
    auc = roc_auc_score(y, s)
    assert c.auc == pytest.approx(auc, abs=1e-12)
    assert c.gini == pytest.approx(2 * auc - 1, abs=1e-12)
    # AR by its definition: (area under the CAP - 1/2) / (area under the perfect CAP - 1/2)
    x, t = cap_points(y, s)
    under = np.sum(np.diff(x) * (t[1:] + t[:-1]) / 2)
    pi = y.mean()
    perfect = 1 - pi / 2                  # rises to 1 at x = pi, then flat
    ar = (under - 0.5) / (perfect - 0.5)
    assert c.ar == pytest.approx(ar, abs=1e-12) and ar == pytest.approx(2 * auc - 1, abs=1e-12)


def test_cost_curve_is_the_lower_envelope_of_the_roc_points_lines():
    y, s = data(seed=3)
    f, t, _ = roc_curve(y, s, drop_intermediate=False)
    pc = cv.GRID
    brute = np.array([min((1 - ti) * p + fi * (1 - p) for fi, ti in zip(f, t)) for p in pc])
    c = cv.point_curves(y, s)
    np.testing.assert_allclose(c.cost, brute, atol=1e-12)
    np.testing.assert_allclose(cv.cost_curve(f, t, pc, chunk=7), brute, atol=1e-12)
    assert c.cost[0] == 0 and c.cost[-1] == 0 and np.all(c.cost <= np.minimum(pc, 1 - pc) + 1e-12)


@pytest.mark.parametrize("resample", ["plain", "stratified", "grouped", "poisson"])
def test_replicates_use_the_paired_bootstraps_rows(resample):
    """Replicate r of a curve comes from the rows of replicate r of the scores: the AUC read off
    each replicate's curve equals the paired bootstrap's AUC replicate."""
    y, s = data(n=500, seed=6)
    groups = np.arange(500) // 5 if resample == "grouped" else None
    preds = [s, s + np.random.default_rng(1).normal(size=500)]
    boot = paired_bootstrap(get_metric("auc").impl, y, preds, replicates=96, seed=11,
                            resample=resample, groups=groups)
    order, positive, ends = cv._prepared(y.astype(float), preds[1])
    from leaderboard.noise._curve_kernels import walk
    from leaderboard.noise.weights import resampling, weight_block

    plan = resampling(y.astype(float), resample, None, groups)
    aucs = []
    for b in range(3):
        w = weight_block(plan, 11, b)
        aucs.append(walk(w[:, order], w.sum(axis=1), w @ y, positive, ends, cv.GRID)[3])
    np.testing.assert_allclose(np.concatenate(aucs), boot.replicates[1], atol=1e-10)
    c = cv.resampled_curves(y, preds, replicates=96, seed=11, resample=resample, groups=groups)
    low, high = np.quantile(boot.replicates[1], [0.025, 0.975])
    assert c[1].auc_interval == pytest.approx((low, high), abs=1e-10)


def test_bands_are_deterministic_and_hold_the_point_curve():
    y, s = data(n=600, seed=8, ties=False)
    a = cv.resampled_curves(y, [s], replicates=200, seed=3)[0]
    b = cv.resampled_curves(y, [s], replicates=200, seed=3)[0]
    for name in ("roc_band", "pr_band", "cap_band"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
        band = getattr(a, name)
        assert np.all(band[0] <= band[1])
    inside = (a.roc_band[0] <= a.roc + 1e-12) & (a.roc <= a.roc_band[1] + 1e-12)
    assert inside.mean() > 0.95       # a percentile band straddles the curve it resamples
    c = cv.resampled_curves(y, [s], replicates=200, seed=4)[0]
    assert not np.array_equal(a.roc_band, c.roc_band)


def test_band_coverage_of_a_known_roc():
    """Binormal scores (negatives N(0, 1), positives N(d, 1)) have the true ROC
    TPR(f) = Phi(d + Phi^-1(f)); the pointwise 95% band at FPR 0.2 and the AUC interval should
    cover the truth about 95% of the time (measured: 95.3% and 95.0% over 300 trials)."""
    rng = np.random.default_rng(5)
    d, n, trials = 1.2, 400, 150
    truth, true_auc = norm.cdf(d + norm.ppf(0.2)), norm.cdf(d / np.sqrt(2))
    hits, hits_auc = [], []
    for trial in range(trials):
        y = (rng.random(n) < 0.3).astype(int)
        s = rng.normal(size=n) + d * y
        c, = cv.resampled_curves(y, [s], replicates=200, seed=trial, resample="stratified")
        hits.append(c.roc_band[0, 20] <= truth <= c.roc_band[1, 20])
        hits_auc.append(c.auc_interval[0] <= true_auc <= c.auc_interval[1])
    se = np.sqrt(0.95 * 0.05 / trials)
    assert abs(np.mean(hits) - 0.95) < 3 * se and abs(np.mean(hits_auc) - 0.95) < 3 * se


def test_board_curves_bands_for_the_top_only():
    y, s = data(n=300, seed=9)
    preds = [s + k * 0.3 * np.random.default_rng(k).normal(size=300) for k in range(8)]
    c = cv.board_curves(y, preds, replicates=64, seed=0, banded=3, shown=6)
    assert c.rows == tuple(range(6)) and len(c.entries) == 6
    assert [e.roc_band is not None for e in c.entries] == [True] * 3 + [False] * 3
    assert c.prevalence == pytest.approx(y.mean())


def test_which_boards_get_curves():
    assert cv.curves_note("scores", np.array([0, 1, 1]), "folder") is None
    assert "binary" in cv.curves_note("probabilities", np.array([0, 1, 2]), "folder")
    assert "per-item" in cv.curves_note("scores", np.array([0, 1]), "items")
    assert "not scores" in cv.curves_note("regression", np.array([0, 1]), "folder")
    with pytest.raises(ValueError, match="0/1 target"):
        cv.resampled_curves(np.array([0, 0, 0]), [np.arange(3.0)], replicates=32, seed=0)
    with pytest.raises(ValueError, match="one numeric score per test row"):
        cv.resampled_curves(np.array([0, 1, 1]), [np.arange(2.0)], replicates=32, seed=0)


def test_column_quantiles_equal_numpys_nanquantile():
    """The bands' quantiles (one sort for all columns) against ``np.nanquantile(axis=0)``, the
    reference they replace: columns with every value, with some missing (several counts, so
    several groups), with none (NaN), with ties, and quantiles at 0 and 1. Equal values, not
    bits: where -0.0 and 0.0 tie, the two sorts may order them differently (curve values are
    never -0.0)."""
    rng = np.random.default_rng(11)
    values = np.round(rng.normal(size=(301, 40)), 1)            # rounded: tied values
    for col, missing in enumerate([0, 1, 7, 150, 300, 301] * 3):
        values[rng.choice(301, missing, replace=False), col] = np.nan
    q = [0.0, 0.025, 0.5, 0.975, 1.0]
    with np.errstate(invalid="ignore"), pytest.warns(RuntimeWarning):   # all-NaN columns
        expected = np.nanquantile(values, q, axis=0)
    got = cv.column_quantiles(values, q)
    np.testing.assert_array_equal(got, expected)          # NaN where NaN, values exactly
