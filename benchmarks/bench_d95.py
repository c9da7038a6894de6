"""Benchmark: d95 (the 95th percentile of |x_i - x_j| over all pairs of draws) at every grid level,
as :func:`leaderboard.noise.build_noise_model` computes it, against a baseline in the same process.

The baseline is ``leaderboard/noise/d95.py`` as it stood at ``--baseline`` (a commit, read with
``git show`` and imported under another name), and the seeds' brute force (``pdist`` and
``np.quantile``) on the first few samples. Both samples are what the grid sees: continuous draws
(AUC from the binormal universe) and discrete ones (accuracy from the binomial universe, where
masses of equal distances are the rule). Every value must be identical to the baseline's.

    python benchmarks/bench_d95.py [--baseline b3c6d88] [--levels 200] [--draws 2000]
"""
from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from scipy.spatial.distance import pdist

from leaderboard.metrics import get_metric
from leaderboard.noise.d95 import pairwise_abs_diff_quantile
from leaderboard.noise.universes import get_universe

ROOT = Path(__file__).resolve().parents[1]


def baseline_function(commit: str):
    """``pairwise_abs_diff_quantile`` as it was at ``commit``."""
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{commit}:leaderboard/noise/d95.py"],
                            check=True, capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp()) / "d95_baseline.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("d95_baseline", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.pairwise_abs_diff_quantile


def samples(metric: str, levels: int, draws: int) -> list[np.ndarray]:
    universe = get_universe(get_metric(metric), 1000, 0.2)
    low, high = universe.reachable()
    at = np.linspace(low + 0.1 * (high - low), high - 0.01 * (high - low), levels)
    return list(universe.simulate(at, 1000, 0.2, draws, seed=1))


def fastest(function, rows: list[np.ndarray], repeat: int) -> tuple[float, list[float]]:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        values = [function(row, 0.95) for row in rows]
        best = min(best, time.perf_counter() - start)
    return best, values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="b3c6d88", help="commit to compare with")
    parser.add_argument("--levels", type=int, default=200)
    parser.add_argument("--draws", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3, help="keep the fastest of this many")
    args = parser.parse_args()
    baseline = baseline_function(args.baseline)
    for metric in ("auc", "accuracy"):
        rows = samples(metric, args.levels, args.draws)
        ours, values = fastest(pairwise_abs_diff_quantile, rows, args.repeat)
        theirs, expected = fastest(baseline, rows, args.repeat)
        same = values == expected
        brute = all(abs(np.quantile(pdist(row[:, None]), 0.95) - value) <= 1e-12
                    for row, value in zip(rows[:3], values))
        print(f"{metric:9s} {args.levels} levels x {args.draws} draws: ours {ours:.3f} s, "
              f"baseline {args.baseline} {theirs:.3f} s, ratio {theirs / ours:.2f}x; "
              f"identical to the baseline: {'yes' if same else 'NO'}; "
              f"equal to the brute force (3 levels): {'yes' if brute else 'NO'}")
        if not (same and brute):
            sys.exit(1)


if __name__ == "__main__":
    main()
