"""Known-truth coverage of the cost intervals (``--cost-col``, issue 39): bootstrap-t, percentile.

Costs per item are lognormal with log-SD ``sigma`` (true mean ``exp(sigma^2 / 2)``), ``n`` items a
benchmark; each benchmark's 95% interval of the mean cost comes from
:func:`leaderboard.pipelines.item_costs.studentized_interval` (bootstrap-t, what the page shows
since issue 39) and from the percentile interval of the same replicates
(:func:`leaderboard.pipelines.item_costs.cost_replicates`, the interval before). The benchmarks
are split into ``--chunks`` groups with their own seeds (the tool's seed is fixed, so the draws of
items are shared within a group, as they are by the models of one board).

Printed: a Markdown table (coverage with its Monte Carlo SE, mean width over the true mean) and
the ``COVERAGE`` table that :mod:`leaderboard.pipelines.item_costs` reads to state the measured
coverage at a board's own number of items and tail (its costs' largest log-SD).

Usage::

    python benchmarks/study_cost_intervals.py [--sims 2000] [--replicates 1000]
"""
from __future__ import annotations

import argparse
import math
import time
from types import SimpleNamespace

import numpy as np

from leaderboard.pipelines.item_costs import cost_replicates, studentized_interval

SIGMAS = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0)
SIZES = (50, 100, 150, 300, 1000, 3000)


def coverage(sigma: float, n: int, sims: int, replicates: int, chunks: int,
             seed: int) -> dict:
    truth = math.exp(sigma ** 2 / 2)
    rng = np.random.default_rng(seed)
    hits = {"bootstrap-t": 0, "percentile": 0}
    width = {"bootstrap-t": 0.0, "percentile": 0.0}
    solution = SimpleNamespace(target=np.zeros(n), groups=None)
    per = -(-sims // chunks)
    for c in range(chunks):
        x = rng.lognormal(0, sigma, (per, n))
        s = seed * 1000 + c
        low, high = studentized_interval(x, solution, "plain", replicates, s)
        p_low, p_high = cost_replicates(x, solution, "plain", replicates, s).percentile_interval(
            0.05)
        for kind, (lo, hi) in (("bootstrap-t", (low, high)), ("percentile", (p_low, p_high))):
            hits[kind] += int(((lo <= truth) & (truth <= hi)).sum())
            width[kind] += float((hi - lo).sum() / truth)
    total = per * chunks
    return {k: (hits[k] / total, math.sqrt(0.95 * 0.05 / total), width[k] / total) for k in hits}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=2000)
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--chunks", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"{args.sims} benchmarks a cell, {args.replicates} replicates, nominal 95%\n")
    print("| log-SD | items | bootstrap-t (width) | percentile (width) |")
    print("|---|---|---|---|")
    table = {}
    for i, sigma in enumerate(SIGMAS):
        for j, n in enumerate(SIZES):
            start = time.process_time()
            r = coverage(sigma, n, args.sims, args.replicates, args.chunks,
                         args.seed + 100 * i + j)
            t, p = r["bootstrap-t"], r["percentile"]
            table[(sigma, n)] = round(t[0], 3)
            print(f"| {sigma:g} | {n:,} | {t[0]:.1%} ± {t[1]:.1%} ({t[2]:.3f}) | "
                  f"{p[0]:.1%} ({p[2]:.3f}) | <!-- {time.process_time() - start:.0f} s -->",
                  flush=True)
    print("\nCOVERAGE = {")
    for sigma in SIGMAS:
        print(f"    {sigma!r}: {{" + ", ".join(f"{n}: {table[(sigma, n)]}" for n in SIZES)
              + "},")
    print("}")


if __name__ == "__main__":
    main()
