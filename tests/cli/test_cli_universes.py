"""Scores-only `analyze` with the calibrated universes: every simulable metric gets intervals and
tiers, and the report says which universe and what it assumes."""
from __future__ import annotations

import numpy as np
import pytest

from leaderboard.cli import main
from leaderboard.metrics import get_metric
from leaderboard.noise.universes import UniverseOptions, get_universe
from tests.cli.test_cli import board, run

DRAWS = 1600


def _sd_close(simulated: float, exact: float) -> None:
    """An SD from DRAWS near-normal draws: relative SE 1/sqrt(2 (B - 1)); allow 4 of them."""
    assert simulated == pytest.approx(exact, rel=4 / np.sqrt(2 * (DRAWS - 1)))


def test_log_loss_board_uses_the_binormal_universe(tmp_path):
    result, html = run([board(tmp_path, [0.25, 0.26, 0.30]), "--metric", "logloss", "--n-test",
                        "2000", "--prevalence", "0.1", "--draws", str(DRAWS)], tmp_path)
    noise = result["noise"]
    assert noise["universe"] == "binormal" and "calibrated probability" in noise["assumptions"]
    assert noise["leader_score"] == 0.25   # the noise does not vanish there: at the score itself
    exact = get_universe(get_metric("logloss"), 2000, 0.1).exact_sd(0.25, 2000, 0.1)
    assert noise["leader_exact_sd"] == pytest.approx(exact)
    _sd_close(noise["leader_sd"], exact)
    assert [e["tier"] for e in result["entries"]] == [1, 1, 2]   # 0.05 apart is ~4 SDs of a gap
    assert "binormal" in html and noise["universe_options"]["threshold"] == 0.5


@pytest.mark.parametrize("residuals", ["normal", "laplace"])
def test_regression_board_uses_the_chosen_residuals(tmp_path, residuals):
    result, html = run([board(tmp_path, [2.0, 2.1, 2.4]), "--metric", "mae", "--n-test", "1000",
                        "--residuals", residuals, "--draws", str(DRAWS)], tmp_path)
    noise = result["noise"]
    assert noise["universe"] == f"residuals-{residuals}"
    exact = get_universe(get_metric("mae"), 1000, None,
                         UniverseOptions(residuals=residuals)).exact_sd(2.0, 1000, None)
    # MAE of normal residuals: sd = MAE sqrt(pi/2 - 1) / sqrt(n); Laplace: MAE / sqrt(n)
    analytic = 2.0 * (np.sqrt(np.pi / 2 - 1) if residuals == "normal" else 1.0) / np.sqrt(1000)
    assert exact == pytest.approx(analytic, rel=2e-3)   # the universe's quantile grid vs the law
    _sd_close(noise["leader_sd"], exact)


def test_multiclass_board(tmp_path):
    # 200 draws: the universe's name, an interval around the score, and a tier split 0.11 apart
    # (12 of its SDs, 0.009 at 3,000 rows) are checked here, not the noise's precision
    result, _ = run([board(tmp_path, [0.71, 0.70, 0.60]), "--metric", "f1_macro", "--n-test",
                     "3000", "--class-shares", "0.5,0.3,0.2", "--draws", "200",
                     "--replicates", "200"], tmp_path)
    assert result["noise"]["universe"] == "multiclass"
    assert result["entries"][0]["ci_low"] < 0.71 < result["entries"][0]["ci_high"]
    assert result["entries"][2]["tier"] > 1


def test_worse_than_no_skill_is_modelled_and_the_unreachable_left_out(tmp_path):
    """0.9 is worse than predicting the base rate at 10% positives (log loss 0.325): an
    over-confident model reaches it, so it gets an honest interval. 40 is worse than every row
    confidently wrong (-log eps = 36.04): no model gives it, so it gets no interval and no tier."""
    result, html = run([board(tmp_path, [0.25, 0.27, 0.9, 40.0]), "--metric", "logloss",
                        "--n-test", "2000", "--prevalence", "0.1", "--draws", "400"], tmp_path)
    by_score = {e["score"]: e for e in result["entries"]}
    worse = by_score[0.9]
    assert worse["ci_low"] < 0.9 < worse["ci_high"] and worse["sd"] > 0 and worse["tier"] >= 1
    assert "over-confident" in result["noise"]["assumptions"]
    junk = by_score[40.0]
    assert junk["ci_low"] is None and junk["sd"] is None and junk["tier"] is None
    assert any("no interval and no tier" in n for n in result["notes"])
    assert "no interval and no tier" in html


@pytest.mark.parametrize("args, message", [
    (["--metric", "logloss", "--n-test", "100"], "--prevalence is needed"),
    (["--metric", "rmse", "--n-test", "100", "--universe", "binormal"], "does not fit"),
    (["--metric", "f1_macro", "--n-test", "100", "--class-shares", "0.5,0.6,0.2"], "sum to 1"),
    (["--metric", "f1_macro", "--n-test", "100", "--class-shares", "a,b"], "--class-shares"),
])
def test_universe_option_errors_are_one_line(tmp_path, capsys, args, message):
    status = main(["analyze", board(tmp_path, [0.5, 0.6]), *args, "-o",
                   str(tmp_path / "r.html"), "--quiet"])
    err = capsys.readouterr().err
    assert status == 2 and message in err and len(err.strip().splitlines()) == 1
