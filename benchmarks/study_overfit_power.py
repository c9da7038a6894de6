"""Known-truth check of the post-mortem's power statement (issue 25 item 7).

The post-mortem says how large an overfit its test would have detected with 80% probability
(``overfit_detectable_sd``). Here, per competition: known true scores, binomial-like errors on a
public slice and a private slice four times larger (as tests/shakeup/test_shakeup.py), the test run on
the honest board, then every public-top entry's public score raised by exactly the stated
inflation (in its own gap SDs) and the test run again. The share detected (p < 0.05) should be
80% within Monte Carlo error. Two ways of stating it are compared:

* ``null``: honest boards taken as distributed like the test's null (before issue 25 item 7);
* ``posterior``: honest boards simulated with each true score drawn from its posterior (the
  default now: :func:`leaderboard.shakeup.overfit.detectable_inflation`).

Usage::

    python benchmarks/study_overfit_power.py [--competitions 200] [--replicates 99]

docs/assumptions.md quotes its output (seed 25).
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np

from leaderboard.shakeup import NoiseDraws, overfit_test
from leaderboard.shakeup.truth import truth_and_spread

SETTINGS = ((150, 300, "close"), (150, 300, "tail"), (400, 1000, "tied"))


def _sd(score: np.ndarray, n: int) -> np.ndarray:
    p = np.clip(score, 0.01, 0.99)
    return np.sqrt(p * (1 - p) / n)


def _competition(rng, entries: int, n_public: int, shape: str):
    if shape == "close":
        truth = 0.8 + 0.005 * rng.standard_normal(entries)
    elif shape == "tied":
        truth = np.full(entries, 0.8)
    else:   # a tight top and a tail of weak entries
        truth = 0.85 + 0.003 * rng.standard_normal(entries)
        weak = entries // 5
        truth[:weak] = 0.85 - 0.25 * rng.random(weak)
    n_private = 4 * n_public
    public = truth + _sd(truth, n_public) * rng.standard_normal(entries)
    private = truth + _sd(truth, n_private) * rng.standard_normal(entries)
    return public, private, n_private


def _test(public, private, n_public, n_private, seed, replicates, posterior: bool):
    sd_pub, sd_priv = _sd(private, n_public), _sd(private, n_private)
    truth, spread = truth_and_spread(private, sd_priv)
    draws = NoiseDraws.normal(truth, sd_pub, sd_priv, True, replicates=replicates, seed=seed)
    return overfit_test(public, private, draws, True, truth_sd=spread if posterior else None,
                        seed=seed)


def study(entries: int, n_public: int, shape: str, competitions: int, replicates: int,
          posterior: bool, seed: int = 25) -> tuple[float, float, float]:
    """(detection rate, its binomial SE, mean stated inflation in gap SDs)."""
    rng = np.random.default_rng(seed)
    detected, sizes = 0, []
    for i in range(competitions):
        public, private, n_private = _competition(rng, entries, n_public, shape)
        honest = _test(public, private, n_public, n_private, i, replicates, posterior)
        top = np.argsort(-public, kind="stable")[:honest.top_size]
        public[top] += honest.detectable_sd * honest.sd_gap[top]
        raised = _test(public, private, n_public, n_private, i, replicates, posterior)
        detected += raised.p_overfit < 0.05
        sizes.append(honest.detectable_sd)
    rate = detected / competitions
    return rate, math.sqrt(rate * (1 - rate) / competitions), float(np.mean(sizes))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--competitions", type=int, default=200)
    parser.add_argument("--replicates", type=int, default=99)
    args = parser.parse_args()
    print(f"{args.competitions} competitions a row, {args.replicates} simulated competitions "
          "behind each test\n")
    print("| entries | public rows | true scores | honest boards as | detected (target 80%) | "
          "stated inflation (gap SDs) |")
    print("|---|---|---|---|---|---|")
    for entries, n_public, shape in SETTINGS:
        for posterior in (False, True):
            start = time.perf_counter()
            rate, se, size = study(entries, n_public, shape, args.competitions, args.replicates,
                                   posterior)
            print(f"| {entries} | {n_public} | {shape} | {'posterior' if posterior else 'null'}"
                  f" | {rate:.1%} +- {se:.1%} | {size:.2f} | <!-- {time.perf_counter() - start:.0f} s -->")


if __name__ == "__main__":
    main()
