"""Benchmark: per-item results, 300 models x 14,042 items (an MMLU-sized suite), end to end.

Writes a long table (model, question, correct, subject) to a temporary folder and times
`leaderboard analyze --items` on it (reading 4.2 million rows, checking every (model, item) pair,
2,000 paired bootstrap replicates of the items, rank sets, tiers, HTML and JSON). The naive
baseline, run in this process: what a notebook does, a pandas group-by mean of the resampled
rows per replicate, timed on a few replicates and extrapolated to 2,000. Its scores on the full
table must equal ours.

    python benchmarks/bench_items.py [--models 300] [--items 14042] [--replicates 2000]

``--categories N``: instead, N per-category runs (:func:`leaderboard.pipelines.categories.category_results`,
8 models x 3 categories of 200 Bernoulli items, 400 replicates: the known-truth tests' shape),
timed against the former ranks and win-rate table (SciPy's ``rankdata`` for the min ranks; the
win-rate frame built in the teams' order, then ``iloc`` and ``reset_index``), swapped in within
this process after checking that every table of both is identical (``check_exact``).
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


def baseline_min_ranks(x: np.ndarray) -> np.ndarray:
    """The min ranks as they were (main 31b2098): SciPy's rankdata (NaN: pandas, unchanged)."""
    from scipy.stats import rankdata

    if np.isnan(x).any():
        return pd.Series(x).rank(method="min").astype(int).to_numpy()
    return rankdata(x, method="min").astype(np.int64)


def baseline_win_rate(points, better, teams):
    """The win-rate table as it was built (main 31b2098): in the teams' order, then ``iloc``."""
    from leaderboard.pipelines.categories import _min_ranks

    c, m = points.shape
    pairs = max(c * (m - 1), 1)
    wins = (points[:, :, None] > points[:, None, :]).sum(axis=(0, 2))
    ties = (points[:, :, None] == points[:, None, :]).sum(axis=(0, 2)) - c
    point = (wins + 0.5 * ties) / pairs
    low = better.sum(axis=(0, 2)) / pairs
    high = 1.0 - better.sum(axis=(0, 1)) / pairs
    above = low[None, :] > high[:, None]
    tier = np.zeros(m, dtype=int)
    left = np.ones(m, dtype=bool)
    layer = 0
    while left.any():
        layer += 1
        top = left & ~(above & left[None, :]).any(axis=1)
        tier[top], left = layer, left & ~top
    order = np.argsort(-point, kind="stable")
    frame = pd.DataFrame({"team": teams, "score": point, "ci_low": low, "ci_high": high,
                          "rank": _min_ranks(-point), "rank_sim_low": 1 + above.sum(axis=1),
                          "rank_sim_high": m - above.sum(axis=0), "tier": tier})
    return frame.iloc[order].reset_index(drop=True)


def categories_benchmark(runs: int, repeat: int = 3) -> None:
    """Per-category runs, now against the former min ranks and win-rate table."""
    from contextlib import ExitStack
    from unittest import mock

    from leaderboard.metrics import get_metric
    from leaderboard.pipelines import categories

    rng = np.random.default_rng(25)
    models, items, cats = 8, 600, 3
    labels = np.repeat([f"c{k}" for k in range(cats)], items // cats)
    truth = rng.uniform(0.55, 0.85, (models, cats))[:, np.repeat(np.arange(cats), items // cats)]
    boards = [(rng.random((models, items)) < truth).astype(float) for _ in range(runs)]
    teams = [f"m{k}" for k in range(models)]

    def run(former: bool):
        with ExitStack() as stack:
            if former:
                stack.enter_context(mock.patch.object(categories, "_min_ranks",
                                                      baseline_min_ranks))
                stack.enter_context(mock.patch.object(categories, "win_rate", baseline_win_rate))
            start = time.process_time()
            out = [categories.category_results(get_metric("mean"), values, teams, labels,
                                               replicates=400, seed=b)
                   for b, values in enumerate(boards)]
            return time.process_time() - start, out

    run(False)
    best = {True: float("inf"), False: float("inf")}
    results = {}
    for _ in range(repeat):
        for former in (True, False):
            seconds, results[former] = run(former)
            best[former] = min(best[former], seconds)
    for was, now in zip(results[True], results[False]):
        pd.testing.assert_frame_equal(was.table, now.table, check_exact=True)
        for key in now.aggregates:
            pd.testing.assert_frame_equal(was.aggregates[key], now.aggregates[key],
                                          check_exact=True)
    print(f"{runs} per-category runs ({models} models x {cats} categories of {items // cats} "
          f"items, 400 replicates), CPU, best of {repeat}: former {best[True] / runs * 1e3:.1f} ms, "
          f"now {best[False] / runs * 1e3:.1f} ms a run ({best[True] / best[False]:.2f}x); "
          "every table identical")


def main_benchmark() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=300)
    parser.add_argument("--items", type=int, default=14042)
    parser.add_argument("--replicates", type=int, default=2000)
    parser.add_argument("--categories", type=int, default=0, metavar="N")
    args = parser.parse_args()
    if args.categories:
        categories_benchmark(args.categories)
        return
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
