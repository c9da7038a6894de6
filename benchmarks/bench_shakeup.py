"""Benchmark: the post-mortem (shake-up) of small boards, as the known-truth tests and studies run
it hundreds of times (issue 27).

One competition is what ``tests/shakeup/test_shakeup.py`` simulates: 150 entries with close true
scores, 300 public and 1,200 private rows, the truths pulled together
(:func:`~leaderboard.shakeup.truth.truth_and_spread`), scores-only normal draws, the noise
baseline and the overfitting test with its power statement. Timed against the former code, kept
below as the baseline and swapped in within this process, after checking that every number of
both (the baseline's arrays and p-values, the test's null, p-value, drivers and detectable
inflation) is identical, bit for bit:

* ``detectable_inflation``: the bisection's statistic on the public top alone, with a 1-D median
  (the same operations; numpy's general median was most of the time);
* ``draws``: a small board's scores-only blocks kept after the baseline's pass, so the
  overfitting test's pass does not draw them again;
* ``board_ranks``: the simulated boards of at most 200 entries ranked by numpy's stable sort
  rather than the compiled radix sort (whose 2,048 buckets a pass cost more than a short row);
* ``posterior``: the truths' fit (300 EM steps) kept for the latest inputs, so the second
  post-mortem of a board whose private scores did not change copies it;
* ``inline``: Kendall's tau-b of small simulated boards (and the order it reads) computed on the
  calling thread, not handed to the thread pool.

Each competition is analysed twice, as the detectable-overfit test does: honest, then with its
public top raised by the inflation the first post-mortem states detectable.

    python benchmarks/bench_shakeup.py [--competitions 40] [--replicates 99] [--repeat 3]
"""
from __future__ import annotations

import argparse
import math
import time
from contextlib import ExitStack
from unittest.mock import patch

import numpy as np

from leaderboard.shakeup import NoiseDraws, overfit_test, shakeup_baseline, shakeup_stats
from leaderboard.shakeup import draws as draws_module
from leaderboard.shakeup import observed as observed_module
from leaderboard.shakeup import overfit as overfit_module
from leaderboard.shakeup import truth as truth_module
from leaderboard.shakeup.overfit import _centred_z
from leaderboard.shakeup.truth import truth_and_spread


def baseline_detectable_inflation(null, alpha, power=overfit_module.POWER, *, gap=None,
                                  sd_gap=None, leaders=None, honest=None):
    """:func:`~leaderboard.shakeup.overfit.detectable_inflation` as it was (main 31b2098): the
    whole board's z and numpy's median at every step of the bisection."""
    null = np.sort(np.asarray(null, dtype=float))[::-1]
    allowed = int(np.ceil(alpha * (1 + null.size) - 1)) - 1
    if allowed < 0 or null.size == 0:
        return float("nan")
    reference = null if honest is None or np.size(honest) == 0 else np.asarray(honest, float)
    rise = float(max(null[min(allowed, null.size - 1)] - np.quantile(reference, 1 - power),
                     0.0))
    if gap is None or sd_gap is None or leaders is None or rise == 0.0:
        return rise
    raised = np.zeros(gap.size)
    raised[leaders] = sd_gap[leaders]

    def statistic(delta: float) -> float:
        return float(_centred_z(gap + delta * raised, sd_gap)[leaders].mean())

    base = statistic(0.0)
    low, high = rise, 2.0 * rise
    while statistic(high) - base < rise and high < 1e6:
        low, high = high, 2.0 * high
    for _ in range(60):
        middle = 0.5 * (low + high)
        low, high = (middle, high) if statistic(middle) - base < rise else (low, middle)
    return high


BASELINES = {
    "detectable_inflation": (overfit_module, "detectable_inflation",
                             baseline_detectable_inflation),
    "draws": (draws_module, "KEPT_ELEMENTS", -1),   # every pass draws its blocks again
    "board_ranks": (observed_module, "SMALL_BOARD", -1),   # the compiled radix sort always
    "posterior": (truth_module, "KEPT_FITS", 0),           # every post-mortem fits its truths
    "inline": (observed_module, "INLINE_ELEMENTS", -1),    # tau-b's kernels always on threads
}


def competition(rng, entries=150, n_public=300):
    truth = 0.8 + 0.005 * rng.standard_normal(entries)
    n_private = 4 * n_public
    sd_pub = np.sqrt(truth * (1 - truth) / n_public)
    sd_priv = np.sqrt(truth * (1 - truth) / n_private)
    public = truth + sd_pub * rng.standard_normal(entries)
    private = truth + sd_priv * rng.standard_normal(entries)
    return public, private, n_public, n_private


def post_mortem(public, private, n_public, n_private, seed, replicates):
    """The tests' ``_analyse`` with the power statement and, as the pipeline, tau-b: every number
    it gives, as arrays."""
    sd = lambda n: np.sqrt(np.clip(private, 0.01, 0.99) * (1 - np.clip(private, 0.01, 0.99)) / n)
    truth, spread = truth_and_spread(private, sd(n_private))
    draws = NoiseDraws.normal(truth, sd(n_public), sd(n_private), True, replicates=replicates,
                              seed=seed)
    base = shakeup_baseline(draws, shakeup_stats(public, private, True))   # tau-b too
    test = overfit_test(public, private, draws, True, truth_sd=spread, seed=seed)
    return [base.spearman, base.mean_abs_rank_change, base.mean_abs_rank_change_top10,
            base.winner_public_ranks, base.private_rank_given_public_place, base.kendall,
            np.array([base.p_spearman, base.p_shakeup, base.p_winner_jump, test.p_overfit,
                      test.statistic, test.detectable_sd, test.detectable]),
            test.null, test.sd_gap, test.z, test.drivers]


def honest_then_raised(public, private, n_public, n_private, seed, replicates):
    """As the detectable-overfit test does: a post-mortem, then another of the same board with
    its public top raised by the stated inflation (the private scores, so the truths, unchanged)."""
    honest = post_mortem(public, private, n_public, n_private, seed, replicates)
    raised = public.copy()
    top = np.argsort(-public, kind="stable")[:15]
    raised[top] += honest[6][5] * honest[8][top]        # detectable_sd * sd_gap
    return honest + post_mortem(raised, private, n_public, n_private, seed, replicates)


def run(boards, replicates, baselines=()):
    with ExitStack() as stack:
        for name in baselines:
            stack.enter_context(patch.object(*BASELINES[name]))
        start, wall = time.process_time(), time.perf_counter()
        out = [honest_then_raised(*board, seed=i, replicates=replicates)
               for i, board in enumerate(boards)]
        return (time.process_time() - start, time.perf_counter() - wall), out


def same(a, b) -> bool:
    return all(x.dtype == y.dtype and x.shape == y.shape and
               np.array_equal(x, y, equal_nan=x.dtype.kind == "f")
               for p, q in zip(a, b) for x, y in zip(p, q))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--competitions", type=int, default=40)
    parser.add_argument("--replicates", type=int, default=99)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(25)
    boards = [competition(rng) for _ in range(args.competitions)]
    run(boards[:2], args.replicates)              # compiled kernels loaded, caches warm
    cases = [("all former code", tuple(BASELINES))] + \
        [(f"former {name} only", (name,)) for name in BASELINES]
    print(f"{args.competitions} competitions of 150 entries, each analysed twice, "
          f"{args.replicates} replicates (best of {args.repeat}, alternated)")
    best = {label: (math.inf, math.inf) for label, _ in cases}
    best["now"] = (math.inf, math.inf)
    outputs = {}
    for _ in range(args.repeat):
        for label, names in cases + [("now", ())]:
            seconds, outputs[label] = run(boards, args.replicates, names)
            best[label] = tuple(map(min, best[label], seconds))
    for label, _ in cases:
        assert same(outputs[label], outputs["now"]), f"{label}: numbers differ"
    (cpu, wall), k = best["now"], args.competitions
    print(f"  now: {cpu / k * 1e3:.1f} ms of CPU a competition ({wall / k * 1e3:.1f} ms wall)")
    for label, _ in cases:
        was_cpu, was_wall = best[label]
        print(f"  {label}: {was_cpu / k * 1e3:.1f} ms of CPU ({was_wall / k * 1e3:.1f} wall), "
              f"{was_cpu / cpu:.2f}x the CPU now ({was_wall / wall:.2f}x the wall)")
    print("every number identical to the former code's: yes")


if __name__ == "__main__":
    main()
