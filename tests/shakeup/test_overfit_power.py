"""issue 39 item 2: the post-mortem's stated detectable overfit holds at the board's shape when the
correlation between entries is read from the gaps, as scores-only boards read it.

Known truth: entries share half their noise on each slice (one test set), the correlation is
estimated from the public/private gaps (its lower end is the test's), the honest board's public
top is raised by exactly the stated overfit and the board analysed again, the correlation read
again from its gaps. Before issue 39 the statement rested on honest boards drawn at the lower end
of the correlation and on the honest board's critical value: the stated overfit was detected 6%
of the time (30 competitions here; 10% of 20 example-like competitions through the pipeline)."""
from __future__ import annotations

import math

import numpy as np

from leaderboard.noise.correlation import choose_correlation, estimate_correlation
from leaderboard.shakeup import NoiseDraws, overfit_test
from leaderboard.shakeup.power import POWER
from leaderboard.shakeup.truth import truth_and_spread

ENTRIES, N_PUBLIC, SHARED = 60, 300, 0.5


def _sd(score: np.ndarray, n: int) -> np.ndarray:
    p = np.clip(score, 0.01, 0.99)
    return np.sqrt(p * (1 - p) / n)


def _competition(rng):
    truth = 0.8 + 0.005 * rng.standard_normal(ENTRIES)

    def slice_(n):
        own, common = rng.standard_normal(ENTRIES), rng.standard_normal()
        return truth + _sd(truth, n) * (math.sqrt(SHARED) * common + math.sqrt(1 - SHARED) * own)
    return slice_(N_PUBLIC), slice_(4 * N_PUBLIC)


def _analyse(public, private, seed, read_as_stated=True):
    """The scores-only post-mortem with ``--correlation auto`` (pipelines/shakeup.py's steps, the
    SDs known): ``read_as_stated`` passes the power statement's honest draws and re-reading."""
    a, b = _sd(private, N_PUBLIC), _sd(private, 4 * N_PUBLIC)
    choice = choose_correlation("auto", estimate_correlation(public, private, a, b))

    def draws_at(rho, truth):
        return NoiseDraws.normal(truth, _sd(truth, N_PUBLIC), _sd(truth, 4 * N_PUBLIC), True,
                                 correlation=rho, replicates=99, seed=seed)

    def refit(raised):
        rho = choose_correlation("auto", estimate_correlation(raised, private, a, b)).used
        return draws_at(rho, truth_and_spread(private, b * math.sqrt(1 - rho))[0])

    truth, spread = truth_and_spread(private, b * math.sqrt(1 - choice.used))
    extra = ({"honest_draws": draws_at(min(max(choice.value, 0.0), 0.99), truth),
              "refit": refit} if read_as_stated else {})
    return overfit_test(public, private, draws_at(choice.used, truth), True, truth_sd=spread,
                        seed=seed, **extra)


def _detected(n_sims, read_as_stated):
    rng = np.random.default_rng(39)
    detected = 0
    for i in range(n_sims):
        public, private = _competition(rng)
        honest = _analyse(public, private, i, read_as_stated)
        top = np.argsort(-public, kind="stable")[:honest.top_size]
        public[top] += honest.detectable_sd * honest.sd_gap[top]
        detected += _analyse(public, private, i, read_as_stated).p_overfit < 0.05
    return detected / n_sims


def test_the_stated_overfit_is_detected_at_least_as_often_as_stated():
    # 100 competitions: 80% less 3 binomial SEs at least (measured 84%; 300 competitions at 199
    # replicates: 88.7% +- 1.8%, so the statement errs on the side of detecting more often);
    # before issue 39, 30 competitions detected under 30% (measured 6%)
    n_sims = 100
    assert _detected(n_sims, True) >= POWER - 3 * math.sqrt(POWER * (1 - POWER) / n_sims)
    assert _detected(30, False) < 0.3
