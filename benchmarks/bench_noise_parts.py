"""Benchmark: the parts of the example's noise models as a first run computes them (issue 41).

A first run of ``analyze --example`` builds three noise models that a warm run reads from the
result cache (``bench_noise_first.py`` times them with the universe's calibrations kept from a
first pass). Here each round computes them cold, in a new process with the result cache off, as
a fresh install's first run does, and splits their CPU seconds among: calibration (every
``CalibratedUniverse._solve``: the true score of ~1,200 binormal models, wherever it is asked
for), the simulation of the test sets' AUCs (``simulate_sorted_auc``; of it, the drawn positives'
lookups, ``_pairs``), the d95 of each level (``d95_of``) and the rest (grid, quantiles, SDs).
Timers nest: a part's time includes what it calls.

    python benchmarks/bench_noise_parts.py [--rounds 3]
"""
from __future__ import annotations

import argparse
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_CHILD = r"""
import collections, functools, os, pickle, sys, time
os.environ["LEADERBOARD_CACHE_DIR"] = ""
from leaderboard.noise import grid
from leaderboard.noise.universes import binary, finite, sorted_auc
seconds = collections.Counter()

def timed(owner, name, part):
    real = getattr(owner, name)
    @functools.wraps(real)
    def wrapper(*args, **kwargs):
        start = time.process_time()
        try:
            return real(*args, **kwargs)
        finally:
            seconds[part] += time.process_time() - start
    setattr(owner, name, wrapper)

timed(finite.CalibratedUniverse, "_solve", "calibration")
timed(binary, "simulate_sorted_auc", "simulation")
timed(sorted_auc, "_pairs", "  of it, the positives' lookups")
timed(grid, "d95_of", "d95 of each level")
with open(sys.argv[1], "rb") as f:
    calls = pickle.load(f)
start = time.process_time()
models = [grid.build_noise_model(*args, **kwargs) for args, kwargs in calls]
seconds["all three models"] = time.process_time() - start
print(repr(dict(seconds)))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_noise_first import example_calls
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "calls.pkl"
        path.write_bytes(pickle.dumps(example_calls()))
        rounds = [eval(subprocess.run([sys.executable, "-c", _CHILD, str(path)], check=True,
                                      capture_output=True, text=True, cwd=ROOT).stdout)
                  for _ in range(args.rounds)]
    total = statistics.median(r["all three models"] for r in rounds)
    print(f"the example's noise models computed cold, CPU s, median of {args.rounds}; "
          f"load {os.getloadavg()[0]:.1f}")
    for part in ("calibration", "simulation", "  of it, the positives' lookups",
                 "d95 of each level", "all three models"):
        value = statistics.median(r.get(part, 0.0) for r in rounds)
        print(f"  {part:34s} {value:6.3f} s  {value / total:4.0%}")
    parts = ("calibration", "simulation", "d95 of each level")
    rest = statistics.median(r["all three models"] - sum(r.get(p, 0.0) for p in parts)
                             for r in rounds)
    print(f"  {'the rest (grid, quantiles, SDs)':34s} {rest:6.3f} s  {rest / total:4.0%}")


if __name__ == "__main__":
    main()
