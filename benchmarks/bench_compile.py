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

- ``--kernels``: the block searches (simultaneous, marginal and best sets of two boards, float32
  and float64 replicates, default and small blocks), compiled in a fresh process on a fresh cache:
  compile CPU per kernel (nested compiles excluded, signatures summed); then, on that cache, warm
  runs of the three searches on an 8,000-entry board (best of 3, process CPU and wall). With
  ``--baseline DIR`` or ``--baseline REV`` (a git revision, unpacked to a temporary folder) the
  same for it, alternated ``--repeat`` times, with the ratios and a hash of every result (the
  same bits or the line says DIFFERENT).

    python benchmarks/bench_compile.py --signatures [--cases example,submissions,battles,board]
        [--baseline DIR]
    python benchmarks/bench_compile.py --xdist tests/tiers/test_closed_sets.py ... [--repeat 1]
    python benchmarks/bench_compile.py --kernels [--baseline 31b2098] [--repeat 2]

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
def _listen(record) -> None:
    """Call ``record(kernel, argument types, CPU seconds)`` for every numba compile, with the CPU
    of this process and nested compiles excluded."""
    from numba.core import event
    starts: list[float] = []
    nested: list[float] = []   # compile time of the kernels each open compile has typed

    class Timer(event.Listener):
        def on_start(self, ev):
            starts.append(time.process_time())
            nested.append(0.0)

        def on_end(self, ev):
            total = time.process_time() - starts.pop()
            own = total - nested.pop()
            if nested:
                nested[-1] += total
            disp = ev.data["dispatcher"]
            record(f"{disp.py_func.__module__}.{disp.py_func.__qualname__}",
                   str(tuple(ev.data["args"])), own)

    event.register("numba:compile", Timer())


def pytest_configure(config):  # noqa: ARG001 - pytest's hook signature
    if os.environ.get(TRACE):
        _listen(lambda name, sig, own: _spans.append([name, sig, own]))


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


# --- compile per kernel, warm runs: the block searches -------------------------------------------
def _events() -> dict[str, float]:
    """Compile CPU per kernel (its name, signatures summed), filled in as kernels compile."""
    found: dict[str, float] = defaultdict(float)

    def record(name, sig, own):  # noqa: ARG001 - the signature is not kept
        found[name] += own

    _listen(record)
    return found


def _board(n: int, rho: float, replicates: int, dtype, seed: int):
    import numpy as np

    from leaderboard.tiers import RankReplicates
    rng = np.random.default_rng(seed)
    point = np.sort(rng.normal(0, 0.04, n))[::-1]
    point[1:3] = point[0]   # ties
    reps = RankReplicates.normal(point, 0.01 + 0.1 * (point.max() - point), rho, True,
                                 replicates=replicates, seed=seed)
    return RankReplicates(reps.point, reps.errors.astype(dtype), reps.sd, reps.correlation, 1.0,
                          "bench")


def _searches(reps, batch, digest) -> None:
    import numpy as np

    from leaderboard.tiers.best_set import best_set
    from leaderboard.tiers.rank_sets import rank_confidence_sets
    for simultaneous in (True, False):
        sets = rank_confidence_sets(reps, 0.05, simultaneous=simultaneous, batch=batch)
        for a in (sets.low, sets.high, np.asarray(sets.critical_value)):
            digest.update(np.ascontiguousarray(a).tobytes())
    digest.update(best_set(reps, 0.05, batch=batch).tobytes())


def kernels_child(mode: str) -> None:
    """In a fresh process (``--child compile|warm``): print one JSON line of measures."""
    import hashlib

    import numpy as np
    digest = hashlib.sha1()
    if mode == "compile":
        found = _events()
        start = time.process_time()
        for dtype in (np.float32, np.float64):
            for n, rho, seed in ((300, 0.0, 1), (250, 0.6, 2)):
                for batch in (None, 24):
                    _searches(_board(n, rho, 300, dtype, seed), batch, digest)
        print(json.dumps({"cpu": time.process_time() - start, "kernels": found,
                          "hash": digest.hexdigest()}))
        return
    from leaderboard.tiers import closed_sets
    from leaderboard.tiers.best_set import best_set
    from leaderboard.tiers.rank_sets import rank_confidence_sets
    reps = _board(8000, 0.3, 500, np.float32, 3)
    runs = {"simultaneous": lambda: rank_confidence_sets(reps, 0.05),
            "marginal": lambda: rank_confidence_sets(reps, 0.05, simultaneous=False),
            "best": lambda: best_set(reps, 0.05)}
    times = {}
    for name, run in runs.items():
        run()   # loads the kernels
        best = (np.inf, np.inf)
        for _ in range(3):
            closed_sets._LAST.clear()   # the layout is part of the work
            cpu, wall = time.process_time(), time.perf_counter()
            run()
            best = min(best, (time.process_time() - cpu, time.perf_counter() - wall))
        times[name] = best
    _searches(reps, None, digest)
    print(json.dumps({"warm": times, "hash": digest.hexdigest()}))


def _baseline_root(spec: str, tmp: str) -> Path:
    """A folder of other code: ``spec`` itself, or that git revision unpacked into ``tmp``."""
    if Path(spec).is_dir():
        return Path(spec).resolve()
    root = Path(tmp, "baseline")
    root.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", spec], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(root)], input=archive, check=True)
    return root


def _child(root: Path, cache: Path, mode: str) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache),
               PYTHONPATH=str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", mode],
                         check=True, env=env, cwd=root, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def show_kernels(baseline: str | None, repeat: int, top: int = 14) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-compile-") as tmp:
        roots = [("this code", ROOT)]
        if baseline:
            roots.insert(0, ("baseline", _baseline_root(baseline, tmp)))
        found = {label: [] for label, _ in roots}
        for run in range(repeat):
            for label, root in roots:   # alternated: the machine is shared
                cache = Path(tmp, f"cache-{label.replace(' ', '-')}-{run}")
                measured = _child(root, cache, "compile")
                warm = _child(root, cache, "warm")
                measured.update(warm=warm["warm"], warm_hash=warm["hash"])
                found[label].append(measured)
                warm = "  ".join(f"{k} {v[0]:.2f}/{v[1]:.2f}" for k, v in measured["warm"].items())
                print(f"{label:9s} run {run + 1}: compiling {measured['cpu']:5.1f} s CPU; warm "
                      f"(CPU/wall s) {warm}", flush=True)
    labels = [label for label, _ in roots]
    mean = {label: defaultdict(float) for label in labels}
    for label in labels:
        for measured in found[label]:
            for name, cpu in measured["kernels"].items():
                mean[label][name] += cpu / repeat
    names = sorted(mean[labels[0]], key=lambda k: -mean[labels[0]][k])[:top]
    print("compile CPU per kernel (s, mean of runs): " + " | ".join(labels)
          + (" | ratio" if baseline else ""))
    for name in names:
        row = [mean[label].get(name, 0.0) for label in labels]
        ratio = f"  {row[1] / row[0]:5.2f}" if baseline and row[0] else ""
        print(f"  {'  '.join(f'{v:6.2f}' for v in row)}{ratio}  {name}")
    if baseline:
        a, b = (min(m["cpu"] for m in found[label]) for label in labels)
        print(f"compiling, all kernels: {a:.1f} -> {b:.1f} s CPU (best of {repeat}), ratio "
              f"{b / a:.2f}")
        for name in found[labels[0]][0]["warm"]:
            a, b = (min(m["warm"][name][0] for m in found[label]) for label in labels)
            print(f"warm {name}: {a:.3f} -> {b:.3f} s CPU (best), ratio {b / a:.2f}")
        hashes = {(m["hash"], m["warm_hash"]) for label in labels for m in found[label]}
        print("results: " + ("the same bits" if len(hashes) == 1 else "DIFFERENT"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--signatures", action="store_true", help="versions per kernel")
    parser.add_argument("--cases", default="example,submissions,battles,board",
                        help="commands for --signatures (default: %(default)s)")
    parser.add_argument("--baseline", help="a checkout of other code (--signatures, --kernels) or "
                        "a git revision (--kernels)")
    parser.add_argument("--xdist", nargs="+", metavar="FILE", help="test files for pytest -n 2")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each --xdist/--kernels mode")
    parser.add_argument("--kernels", action="store_true",
                        help="compile per kernel and warm runs of the block searches")
    parser.add_argument("--child", choices=("compile", "warm"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kernels_child(args.child)
        return
    if not args.signatures and not args.xdist and not args.kernels:
        parser.error("say --signatures, --kernels and/or --xdist FILES")
    if args.kernels:
        show_kernels(None if args.baseline is None else str(args.baseline), args.repeat)
    if args.signatures:
        show_signatures(args.cases.split(","), args.baseline and Path(args.baseline))
    if args.xdist:
        show_xdist(args.xdist, args.repeat)


if __name__ == "__main__":
    main()
