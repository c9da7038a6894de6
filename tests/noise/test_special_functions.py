"""The scipy.special functions the statistics call instead of scipy.stats (whose import takes ~1 s
of every process's start, issue 27) return the same bits as the scipy.stats calls they replace,
at the arguments the code passes and across the whole open interval."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.special import ndtr, ndtri, stdtrit
from scipy.stats import norm, t

from leaderboard.noise.universes.regression import ROWS, _quantile_cells

# Probabilities from the far tails to the centre: every alpha / m a Bonferroni screen asks for
# (rank_sets, best_set: alpha / (n (n - 1)) for boards up to 10^6 entries), 0.975, the quantile
# cells of the universes, and a dense grid.
_TAILS = np.array([0.05 / (n * (n - 1)) for n in (2, 3, 10, 100, 1_702, 10**6)]
                  + [0.025, 0.05, 0.1, 0.5, 0.8, 0.975])
PROBABILITIES = np.unique(np.concatenate([
    _TAILS, 1 - _TAILS, np.linspace(1e-6, 1 - 1e-6, 10_001),
    (np.arange(ROWS) + 0.5) / ROWS, _quantile_cells(True)[0], _quantile_cells(False)[0]]))


def _same_bits(a, b) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.all(a.view(np.int64) == b.view(np.int64)))


def test_normal_quantiles_are_ndtri_bit_for_bit():
    assert _same_bits(ndtri(PROBABILITIES), norm.ppf(PROBABILITIES))
    # norm.isf(q) is -ndtri(q) * 1 + 0: the same bits but at q = 0.5 (zero's sign), which the
    # code never asks for (alpha / m with alpha < 1 and m >= 2 is below 0.5)
    below = PROBABILITIES[PROBABILITIES < 0.5]
    assert _same_bits(-ndtri(below), norm.isf(below)) and -ndtri(0.5) == norm.isf(0.5)
    for q in _TAILS:   # the scalars the tiers and the noise model ask for, as Python floats
        assert float(-ndtri(q)) == float(norm.isf(q)) and float(ndtri(q)) == float(norm.ppf(q))


def test_normal_probabilities_are_ndtr_bit_for_bit():
    z = np.concatenate([np.linspace(-40, 40, 8_001), ndtri(PROBABILITIES), [-np.inf, np.inf]])
    assert _same_bits(ndtr(z), norm.cdf(z))
    assert _same_bits(ndtr(-z), norm.sf(z))


@pytest.mark.parametrize("df", [2.0, 2.5, 3.0, 5.0, 30.0])
def test_student_t_quantiles_are_stdtrit_bit_for_bit(df):
    assert _same_bits(stdtrit(df, PROBABILITIES), t.ppf(PROBABILITIES, df))


def test_a_broken_replacement_would_be_caught():
    """The comparison sees one unit in the last place."""
    moved = np.nextafter(norm.ppf(PROBABILITIES), np.inf)
    assert not _same_bits(ndtri(PROBABILITIES), moved)


@pytest.mark.parametrize("df", [1, 2, 3, 7, 40, 1_000, 2.5 / (np.pi - 2), 100 / (np.pi - 2)])
def test_chi2_quantiles_are_gammaincinv_bit_for_bit(df):
    """As noise/correlation.py (whole df, both tails of 1 - alpha) and tiers/scott_knott.py
    (df = k / (pi - 2)) compute them."""
    from scipy.special import gammaincinv
    from scipy.stats import chi2
    assert _same_bits(2 * gammaincinv(df / 2, PROBABILITIES), chi2.ppf(PROBABILITIES, df))
    for alpha in (0.01, 0.05, 0.1, 0.2):
        assert float(2 * gammaincinv(df / 2, 1 - alpha)) == float(chi2.ppf(1 - alpha, df))
