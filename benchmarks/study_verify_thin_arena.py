"""Independent check of issue 39's third "Done when": known-truth arenas with a 15-battle model,
rated by :func:`leaderboard.analyze_battles` with its defaults (2,000 replicates, seed 0).

Each arena: 12 models with true ratings evenly from 1,150 to 850 (Elo scale: 400 points is 10:1
odds), ``--battles`` battles between uniformly drawn pairs with Bradley-Terry outcomes (no ties),
and one ``thin`` model with 15 battles against uniformly drawn opponents, its true rating
``--thin`` (1,250: truly the best; 1,000: mid-table; 800: the weakest, which loses almost all,
the issue's case). True ratings are centred as the tool centres them (the mean of all models =
1,000).

Printed per thin rating: the coverage of the rating intervals shown (``ci_low``/``ci_high``) over
all models and for the thin model alone, the sandwich intervals' coverage, how often the thin
model is placed / in tier 1 / in tier 1 while its interval's top is below the leader's interval's
bottom (tier 1 without its interval allowing it), and whether its interval is finite.

    nice -n 10 python benchmarks/study_verify_thin_arena.py --arenas 80
"""
from __future__ import annotations

import argparse
import math

import numpy as np
import pandas as pd


def arena(rng, thin: float, battles: int) -> tuple[pd.DataFrame, dict]:
    K = 12
    true = np.linspace(1150, 850, K)
    names = [f"m{j:02d}" for j in range(K)]
    i = rng.integers(0, K, battles)
    j = (i + rng.integers(1, K, battles)) % K
    p = 1 / (1 + 10 ** ((true[j] - true[i]) / 400))
    win = rng.random(battles) < p
    a = [names[k] for k in i]
    b = [names[k] for k in j]
    w = np.where(win, "model_a", "model_b").tolist()
    o = rng.integers(0, K, 15)
    pt = 1 / (1 + 10 ** ((true[o] - thin) / 400))
    wt = rng.random(15) < pt
    side = rng.random(15) < 0.5          # the thin model on either side
    for k in range(15):
        if side[k]:
            a.append("thin"); b.append(names[o[k]]); w.append("model_a" if wt[k] else "model_b")
        else:
            a.append(names[o[k]]); b.append("thin"); w.append("model_b" if wt[k] else "model_a")
    allt = np.append(true, thin)
    centred = allt - allt.mean() + 1000
    return (pd.DataFrame({"model_a": a, "model_b": b, "winner": w}),
            dict(zip(names + ["thin"], centred)))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--arenas", type=int, default=80)
    ap.add_argument("--battles", type=int, default=4000)
    ap.add_argument("--thin", default="1250,1000,800")
    ap.add_argument("--seed", type=int, default=3939,
                    help="arenas of another seed: shards to run side by side and pool")
    a = ap.parse_args()
    import leaderboard
    print(f"12 models, {a.battles:,} battles + one 15-battle model, {a.arenas} arenas per row")
    print("| thin model's true rating | coverage, all models % | thin model's coverage % | "
          "sandwich coverage, all % | thin placed % | thin in tier 1 % | thin in tier 1 with its "
          "interval below the leader's % | thin interval finite % | thin's mean wins of 15 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for thin in (float(v) for v in a.thin.split(",")):
        rng = np.random.default_rng(a.seed + int(thin))
        cov, tcov, scov, placed, t1, unb, fin, wins = [], [], [], [], [], [], [], []
        for _ in range(a.arenas):
            df, truth = arena(rng, thin, a.battles)
            t = leaderboard.analyze_battles(df).table.set_index("model")
            tr = np.array([truth[m] for m in t.index])
            cov.extend((t.ci_low <= tr) & (tr <= t.ci_high))
            scov.extend((t.sandwich_low <= tr) & (tr <= t.sandwich_high))
            th = t.loc["thin"]
            tcov.append(th.ci_low <= truth["thin"] <= th.ci_high)
            placed.append(bool(th.placed))
            t1.append(int(th.tier) == 1)
            lead = t[t.placed.astype(bool)].sort_values("rating").iloc[-1]
            unb.append(int(th.tier) == 1 and th.ci_high < lead.ci_low)
            fin.append(bool(np.isfinite(th.ci_low) and np.isfinite(th.ci_high)))
            wins.append(int(th.wins))

        def r(x):
            p = float(np.mean(x))
            return f"{100 * p:.1f} ± {100 * math.sqrt(max(p * (1 - p), 1 / len(x)) / len(x)):.1f}"
        print(f"| {thin:g} | {r(cov)} | {r(tcov)} | {r(scov)} | {r(placed)} | {r(t1)} | {r(unb)} "
              f"| {r(fin)} | {np.mean(wins):.1f} |", flush=True)


if __name__ == "__main__":
    main()
