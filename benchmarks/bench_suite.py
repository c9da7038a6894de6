"""Benchmark: how long the test suite takes, the whole of it and the fast subset (issue 27).

Runs, in this one process so both share the machine's load:

- the fast subset (``python -m pytest -q -m "not slow"``) and then the whole suite
  (``python -m pytest -q``, what CI runs), each with ``-n WORKERS`` pytest-xdist workers, in this
  checkout;
- with ``--baseline REF``, the same two runs on that git commit, checked out in a temporary
  worktree beside this checkout (so the tests find ``../shared/data`` as they do here), run
  alternately with this checkout's runs; then prints the ratios.

Each tree's first run (the fast subset) compiles the numba kernels into that tree's own
``__pycache__``; a fresh clone pays that compile inside the suite, as CI does, so pass ``--cold``
to clear the tree's kernel caches before its first run.

    python benchmarks/bench_suite.py [--workers 2] [--baseline 90edd6f] [--cold]
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_SUMMARY = re.compile(r"(\d+) (passed|failed|skipped|error|errors)\b")


@dataclass(frozen=True)
class SuiteRun:
    """One pytest run: wall seconds and the counts from its last line."""

    wall: float
    counts: dict[str, int]

    def describe(self) -> str:
        counts = ", ".join(f"{n} {what}" for what, n in self.counts.items())
        return f"{self.wall / 60:5.1f} min ({self.wall:6.1f} s)  {counts}"


def run_pytest(tree: Path, workers: int, fast: bool) -> SuiteRun:
    """Run the suite (or its fast subset) in ``tree``; the tree's own package is imported."""
    command = [sys.executable, "-m", "pytest", "-q", "-rfE", "-p", "no:cacheprovider", "-n", str(workers)]
    if fast:
        command += ["-m", "not slow"]
    # the tree's own package, for the tests and for the subprocesses they start from other
    # folders (`python -m leaderboard` in a checkout that is not installed)
    env = dict(os.environ, PYTHONPATH=str(tree))
    start = time.perf_counter()
    done = subprocess.run(command, cwd=tree, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-300:]
    counts = {what: int(n) for n, what in _SUMMARY.findall(last)}
    for line in done.stdout.splitlines():   # a failure is named, not only counted
        if line.startswith(("FAILED", "ERROR")):
            print(f"  {line}", flush=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"pytest in {tree} exited {done.returncode}: {last}")
    return SuiteRun(wall, counts)


def clear_kernel_caches(tree: Path) -> None:
    """Remove numba's cached kernels (``*.nbi``/``*.nbc``) so the next run compiles them."""
    for cached in [*tree.glob("leaderboard/**/*.nbi"), *tree.glob("leaderboard/**/*.nbc")]:
        cached.unlink()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2, help="pytest-xdist workers (-n)")
    parser.add_argument("--baseline", help="a git commit to time the same way, for ratios")
    parser.add_argument("--cold", action="store_true", help="clear each tree's kernel cache first")
    args = parser.parse_args()

    trees = {"this checkout": ROOT}
    baseline_tree = None
    if args.baseline:
        sha = subprocess.run(["git", "rev-parse", "--short", args.baseline], cwd=ROOT, check=True,
                             capture_output=True, text=True).stdout.strip()
        baseline_tree = ROOT.parent / f".bench-suite-{sha}"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(baseline_tree), sha],
                       cwd=ROOT, check=True)
        trees[f"baseline {sha}"] = baseline_tree
    try:
        if args.cold:
            for tree in trees.values():
                clear_kernel_caches(tree)
        results: dict[str, dict[str, SuiteRun]] = {name: {} for name in trees}
        for subset, fast in (("fast subset", True), ("whole suite", False)):
            for name, tree in trees.items():   # alternate trees: both share the machine's load
                results[name][subset] = run = run_pytest(tree, args.workers, fast)
                print(f"{name:>18}  {subset:<11}  {run.describe()}", flush=True)
        if baseline_tree is not None:
            ours, theirs = results["this checkout"], results[next(n for n in trees if n != "this checkout")]
            for subset in ours:
                print(f"{subset}: {ours[subset].wall / theirs[subset].wall:.2f}x the baseline's time")
    finally:
        if baseline_tree is not None:
            subprocess.run(["git", "worktree", "remove", "--force", str(baseline_tree)], cwd=ROOT)
            shutil.rmtree(baseline_tree, ignore_errors=True)


if __name__ == "__main__":
    main()
