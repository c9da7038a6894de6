"""Benchmark: rank confidence sets from 500 to 100,000 entries, against two baselines.

Boards are scores-only (normal errors, correlation 0.5) with the spread of a real Kaggle public
leaderboard: the percentiles below are those of the Sberbank Russian Housing Market board (3265
teams, RMSLE, lower is better), interpolated to E entries. Each entry's standard error grows from
``--sd`` at the top to twice that at the bottom (a universe gives weaker entries noisier scores).
Dense at the top, as real boards are: a quarter of the teams lie within 0.003 of the leader.
Also timed: a bootstrap-like board (errors with a shared component, standard errors from the
replicates: the pair tiles), R = 2000, and the worst case, a fully tied board.

Baselines, run in this process: the pair tiles (the step-down over every pair with a screen,
which the bootstrap still uses) on the same scores-only boards up to 5,000 entries, whose sets
must equal ours; and the procedure written plainly with numpy (per round, every ordered pair's
replicates, one row of pairs at a time) at ``--baseline-entries`` (300).

    python benchmarks/bench_rank_sets.py [--replicates 1000] [--repeat 3] [--quick] [--big]

``--quick`` skips E >= 5000 and R = 2000; ``--big`` adds E = 100,000 (0.4 GB of float32 draws
at R = 1000; about a minute on 2 cores).
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np

from leaderboard.tiers import RankReplicates
from leaderboard.tiers.best_set import best_set
from leaderboard.tiers.rank_sets import (_marginal, _simultaneous, rank_sets_data,
                                         rank_confidence_sets, rank_set_tiers)

# Percentiles (0, 1, 5, 10, 25, 50, 75, 90, 95, 99, 100) of the Sberbank public board's RMSLE.
PERCENTILES = np.array([0, 1, 5, 10, 25, 50, 75, 90, 95, 99, 100])
SBERBANK = np.array([0.2976, 0.3093, 0.3100, 0.3104, 0.3120, 0.3209, 0.3347, 0.4142, 0.4700,
                     0.8908, 1.2000])


def kaggle_board(n: int, sd: float, replicates: int, seed: int) -> RankReplicates:
    """Scores-only replicates of an E-entry board shaped like the Sberbank one (lower better)."""
    rmsle = np.interp(np.linspace(0, 100, n), PERCENTILES, SBERBANK)   # ascending: best first
    return RankReplicates.normal(rmsle, sd * (1 + np.linspace(0, 1, n)), 0.5, False,
                                 replicates=replicates, seed=seed)


def pair_tiles(reps: RankReplicates, simultaneous: bool):
    """The pair-tile step-down (the bootstrap's) run on closed-form draws."""
    d = rank_sets_data(RankReplicates(reps.point, np.asarray(reps.errors, float), reps.sd, None,
                                     reps.sign, "x"), 0.05, None)
    d = type(d)(d.err, d.err, d.point, np.asarray(reps.sd, float), float(reps.correlation),
                False, d.kq, d.ib)
    return _simultaneous(d, 0.05) if simultaneous else _marginal(d, 0.05)


def bootstrap_like(reps: RankReplicates, seed: int) -> RankReplicates:
    """Same board, errors with a shared and an own part, SEs taken from the replicates."""
    rng = np.random.default_rng(seed)
    n, r = reps.errors.shape
    sd = reps.sd[:, None]
    err = sd * (0.8 * rng.standard_normal(r)[None, :] + 0.6 * rng.standard_normal((n, r)))
    return RankReplicates(point=reps.point, errors=err, sd=err.std(axis=1, ddof=1),
                          correlation=None, sign=reps.sign, source="bootstrap-like")


def naive_sets(reps: RankReplicates, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Simultaneous rank sets by the plain step-down over all ordered pairs."""
    n, r = reps.errors.shape
    se = np.stack([reps.pair_se(j, np.arange(n)) for j in range(n)])
    gap = reps.point[:, None] - reps.point[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se > 0, gap / se, np.where(gap == 0, 0.0, np.sign(gap) * np.inf))
    family = ~np.eye(n, dtype=bool)
    rejected = np.zeros((n, n), dtype=bool)
    k = math.ceil(round((1 - alpha) * r, 9))
    while True:
        alive = family & ~rejected
        m = np.full(r, -np.inf)
        for j in range(n):
            cols = np.flatnonzero(alive[j])
            with np.errstate(divide="ignore", invalid="ignore"):
                d = (reps.errors[j] - reps.errors[cols]) / se[j, cols][:, None]
            d[se[j, cols] == 0] = 0.0
            if cols.size:
                m = np.maximum(m, d.max(axis=0))
        c = np.sort(m)[k - 1]
        new = alive & (t > c)
        if not new.any():
            return 1 + rejected.sum(axis=0), n - rejected.sum(axis=1)
        rejected |= new


def fastest(fn, repeat: int):
    best, out = math.inf, None
    for _ in range(max(repeat, 1)):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--sd", type=float, default=0.002, help="each score's standard error")
    parser.add_argument("--repeat", type=int, default=3, help="keep the fastest of this many "
                        "runs (the machine may be shared; default 3)")
    parser.add_argument("--baseline-entries", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="skip E >= 5000 and R = 2000")
    parser.add_argument("--big", action="store_true", help="add E = 100,000")
    args = parser.parse_args()
    r = args.replicates

    warm = kaggle_board(60, args.sd, 200, args.seed)    # compile every kernel once
    for reps in (warm, bootstrap_like(warm, 1)):
        rank_confidence_sets(reps), rank_confidence_sets(reps, simultaneous=False)
        best_set(reps)

    print(f"{'board':>28} {'E':>6} {'R':>5} {'simult. s':>9} {'marginal s':>10} "
          f"{'best s':>7} {'tiers':>6} {'best set':>8}")
    sizes = (500, 2000) + (() if args.quick else (5000, 10000)) + ((100000,) if args.big else ())
    cases = [(n, r) for n in sizes]
    rows = [("Kaggle-like, scores only", kaggle_board(n, args.sd, rr, args.seed))
            for n, rr in cases]
    if not args.quick:
        big = kaggle_board(5000, args.sd, r, args.seed)
        rows += [("Kaggle-like, bootstrap-like", bootstrap_like(big, 2)),
                 ("Kaggle-like, R = 2000", kaggle_board(5000, args.sd, 2 * r, args.seed))]
    n_tied = 2000 if args.quick else 5000
    rows.append(("fully tied (worst case)", RankReplicates.normal(
        np.zeros(n_tied), np.full(n_tied, args.sd), 0.5, True, replicates=r, seed=args.seed)))
    for name, reps in rows:
        t_sim, sim = fastest(lambda: rank_confidence_sets(reps), args.repeat)
        t_mar, _ = fastest(lambda: rank_confidence_sets(reps, simultaneous=False), 1)
        t_best, best = fastest(lambda: best_set(reps), args.repeat)
        print(f"{name:>28} {reps.n_entries:6d} {reps.n_replicates:5d} {t_sim:9.2f} "
              f"{t_mar:10.2f} {t_best:7.2f} {rank_set_tiers(sim).tier.max():6d} "
              f"{int(best.sum()):8d}", flush=True)

    for n in (2000,) + (() if args.quick else (5000,)):
        reps = kaggle_board(n, args.sd, r, args.seed)
        ours = [fastest(lambda: rank_confidence_sets(reps, simultaneous=s), 1) for s in (1, 0)]
        old = [fastest(lambda: pair_tiles(reps, bool(s)), 1) for s in (1, 0)]
        same = all(np.array_equal(o[1].low, p[1].low) and np.array_equal(o[1].high, p[1].high)
                   for o, p in zip(ours, old))
        print(f"pair tiles at E = {n}, R = {r}: simultaneous {old[0][0]:.2f} s (ours "
              f"{ours[0][0]:.2f}), marginal {old[1][0]:.2f} s (ours {ours[1][0]:.2f}), ratio "
              f"{(old[0][0] + old[1][0]) / (ours[0][0] + ours[1][0]):.1f}x; sets equal: "
              f"{'yes' if same else 'NO'}", flush=True)

    small = kaggle_board(args.baseline_entries, args.sd, r, args.seed)
    t_ours, ours = fastest(lambda: rank_confidence_sets(small), args.repeat)
    t_naive, (low, high) = fastest(lambda: naive_sets(small), 1)
    same = np.array_equal(ours.low, low) and np.array_equal(ours.high, high)
    print(f"naive baseline (all pairs every round, numpy) at E = {small.n_entries}, R = {r}: "
          f"{t_naive:.2f} s, ours {t_ours:.3f} s, ratio {t_naive / t_ours:.0f}x; "
          f"sets equal: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
