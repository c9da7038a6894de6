"""Benchmark: issue 41's table, each figure printed beside its goal.

Every case is ``leaderboard`` run from the command line in a child process (HTML and JSON
written), timed by the CPU seconds (user + system) of that child and of every process it waited
for (the chart renderer), its wall time and its peak RSS (``os.wait4``):

========================================  =====================================================
case                                      goal
========================================  =====================================================
``analyze --example`` (40 teams), warm    <= 2.5 s CPU
SWE-bench-shaped items, 25 x 500, warm    <= 2.5 s CPU (and errorbars/honestboard beside it)
scores board, 1,000 entries, warm         <= 2.5 s CPU
scores board, 10,000 entries, warm        <= 8 s CPU
scores board, 100,000 entries             <= 60 s wall, <= 1.5 GB peak RSS
first run on a fresh install              <= 2x the warm run (the example)
========================================  =====================================================

"Warm" means the kernels compiled and every cache filled by an earlier run of the same command
(not reported); the median of ``--repeat`` runs is printed. The scores boards are those of
``bench_scale_scores.py`` (AUC, 10,000 test rows, 10% positives, 2,000 draws and replicates).
The SWE-bench-shaped board is 25 models x 500 instances of resolved (0/1), generated here from a
fixed seed (each model a skill, each instance a difficulty, resolved by a logistic draw).

The first run emulates a fresh install: an empty ``HOME`` (no Vega bundle cached), an empty
``NUMBA_CACHE_DIR`` (every kernel compiles; the result cache, kept beside the kernels, starts
empty too); then the same command again in that environment is its warm run.

With ``--peers``, errorbars and honestboard (when installed: ``pip install errorbars
honestboard``; skipped otherwise) run on the same SWE-bench-shaped board from their command
lines, in turn with ours, so the three share the machine's load: ``errorbars leaderboard`` on the
long table, ``honestboard report`` on the wide one (``name,date,<instance ids>``).

    python benchmarks/bench_goals.py [--repeat 3] [--cases example,swe,1k,10k,100k,first]
        [--million [--million-replicates 100]] [--peers] [--cold-out FILE]

``--million`` adds the scores board of 1,000,000 entries (no goal; printed for the growth) at
``--million-replicates`` (default 100: 2,000 would take about 14 GB and are refused under the
default ``--max-memory``; see docs/benchmarks.md), with ``--max-entries`` raised for it.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_scale_scores import board as scores_board  # noqa: E402

GOALS = {"example": ("cpu", 2.5), "swe": ("cpu", 2.5), "1k": ("cpu", 2.5), "10k": ("cpu", 8.0),
         "100k": ("wall", 60.0), "first": ("ratio", 2.0)}
PEAK_GOAL_MB = {"100k": 1500.0}
SIZES = {"1k": 1000, "10k": 10000, "100k": 100000, "1m": 1000000}
SCORES_OPTIONS = ["--metric", "auc", "--n-test", "10000", "--prevalence", "0.1"]


def run(argv: list[str], env: dict | None = None, cwd: Path | None = None
        ) -> tuple[float, float, float]:
    """(CPU s, wall s, peak RSS MB) of one child: user + system of it and of the processes it
    waited for (Linux's wait4 adds those in)."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"failed (status {status}): {' '.join(argv)}")
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024


def ours(args: list[str], out: Path) -> list[str]:
    return [sys.executable, "-m", "leaderboard", *args, "--quiet", "-o", str(out / "report.html"),
            "--json", str(out / "report.json")]


def swe_board(folder: Path) -> tuple[Path, Path]:
    """The SWE-bench-shaped board: a long table (model, instance, resolved) and the same as a
    wide one for honestboard (name, date, one column per instance)."""
    rng = np.random.default_rng(41)
    models, items = 25, 500
    skill = np.linspace(-1.5, 0.8, models)
    difficulty = rng.normal(0.0, 1.5, items)
    resolved = (rng.random((models, items)) < 1 / (1 + np.exp(difficulty[None] - skill[:, None])))
    names = [f"model-{m:02d}" for m in range(models)]
    ids = [f"repo__issue-{i:04d}" for i in range(items)]
    long = folder / "swe_long.csv"
    with open(long, "w") as f:
        f.write("model,instance,resolved\n")
        for m, name in enumerate(names):
            f.writelines(f"{name},{ids[i]},{int(resolved[m, i])}\n" for i in range(items))
    wide = folder / "swe_wide.csv"
    with open(wide, "w") as f:
        f.write("name,date," + ",".join(ids) + "\n")
        for m, name in enumerate(names):
            f.write(f"{name},2026-01-{m % 28 + 1:02d}," + ",".join(
                str(int(v)) for v in resolved[m]) + "\n")
    return long, wide


def cases(wanted: set[str], folder: Path, million_replicates: int = 100
          ) -> dict[str, list[str]]:
    out = folder / "out"
    out.mkdir(exist_ok=True)
    found: dict[str, list[str]] = {}
    if "example" in wanted:
        found["example"] = ours(["analyze", "--example"], out)
    if "swe" in wanted:
        long, _ = swe_board(folder)
        found["swe"] = ours(["analyze", "--items", str(long), "--model-col", "model",
                             "--item-col", "instance", "--value-col", "resolved"], out)
    for key, n in SIZES.items():
        if key in wanted:
            csv = folder / f"board_{n}.csv"
            scores_board(n, False).to_csv(csv, index=False)
            big = (["--max-entries", str(n), "--replicates", str(million_replicates)]
                   if key == "1m" else [])
            found[key] = ours(["analyze", str(csv), *SCORES_OPTIONS, *big], out)
    return found


def peers(folder: Path) -> dict[str, list[str]]:
    """The peers' commands on the SWE-bench-shaped board, where installed."""
    long, wide = folder / "swe_long.csv", folder / "swe_wide.csv"
    found = {}
    bin_dir = Path(sys.executable).parent
    for name, argv in (("errorbars", ["leaderboard", str(long), "--model-col", "model",
                                      "--question-col", "instance", "--score-col", "resolved"]),
                       ("honestboard", ["report", str(wide)])):
        exe = shutil.which(name, path=str(bin_dir)) or shutil.which(name)
        if exe is None:
            print(f"{name}: not installed, skipped (pip install {name})")
            continue
        found[name] = [exe, *argv]
    return found


def verdict(key: str, cpu: float, wall: float, peak: float) -> str:
    kind, goal = GOALS.get(key, (None, None))
    if kind == "cpu":
        return f"goal <= {goal:g} s CPU: {'met' if cpu <= goal else 'NOT met'}"
    if kind == "wall":
        peak_goal = PEAK_GOAL_MB[key]
        ok = wall <= goal and peak <= peak_goal
        return (f"goal <= {goal:g} s wall, <= {peak_goal:,.0f} MB: "
                f"{'met' if ok else 'NOT met'}")
    return "(no goal)"


def first_run(command: list[str], folder: Path, repeat: int) -> None:
    """A fresh install's first run of ``command`` against the warm runs that follow it."""
    home, kernels = folder / "home", folder / "kernels"
    for path in (home, kernels):
        shutil.rmtree(path, ignore_errors=True)
        path.mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in ("XDG_CACHE_HOME", "LEADERBOARD_CACHE_DIR")}
    env.update(HOME=str(home), NUMBA_CACHE_DIR=str(kernels))
    first = run(command, env)
    warm = [run(command, env) for _ in range(repeat)]
    cpu, wall = statistics.median(w[0] for w in warm), statistics.median(w[1] for w in warm)
    ratio = first[0] / cpu
    print(f"{'first run (fresh install)':28s} {first[0]:7.2f} s CPU {first[1]:7.2f} s wall "
          f"{first[2]:7,.0f} MB")
    print(f"{'  its warm runs (median)':28s} {cpu:7.2f} s CPU {wall:7.2f} s wall   "
          f"first / warm {ratio:.2f}x CPU, {first[1] / wall:.2f}x wall; goal <= 2x CPU: "
          f"{'met' if ratio <= GOALS['first'][1] else 'NOT met'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="warm runs per case (median)")
    parser.add_argument("--cases", default="example,swe,1k,10k,100k,first")
    parser.add_argument("--million", action="store_true", help="add 1,000,000 entries")
    parser.add_argument("--million-replicates", type=int, default=100,
                        help="replicates of the 1,000,000-entry board (default 100)")
    parser.add_argument("--peers", action="store_true",
                        help="errorbars and honestboard on the SWE-bench-shaped board")
    args = parser.parse_args()
    wanted = set(args.cases.split(",")) | ({"1m"} if args.million else set())
    with tempfile.TemporaryDirectory(prefix="bench-goals-") as tmp:
        folder = Path(tmp)
        commands = cases(wanted, folder, args.million_replicates)
        if args.peers and "swe" in commands:
            commands.update(peers(folder))
        print(f"{'case':28s} {'CPU':>9s} {'wall':>9s} {'peak':>9s}   (median of {args.repeat} "
              "warm runs)")
        for key, command in commands.items():
            once = key in ("100k", "1m")   # the big boards: one run each, no warm-up
            if not once:
                run(command, cwd=folder)   # warm the kernels and the caches
            runs = [run(command, cwd=folder) for _ in range(1 if once else args.repeat)]
            cpu, wall = (statistics.median(r[i] for r in runs) for i in (0, 1))
            peak = max(r[2] for r in runs)
            print(f"{key:28s} {cpu:7.2f} s {wall:7.2f} s {peak:7,.0f} MB   "
                  f"{verdict(key, cpu, wall, peak)}", flush=True)
        if "first" in wanted:
            first_run(ours(["analyze", "--example"], folder / "out"), folder, args.repeat)


if __name__ == "__main__":
    main()
