"""Benchmark: what the sign flips and the self-check (issue 39) add to ``analyze --items``.

Per-item results of a few shapes (0/1 correctness, an item difficulty shared by the models),
analysed end to end by :func:`leaderboard.analyze_items` (statistics only, no page) twice in
this process, alternating: as it runs now (the simultaneous family reads sign flips, and the
self-check measures its error at the board's shape), and with the flips switched off (the
bootstrap's replicates are the tests, no check: what ran before). CPU seconds (user + sys) per
run, the best of ``--repeat`` pairs, and their ratio.

    nice -n 10 python benchmarks/bench_sign_flips.py [--shapes 90x10,181x41,300x3000]
        [--repeat 3] [--replicates 2000]

docs/benchmarks.md quotes its output.
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np
import pandas as pd

import leaderboard
import leaderboard.pipelines.submissions as submissions


def results(models: int, items: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    skill = np.sort(rng.normal(0.0, 0.5, models))[::-1]
    hard = rng.normal(0, 1.5, items)
    p = 1 / (1 + np.exp(-(skill[:, None] - hard[None, :])))
    correct = (rng.random((models, items)) < p).astype(np.int8)
    return pd.DataFrame({"model": np.repeat([f"m{k:03d}" for k in range(models)], items),
                         "item": np.tile(np.arange(items), models), "value": correct.ravel()})


def cpu() -> float:
    t = os.times()
    return t.user + t.system


def run(frame: pd.DataFrame, replicates: int, flips: bool) -> float:
    """One analysis; ``flips`` False: no flips drawn, no check (the code before issue 39)."""
    original = submissions.uses_flips, submissions.family_tests
    if not flips:
        submissions.uses_flips = lambda metric: False
        submissions.family_tests = lambda *args, **kwargs: (None, None)
    try:
        start = cpu()
        result = leaderboard.analyze_items(frame, metric="accuracy", replicates=replicates)
        spent = cpu() - start
    finally:
        submissions.uses_flips, submissions.family_tests = original
    ranking = result.analysis.ranking
    assert (ranking.family == "sign-flip") == flips
    assert (ranking.guarantee_check is not None) == flips
    return spent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", default="90x10,181x41,300x3000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--replicates", type=int, default=2000)
    args = ap.parse_args()
    run(results(5, 20), 100, True)      # imports and compiled kernels, outside the timings
    run(results(5, 20), 100, False)
    print("| models x items | before (bootstrap tests) s | now (sign flips + check) s | ratio |")
    print("|---|---|---|---|")
    for shape in args.shapes.split(","):
        models, items = (int(v) for v in shape.split("x"))
        frame = results(models, items)
        before, now = [], []
        for _ in range(args.repeat):
            before.append(run(frame, args.replicates, False))
            now.append(run(frame, args.replicates, True))
        print(f"| {models} x {items:,} | {min(before):.2f} | {min(now):.2f} | "
              f"{min(now) / min(before):.2f} |", flush=True)


if __name__ == "__main__":
    main()
