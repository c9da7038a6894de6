"""Benchmark: what a fresh install's first run of ``analyze --example`` pays beyond a warm run.

Issue 41 asks for a first run (a new venv and an empty ``HOME``) of at most twice the warm run,
by CPU seconds (user + system) of the CLI and of the chart renderer it waits for. The first run
pays three things a warm run does not, each kept between runs in its own place:

- the Vega JavaScript bundle the page inlines: since issue 41 made when the wheel is built and
  shipped in the package (``leaderboard/report/vega/shipped.py``), so a fresh install no longer
  pays it; a package without it (installed before, or its vl-convert upgraded since) builds it in
  the renderer's child process and keeps it in ``~/.cache/leaderboard/vega-bundle-*.js``;
- with ``--static-charts`` only (since issue 41 a page has no static drawings unless asked
  for, and the default run starts no renderer): the renderer's start (its Python, vl-convert's V8
  engine) and the page's static drawings (``~/.cache/leaderboard/drawings``), which a warm run
  whose drawings are all kept does not pay (``bench_renderer_child.py`` times them);
- the noise models (the result cache beside the kernels, ``$NUMBA_CACHE_DIR/leaderboard/results``).

So the example runs, alternated round by round, with each cache emptied on its own and all of them
emptied (the fresh install), the fresh install again with the package's shipped bundle hidden
(what a fresh install paid before the bundle shipped: the same install, the same process), and
warm; and vl-convert's own costs are timed in a child process
(its engine's start with a first drawing, then the bundle, as the renderer asks for them). It
prints each part beside the budget the goal leaves (the warm run's CPU again).

    python benchmarks/bench_first_run.py [--rounds 3]
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_goals import ours, run  # noqa: E402

# The child: vl-convert's engine started by a first drawing (as the page's first chart starts
# it), then the bundle for the Vega-Lite version the page uses; CPU seconds of each.
_VL_CONVERT = r"""
import resource, sys
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
start = cpu()
import vl_convert as vlc
from leaderboard.report.vega.embed import VL_VERSION
kw = {"vl_version": VL_VERSION} if VL_VERSION else {}
spec = {"mark": "point", "data": {"values": [{"x": 0}]},
        "encoding": {"x": {"field": "x", "type": "quantitative"}}}
t = cpu(); vlc.vegalite_to_svg(spec, **kw); engine = cpu() - t
t = cpu(); js = vlc.javascript_bundle(**kw); bundle = cpu() - t
print(engine, bundle, len(js))
"""

# The command line with the package's shipped bundle out of sight (a package built without it)
_HIDDEN = ("from leaderboard.report.vega import shipped; shipped.FOLDER = shipped.FOLDER / 'absent'; "
           "from leaderboard.cli import entry; entry()")

STATES = {   # (HOME kept: "all", "bundle" or nothing; results kept)
    "fresh install (both empty)": ("", False),
    "fresh install, no shipped bundle": ("", False),
    "HOME empty, results kept": ("", True),
    "bundle kept only": ("bundle", False),
    "bundle and results kept": ("bundle", True),
    "results empty, HOME kept": ("all", False),
    "warm": ("all", True),
}


def environment(home: Path, kernels: Path) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("XDG_CACHE_HOME", "LEADERBOARD_CACHE_DIR")}
    env.update(HOME=str(home), NUMBA_CACHE_DIR=str(kernels))
    return env


def fresh_home(folder: Path, warm: Path, keep: str) -> Path:
    """A new HOME: empty, or with the warm HOME's bundle only, or with all of its caches."""
    home = Path(tempfile.mkdtemp(dir=folder))
    if keep == "all":   # a default run keeps nothing in HOME since issue 41 (no drawings)
        if (warm / ".cache").is_dir():
            shutil.copytree(warm / ".cache", home / ".cache")
    elif keep == "bundle":
        cache = home / ".cache" / "leaderboard"
        cache.mkdir(parents=True, mode=0o700)
        for path in (warm / ".cache" / "leaderboard").glob("vega-bundle-*"):
            shutil.copy2(path, cache / path.name)
    return home


def vl_convert_costs() -> tuple[float, float, int]:
    """(engine start with a first drawing, bundle) CPU seconds, and the bundle's length."""
    out = subprocess.run([sys.executable, "-c", _VL_CONVERT], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout.split()
    return float(out[0]), float(out[1]), int(out[2])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-first-") as tmp:
        folder = Path(tmp)
        (folder / "out").mkdir()
        command = ours(["analyze", "--example"], folder / "out")
        hidden = [sys.executable, "-c", _HIDDEN, *command[3:]]   # command: python -m leaderboard
        warm_home, warm_kernels = folder / "home", folder / "kernels"
        warm_home.mkdir()
        warm_kernels.mkdir()
        for _ in range(2):   # fill the warm caches
            run(command, environment(warm_home, warm_kernels))
        times: dict[str, list[float]] = {name: [] for name in STATES}
        parts: list[tuple[float, float, int]] = []
        for _ in range(args.rounds):
            for name, (keep, results) in STATES.items():
                home = fresh_home(folder, warm_home, keep)
                kernels = warm_kernels if results else Path(tempfile.mkdtemp(dir=folder))
                argv = hidden if "no shipped" in name else command
                times[name].append(run(argv, environment(home, kernels))[0])
            parts.append(vl_convert_costs())
    cpu = {name: statistics.median(t) for name, t in times.items()}
    warm = cpu["warm"]
    print(f"PYTHONDONTWRITEBYTECODE={os.environ.get('PYTHONDONTWRITEBYTECODE', '')!r}; "
          f"CPU s (user + sys, the CLI and its renderer), median of {args.rounds}")
    for name, value in cpu.items():
        print(f"  {name:30s} {value:6.2f} s   {value / warm:4.2f}x warm   "
              f"({', '.join(f'{t:.2f}' for t in times[name])})")
    engine = statistics.median(p[0] for p in parts)
    bundle = statistics.median(p[1] for p in parts)
    print(f"vl-convert alone: engine start and a first drawing {engine:.2f} s, then the bundle "
          f"({parts[0][2]:,} characters) {bundle:.2f} s")
    print(f"the shipped bundle: a fresh install's first run {cpu['fresh install (both empty)']:.2f} s "
          f"against {cpu['fresh install, no shipped bundle']:.2f} s without it "
          f"({cpu['fresh install (both empty)'] / warm:.2f}x against "
          f"{cpu['fresh install, no shipped bundle'] / warm:.2f}x the warm run)")
    extra = cpu["fresh install (both empty)"] - warm
    print(f"the first run's extra {extra:.2f} s against a budget of {warm:.2f} s (the warm run): "
          f"noise models {cpu['results empty, HOME kept'] - warm:.2f} s, the renderer "
          f"(engine, drawings, bundle) {cpu['HOME empty, results kept'] - warm:.2f} s, of which "
          f"the engine and drawings {cpu['bundle and results kept'] - warm:.2f} s; "
          f"the bundle and the engine alone {bundle + engine:.2f} s "
          f"({'within' if bundle + engine <= warm else 'over'} the budget)")


if __name__ == "__main__":
    main()
