"""Benchmark: the calibrated universes' calibration and simulation, against a baseline commit (issue 27).

Each scenario is one board's noise model, :func:`leaderboard.noise.grid.build_noise_model`, as
the analysis builds it (the real boards of tests/pipelines/test_real_boards.py and the boards of
tests/cli/test_cli_universes.py). Timed per scenario:

- ``first``: a fresh universe (no calibration remembered, no over-confident nodes): the grid's
  calibration, the pilot simulation that spaces it, and the simulation;
- ``again``: the same call a second time: the levels are calibrated, so this is the simulation
  (and the few truths the grid asks for).

With ``--baseline REF`` the same scenarios run on that commit too, checked out in a temporary
git worktree, each tree in its own child process (so each imports its own
package), alternating tree by tree ``--rounds`` times so both share the machine's load; the
best of the rounds is kept and the ratios baseline / this tree are printed.

    python benchmarks/bench_universes.py [--baseline b3c6d88] [--rounds 2] [--only qwk-prostate]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "kaggle_public_private"

# name: (metric, universe options, scores (a list, or a board file's private_score column),
#        n_test, prevalence, draws)
SCENARIOS = {
    "qwk-prostate2021": ("qwk", {"class_shares": (1 / 6,) * 6},
                         "2021-prostate__public_private.csv", 500, None, 100),
    "f1_macro-3-classes": ("f1_macro", {"class_shares": (0.5, 0.3, 0.2)},
                           [0.71, 0.70, 0.60], 3000, None, 200),
    "logloss-dsb2017": ("logloss", {}, "data-science-bowl-2017__public_private.csv", 506, 0.26,
                        100),
    "logloss-rsna-ich": ("logloss", {}, "2021-rsna-intracranial__public_private.csv", 121232,
                         0.14, 100),
    "logloss-cli-board": ("logloss", {}, [0.25, 0.26, 0.30], 2000, 0.1, 200),
    # multi-class log loss worse than no skill (1.03): the over-confident path of the multi-class
    # universe (tests/noise/test_miscalibrated.py's slowest case)
    "logloss-3-classes-overconfident": ("logloss", {"class_shares": (0.5, 0.3, 0.2)},
                                        [0.6, 0.9, 1.3, 2.5], 1000, None, 100),
}


def _scores(source) -> list[float]:
    if isinstance(source, list):
        return source
    import pandas as pd
    return pd.read_csv(DATA / source)["private_score"].dropna().astype(float).tolist()


def time_scenarios(names: list[str]) -> dict[str, dict[str, float]]:
    """Seconds of each scenario's first and second noise model, in this process's package."""
    import numpy as np
    from leaderboard.metrics import get_metric
    from leaderboard.noise import grid
    from leaderboard.noise.universes import UniverseOptions, _calibrated_universe
    from leaderboard.noise.universes import miscalibrated

    out = {}
    for name in names:
        metric_name, options, source, n_test, prevalence, draws = SCENARIOS[name]
        scores = np.array(_scores(source))
        metric = get_metric(metric_name)
        leader = float(scores.max() if metric.higher_is_better else scores.min())
        _calibrated_universe.cache_clear()
        miscalibrated._NODES.clear()
        times = {}
        for label in ("first", "again"):
            start = time.perf_counter()
            model = grid.build_noise_model(metric, scores, leader_score=leader, n_test=n_test,
                                           prevalence=prevalence, draws=draws, seed=0,
                                           options=UniverseOptions(**options))
            times[label] = time.perf_counter() - start
        times["levels"] = int(model.levels.size)
        out[name] = times
    return out


def run_child(tree: Path, names: list[str]) -> dict[str, dict[str, float]]:
    """The scenarios timed in a child process that imports ``tree``'s package."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child",
                           ",".join(names)], cwd=tree, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{tree}: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", help="git commit to compare with")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--only", help="comma-separated scenario names")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(time_scenarios(args.child.split(","))))
        return
    names = args.only.split(",") if args.only else list(SCENARIOS)
    trees = {"this": ROOT}
    baseline_tree = None
    if args.baseline:
        sha = subprocess.run(["git", "rev-parse", args.baseline], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout.strip()
        baseline_tree = Path(tempfile.mkdtemp(prefix="bench-universes-")) / sha[:10]
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(baseline_tree), sha],
                       cwd=ROOT, check=True)
        trees["baseline"] = baseline_tree
    try:
        best: dict[str, dict[str, dict[str, float]]] = {tree: {} for tree in trees}
        for _ in range(args.rounds):
            for label, tree in trees.items():
                for name, times in run_child(tree, names).items():
                    kept = best[label].setdefault(name, times)
                    for key in ("first", "again"):
                        kept[key] = min(kept[key], times[key])
        print(f"{'scenario':32} {'levels':>6} {'first s':>9} {'again s':>9}"
              + ("   baseline first / again    ratio first / again" if baseline_tree else ""))
        for name in names:
            this = best["this"][name]
            line = f"{name:32} {this['levels']:6d} {this['first']:9.2f} {this['again']:9.2f}"
            if baseline_tree:
                base = best["baseline"][name]
                line += (f"   {base['first']:9.2f} {base['again']:9.2f}"
                         f"   {base['first'] / this['first']:9.2f}x {base['again'] / this['again']:6.2f}x")
            print(line)
    finally:
        if baseline_tree is not None:
            subprocess.run(["git", "worktree", "remove", "--force", str(baseline_tree)], cwd=ROOT)


if __name__ == "__main__":
    main()
