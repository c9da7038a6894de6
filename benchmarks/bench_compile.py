"""Benchmark: numba compile work, per kernel signature and across pytest-xdist workers (issue 27).

Two measures, each on fresh kernel caches (an empty ``NUMBA_CACHE_DIR``: a first run):

- ``--signatures``: the commands of ``bench_start.py --cases`` run one after another in one
  fresh cache, then the compiled versions each kernel ended with (numba's index files: one
  version per distinct argument types, each compiled separately). With ``--baseline DIR`` (a
  checkout of other code) the same for it, side by side.
- ``--xdist FILES``: ``pytest -n 2`` on the test files (``--repeat`` times, each on its own
  fresh cache); prints the CPU (user + system of pytest and its workers), the wall time, the
  compile CPU of each worker (numba's ``numba:compile`` events, exclusive of nested ones) and how
  much of it compiled a kernel version another worker also compiled (both reached it before
  either had written the cache: what compiling ahead of the workers, or a lock, could save),
  and the kernels the cache then holds more than one version of.

    python benchmarks/bench_compile.py --signatures [--cases example,submissions,battles,board]
        [--baseline DIR]
    python benchmarks/bench_compile.py --xdist tests/tiers/test_closed_sets.py ... [--repeat 1]

This module is also the pytest plugin (``-p bench_compile``) that records the compile events.
"""
from __future__ import annotations

import argparse
import json
import os
import pickle
import resource
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TRACE = "BENCH_COMPILE_TRACE"   # folder the plugin writes each process's events to
_spans: list[dict] = []


# --- the pytest plugin -------------------------------------------------------------------------
def pytest_configure(config):  # noqa: ARG001 - pytest's hook signature
    if not os.environ.get(TRACE):
        return
    from numba.core import event
    starts: list[float] = []
    nested: list[float] = []   # compile time of the kernels each open compile has typed

    class Timer(event.Listener):   # CPU seconds of this process, nested compiles excluded
        def on_start(self, ev):
            starts.append(time.process_time())
            nested.append(0.0)

        def on_end(self, ev):
            total = time.process_time() - starts.pop()
            own = total - nested.pop()
            if nested:
                nested[-1] += total
            disp = ev.data["dispatcher"]
            name = f"{disp.py_func.__module__}.{disp.py_func.__qualname__}"
            _spans.append([name, str(tuple(ev.data["args"])), own])

    event.register("numba:compile", Timer())


def pytest_unconfigure(config):  # noqa: ARG001
    folder = os.environ.get(TRACE)
    if folder:
        name = os.environ.get("PYTEST_XDIST_WORKER", "controller")
        Path(folder, f"{name}.json").write_text(json.dumps(_spans))


# --- compiled versions per kernel --------------------------------------------------------------
def signatures(cache: Path) -> dict[str, int]:
    """Kernel (``module.function``) -> number of compiled versions in numba's index files."""
    counts = {}
    for index in cache.rglob("*.nbi"):
        with open(index, "rb") as f:
            pickle.load(f)   # numba's version
            _, overloads = pickle.loads(f.read())
        counts[index.name.split("-")[0]] = len(overloads)
    return counts


def _command_runs(cases: list[str], root: Path, cache: Path) -> float:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_start import BOARD, BOARD_OPTIONS, EXAMPLE, OTHER_CASES
    argvs = {"example": EXAMPLE, **OTHER_CASES,
             "board": ["analyze", str(BOARD), *BOARD_OPTIONS]}
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache),
               PYTHONPATH=str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryDirectory() as out:
        for case in cases:
            if case == "board" and not BOARD.is_file():
                continue
            subprocess.run([sys.executable, "-m", "leaderboard", *argvs[case], "--quiet",
                            "-o", os.path.join(out, "r.html")], check=True, env=env, cwd=root)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def show_signatures(cases: list[str], baseline: Path | None) -> None:
    roots = [("this code", ROOT)] + ([("baseline", baseline.resolve())] if baseline else [])
    found = {}
    with tempfile.TemporaryDirectory(prefix="bench-compile-") as tmp:
        for label, root in roots:
            cache = Path(tmp, label.replace(" ", "-"))
            cpu = _command_runs(cases, root, cache)
            found[label] = signatures(cache)
            counts = found[label]
            print(f"{label}: {len(counts)} kernels, {sum(counts.values())} compiled versions, "
                  f"{cpu:.1f} s CPU for {', '.join(cases)} on a fresh cache")
    names = sorted(set().union(*found.values()))
    for name in names:
        row = [found[label].get(name, 0) for label, _ in roots]
        if max(row) > 1 or len(set(row)) > 1:
            print(f"  {'  '.join(f'{c:3d}' for c in row)}  {name}")


# --- xdist: duplicated compiles ----------------------------------------------------------------
def xdist_run(files: list[str]) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-compile-") as tmp:
        trace = Path(tmp, "trace")
        trace.mkdir()
        env = dict(os.environ, NUMBA_CACHE_DIR=str(Path(tmp, "cache")), **{TRACE: str(trace)},
                   PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "benchmarks"),
                                               os.environ.get("PYTHONPATH", "")]))
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "-q", "-p", "no:cacheprovider",
                        "-p", "bench_compile", *files], check=True, env=env, cwd=ROOT,
                       stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        workers = {p.stem: json.loads(p.read_text()) for p in trace.glob("gw*.json")}
        versions = signatures(Path(tmp, "cache"))
    seen = defaultdict(list)
    for spans in workers.values():
        for name, sig, cpu in spans:
            seen[(name, sig)].append(cpu)
    duplicated = sum(sum(c) - max(c) for c in seen.values())
    return {"wall": wall, "cpu": after.ru_utime - before.ru_utime + after.ru_stime
            - before.ru_stime, "compile": {w: sum(s[2] for s in spans)
                                           for w, spans in sorted(workers.items())},
            "duplicated": duplicated, "versions": versions}


def show_xdist(files: list[str], repeat: int) -> None:
    for _ in range(repeat):
        r = xdist_run(files)
        compiled = sum(r["compile"].values())
        per_worker = "  ".join(f"{w} {s:5.1f}" for w, s in r["compile"].items())
        print(f"{r['wall']:6.1f} s wall  {r['cpu']:6.1f} s CPU  compiling: {per_worker} s; "
              f"compiled twice: {r['duplicated']:.1f} s ({r['duplicated'] / compiled:.1%} of "
              f"the compiling, {r['duplicated'] / r['cpu']:.1%} of the CPU)", flush=True)
        counts = r["versions"]
        print(f"  the cache: {len(counts)} kernels, {sum(counts.values())} compiled versions; "
              "more than one:")
        for name, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
            if count > 1:
                print(f"  {count:3d}  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--signatures", action="store_true", help="versions per kernel")
    parser.add_argument("--cases", default="example,submissions,battles,board",
                        help="commands for --signatures (default: %(default)s)")
    parser.add_argument("--baseline", type=Path, help="a checkout of other code, for --signatures")
    parser.add_argument("--xdist", nargs="+", metavar="FILE", help="test files for pytest -n 2")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each --xdist mode")
    args = parser.parse_args()
    if not args.signatures and not args.xdist:
        parser.error("say --signatures and/or --xdist FILES")
    if args.signatures:
        show_signatures(args.cases.split(","), args.baseline)
    if args.xdist:
        show_xdist(args.xdist, args.repeat)


if __name__ == "__main__":
    main()
