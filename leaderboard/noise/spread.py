r"""How far apart chance alone spreads ``n`` equally good entries: d95 for a whole board.

d95 is about one pair: two equally good models land further apart than d95 one time in twenty.
A board holds many entries, and the best and the worst of ``n`` equally good ones land further
apart than that. The *spread of n equals*, ``s95(n)``, is the 95% quantile of the range
``max_i X_i - min_i X_i`` of ``n`` observed scores that share one true score. For ``n = 2`` the
range is ``|X_1 - X_2|``, so ``s95(2) = d95`` exactly: it is the same question asked of a board.

What it assumes
---------------
- **Shape**: normal noise, scaled so that ``s95(2)`` equals the d95 of the noise model (the
  simulated universe or the bootstrap): ``s95(n) = d95 * r(n) / r(2)`` with ``r(n)`` the 95%
  quantile of the range of ``n`` standard normals. The range of thousands of entries lives in the
  far tails (the best of 3,000 sits at the 1/3,000 quantile), beyond what a few thousand simulated
  draws resolve, so the tail's shape is modelled rather than read off the draws. Near a bound
  (AUC near 1) the real noise is skewed and the normal tail overstates one side and understates
  the other.
- **Correlation** ``rho`` between entries (one test set shared by all): with
  ``X_i = t + s (sqrt(rho) Z + sqrt(1 - rho) Z_i)`` the common part cancels in every difference,
  so the range shrinks by exactly ``sqrt(1 - rho)``. ``rho = 0`` is independent entries, as if
  each had its own test set, the assumption of d95 itself.

The range distribution is exact for normal scores: ``P(R <= r) = n \int phi(x) [Phi(x + r) -
Phi(x)]^{n - 1} dx`` (the textbook formula for the range of a normal sample), integrated on a fine
grid and inverted by bisection; nothing is random, so there is no seed.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

# A typical correlation between entries scored on one shared test set: the parameter table's
# (plan's default, which its help says), measured and explained there
from leaderboard.params import TYPICAL_CORRELATION  # noqa: F401


_PAIR = 1.959963984540054 * math.sqrt(2.0)   # r(2): the 95% quantile of |Z1 - Z2|


def _range_cdf(r: float, n: int, grid: np.ndarray, weight: np.ndarray) -> float:
    from scipy.special import ndtr   # lazily: keeps `import leaderboard` fast

    # in logs: [...]^(n - 1) underflows harmlessly for thousands of entries
    inner = np.clip(ndtr(grid + r) - ndtr(grid), 1e-300, 1.0)
    return float(n * np.sum(weight * np.exp((n - 1) * np.log(inner))))


@lru_cache(maxsize=64)
def normal_range_quantile(n: int, q: float = 0.95) -> float:
    """The ``q`` quantile of the range of ``n`` independent standard normal draws.

    Parameters
    ----------
    n : int
        How many draws (2 or more; 1 gives 0: one entry has no spread).
    q : float
        The quantile, in (0, 1).

    Returns
    -------
    float
        ``r`` with ``P(max - min <= r) = q``, accurate to about 1e-6.

    Examples
    --------
    >>> round(normal_range_quantile(2), 4)   # |Z1 - Z2| ~ N(0, 2): 1.96 * sqrt(2)
    2.7718
    >>> round(normal_range_quantile(10), 2)  # tables of the studentised range, df = infinity
    4.47
    """
    if n < 2:
        return 0.0
    grid = np.linspace(-9.0, 9.0, 7201)
    weight = np.exp(-0.5 * grid ** 2) / math.sqrt(2 * math.pi) * (grid[1] - grid[0])
    low, high = 0.0, 20.0
    for _ in range(60):   # bisection: the CDF rises in r
        mid = 0.5 * (low + high)
        if _range_cdf(mid, n, grid, weight) < q:
            low = mid
        else:
            high = mid
    return 0.5 * (low + high)


def spread_of_equals(d95: float, n: int, rho: float = 0.0) -> float:
    """How far apart the best and the worst of ``n`` equally good entries land, 19 times in 20.

    Parameters
    ----------
    d95 : float
        The noise model's d95 (two equally good entries, each on its own test set).
    n : int
        Entries on the board.
    rho : float
        Correlation between entries' scores (0: independent, as d95 assumes; entries on one
        shared test set are positively correlated).

    Returns
    -------
    float
        ``s95(n)``: equal to ``d95`` for ``n = 2`` and ``rho = 0`` (module docstring).

    Examples
    --------
    >>> spread_of_equals(0.01, 2)
    0.01
    >>> round(spread_of_equals(0.01, 40) / 0.01, 2)   # 40 entries spread twice as far as a pair
    1.98
    >>> round(spread_of_equals(0.01, 40, rho=0.5) / spread_of_equals(0.01, 40), 4)
    0.7071
    """
    if not 0 <= rho < 1:
        raise ValueError(f"rho must be in [0, 1), got {rho}")
    if n == 2:
        return float(d95) * math.sqrt(1 - rho)
    return float(d95) * normal_range_quantile(n) / _PAIR * math.sqrt(1 - rho)
