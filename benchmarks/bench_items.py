"""Benchmark: per-item results, 300 models x 14,042 items (an MMLU-sized suite), end to end.

Writes a long table (model, question, correct, subject) to a temporary folder and times
`leaderboard analyze --items` on it (reading 4.2 million rows, checking every (model, item) pair,
2,000 paired bootstrap replicates of the items, rank sets, tiers, HTML and JSON). The naive
baseline, run in this process: what a notebook does, a pandas group-by mean of the resampled
rows per replicate, timed on a few replicates and extrapolated to 2,000. Its scores on the full
table must equal ours.

    python benchmarks/bench_items.py [--models 300] [--items 14042] [--replicates 2000]
"""
from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from leaderboard.cli import main


def make_results(models: int, items: int, seed: int = 0) -> pd.DataFrame:
    """0/1 correctness from a logistic model: model skill minus item difficulty."""
    rng = np.random.default_rng(seed)
    skill = np.sort(rng.normal(0.5, 0.8, models))[::-1]
    hard = rng.normal(0, 1.2, items)
    correct = rng.random((models, items)) < 1 / (1 + np.exp(-(skill[:, None] - hard[None, :])))
    return pd.DataFrame({"model": np.repeat([f"model-{k:03d}" for k in range(models)], items),
                         "question": np.tile(np.arange(items), models),
                         "correct": correct.ravel().astype(np.int8),
                         "subject": np.tile(np.arange(items) % 57, models)})


def naive_seconds_per_replicate(frame: pd.DataFrame, items: int, replicates: int = 3) -> float:
    """Resample items with replacement, merge, group by model: one replicate at a time."""
    rng = np.random.default_rng(1)
    start = time.perf_counter()
    for _ in range(replicates):
        drawn = pd.DataFrame({"question": rng.integers(0, items, items)})
        drawn.merge(frame, on="question").groupby("model")["correct"].mean()
    return (time.perf_counter() - start) / replicates


def main_benchmark() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=300)
    parser.add_argument("--items", type=int, default=14042)
    parser.add_argument("--replicates", type=int, default=2000)
    args = parser.parse_args()
    frame = make_results(args.models, args.items)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "results.csv"
        frame.to_csv(path, index=False)
        argv = ["analyze", "--items", str(path), "--item-col", "question", "--value-col",
                "correct", "--replicates", str(args.replicates), "--quiet",
                "-o", str(Path(tmp) / "r.html"), "--json", str(Path(tmp) / "r.json")]
        start = time.perf_counter()
        status = main(argv)
        ours = time.perf_counter() - start
        report = json.loads((Path(tmp) / "r.json").read_text(encoding="utf-8"))
    assert status == 0
    expected = frame.groupby("model")["correct"].mean()
    got = pd.Series({e["team"]: e["score"] for e in report["entries"]})
    assert np.allclose(got[expected.index], expected, rtol=0, atol=1e-12)
    per_rep = naive_seconds_per_replicate(frame, args.items)
    naive = per_rep * args.replicates
    tier1 = sum(e["tier"] == 1 for e in report["entries"])
    print(f"{args.models} models x {args.items:,} items ({len(frame):,} rows), "
          f"{args.replicates} replicates; tier 1 holds {tier1} models")
    print(f"leaderboard analyze --items (read, check, bootstrap, ranks, HTML, JSON): {ours:.1f} s")
    print(f"naive pandas group-by per replicate: {per_rep:.2f} s each, extrapolated {naive:,.0f} s")
    print(f"ratio naive / ours: {naive / ours:,.0f}x")


if __name__ == "__main__":
    main_benchmark()
