"""Benchmark: pages without static chart drawings unless asked for (issue 41, item 1), against a
checkout that drew them, in alternated pairs.

Each case is ``leaderboard`` from the command line in a child process (HTML and JSON written),
timed as ``bench_goals.py`` times it (CPU seconds of the child and of the processes it waited
for: the renderer's child too), for the base checkout (``--base``, run with ``PYTHONPATH`` = it)
and this one in turn, the order swapped every round; the first round warms both (numba compiles
each checkout's kernels beside its sources) and is not counted:

- ``example``: ``analyze --example``, warm (its drawings kept on disk by the base's earlier runs);
- ``1k``: the 1,000-entry scores board of ``bench_goals.py``, warm;
- ``new board``: ``analyze --example --seed S`` with a seed no run used before, so its drawings
  are kept nowhere: every first analysis of a new board on a warm install;
- ``first``: a fresh install (empty ``HOME`` and ``NUMBA_CACHE_DIR``) and the warm run after it in
  the same environment: their ratio is ``bench_goals.py``'s "first run" figure;
- ``static``: this checkout's ``analyze --example --seed S --static-charts`` (a new board whose
  drawings are asked for), beside the base's ``new board`` run: the option's cost.

    python benchmarks/bench_static_charts.py --base /tmp/base [--rounds 5]
"""
from __future__ import annotations

import argparse
import itertools
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_goals import SCORES_OPTIONS, run  # noqa: E402
from bench_scale_scores import board as scores_board  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the other checkout (a git archive of main, "
                        "with the shipped bundle copied in: leaderboard/report/vega/_bundle)")
    parser.add_argument("--rounds", type=int, default=5, help="counted rounds (one more warms)")
    args = parser.parse_args()
    trees = {"base": Path(args.base).resolve(), "this": ROOT}
    seeds = itertools.count(int(time.time()))   # seeds no earlier invocation used either
    times: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-static-") as tmp:
        folder = Path(tmp)
        board = folder / "board_1000.csv"
        scores_board(1000, False).to_csv(board, index=False)
        for round_ in range(args.rounds + 1):
            order = ("base", "this") if round_ % 2 == 0 else ("this", "base")
            for name in order:
                env = {**os.environ, "PYTHONPATH": str(trees[name])}
                out = folder / name
                out.mkdir(exist_ok=True)

                def ours(*given: str, out: Path = out) -> list[str]:
                    return [sys.executable, "-m", "leaderboard", *given, "--quiet", "-o",
                            str(out / "r.html"), "--json", str(out / "r.json")]
                if round_ == 0:   # ``-m`` puts the working folder first: never a checkout
                    where = subprocess.run([sys.executable, "-c", "import leaderboard; print("
                                            "leaderboard.__file__)"], env=env, cwd=folder,
                                           capture_output=True, text=True).stdout.strip()
                    print(f"{name}: {where}")
                    assert where.startswith(str(trees[name])), where
                got = {"example": run(ours("analyze", "--example"), env, folder)[0],
                       "1k": run(ours("analyze", str(board), *SCORES_OPTIONS), env, folder)[0],
                       "new board": run(ours("analyze", "--example", "--seed",
                                             str(next(seeds))), env, folder)[0]}
                if name == "this":
                    got["static"] = run(ours("analyze", "--example", "--seed", str(next(seeds)),
                                             "--static-charts"), env, folder)[0]
                fresh = {k: v for k, v in env.items()
                         if k not in ("XDG_CACHE_HOME", "LEADERBOARD_CACHE_DIR")}
                home, kernels = folder / f"home-{name}", folder / f"kernels-{name}"
                for path in (home, kernels):
                    shutil.rmtree(path, ignore_errors=True)
                    path.mkdir()
                fresh.update(HOME=str(home), NUMBA_CACHE_DIR=str(kernels))
                command = ours("analyze", "--example")
                first = run(command, fresh, folder)[0]
                warm = run(command, fresh, folder)[0]
                got.update({"first": first, "first warm": warm, "first / warm": first / warm})
                if round_ == 0:
                    continue
                for case, value in got.items():
                    times.setdefault((case, name), []).append(value)
                print(f"round {round_} {name}: " + ", ".join(f"{k} {v:.2f}"
                                                             for k, v in got.items()), flush=True)
    print(f"\n{'case':14s} {'base':>22s} {'this':>22s} {'this / base':>12s}   (median [min-max] "
          f"of {args.rounds} rounds; CPU s, ratios as x)")
    for case in ("example", "1k", "new board", "first", "first warm", "first / warm"):
        base, this = times[(case, "base")], times[(case, "this")]
        cell = [f"{statistics.median(v):6.2f} [{min(v):.2f}-{max(v):.2f}]" for v in (base, this)]
        print(f"{case:14s} {cell[0]:>22s} {cell[1]:>22s} "
              f"{statistics.median(this) / statistics.median(base):11.2f}x")
    static = times[("static", "this")]
    print(f"{'static (this)':14s} {'':>22s} {statistics.median(static):6.2f} "
          f"[{min(static):.2f}-{max(static):.2f}]   --static-charts on a new board")


if __name__ == "__main__":
    main()
