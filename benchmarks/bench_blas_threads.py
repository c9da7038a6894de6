"""Benchmark: small bootstrap products on one BLAS thread (issue 27).

A mean-like metric's bootstrap is one product ``weights @ features`` per block of replicates
(:meth:`leaderboard.metrics.base.RowSums.evaluate`). OpenBLAS runs a product of a few hundred
thousand multiply-adds on all its threads; when another process keeps the second core busy (the
other test worker, or anything else on a shared machine) each such product waits for a thread
that is not running: a (400 x 200) @ (200 x 9) product took 3.5 ms against 0.2 ms on one thread.
Products up to :data:`leaderboard.metrics.base.ONE_THREAD_PRODUCT` multiply-adds now run on one
thread (OpenBLAS splits a product by blocks of the output, so the numbers are the same; checked
here on every board).

Timed: per-category results (:func:`leaderboard.pipelines.categories.category_results`) on the
boards of the three known-truth studies in tests/ingest/test_items.py, baseline (every product
on OpenBLAS's threads, the former code) against now, alternating in this process; with
``--busy`` a spinning child process keeps one core busy, as the other pytest worker does.

    python benchmarks/bench_blas_threads.py [--boards 40] [--busy]
"""
from __future__ import annotations

import argparse
import multiprocessing
import time

import numpy as np

from leaderboard.metrics import base, get_metric
from leaderboard.pipelines.categories import category_results

# (models, items, categories, replicates): the simultaneous-intervals, equal-models and
# win-rate studies of tests/ingest/test_items.py
CASES = {"simultaneous 8 x 600, 3 categories, R=400": (8, 600, 3, 400),
         "equal models 4 x 500, 5 categories, R=400": (4, 500, 5, 400),
         "win rate 4 x 1200, 4 categories, R=300": (4, 1200, 4, 300)}


def _spin() -> None:
    while True:
        pass


def _boards(models: int, items: int, boards: int) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    p = rng.uniform(0.55, 0.85, (models, 1))
    return [(rng.random((models, items)) < p).astype(float) for _ in range(boards)]


def _run(case: tuple, boards: list[np.ndarray]) -> list:
    models, items, cats, replicates = case
    categories = np.repeat([f"c{k}" for k in range(cats)], items // cats)
    names = [f"m{k}" for k in range(models)]
    return [category_results(get_metric("mean"), values, names, categories,
                             replicates=replicates, seed=b).table
            for b, values in enumerate(boards)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--busy", action="store_true", help="keep one core busy meanwhile")
    args = parser.parse_args()
    spinner = None
    if args.busy:
        spinner = multiprocessing.Process(target=_spin, daemon=True)
        spinner.start()
    threshold = base.ONE_THREAD_PRODUCT
    try:
        for label, case in CASES.items():
            boards = _boards(case[0], case[1], args.boards)
            times = {"baseline": [], "now": []}
            tables = {}
            for _ in range(args.repeat):
                for which, limit in (("baseline", -1), ("now", threshold)):
                    base.ONE_THREAD_PRODUCT = limit
                    start = time.perf_counter()
                    tables[which] = _run(case, boards)
                    times[which].append(time.perf_counter() - start)
            assert all(a.equals(b) for a, b in zip(tables["baseline"], tables["now"])), label
            old, new = (sum(times[k]) / args.repeat / args.boards * 1e3 for k in ("baseline", "now"))
            print(f"{label}: baseline {old:.1f} ms, now {new:.1f} ms per board, "
                  f"ratio {old / new:.2f}x (same tables; mean of {args.repeat})")
    finally:
        base.ONE_THREAD_PRODUCT = threshold
        if spinner is not None:
            spinner.terminate()


if __name__ == "__main__":
    main()
