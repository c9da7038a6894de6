"""Benchmark: what the charts add to a page at 10,000 and 100,000 entries (issue 16, item 5).

Builds a synthetic board table with every column the analyze page's charts read (scores,
intervals, tiers, rank intervals, P(best), public and private scores) and the charts the page
would carry: the scores chart (top 50, static drawing included), the rank intervals, the
board-wide histogram, the shake-up scatter (binned past 2,000 entries) and the leader's noise
charts (2,000 draws), and the Vega libraries. Prints the bytes of each part and the time to build
them; the statistics are not run (the sizes do not depend on them). The table's data, which the
per-entry charts also read (the selected team's row, from window.LB), is not counted here:
benchmarks/bench_page.py measures the whole page.

    python benchmarks/bench_chart_sizes.py [--entries 10000 100000]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from leaderboard.report.vega import analyze, ranks, shakeup
from leaderboard.report.vega.embed import block, bundle


def board(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    score = np.sort(rng.normal(0.85, 0.03, n))[::-1].round(5)
    sd = 0.004
    rank = np.arange(1, n + 1)
    low = np.maximum(1, rank - rng.integers(0, 200, n))
    p = np.r_[rng.dirichlet(np.ones(min(n, 30))), np.zeros(max(n - 30, 0))]
    return pd.DataFrame({
        "rank": rank, "team": [f"team-{i:06d} {'x' * (i % 17)}" for i in range(n)],
        "score": score, "ci_low": score - 1.96 * sd, "ci_high": score + 1.96 * sd,
        "tier": 1 + rank // 40, "rank_ci_low": low, "rank_ci_high": rank + rng.integers(0, 300, n),
        "rank_sim_low": np.maximum(1, low - 50), "rank_sim_high": rank + 400, "p_best": p,
        "public_score": score + rng.normal(0, 0.01, n)})


def main_benchmark() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, nargs="+", default=[10_000, 100_000])
    args = parser.parse_args()
    js = len(str(bundle()).encode())
    for n in args.entries:
        t = board(n)
        start = time.perf_counter()
        rows = analyze.entry_rows(t)
        parts = {
            "scores (top 50, with static SVG)": block(analyze.scores_chart(
                rows, decimals=5, x_title="AUC", interval="95% interval",
                leader=float(t["score"].iloc[0])), "chart-scores", "t"),
            "rank intervals (top 50)": block(ranks.rank_interval_chart(rows, level="95%"),
                                             "chart-rank-intervals", "t", static=False),
            "board histogram (binned)": block(analyze.board_histogram(
                t["score"].to_numpy(), float(t["score"].iloc[0]), 0.01, higher=True,
                x_title="AUC", decimals=5, d95_text="0.01"), "chart-board-hist", "t",
                static=False),
            "shake-up scatter": block(shakeup.scatter_chart(
                t["public_score"].to_numpy(), t["score"].to_numpy(), t["team"].tolist(),
                band=None, flagged=None, labelled={0: "private winner"}, higher_is_better=True,
                fmt="{:.5f}".format, decimals=5)[0], "chart-shakeup-scatter", "t", static=False),
        }
        draws = np.random.default_rng(1).normal(0.85, 0.004, 2000)
        parts["noise histogram + ECDF"] = block(analyze.distribution_chart(
            draws, 0.85, 0.842, 0.858, x_title="AUC", y_title="share", centre_name="true score",
            fmt_text=str, decimals=5), "h", "t")
        elapsed = time.perf_counter() - start
        print(f"--- {n:,} entries (built in {elapsed:.1f} s)")
        total = js
        for name, b in parts.items():
            size = len(str(b.spec).encode()) + (len(str(b.svg).encode()) if b.svg else 0)
            total += size
            print(f"{name:38s} {size / 1e3:9.1f} kB")
        print(f"{'Vega libraries (once)':38s} {js / 1e6:9.2f} MB")
        print(f"{'charts in all':38s} {total / 1e6:9.2f} MB")


if __name__ == "__main__":
    main_benchmark()
