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
                                                        unit_residuals)


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
