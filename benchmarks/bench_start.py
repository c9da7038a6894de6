"""Benchmark: how fast leaderboard starts (issue 27).

Prints, measured in this one run so the ratios share the machine's load:

- ``import leaderboard`` against ``import pandas`` (each in a fresh interpreter, the median of
  ``--repeat`` runs);
- the first ``leaderboard analyze --example`` on a fresh install (an empty ``NUMBA_CACHE_DIR``
  temporary folder, so every kernel compiles) against a warm run (the same folder again), as wall
  time and as CPU time (user + system of the child: on a shared machine the CPU time is the
  steadier measure);
- the same first against warm for a board of more than ``closed_small.SMALL`` = 160 entries (the
  closed-form rank sets' block searches, which smaller boards skip): ``analyze`` of a real Kaggle board when
  ``/work/shared/data`` (or ``--board``) has it;
- with ``--kernels``, the compile time of each numba kernel each first run compiled, slowest first
  (CPU seconds, exclusive of the kernels it calls, from numba's ``numba:compile`` events);
- with ``--baseline DIR`` (a checkout of another commit, e.g. ``git archive 3faad2a | tar -x -C
  DIR``), every run also for that code, interleaved with ours so both share the machine's load,
  and the ratios ours / baseline (with ``--kernels``, each kernel's compile time side by side);
- ``--cases`` adds the bundled submissions example (the paired bootstrap's pair tiles) and the
  battles example to the scores example and the board;
- the start of commands that only answer (``--help``, an option's error, a missing input file)
  and of ``import leaderboard``: CPU seconds of the child (median of ``--repeat``), the modules
  it imported (``-X importtime`` lines) and whether it imported ``scipy.stats``; with
  ``--baseline``, run alternately with the baseline's code and the ratios printed.
  ``--no-answers`` skips them.

    python benchmarks/bench_start.py [--repeat 5] [--kernels] [--board CSV | --no-board]
        [--board-options "--metric auc ..."] [--no-example] [--no-import] [--baseline DIR]
        [--cases example,submissions,battles,board] [--no-answers]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ["analyze", "--example"]
OTHER_CASES = {"submissions": ["analyze", "--example", "submissions"],
               "battles": ["analyze", "--battles", str(ROOT / "data" / "example_battles.csv")]}
# A real board of 1,000+ entries (more than closed_small.SMALL = 160): its options as in the
# Kaggle competition (F1 on 3,263 test rows, 43% positives).
BOARD = Path("/work/shared/data/kaggle_lb_downloads/nlp-getting-started__publicleaderboard.csv")
BOARD_OPTIONS = ["--metric", "f1", "--n-test", "3263", "--prevalence", "0.43"]

# Run in the child: the example through the command line, numba's compile events recorded.
_RUNNER = r"""
import json, sys, time
from numba.core import event

spans, stack = [], []

class Timer(event.Listener):   # CPU seconds (this process's): steadier than wall on a busy machine
    def on_start(self, ev):
        stack.append([time.process_time(), 0.0])
    def on_end(self, ev):
        start, children = stack.pop()
        total = time.process_time() - start
        if stack:
            stack[-1][1] += total
        disp = ev.data["dispatcher"]
        name = f"{disp.py_func.__module__}.{disp.py_func.__qualname__}"
        spans.append((name, total - children))

event.register("numba:compile", Timer())  # install_listener is a context manager
from leaderboard.cli import main
code = main(json.loads(sys.argv[3]) + ["-o", sys.argv[1], "--quiet"])
with open(sys.argv[2], "w") as out:
    json.dump(spans, out)
sys.exit(code)
"""


def _child_env(cache: str | None = None, root: Path = ROOT) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = cache
    return env


def import_seconds(module: str, repeat: int) -> float:
    """Median wall time of ``import module`` in a fresh interpreter (the interpreter's own start
    excluded: the clock starts inside it)."""
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    times = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                  check=True, env=_child_env()).stdout) for _ in range(repeat)]
    return statistics.median(times)


# Commands that answer without running any statistics: each should start fast (issue 27).
ANSWERS = {"--help": ["--help"], "analyze --help": ["analyze", "--help"],
           "option error": ["analyze", "board.csv", "--seed", "-3"],
           "missing input": ["analyze", "no-such-board.csv", "--metric", "auc"]}


def answer_start(argv: list[str] | None, root: Path) -> tuple[float, int, bool]:
    """CPU seconds (user + system) of ``python -m leaderboard argv`` (``import leaderboard``
    when ``argv`` is None) in a child running the code under ``root``, the number of modules it
    imported and whether ``scipy.stats`` was one of them."""
    command = ["-c", "import leaderboard"] if argv is None else ["-m", "leaderboard", *argv]
    with tempfile.TemporaryDirectory(prefix="bench-start-") as tmp:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run([sys.executable, "-X", "importtime", *command], cwd=tmp,
                              capture_output=True, text=True, env=_child_env(root=root))
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    lines = [line for line in done.stderr.splitlines() if line.startswith("import time:")
             and not line.endswith("| imported package")]   # not the header line
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, len(lines), any(line.split("|")[2].strip() == "scipy.stats" for line in lines)


def answers(repeat: int, baseline: Path | None) -> None:
    """Print the start of each answering command (and ``import leaderboard``), alternating
    this code and ``baseline``'s so both share the machine's load."""
    roots = [ROOT] + ([baseline.resolve()] if baseline is not None else [])
    cases = [("import leaderboard", None), *ANSWERS.items()]
    print("-- commands that only answer: CPU s (median of "
          f"{repeat}), modules imported, scipy.stats imported")
    for label, argv in cases:
        runs = {root: [] for root in roots}
        for _ in range(repeat):
            for root in roots:
                runs[root].append(answer_start(argv, root))
        shown = []
        for root in roots:
            cpu = statistics.median(r[0] for r in runs[root])
            shown.append((cpu, runs[root][-1][1], runs[root][-1][2]))
        words = "  ".join(f"{name} {cpu:5.2f} s {mods:5d} modules scipy.stats "
                          f"{'yes' if stats else 'no '}"
                          for name, (cpu, mods, stats) in zip(("this", "baseline"), shown))
        ratio = f"  ratio {shown[0][0] / shown[1][0]:.2f}x" if baseline is not None else ""
        print(f"{label:<20} {words}{ratio}")


def run_example(cache: str, work: Path, argv: list[str] = EXAMPLE, root: Path = ROOT
                ) -> tuple[float, float, list[tuple[str, float]]]:
    """Wall and CPU seconds of one ``leaderboard`` command (``analyze --example`` unless
    ``argv`` says otherwise) in a child running the code under ``root``, and its compile
    spans."""
    spans_file = work / "spans.json"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", _RUNNER, str(work / "report.html"), str(spans_file),
                    json.dumps(argv)], check=True, env=_child_env(cache, root), cwd=root)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, [tuple(s) for s in json.loads(spans_file.read_text())]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="imports timed per module")
    parser.add_argument("--kernels", action="store_true", help="list each kernel's compile time")
    parser.add_argument("--board", type=Path, default=BOARD,
                        help="a board to time as well (default: 1,702 entries, F1 options)")
    parser.add_argument("--board-options", default=" ".join(BOARD_OPTIONS),
                        help="the board's analyze options (default: %(default)s)")
    parser.add_argument("--no-board", action="store_true", help="time the example only")
    parser.add_argument("--no-example", action="store_true", help="time the board only")
    parser.add_argument("--no-import", action="store_true", help="skip the import timings")
    parser.add_argument("--no-answers", action="store_true",
                        help="skip the start of commands that only answer (--help, errors)")
    parser.add_argument("--baseline", type=Path,
                        help="a checkout of other code to time in the same runs, for ratios")
    parser.add_argument("--cases", default="example,board",
                        help="commands to time, of example, submissions, battles, board "
                             "(default: %(default)s)")
    args = parser.parse_args()
    wanted = set(args.cases.split(","))
    if args.baseline is not None and not (args.baseline / "leaderboard").is_dir():
        parser.error(f"--baseline {args.baseline}: no leaderboard package there")

    if not args.no_import:
        pandas_s = import_seconds("pandas", args.repeat)
        ours_s = import_seconds("leaderboard", args.repeat)
        print(f"import pandas       {pandas_s:6.2f} s")
        print(f"import leaderboard  {ours_s:6.2f} s   ({ours_s / pandas_s:.2f}x pandas)")

    if not args.no_answers:
        answers(args.repeat, args.baseline)

    cases = [] if args.no_example or "example" not in wanted else [("example", EXAMPLE)]
    cases += [(name, argv) for name, argv in OTHER_CASES.items() if name in wanted]
    if not args.no_board and "board" in wanted and args.board.is_file():
        cases.append((f"{args.board.name}",
                      ["analyze", str(args.board), *args.board_options.split()]))
    for label, argv in cases:
        print(f"-- {label}: leaderboard {' '.join(argv)}")
        first_vs_warm(argv, args.kernels, args.baseline)


def _runs(argv: list[str], roots: list[Path]) -> list[tuple]:
    """First and warm run of ``argv`` for each root, interleaved (every first run, then every
    warm run), each root with its own fresh kernel cache."""
    with tempfile.TemporaryDirectory(prefix="bench-start-") as tmp:
        works = [Path(tmp) / str(k) for k in range(len(roots))]
        for work in works:
            work.mkdir()
        firsts = [run_example(str(w / "numba-cache"), w, argv, root)
                  for w, root in zip(works, roots)]
        warms = [run_example(str(w / "numba-cache"), w, argv, root)
                 for w, root in zip(works, roots)]
    return list(zip(firsts, warms))


def _kernel_totals(spans) -> dict[str, float]:
    totals: dict[str, float] = {}
    for name, seconds in spans:
        totals[name] = totals.get(name, 0.0) + seconds
    return totals


def first_vs_warm(argv: list[str], kernels: bool, baseline: Path | None = None) -> None:
    """Print the first run (fresh kernel cache) against a warm run of one command (and the
    same for ``baseline``'s code, with the ratios)."""
    roots = [ROOT] + ([baseline.resolve()] if baseline is not None else [])
    results = _runs(argv, roots)
    for label, ((first_wall, first_cpu, spans), (warm_wall, warm_cpu, warm_spans)) in zip(
            ["this code", "baseline"], results):
        if baseline is not None:
            print(f" {label}:")
        compiled = sum(s for _, s in spans)
        print(f"first run (fresh kernel cache)  {first_wall:6.1f} s wall  {first_cpu:6.1f} s CPU  "
              f"({len(spans)} compilations, {compiled:.1f} s CPU compiling)")
        print(f"warm run (cache reused)         {warm_wall:6.1f} s wall  {warm_cpu:6.1f} s CPU  "
              f"({len(warm_spans)} compilations)")
        print(f"first / warm: {first_wall / warm_wall:.2f}x wall, {first_cpu / warm_cpu:.2f}x CPU")
    if baseline is not None:
        (ours_first, ours_warm), (base_first, base_warm) = results
        print(f"this code / baseline: first run {ours_first[1] / base_first[1]:.2f}x CPU "
              f"({sum(s for _, s in ours_first[2]):.1f} against "
              f"{sum(s for _, s in base_first[2]):.1f} s compiling), warm run "
              f"{ours_warm[1] / base_warm[1]:.2f}x CPU")
    if kernels:
        ours = _kernel_totals(results[0][0][2])
        base = _kernel_totals(results[1][0][2]) if baseline is not None else {}
        for name in sorted(set(ours) | set(base), key=lambda k: -max(ours.get(k, 0.0),
                                                                      base.get(k, 0.0))):
            then = f"(baseline {base.get(name, 0.0):5.2f} s)  " if baseline is not None else ""
            print(f"  {ours.get(name, 0.0):6.2f} s  {then}{name}")


if __name__ == "__main__":
    main()
