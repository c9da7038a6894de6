"""Benchmark: a 5000-team leaderboard, scores only, analysed and reported end to end.

Prints the wall time of `leaderboard analyze` (ingest, simulation, tiers, HTML and JSON) and its
ratio to the naive way of doing the same simulation, run in this process: the seeds' procedure of
one scikit-learn ``roc_auc_score`` call per simulated test set, per entry. The naive cost is
measured on a few entries and draws and extrapolated to the whole board.

    python benchmarks/bench_scores_only.py [--teams 5000] [--n-test 10000] [--prevalence 0.1]
"""
from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import roc_auc_score

from leaderboard.cli import main
from leaderboard.noise.universes import SeedsAUCUniverse, class_counts


def naive_seconds_per_draw(auc: float, n_test: int, prevalence: float, draws: int = 50) -> float:
    """The seeds' loop: draw a test set from the universe, call roc_auc_score, repeat."""
    neg, pos = SeedsAUCUniverse()._grids(auc)
    m, k = class_counts(n_test, prevalence)
    labels = np.r_[np.zeros(k), np.ones(m)]
    rng = np.random.default_rng(0)
    start = time.perf_counter()
    for _ in range(draws):
        scores = np.r_[neg[rng.integers(0, neg.size, k)], pos[rng.integers(0, pos.size, m)]]
        roc_auc_score(labels, scores)
    return (time.perf_counter() - start) / draws


def main_benchmark() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--teams", type=int, default=5000)
    parser.add_argument("--n-test", type=int, default=10000)
    parser.add_argument("--prevalence", type=float, default=0.1)
    parser.add_argument("--draws", type=int, default=2000)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    scores = np.clip(0.93 - rng.gamma(2.0, 0.03, size=args.teams), 0.5, 1.0).round(5)
    with tempfile.TemporaryDirectory() as tmp:
        board = Path(tmp) / "board.csv"
        pd.DataFrame({"team": [f"team {i}" for i in range(args.teams)], "score": scores}).to_csv(
            board, index=False)
        argv = ["analyze", str(board), "--metric", "auc", "--n-test", str(args.n_test),
                "--prevalence", str(args.prevalence), "--draws", str(args.draws), "--quiet",
                "-o", str(Path(tmp) / "report.html"), "--json", str(Path(tmp) / "report.json")]
        start = time.perf_counter()
        status = main(argv)
        ours = time.perf_counter() - start
        html_mb = (Path(tmp) / "report.html").stat().st_size / 1e6
    assert status == 0
    per_draw = naive_seconds_per_draw(0.85, args.n_test, args.prevalence)
    naive = per_draw * args.draws * args.teams
    print(f"{args.teams} teams, n_test {args.n_test}, prevalence {args.prevalence}, "
          f"{args.draws} draws per level")
    print(f"leaderboard analyze (ingest + simulation + tiers + HTML {html_mb:.1f} MB + JSON): "
          f"{ours:.2f} s")
    print(f"naive per-entry roc_auc_score loop: {per_draw * 1e3:.2f} ms per draw, "
          f"extrapolated {naive:,.0f} s for the board")
    print(f"ratio naive / ours: {naive / ours:,.0f}x")


if __name__ == "__main__":
    main_benchmark()
