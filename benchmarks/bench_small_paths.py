"""Benchmark: two small product paths the test suite's slowest tests spend their time in (issue 27).

Each is timed against its former implementation (kept below as the baseline, run in this process
on the same inputs), after checking that both give identical results:

* ``auc_stream``: turning one entry's sorted scores into the AUC stream
  (:func:`leaderboard.metrics.rank._auc_stream`), which every calibration of an AUC universe calls
  for each true score it tries (a 16,384-row universe: tens of thousands of calls in
  ``calibrate --scores-only --quick``). Continuous scores have no ties, and the tie bookkeeping is
  now skipped when there are none.
* ``crossing``: whether some cluster holds items of two categories
  (:func:`leaderboard.pipelines.categories._crossing`), asked on every per-category run.
* ``count_block``: one block of paired-bootstrap counts
  (:func:`leaderboard.noise.weights.count_block`), drawn for every 32 replicates of every
  bootstrap (per-category tiers of a 150-item category: 63 blocks per category per board). A
  small block is now drawn in one generator call instead of one per replicate (baseline: main
  3faad2a).

    python benchmarks/bench_small_paths.py [--repeat 300]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from leaderboard.metrics import _rank_kernels as _k
from leaderboard.metrics.rank import _auc_stream, _order, _tied_stream
from leaderboard.noise.rng import BLOCK, block_rng
from leaderboard.noise.weights import ResamplingPlan, _put, _tally, count_block, resampling
from leaderboard.pipelines.categories import _crossing


def baseline_auc_stream(order, score, positive):
    """The stream as it was built before the no-tie shortcut (main b3c6d88): the tie
    bookkeeping on every call."""
    lab = positive[order]
    return _tied_stream(order, score[order], lab, np.where(lab, _k.POS, _k.NEG).astype(np.int8))


def baseline_crossing(groups, categories):
    """The check as it was (main b3c6d88): a pandas frame of pairs."""
    pairs = pd.DataFrame({"g": groups.astype(str), "c": categories.astype(str)}).drop_duplicates()
    return bool(pairs["g"].duplicated().any())


def baseline_count_block(plan: ResamplingPlan, seed: int, block: int, stream: int = 2) -> np.ndarray:
    """The block as it was drawn (main 3faad2a): one generator call and tally per replicate."""
    n = plan.n_rows
    rng = block_rng(seed, stream, block)
    out = np.zeros((BLOCK, n), dtype=np.uint8)
    if plan.resample == "grouped":
        for j in range(BLOCK):
            drawn = _tally(rng.integers(0, plan.n_groups, size=plan.n_groups), plan.n_groups)
            out = _put(out, j, drawn[plan.group_index])
    elif plan.resample == "stratified":
        for rows in plan.strata:
            for j in range(BLOCK):
                out = _put(out, j, _tally(rng.integers(0, rows.size, size=rows.size), rows.size),
                           rows)
    else:
        for j in range(BLOCK):
            out = _put(out, j, _tally(rng.integers(0, n, size=n), n))
    return out


def count_cases(rng) -> dict[str, list[tuple]]:
    """Blocks of a category's items (plain), a cluster bootstrap, a stratified one, a test set
    of 3,000 rows and one of 100,000 (above the one-call size: drawn as before)."""
    cases = {}
    for rows in (150, 3000, 100_000):
        cases[f"plain {rows:,} rows"] = [(resampling(np.zeros(rows), "plain"), 7, b)
                                         for b in range(4)]
    groups = np.arange(240) // 4
    cases["grouped 60 of 240"] = [(resampling(np.zeros(240), "grouped", groups=groups), 7, b)
                                  for b in range(4)]
    labels = rng.random(500) < 0.2
    cases["stratified 500 rows"] = [(resampling(labels, "stratified"), 7, b) for b in range(4)]
    return cases


def _seconds(function, cases, repeat: int) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        for case in cases:
            function(*case)
    return (time.perf_counter() - start) / (repeat * len(cases))


def stream_cases(rng) -> dict[str, list[tuple]]:
    """A universe's rows (sorted within each class, no ties), a submission's continuous scores,
    and rounded scores (ties with both classes in them)."""
    cases = {}
    for name, rows in (("universe 16,384 rows", 16384), ("submission 3,000 rows", 3000)):
        positive = rng.random(rows) < 0.1
        score = rng.random(rows)
        if name.startswith("universe"):
            score = np.r_[np.sort(score[~positive]), np.sort(score[positive]) + 0.3]
            positive = np.r_[np.zeros((~positive).sum(), bool), np.ones(positive.sum(), bool)]
        cases[name] = [(_order(score), score, positive)]
    score = np.round(rng.random(3000), 2)
    positive = rng.random(3000) < 0.3
    cases["rounded 3,000 rows (ties)"] = [(_order(score), score, positive)]
    return cases


def crossing_cases(rng) -> dict[str, list[tuple]]:
    cases = {}
    for items in (240, 5000):
        groups = (np.arange(items) // 6).astype(str)
        categories = np.array(["x", "y", "z"])[rng.integers(0, 3, items)]
        cases[f"{items:,} items"] = [(groups, categories)]
    return cases


def main_benchmark() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=300)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print(f"{'path':<11} {'case':<28} {'before ms':>10} {'after ms':>9} {'ratio':>6}")
    for label, new, old, cases in (("auc_stream", _auc_stream, baseline_auc_stream,
                                    stream_cases(rng)),
                                   ("crossing", _crossing, baseline_crossing, crossing_cases(rng)),
                                   ("count_block", count_block, baseline_count_block,
                                    count_cases(rng))):
        for name, inputs in cases.items():
            for case in inputs:
                a, b = old(*case), new(*case)
                if isinstance(a, np.ndarray):
                    a, b = (a,), (b,)
                same = (all(np.array_equal(x, y) and x.dtype == y.dtype for x, y in zip(a, b))
                        if isinstance(a, tuple) else a == b)
                assert same, f"{label} {name}: results differ"
            before = _seconds(old, inputs, args.repeat)
            after = _seconds(new, inputs, args.repeat)
            print(f"{label:<11} {name:<28} {before * 1e3:>10.3f} {after * 1e3:>9.3f} "
                  f"{before / after:>6.2f}")


if __name__ == "__main__":
    main_benchmark()
