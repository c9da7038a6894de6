"""issue 39 item 3: the regression noise read from a board's public/private gaps
(leaderboard/noise/tails.py) and the tails stated as a kurtosis."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from leaderboard.errors import InputError
from leaderboard.metrics import get_metric
from leaderboard.noise.correlation import estimate_correlation
from leaderboard.noise.tails import read_noise_scale
from leaderboard.noise.universes import UniverseOptions, not_simulable_reason
from leaderboard.options import universe_from


def test_the_scale_is_the_gaps_spread_with_a_t_quantile():
    # equal SDs: the spread is the gaps' sample variance over the variance independent normal
    # noise gives them (s_pub^2 + s_priv^2), and the scale its root times t(df) / z
    rng = np.random.default_rng(0)
    gaps = 3.0 * rng.standard_normal(25)
    sd = np.full(25, 1.0)
    s = read_noise_scale(gaps + 5.0, np.full(25, 5.0), sd, sd)
    spread = np.var(gaps, ddof=1) / 2.0
    assert s.df == 24 and s.spread == pytest.approx(spread, rel=1e-12)
    assert s.scale == pytest.approx(math.sqrt(spread) * stats.t.ppf(0.975, 24)
                                    / stats.norm.ppf(0.975), rel=1e-12)
    # read at a stated correlation: the gaps show 1 - rho of the noise, so the noise is larger
    at = read_noise_scale(gaps + 5.0, np.full(25, 5.0), sd, sd, correlation=0.5)
    assert at.spread == pytest.approx(2 * spread) and at.correlation == 0.5
    assert at.kurtosis("rmse") == pytest.approx(1 + 2 * at.scale ** 2)
    assert at.kurtosis("mae") is None


def test_never_below_normal_and_identical_pairs_count_once():
    sd = np.full(30, 1.0)
    calm = read_noise_scale(np.linspace(0, 0.3, 30), np.zeros(30), sd, sd)
    assert calm.floored and calm.scale == 1.0
    # twenty copies of one submission whose gap (3) is the others' mean
    public = np.r_[np.linspace(0, 6, 10), np.full(20, 4.0)]
    private = np.r_[np.zeros(10), np.full(20, 1.0)]
    once = read_noise_scale(public, private, sd, sd)
    assert (once.n_pairs, once.duplicates) == (11, 19)
    # counted twenty times the copies would have diluted the spread
    every = estimate_correlation(public, private, sd, sd)
    assert every.spread < once.spread
    est = estimate_correlation(public, private, sd, sd, distinct=True)
    assert est.duplicates == 19 and est.spread == pytest.approx(once.spread)


def test_too_few_distinct_pairs_give_a_reason():
    sd = np.full(5, 1.0)
    s = read_noise_scale(np.full(5, 2.0), np.full(5, 1.0), sd, sd)
    assert not s.ok and np.isnan(s.scale) and "distinct" in s.reason and s.duplicates == 4


def test_kurtosis_states_the_tails():
    # a t with 4 + 6 / (K - 3) degrees of freedom has kurtosis K; at 3 or less: normal
    for k in (4.0, 9.0, 30.0):
        u = universe_from(kurtosis=k)
        assert u.residuals == "t" and stats.t(u.df).stats(moments="k") + 3 == pytest.approx(k)
        assert u.tails_stated
    assert (universe_from(kurtosis=2.0).residuals, universe_from(kurtosis=2.0).df) == ("normal", 3.0)
    assert not UniverseOptions().tails_stated
    with pytest.raises(InputError, match="drop --residuals"):
        universe_from(kurtosis=5.0, residuals="normal")
    with pytest.raises(InputError, match="at least 1"):
        universe_from(kurtosis=0.5)
    assert "no residuals" in not_simulable_reason(get_metric("auc"), universe_from(kurtosis=5.0)) \
        or "has none" in not_simulable_reason(get_metric("auc"), universe_from(kurtosis=5.0))
