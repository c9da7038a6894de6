"""issue 25 item 2: scores-only RMSE and MAE under non-normal residuals (a small version of
`leaderboard calibrate --scores-only --regression-only`, docs/scores_only_regression.md)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate
from scipy.stats import t as student_t

from leaderboard.noise.universes import DEFAULT_DF, DEFAULT_RESIDUALS, UniverseOptions
from leaderboard.studies.regression_calibration import (FAMILIES, RegressionDesign,
                                                        mean_absolute, run_regression_design,
                                                        scores_and_truth, unit_residuals)


@pytest.mark.parametrize("family", FAMILIES)
def test_families_have_unit_mean_square_and_the_closed_form_mae(family):
    e = unit_residuals(family, 2_000_000, np.random.default_rng(1))
    # t(3) has infinite fourth moment: its mean square converges slowly, allow more
    assert np.mean(e * e) == pytest.approx(1.0, rel=0.05 if family == "t3" else 0.01)
    se = np.std(np.abs(e)) / math.sqrt(e.size)
    assert np.mean(np.abs(e)) == pytest.approx(mean_absolute(family), abs=5 * se)


def test_t3_mae_against_quadrature():
    value, _ = integrate.quad(lambda x: 2 * x * student_t.pdf(x, 3), 0, np.inf)
    assert mean_absolute("t3") == pytest.approx(value / math.sqrt(3), rel=1e-6)


def test_default_is_t_with_3_df():
    assert (DEFAULT_RESIDUALS, DEFAULT_DF) == ("t", 3.0)
    assert UniverseOptions().residuals == "t" and UniverseOptions().df == 3.0


def test_default_rmse_intervals_hold_under_heavy_tails_and_outliers():
    """Known truth: 30 entries x 2 competitions per family at 1,000 rows. Coverage averaged over
    three families at least 93% and in each at least 85%, less 3 Monte Carlo SEs (binomial over
    the entries); the full study has all five families and both metrics."""
    rows = [run_regression_design(RegressionDesign(f, "rmse", 2, draws=400))
            for f in ("normal", "t3", "outliers")]
    cover = np.array([r["score_cover"] for r in rows])
    se = np.array([r["se:score_cover"] for r in rows])
    assert cover.mean() >= 0.93 - 3 * math.sqrt(np.sum(se ** 2)) / len(se), cover
    assert (cover >= 0.85 - 3 * se).all(), cover
    assert all(r["no_interval"] == 0 for r in rows)


@pytest.mark.parametrize("metric", ["rmsle", "mape", "r2"])
def test_default_intervals_hold_for_rmsle_mape_and_r2_under_t3_errors(metric):
    """Known truth, the study's worst family: 40 entries whose errors on the metric's own scale
    are t(3), at 1,000 rows. Coverage at least 85% less 3 binomial SEs (the full study:
    docs/scores_only_regression.md); every entry gets an interval."""
    row = run_regression_design(RegressionDesign("t3", metric, 1, entries=40, draws=400))
    assert row["score_cover"] >= 0.85 - 3 * row["se:score_cover"], row
    assert row["no_interval"] == 0


def test_scores_and_truth_match_sklearn_on_one_entry():
    """The study's observed scores are the metrics as scikit-learn computes them, on the
    predictions the errors describe."""
    from sklearn.metrics import mean_absolute_percentage_error, mean_squared_log_error, r2_score

    s, _ = scores_and_truth("r2", "laplace", 1, 500, np.random.default_rng(8))
    # same draws: errors first, then the truth
    rng = np.random.default_rng(8)
    e = 0.3 * unit_residuals("laplace", (1, 500), rng)[0]
    y = rng.standard_normal((1, 500))[0]
    assert s[0] == pytest.approx(r2_score(y, y + e), rel=1e-12)
    y_pos = np.exp(rng.standard_normal(500))
    pred = np.expm1(np.log1p(y_pos) + e)
    assert math.sqrt(mean_squared_log_error(y_pos, pred)) == pytest.approx(
        float(np.sqrt(np.mean(e * e))), rel=1e-12)
    assert mean_absolute_percentage_error(y_pos, y_pos * (1 + e)) == pytest.approx(
        float(np.mean(np.abs(e))), rel=1e-12)
