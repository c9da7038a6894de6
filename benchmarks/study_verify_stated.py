"""Independent check of issue 39's fourth "Done when": figures a page states about its own
reliability, measured here on known-truth boards through the public API (defaults but
``--replicates``), against what the page says.

* ``categories``: 20 models x 4 categories x 25 items of 0/1 values, each cell's true accuracy
  uniform in [0.6, 0.98] (high-scoring cells, where symmetric intervals failed), analysed with
  ``category_intervals="simultaneous"``: the share of boards on which every model-category
  interval held its true accuracy (promised: at least 95%).
* ``costs``: 8 models x 300 items, each item's cost lognormal with log-SD 1.14 (the page's stated
  case); coverage of the mean-cost intervals of the true mean ``exp(mu + s^2 / 2)``, and the
  figure the page states.
* ``pairwise``: null benchmarks (every model equally good, 0/1 values with a per-item
  difficulty) where each model lacks a random share of the items, ``items_policy="pairwise"``:
  the share of boards on which no pair of the pairwise table is shown different.
* ``compare``: two equally good models on 150 continuous items in 30 clusters of 5 sharing a
  model-by-cluster effect N(0, 0.5^2) (item noise N(0, 1)); the cluster column is in the file
  but not declared (``cluster_col`` not given) and, separately, declared: the share of boards on
  which the gate passes the candidate (a false pass; the gate's level is alpha = 5%).

    nice -n 10 python benchmarks/study_verify_stated.py --boards 150 [--parts categories,costs,compare]
"""
from __future__ import annotations

import argparse
import math
import re

import numpy as np
import pandas as pd


def rate(k, n):
    p = k / n
    return f"{100 * p:.1f}% ± {100 * math.sqrt(max(p * (1 - p), 1 / n) / n):.1f}"


def categories(boards, replicates):
    import leaderboard
    M, C, N = 20, 4, 25
    held = 0
    cells = 0
    for b in range(boards):
        rng = np.random.default_rng(1000 + b)
        p = rng.uniform(0.6, 0.98, (M, C))
        rows = [(f"m{j:02d}", f"c{c}-{i}", f"cat{c}", int(rng.random() < p[j, c]))
                for j in range(M) for c in range(C) for i in range(N)]
        df = pd.DataFrame(rows, columns=["model", "item", "category", "value"])
        r = leaderboard.analyze_items(df, category_col="category",
                                      category_intervals="simultaneous", replicates=replicates)
        t = r.analysis.categories.table
        truth = p[t.team.str[1:].astype(int).to_numpy(), t.category.str[3:].astype(int).to_numpy()]
        ok = (t.ci_sim_low.to_numpy() <= truth) & (truth <= t.ci_sim_high.to_numpy())
        cells += ok.size
        held += bool(ok.all())
    print(f"categories (simultaneous, {r.analysis.categories.method}): all {cells // boards} "
          f"intervals held together on {rate(held, boards)} of {boards} boards (promised >= 95%)",
          flush=True)


def costs(boards, replicates):
    import leaderboard
    M, N, s = 8, 300, 1.14
    hit = []
    stated = None
    for b in range(boards):
        rng = np.random.default_rng(2000 + b)
        mu = rng.normal(0, 0.5, M)
        acc = rng.uniform(0.5, 0.8, M)
        rows = [(f"m{j}", i, int(rng.random() < acc[j]), float(np.exp(rng.normal(mu[j], s))))
                for j in range(M) for i in range(N)]
        df = pd.DataFrame(rows, columns=["model", "item", "value", "cost"])
        r = leaderboard.analyze_items(df, cost_col="cost", replicates=replicates)
        c = r.costs
        true = np.exp(mu + s * s / 2)[c.model.str[1:].astype(int).to_numpy()]
        hit.extend((c.mean_cost_low.to_numpy() <= true) & (true <= c.mean_cost_high.to_numpy()))
        if stated is None:
            text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", r.to_html()))
            m = re.search(r"covered the true mean cost[^.]*?(\d+\.\d)%", text)
            stated = m.group(1) + "%" if m else "(no figure found on the page)"
    print(f"costs (log-SD {s}, {N} items): 95% mean-cost intervals covered the true mean in "
          f"{rate(sum(hit), len(hit))} of {len(hit)} intervals; the page states {stated}",
          flush=True)


def compare(boards, replicates):
    import leaderboard
    G, K = 30, 5
    passed = {"undeclared": 0, "declared": 0}
    held = 0
    for b in range(boards):
        rng = np.random.default_rng(3000 + b)
        eff = rng.normal(0, 0.5, (2, G))
        rows = [(m, f"q{g}-{k}", f"p{g}", float(eff[j, g] + rng.normal()))
                for j, m in enumerate(("base", "cand")) for g in range(G) for k in range(K)]
        df = pd.DataFrame(rows, columns=["model", "item", "passage", "value"])
        g = leaderboard.compare("base", "cand", items=df, replicates=replicates)
        passed["undeclared"] += bool(g.better)
        held += bool(g.held)
        g = leaderboard.compare("base", "cand", items=df, cluster_col="passage",
                                replicates=replicates)
        passed["declared"] += bool(g.better)
    print(f"compare, true null, {G} clusters of {K}: the gate passed the candidate on "
          f"{rate(passed['undeclared'], boards)} of boards with the cluster column not declared "
          f"(held by a flag on {rate(held, boards)}), {rate(passed['declared'], boards)} declared "
          f"(level 5%)", flush=True)


def pairwise(boards, replicates, shapes=((60, 200, 0.2), (80, 30, 0.1))):
    """Null benchmarks with missing items, ``items_policy="pairwise"``: the share of boards on
    which no pair of the pairwise table is shown different (the page: "differ at 95%
    simultaneous confidence")."""
    import leaderboard
    from scipy.special import expit
    for M, N, miss in shapes:
        clean = 0
        for b in range(boards):
            rng = np.random.default_rng(4000 + b)
            diff = rng.normal(0, 1.5, N)
            x = (rng.random((M, N)) < expit(0.4 + diff)[None, :]).astype(int)
            keep = rng.random((M, N)) >= miss
            j, i = np.nonzero(keep)
            df = pd.DataFrame({"model": [f"m{k:02d}" for k in j], "item": i, "value": x[j, i]})
            r = leaderboard.analyze_items(df, items_policy="pairwise", replicates=replicates)
            clean += bool((r.analysis.item_pairs.shown_better() == 0).all())
        print(f"pairwise table, null, {M} x {N}, {miss:.0%} missing, 0/1 with item difficulty: "
              f"no pair shown different on {rate(clean, boards)} of {boards} boards "
              f"(promised >= 95%)", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--boards", type=int, default=150)
    ap.add_argument("--replicates", type=int, default=1000)
    ap.add_argument("--parts", default="categories,costs,compare")
    a = ap.parse_args()
    for part in a.parts.split(","):
        globals()[part](a.boards, a.replicates)


if __name__ == "__main__":
    main()
