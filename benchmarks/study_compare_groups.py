"""Known-truth check of ``compare`` on grouped items whose grouping column nobody declared.

Two equally good models on items that come in groups (passages, repositories): each group
shifts each model's values by its own amount (a model-by-group effect), so items of one group
are related. The file carries the group column but ``--cluster-col`` is not given. The gate must
pass such a true null at most alpha of the time. Compared: the items resampled one by one (what
the gate did before issue 39), and the gate as it is now (it also resamples each undeclared
grouping column's groups as wholes, :func:`leaderboard.pipelines.compare._undeclared_groups_hold`).

Usage::

    nice -n 10 python benchmarks/study_compare_groups.py [--boards 400] [--replicates 1000]

docs/calibration.md ("compare on grouped items") quotes its output.
"""
from __future__ import annotations

import argparse
import math

import numpy as np
import pandas as pd
from scipy.special import expit

import leaderboard
from leaderboard.metrics import get_metric
from leaderboard.pipelines.compare import compare_pair

SETTINGS = ((20, 10, 0.5), (40, 5, 0.4), (12, 25, 0.3))   # groups, items per group, effect SD


def board(rng, groups: int, per: int, effect: float) -> pd.DataFrame:
    n = groups * per
    g = np.repeat(np.arange(groups), per)
    diff = rng.normal(0, 1.5, n)
    rows = []
    for model in ("base", "cand"):
        p = expit(0.3 + diff + rng.normal(0, effect * 4, groups)[g])
        rows.append(pd.DataFrame({"model": model, "item": np.arange(n), "repo": g,
                                  "value": (rng.random(n) < p).astype(int)}))
    return pd.concat(rows, ignore_index=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--boards", type=int, default=400)
    ap.add_argument("--replicates", type=int, default=1000)
    args = ap.parse_args()
    mean = get_metric("mean")
    print("| groups x items | effect SD (logit) | boards | items one by one: passed | "
          "gate now: passed |")
    print("|---|---|---|---|---|")
    for groups, per, effect in SETTINGS:
        rng = np.random.default_rng([39, groups, per])
        old = new = 0
        for b in range(args.boards):
            frame = board(rng, groups, per, effect)
            wide = frame.pivot(index="item", columns="model", values="value")
            plain = compare_pair(mean, np.zeros(len(wide)), wide["base"].to_numpy(float),
                                 wide["cand"].to_numpy(float), replicates=args.replicates,
                                 seed=b, unit="item")
            old += plain.better
            new += leaderboard.compare("base", "cand", items=frame, metric="mean",
                                       replicates=args.replicates, seed=b).better
        n = args.boards

        def rate(k):
            p = k / n
            return f"{100 * p:.1f} ± {100 * math.sqrt(max(p * (1 - p), 1 / n) / n):.1f}"
        print(f"| {groups} x {per} | {4 * effect:.1f} | {n} | {rate(old)} | {rate(new)} |",
              flush=True)


if __name__ == "__main__":
    main()
