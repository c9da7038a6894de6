"""Known-truth coverage of the per-category intervals, marginal and simultaneous (issue 25 item 5).

Each board: ``models`` models answer ``items`` Bernoulli items per category, model m's true mean
in category c drawn once per configuration from U(0.55, 0.85); every board draws fresh answers.
:func:`leaderboard.pipelines.categories.category_results` gives, per (model, category), the
marginal interval (``ci_low``/``ci_high``, each at ``1 - alpha / C``) and the simultaneous one
(``ci_sim_low``/``ci_sim_high``, all at once at ``1 - alpha``). Printed, with Monte Carlo SEs:

* joint: the share of boards where every interval of the kind holds its true mean;
* each: the mean share of a board's intervals that hold (SE from the per-board shares).

Usage::

    python benchmarks/study_category_intervals.py [--boards 200] [--replicates 1000]

docs/categories.md quotes its output (seed 0).
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np

from leaderboard.metrics import get_metric
from leaderboard.pipelines.categories import category_results

CONFIGS = ((8, 3, 200), (20, 5, 200), (5, 10, 100))   # models, categories, items per category


def study(models: int, cats: int, per_cat: int, boards: int, replicates: int, alpha: float,
          seed: int) -> dict:
    """Coverage of both kinds of interval over ``boards`` boards of one configuration."""
    rng = np.random.default_rng(seed)
    truth = rng.uniform(0.55, 0.85, (models, cats))
    categories = np.repeat([f"c{k}" for k in range(cats)], per_cat)
    p = truth[:, np.repeat(np.arange(cats), per_cat)]
    joint = {"marginal": 0, "simultaneous": 0}
    each = {"marginal": [], "simultaneous": []}
    for b in range(boards):
        values = (rng.random(p.shape) < p).astype(float)
        table = category_results(get_metric("mean"), values, [f"m{k}" for k in range(models)],
                                 categories, alpha=alpha, replicates=replicates,
                                 seed=seed * 100_000 + b).table
        held = truth[table["team"].str[1:].astype(int), table["category"].str[1:].astype(int)]
        for kind, (lo, hi) in (("marginal", ("ci_low", "ci_high")),
                               ("simultaneous", ("ci_sim_low", "ci_sim_high"))):
            inside = ((table[lo] <= held) & (held <= table[hi])).to_numpy()
            joint[kind] += bool(inside.all())
            each[kind].append(inside.mean())
    out = {}
    for kind in joint:
        j = joint[kind] / boards
        e = np.asarray(each[kind])
        out[kind] = (j, math.sqrt(j * (1 - j) / boards), e.mean(),
                     e.std(ddof=1) / math.sqrt(boards))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=200)
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"alpha {args.alpha}, {args.boards} boards a configuration, {args.replicates} "
          "bootstrap replicates a board\n")
    print("| models x categories (items each) | intervals | nominal | all hold together | "
          "each holds (mean) |")
    print("|---|---|---|---|---|")
    for k, (models, cats, per_cat) in enumerate(CONFIGS):
        start = time.perf_counter()
        found = study(models, cats, per_cat, args.boards, args.replicates, args.alpha,
                      args.seed + k)
        for kind, (j, j_se, e, e_se) in found.items():
            nominal = (f"each {1 - args.alpha / cats:.1%}" if kind == "marginal"
                       else f"all {1 - args.alpha:.0%}")
            print(f"| {models} x {cats} ({per_cat}) | {kind} | {nominal} | {j:.1%} +- "
                  f"{j_se:.1%} | {e:.2%} +- {e_se:.2%} |")
        print(f"<!-- {time.perf_counter() - start:.0f} s -->")


if __name__ == "__main__":
    main()
