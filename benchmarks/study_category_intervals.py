"""Known-truth coverage of the per-category intervals, marginal and simultaneous (issues 25, 39).

Each configuration draws ``models x categories`` true means once, then ``--boards`` boards of
fresh items; every board goes through :func:`leaderboard.pipelines.categories.category_results`
(the code the report runs). Kinds of values:

* ``binary``: 0/1 answers; ``tau`` > 0 gives every item a difficulty shared by all models
  (probit: answer = 1 when ``a_mc + d_i + e > 0``), so the models' answers correlate, as real
  benchmarks' do;
* ``cluster``: 0/1 answers, items in clusters of ``size`` sharing a difficulty (``--cluster-col``);
* ``unit``: values in [0, 1] that are not all 0 or 1: 1 with probability 0.3, 0 with 0.1, else a
  Beta(4m, 4(1-m)) value (partial credit with atoms at both ends);
* ``lognormal``: positive values with no upper bound (log-SD 1).

Printed per configuration, with Monte Carlo SEs: the share of boards on which all simultaneous
intervals held their true means together (nominal 95%), the same for the intervals of the code
before issue 39 (a symmetric max-|t| bootstrap, mean +- c * SD; recomputed here from the same
replicates), the mean share of marginal intervals that held (nominal ``1 - alpha / C`` each), and
the mean width of a simultaneous interval, new and old.

Usage::

    python benchmarks/study_category_intervals.py [--boards 400] [--replicates 1000] [--quick]

docs/categories.md quotes its output (seed 0).
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np
from scipy import stats

from leaderboard.metrics import get_metric
from leaderboard.noise.bootstrap import paired_bootstrap
from leaderboard.pipelines.categories import (CATEGORY_STREAM, category_results,
                                              simultaneous_half_widths)

# kind, models, categories, items per category, truth range, tau (binary) or cluster size
CONFIGS = (
    ("binary", 8, 3, 200, (0.55, 0.85), 0.0),
    ("binary", 20, 5, 200, (0.55, 0.85), 0.0),
    ("binary", 5, 10, 100, (0.55, 0.85), 0.0),
    ("binary", 10, 5, 40, (0.80, 0.99), 1.0),
    ("binary", 20, 10, 20, (0.02, 0.98), 1.0),
    ("binary", 10, 10, 10, (0.55, 0.95), 0.0),
    ("binary", 50, 6, 40, (0.55, 0.99), 1.0),
    ("binary", 30, 20, 50, (0.30, 0.99), 1.0),
    ("cluster", 10, 5, 100, (0.55, 0.95), 5),
    ("cluster", 20, 10, 60, (0.55, 0.99), 6),
    ("cluster", 10, 5, 200, (0.02, 0.98), 10),
    ("unit", 10, 5, 40, (0.40, 0.95), 0),
    ("unit", 20, 10, 20, (0.40, 0.95), 0),
    ("lognormal", 10, 5, 40, (0.5, 2.0), 0),
    ("lognormal", 10, 5, 200, (0.5, 2.0), 0),
)
QUICK = (0, 3, 5, 8, 11, 13)


def draw(rng, kind: str, truth: np.ndarray, per_cat: int, extra: float):
    """One board: values (models, items), each item's category and cluster (or None), and the
    true mean of every (model, category)."""
    models, cats = truth.shape
    values, groups = [], []
    for c in range(cats):
        t = truth[:, c]
        if kind == "binary":
            scale = math.sqrt(1 + extra ** 2)
            d = rng.normal(0, extra, per_cat)
            p = stats.norm.cdf(stats.norm.ppf(t)[:, None] * scale + d[None, :])
            v = (rng.random(p.shape) < p).astype(float)
            g = None
        elif kind == "cluster":
            size = int(extra)
            g = np.repeat(np.arange(per_cat // size), size)
            d = rng.normal(0, 1.0, per_cat // size)[g] + rng.normal(0, 0.5, per_cat)
            p = stats.norm.cdf(stats.norm.ppf(t)[:, None] * math.sqrt(2.25) + d[None, :])
            v = (rng.random(p.shape) < p).astype(float)
            g = np.char.add(f"c{c}-", g.astype(str))
        elif kind == "unit":
            m = np.clip((t - 0.3) / 0.6, 0.02, 0.98)[:, None] * np.ones((1, per_cat))
            u = rng.random(m.shape)
            v = np.where(u < 0.3, 1.0, np.where(u < 0.4, 0.0, rng.beta(4 * m, 4 * (1 - m))))
            g = None
        else:
            mu = (np.log(t) - 0.5)[:, None] * np.ones((1, per_cat))
            v = rng.lognormal(mu, 1.0)
            g = None
        values.append(v)
        groups.append(g)
    mean = truth if kind != "unit" else 0.3 + 0.6 * np.clip((truth - 0.3) / 0.6, 0.02, 0.98)
    return (np.hstack(values), np.repeat([f"c{k}" for k in range(cats)], per_cat),
            None if groups[0] is None else np.concatenate(groups), mean)


def old_intervals(values, categories, names, alpha, replicates, seed, groups):
    """The intervals before issue 39 from the same replicates (independent categories only)."""
    impl = get_metric("mean").impl
    points, reps = [], []
    for c, name in enumerate(names):
        mask = categories == name
        g = None if groups is None else groups[mask]
        boot = paired_bootstrap(impl, np.zeros(int(mask.sum())), list(values[:, mask]),
                                replicates=replicates, seed=seed, stream=CATEGORY_STREAM + c,
                                resample="plain" if g is None else "grouped", groups=g)
        points.append(boot.point)
        reps.append(boot.replicates)
    points, reps = np.stack(points), np.stack(reps)
    half = simultaneous_half_widths(points, reps, alpha)
    return points - half, points + half


def study(config, boards: int, replicates: int, alpha: float, seed: int) -> dict:
    kind, models, cats, per_cat, (lo, hi), extra = config
    rng = np.random.default_rng(seed)
    truth = rng.uniform(lo, hi, (models, cats))
    teams = [f"m{k}" for k in range(models)]
    names = [f"c{k}" for k in range(cats)]
    held_new = held_old = 0
    each, width_new, width_old = [], [], []
    method = ""
    for b in range(boards):
        values, categories, groups, mean = draw(rng, kind, truth, per_cat, extra)
        s = seed * 100_000 + b
        result = category_results(get_metric("mean"), values, teams, categories, groups=groups,
                                  alpha=alpha, replicates=replicates, seed=s)
        method = result.method
        t = result.table
        m = t["team"].str[1:].astype(int).to_numpy()
        c = t["category"].str[1:].astype(int).to_numpy()
        true = mean[m, c]
        held_new += bool(((t["ci_sim_low"] <= true) & (true <= t["ci_sim_high"])).all())
        each.append(float(((t["ci_low"] <= true) & (true <= t["ci_high"])).mean()))
        width_new.append(float((t["ci_sim_high"] - t["ci_sim_low"]).mean()))
        low, high = old_intervals(values, categories, names, alpha, replicates, s, groups)
        truth_cm = mean.T
        held_old += bool(((low <= truth_cm) & (truth_cm <= high)).all())
        width_old.append(float((high - low).mean()))
    e = np.asarray(each)
    return {"method": method,
            "new": held_new / boards, "old": held_old / boards,
            "se": math.sqrt(0.95 * 0.05 / boards),
            "each": e.mean(), "each_se": e.std(ddof=1) / math.sqrt(boards),
            "width_new": float(np.mean(width_new)), "width_old": float(np.mean(width_old))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=400)
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="six configurations only")
    args = parser.parse_args()
    print(f"alpha {args.alpha}, {args.boards} boards a configuration, {args.replicates} "
          "bootstrap replicates a board\n")
    print("| values | models x categories (items each) | true means | method | all hold "
          "together (95%) | before issue 39 | each marginal holds (nominal) | width, before |")
    print("|---|---|---|---|---|---|---|---|")
    for k, config in enumerate(CONFIGS):
        if args.quick and k not in QUICK:
            continue
        kind, models, cats, per_cat, (lo, hi), extra = config
        start = time.process_time()
        r = study(config, args.boards, args.replicates, args.alpha, args.seed + k)
        what = {"binary": f"0/1{', item difficulty' if extra else ''}",
                "cluster": f"0/1, clusters of {int(extra)}", "unit": "in [0, 1]",
                "lognormal": "lognormal"}[kind]
        print(f"| {what} | {models} x {cats} ({per_cat}) | U({lo:g}, {hi:g}) | {r['method']} | "
              f"{r['new']:.1%} ± {r['se']:.1%} | {r['old']:.1%} | {r['each']:.2%} ± "
              f"{r['each_se']:.2%} ({1 - args.alpha / cats:.1%}) | {r['width_new']:.3f}, "
              f"{r['width_old']:.3f} |", flush=True)
        print(f"<!-- {time.process_time() - start:.0f} s CPU -->", flush=True)


if __name__ == "__main__":
    main()
