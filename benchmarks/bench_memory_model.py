"""Benchmark: a scores board's peak memory against the estimate a run is refused on (issue 41).

``leaderboard analyze`` on the scores board of ``bench_scale_scores.py`` (AUC, 10,000 test rows,
10% positives) at several shapes, entries x replicates, each in its own child process under
``nice``: its peak RSS (``os.wait4``) beside :func:`leaderboard.limits.scores_memory`, the
estimate the run is checked against before any draw (``--max-memory`` and the memory the machine
has), and their ratio (the estimate must stay above the peak)::

    python benchmarks/bench_memory_model.py [--shapes 40x200000,1000x20000,...] [--limit-gb 12]

Each child runs under an address-space limit (``--limit-gb``, ``RLIMIT_AS``), so a shape that
would not fit fails with a MemoryError instead of taking the machine down.
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_scale_scores import board  # noqa: E402

SHAPES = "40x200000,200x50000,1000x20000,10000x2000,100000x2000"


def run(csv: Path, out: Path, replicates: int, limit: int) -> tuple[float, float, float, int]:
    """(CPU s, wall s, peak RSS MB, exit status) of one ``leaderboard analyze``."""
    argv = [sys.executable, "-m", "leaderboard", "analyze", str(csv), "--metric", "auc",
            "--n-test", "10000", "--prevalence", "0.1", "--replicates", str(replicates),
            "--max-entries", "10000000", "--max-memory", "1T", "--quiet",
            "-o", str(out / "r.html"), "--json", str(out / "r.json")]

    def cap() -> None:
        os.nice(10)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    start = time.perf_counter()
    child = subprocess.Popen(argv, preexec_fn=cap, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    return (usage.ru_utime + usage.ru_stime, time.perf_counter() - start,
            usage.ru_maxrss / 1024, status)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default=SHAPES)
    parser.add_argument("--limit-gb", type=float, default=12.0)
    args = parser.parse_args()
    from leaderboard.limits import scores_memory

    print(f"load {os.getloadavg()[0]:.1f}")
    print(f"{'entries':>9s} {'replicates':>10s} {'CPU s':>7s} {'wall s':>7s} {'peak MB':>8s} "
          f"{'estimate MB':>11s} {'est/peak':>8s}")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for shape in args.shapes.split(","):
            n, r = (int(x) for x in shape.split("x"))
            csv = tmp / f"board_{n}.csv"
            if not csv.exists():
                board(n, False).to_csv(csv, index=False)
            cpu, wall, peak, status = run(csv, tmp, r, int(args.limit_gb * 2 ** 30))
            est = scores_memory(n, r) / 2 ** 20
            note = "" if status == 0 else f"  (failed, status {status})"
            print(f"{n:9,d} {r:10,d} {cpu:7.1f} {wall:7.1f} {peak:8,.0f} {est:11,.0f} "
                  f"{est / peak:8.2f}{note}", flush=True)


if __name__ == "__main__":
    main()
