"""Independent check of issue 39's first "Done when" through the public API, as a user runs it.

Boards of known truth (models x items) are built here, passed to
:func:`leaderboard.analyze_items` with its defaults (2,000 replicates, seed 0, alpha 0.05,
rank-set tiers; the guarantee self-check runs as in every run) and read from ``result.table``
only: nothing internal is imported.

Values (``--kinds``): ``bin0`` 0/1 with P(correct) = 0.6 on every item; ``bind`` 0/1 with a
per-item difficulty shared by the models (logit N(logit 0.6, 1.5^2)); ``con0`` N(0, 1)
values; ``cond`` N(0, 1) plus a per-item difficulty N(0, 1.5^2).

Truths: ``null`` (every model equally good: a board makes a false claim when any model is out of
tier 1 or has a simultaneous rank set narrower than [1, models]; the best set promises each
truly best model is in it with probability 1 - alpha, one model at a time, so on null boards its
mean share of the models is reported, which must be at least 95%);
``spread`` (true effects evenly spaced, best to worst 10 SEs of a pair difference: is the true
best in tier 1, how many tiers, how large are tier 1 and the best set).

Usage::

    nice -n 10 python benchmarks/study_verify_shapes_api.py --truth null --boards 200
    nice -n 10 python benchmarks/study_verify_shapes_api.py --truth spread --boards 100

Rates are shares of boards with their Monte Carlo SE (binomial).
"""
from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import time

import numpy as np
import pandas as pd
from scipy.special import expit, logit

SHAPES = ((16, 51), (35, 183), (90, 10), (101, 42), (181, 41))


def board(seed: int, models: int, items: int, kind: str, truth: str) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    binary = kind.startswith("bin")
    diff = kind.endswith("d")
    if truth == "null":
        a = np.zeros(models)
    else:   # evenly spaced, best first, range = 10 SEs of a pair difference
        se = math.sqrt(2 * 0.24 / items) / 0.24 if binary else math.sqrt(2 / items)
        a = np.linspace(0, -10 * se, models)
    b = rng.normal(0, 1.5, items) if diff else np.zeros(items)
    if binary:
        p = expit(logit(0.6) + b[None, :] + a[:, None])
        x = (rng.random((models, items)) < p).astype(int)
    else:
        x = b[None, :] + a[:, None] + rng.normal(0, 1, (models, items))
    names = [f"m{j:03d}" for j in range(models)]
    return pd.DataFrame({"model": np.repeat(names, items), "item": np.tile(np.arange(items), models),
                         "value": x.ravel()})


def one(args):
    seed, models, items, kind, truth = args
    import leaderboard
    r = leaderboard.analyze_items(board(seed, models, items, kind, truth))
    t = r.table
    assert len(t) == models, (len(t), models)
    claim = bool((t.tier > 1).any() or (t.rank_sim_low > 1).any()
                 or (t.rank_sim_high < models).any())
    best = t[t.team == "m000"].iloc[0]
    g = r.ranking.guarantee_check
    return dict(claim=claim, best_t1=int(best.tier) == 1, tiers=int(t.tier.max()),
                t1=int((t.tier == 1).sum()), bestset=int(t.in_best_set.astype(bool).sum()),
                inbest=float(t.in_best_set.astype(bool).mean()),
                gerr=g.error if g is not None else math.nan, gfam=g.family if g else None)


def rate(k: int, n: int) -> str:
    p = k / n
    return f"{100 * p:.1f} ± {100 * math.sqrt(max(p * (1 - p), 1 / n) / n):.1f}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--truth", default="null")
    ap.add_argument("--boards", type=int, default=200)
    ap.add_argument("--kinds", default="bin0,bind,con0,cond")
    ap.add_argument("--shapes", default=",".join(f"{m}x{n}" for m, n in SHAPES))
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args()
    shapes = [tuple(int(v) for v in s.split("x")) for s in a.shapes.split(",")]
    print("| models × items | values | truth | boards | no false claim % | true best in tier 1 % "
          "| boards with ≥ 2 tiers % | tier-1 size | best set | null: mean share in best set % | self-check error (mean) | s/board |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    with mp.get_context("fork").Pool(a.workers) as pool:
        for m, n in shapes:
            for kind in a.kinds.split(","):
                t0 = time.time()
                jobs = [(39_000 + 7919 * b + m * 13 + n, m, n, kind, a.truth) for b in range(a.boards)]
                out = pool.map(one, jobs, chunksize=4)
                k = len(out)
                print(f"| {m} × {n} | {kind} | {a.truth} | {k} | {rate(sum(not o['claim'] for o in out), k)} "
                      f"| {rate(sum(o['best_t1'] for o in out), k)} "
                      f"| {rate(sum(o['tiers'] >= 2 for o in out), k)} "
                      f"| {np.mean([o['t1'] for o in out]):.1f} | {np.mean([o['bestset'] for o in out]):.1f} "
                      f"| {100 * np.mean([o['inbest'] for o in out]):.1f} "
                      f"| {100 * np.nanmean([o['gerr'] for o in out]):.1f}% ({out[0]['gfam']}) "
                      f"| {(time.time() - t0) / k * a.workers:.2f} |", flush=True)


if __name__ == "__main__":
    main()
