"""Benchmark: what the chart renderer's child process costs a run of ``analyze --example
--static-charts`` whose drawings are not kept.

Since issue 41 a page carries static drawings only when asked for (``--static-charts``); a page
without them never starts the renderer (leaderboard/report/vega/renderer.py). Asked for, a
fresh install's first run pays the renderer for them, and a warm run reads them from
``~/.cache/leaderboard/drawings`` and starts no renderer (``bench_first_run.py`` splits the first
run by cache). Here the example runs with ``--static-charts`` from the command line as a fresh
install (an empty ``HOME``: every drawing made; an empty result cache), its renderer's child
replaced by an instrumented copy that answers the same requests the same way and notes, per
request, the CPU seconds (user and system) and page faults it cost: the child's Python start and
imports, then each drawing in the order the page asks for them (the first one starts vl-convert's
V8 engine).

Then the whole CLI's CPU seconds, alternated round by round, of: that first run; the same with a
static drawing of the scores chart only; with no static drawing (the renderer never starts: what
the default page now is); and warm. They size what the drawings cost (issue 41, item 3, where
they decided the default).

    python benchmarks/bench_renderer_child.py [--rounds 3]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_first_run import environment  # noqa: E402
from bench_goals import ours, run  # noqa: E402

# The renderer's own child (renderer._CHILD), its requests read through _timed: a line per
# request appended to $BENCH_CHILD_LOG (CPU user and system seconds, page faults, the request's
# and the answer's characters), and one when the loop starts (the Python start and imports).
_PREAMBLE = r"""
import os, resource, sys
import json as _json
def _used():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime, r.ru_stime, r.ru_minflt
_log = open(os.environ["BENCH_CHILD_LOG"], "a")
class _Counted:
    def __init__(self, out):
        self.out, self.written = out, 0
    def write(self, text):
        self.written += len(text)
        return self.out.write(text)
    def flush(self):
        self.out.flush()
sys.stdout = _Counted(sys.stdout)
def _timed(lines):
    u, s, f = _used()
    _log.write(f"start {u} {s} {f} {len(sys.modules)}\n")
    for line in lines:
        op, (u0, s0, f0), written = _json.loads(line)["op"], _used(), sys.stdout.written
        yield line   # the child answers it before it asks for the next one
        u, s, f = _used()
        answered = sys.stdout.written - written
        _log.write(f"{op} {u - u0} {s - s0} {f - f0} {len(line)} {answered}\n")
        _log.flush()
"""
_LOOP = "for line in sys.stdin:"


def instrumented(child: str) -> str:
    """The renderer's child with its requests timed (:data:`_PREAMBLE`)."""
    if child.count(_LOOP) != 1:
        raise SystemExit("renderer._CHILD no longer reads its requests as this benchmark expects")
    return _PREAMBLE + child.replace(_LOOP, "for line in _timed(sys.stdin):")


# The command line with that child (CHILD_CODE: :func:`instrumented`), and with static drawings
# kept for some charts only (argv[1]: "all", "scores" or "none").
_RUN = r"""
import sys
keep = sys.argv.pop(1)
from leaderboard.report.vega import embed, renderer
renderer._CHILD = CHILD_CODE
real = embed.pending_block
def pending_block(chart, id, title, *, static=True, caption=""):
    if keep == "none" or (keep == "scores" and id != "chart-scores"):
        static = False
    return real(chart, id, title, static=static, caption=caption)
embed.pending_block = pending_block
from leaderboard.cli import entry
sys.argv[0] = "leaderboard"
entry()
"""

KEEPS = {"first run (every static drawing)": "all", "first run, the scores chart's only": "scores",
         "first run, no static drawing": "none", "warm": "all"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    from leaderboard.report.vega import renderer
    script = _RUN.replace("CHILD_CODE", repr(instrumented(renderer._CHILD)))
    with tempfile.TemporaryDirectory(prefix="bench-child-") as tmp:
        folder = Path(tmp)
        (folder / "out").mkdir()
        command = ours(["analyze", "--example", "--static-charts"],
                       folder / "out")[3:]   # after python -m leaderboard
        warm_home, kernels = folder / "home", folder / "kernels"
        warm_home.mkdir()
        kernels.mkdir()
        log = folder / "child.log"

        def cli(keep: str, home: Path, results: Path = kernels) -> float:
            env = environment(home, results)
            env["BENCH_CHILD_LOG"] = str(log)
            return run([sys.executable, "-c", script, keep, *command], env)[0]

        for _ in range(2):   # the warm caches: drawings and noise models
            cli("all", warm_home)
        log.unlink(missing_ok=True)
        times: dict[str, list[float]] = {name: [] for name in KEEPS}
        children: list[list[list[str]]] = []
        for _ in range(args.rounds):
            for name, keep in KEEPS.items():
                if name == "warm":
                    times[name].append(cli(keep, warm_home))
                else:   # a fresh install: both caches empty
                    times[name].append(cli(keep, Path(tempfile.mkdtemp(dir=folder)),
                                           Path(tempfile.mkdtemp(dir=folder))))
                if name.startswith("first run (every"):
                    children.append([line.split() for line in log.read_text().splitlines()])
                log.unlink(missing_ok=True)
    print(f"load {os.getloadavg()[0]:.1f}; CPU s (user + sys), median of {args.rounds} rounds")
    print("the renderer's child on a first run:")
    start = [c[0] for c in children]
    print(f"  Python start and imports ({start[0][4]} modules)    "
          f"{statistics.median(float(s[1]) + float(s[2]) for s in start):.3f} s")
    for i, first in enumerate(children[0][1:]):
        rows = [c[1 + i] for c in children]
        user = statistics.median(float(r[1]) for r in rows)
        system = statistics.median(float(r[2]) for r in rows)
        faults = statistics.median(int(r[3]) for r in rows)
        what = ("drawing 1 (and V8's start)" if i == 0 else f"drawing {i + 1}")
        print(f"  {what:30s} {first[0]:4s} {user + system:.3f} s (user {user:.3f}, sys "
              f"{system:.3f}; {faults:,.0f} page faults; {int(first[4]):,} characters asked, "
              f"{int(first[5]):,} answered)")
    total = statistics.median(
        sum(float(r[1]) + float(r[2]) for r in c) for c in children)
    print(f"  the child in all                  {total:.3f} s")
    warm = statistics.median(times["warm"])
    print("the whole CLI (and its renderer):")
    for name, values in times.items():
        value = statistics.median(values)
        print(f"  {name:36s} {value:5.2f} s  {value / warm:4.2f}x warm   "
              f"({', '.join(f'{t:.2f}' for t in values)})")


if __name__ == "__main__":
    main()
