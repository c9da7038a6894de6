"""Study: does ``plan --from`` deliver the power it promises? (issue 40 item 5; numbers in
docs/commands/plan.md, "Planning from a board").

Two questions, on binary per-item boards with a shared item difficulty (results correlate):

1. **The engine** (truth = the pilot itself): a pilot of 300 items is taken as the truth (boards
   drawn by resampling its item rows, so the true scores and covariance are the pilot's). Plan at
   power 0.8; draw boards of the planned size; analyse each with the package's own paired
   bootstrap and tier method; count the boards with the leader alone in tier 1.
2. **A pilot of the real thing** (truth = a population of 50,000 items): the pilot is 300 items
   drawn from the population, the plan is made from the pilot, and boards of the planned size are
   drawn from the population. The pilot's leader and gaps are noisy (the winner's curse): the
   achieved share can fall short of the promise.

Run: ``nice -n 10 python benchmarks/study_plan_from.py [--pilots 8] [--boards 300]``. Prints a
Markdown table per question.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import leaderboard  # noqa: E402
from leaderboard.metrics import items_metric  # noqa: E402
from leaderboard.noise.bootstrap import paired_bootstrap  # noqa: E402
from leaderboard.tiers.ranking import tier_entries  # noqa: E402
from leaderboard.tiers.replicates import RankReplicates  # noqa: E402

SHAPES = {"4 models": [0.70, 0.64, 0.52, 0.45],
          "12 models": [0.72, 0.68, 0.66, 0.62, 0.60, 0.58, 0.55, 0.52, 0.50, 0.45, 0.40, 0.35]}


def population(rates, items: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    easy = rng.random(items)
    return np.stack([(0.55 * easy + 0.45 * rng.random(items) < p) * 1.0 for p in rates])


def as_frame(values: np.ndarray) -> pd.DataFrame:
    m, n = values.shape
    return pd.DataFrame({"model": np.repeat([f"m{k:02d}" for k in range(m)], n),
                         "item": np.tile([f"q{i}" for i in range(n)], m),
                         "value": values.ravel()})


def share_alone(values: np.ndarray, leader: int, n: int, boards: int, seed: int,
                replicates: int = 300) -> float:
    """Boards of n items drawn from ``values``' columns, analysed by the package's paired
    bootstrap and rank-sets tiers: the share with ``leader`` alone in tier 1."""
    metric = items_metric("mean")[0]
    rng = np.random.default_rng(seed)
    hits = 0
    for b in range(boards):
        board = values[:, rng.integers(0, values.shape[1], n)]
        boot = paired_bootstrap(metric.impl, np.zeros(n), list(board), replicates=replicates,
                                seed=b)
        order = np.argsort(-boot.point, kind="stable")
        reps = RankReplicates.from_bootstrap(boot.point[order], boot.replicates[order], True)
        tier = np.empty(values.shape[0], dtype=int)
        tier[order] = tier_entries(reps, "rank-sets", 0.05).tier
        hits += bool(tier[leader] == 1 and (tier == 1).sum() == 1)
    return hits / boards


def one(rates, pilot_seed: int, boards: int, realistic: bool) -> tuple[int, float]:
    pop = population(rates, 50_000 if realistic else 300, pilot_seed)
    pilot = pop[:, np.random.default_rng(pilot_seed + 1).integers(0, pop.shape[1], 300)] \
        if realistic else pop
    result = leaderboard.analyze_items(as_frame(pilot), replicates=500)
    plan = leaderboard.plan_from(result, boards=200, separate=1)
    leader = int(plan.models[0][1:])
    truth = pop if realistic else pilot
    return plan.leader.needed, share_alone(truth, leader, plan.leader.needed, boards,
                                            seed=pilot_seed + 7)


def main() -> None:
    args = argparse.ArgumentParser()
    args.add_argument("--pilots", type=int, default=8)
    args.add_argument("--boards", type=int, default=300)
    a = args.parse_args()
    for realistic in (False, True):
        print(f"\n### {'Pilot of a population of 50,000 items' if realistic else 'The pilot taken as the truth'}\n")
        print("| shape | pilots | planned items (median, range) | achieved share: mean | "
              "min | max | Monte Carlo SE of one |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for shape, rates in SHAPES.items():
            start = time.process_time()
            runs = [one(rates, 100 * k + 3, a.boards, realistic) for k in range(a.pilots)]
            n = [r[0] for r in runs]
            got = np.array([r[1] for r in runs])
            print(f"| {shape} | {a.pilots} | {int(np.median(n)):,} ({min(n):,}-{max(n):,}) | "
                  f"{got.mean():.3f} | {got.min():.3f} | {got.max():.3f} | "
                  f"{math.sqrt(0.16 / a.boards):.3f} |", flush=True)
            print(f"<!-- {shape}: {time.process_time() - start:.0f} s CPU -->", flush=True)


if __name__ == "__main__":
    main()
