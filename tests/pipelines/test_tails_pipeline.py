"""issue 39 item 3: scores-only regression without a blanket heavy-tail default. Boards with public
and private scores read their noise from the gaps (known truth: coverage, and the width against
the exact chi-square interval); one-column boards say how far the verdict hinges on the tails."""
from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from leaderboard.errors import InputError
from leaderboard.pipelines.run import Inputs, run_analysis
from leaderboard.studies.regression_calibration import RegressionDesign, run_regression_design


@pytest.mark.parametrize("family", ["normal", "t3"])
def test_gaps_set_the_noise_of_a_two_column_rmse_board(family):
    """One known-truth board of 60 independent entries, 300 public and 1,000 private rows. Normal
    residuals: intervals at most 1.6 times the exact chi-square ones (the t(3) default gave 4.5 to
    6 times); t(3) residuals: the gaps show the heavier noise. Coverage 95% within 4 binomial SEs
    of 60 entries (0.84) either way."""
    out = run_regression_design(RegressionDesign(family, "rmse", 1, entries=60, n_test=1000,
                                                 public_rows=300, draws=500))
    assert out["score_cover"] >= 0.95 - 4 * math.sqrt(0.95 * 0.05 / 60)
    assert out["no_interval"] == 0
    if family == "normal":
        assert out["width_over_exact"] <= 1.6 and out["scale"] < 1.5
    else:
        assert out["scale"] > 2.0


def _one_column_board(n: int = 16) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    scale = 1.0 + 0.05 * np.arange(n)
    scores = np.sqrt(np.mean((scale[:, None] * rng.standard_normal((n, 1000))) ** 2, axis=1))
    return pd.DataFrame({"team": [f"t{i}" for i in range(n)], "score": scores})


def test_one_column_headline_names_both_counts(tmp_path):
    from leaderboard.options import AnalyzeOptions, NoiseOptions, RankOptions, SliceOptions
    from leaderboard.report import write_json
    from leaderboard.report.headline import headline
    from leaderboard.report.numbers import Numbers

    options = AnalyzeOptions(noise=NoiseOptions(metric="rmse", draws=300, correlation=0.0),
                             ranks=RankOptions(replicates=300), slices=SliceOptions(n_test=1000))
    a = run_analysis(Inputs(board=_one_column_board()), options)
    tails = a.tails
    assert tails.how == "unknown" and tails.residuals == "t"
    light, heavy = tails.light["best_set"], tails.heavy["best_set"]
    assert light < heavy == int(a.table["in_best_set"].sum())
    first = headline(a, Numbers(a.settings.metric, a.table["score"].to_numpy(float), a.d95))[0]
    assert f"{light:,} to " in first and f"{heavy:,} of" in first
    assert "tails" in first and "(kurtosis= narrows it)" in first   # made in Python: its words
    write_json(a, tmp_path / "a.json")
    assert json.loads((tmp_path / "a.json").read_text())["tails"]["light"]["best_set"] == light


def test_stated_kurtosis_narrows_it_and_is_refused_elsewhere():
    from leaderboard.noise.universe_options import UniverseOptions
    from leaderboard.options import AnalyzeOptions, NoiseOptions, RankOptions, SliceOptions

    stated = AnalyzeOptions(noise=NoiseOptions(metric="rmse", draws=300, correlation=0.0,
                                               universe=UniverseOptions(residuals="normal",
                                                                        kurtosis=3.0)),
                            ranks=RankOptions(replicates=300), slices=SliceOptions(n_test=1000))
    a = run_analysis(Inputs(board=_one_column_board()), stated)
    assert a.tails.how == "stated" and a.tails.light is None
    assert "kurtosis 3" in a.tails.fact()
    with pytest.raises(InputError, match="--kurtosis"):
        run_analysis(Inputs(solution="s.csv", submissions="subs"), stated)
