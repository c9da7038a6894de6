"""Study: the rank sets' replicate walks per entry and replicate as the board grows (issue 41).

The marginal sets' and the best set's kernels (``marginal_owners``, ``best_owners``) run alone,
on one thread, at a fixed number of replicates, on the goals' scores board (``bench_goals``:
AUC, 10,000 test rows, 10% positives) at each size: its scores, and SDs read off the 10,000-entry
board's own analysis (interpolated by score), rho 0 for the marginal sets and 0.5 for the best
set, as the goals' run calls them. Only ``--windows`` ranges of ``--width`` entries spread over
the board are run (the whole of a 1M board takes minutes); each call's own setup (the sub-block
cache, the block tree and the flag arrays, O(blocks + sub-blocks), paid once per thread chunk of
E / 8 entries in a real run) is timed with an empty range and taken out. Prints ns of CPU per
entry and replicate, the step-down rounds per entry and a digest of the output rows (compare
two checkouts with ``PYTHONPATH``)::

    nice -n 10 python benchmarks/study_walks_growth.py [--sizes 10000,100000,1000000]
        [--replicates 200] [--windows 40] [--width 25]

Needs ~1 GB per 1M x 100 (the float32 errors and the layout). Results: docs/benchmarks.md,
Round 6.
"""
from __future__ import annotations

import argparse
import hashlib
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_scale_scores import board  # noqa: E402

from leaderboard import analyze  # noqa: E402
from leaderboard.tiers import RankReplicates, closed_sets  # noqa: E402
from leaderboard.tiers._block_searches import best_owners, marginal_owners  # noqa: E402


def sd_curve() -> tuple[np.ndarray, np.ndarray]:
    """(scores ascending, their SDs) of the 10,000-entry goals board's analysis."""
    table = analyze(board(10000, False), metric="auc", n_test=10000, prevalence=0.1,
                    replicates=100).table
    order = np.argsort(table["score"].to_numpy())
    return table["score"].to_numpy()[order], table["sd"].to_numpy()[order]


def one(kind: str, n: int, replicates: int, windows: int, width: int, curve) -> str:
    point = np.sort(board(n, False)["score"].to_numpy())[::-1].copy()
    sd = np.interp(point, *curve)
    rho = 0.0 if kind == "marginal" else 0.5
    reps = RankReplicates.normal(point, sd, rho, True, replicates=replicates, seed=7)
    err = np.ascontiguousarray(reps.errors)
    kq = math.ceil(round(0.95 * replicates, 9))
    lay = closed_sets.layout(err, sd, closed_sets.SUB)
    lo, hi, sub = float(sd.min()), float(sd.max()), closed_sets.SUB
    if kind == "marginal":
        out = np.zeros((n, 5))

        def call(a, b):
            marginal_owners(err, point, sd, rho, sub, lay, lo, hi, kq, out, a, b)
    else:
        out, top = np.zeros((n, 3)), lay.bzmax.max(axis=1)

        def call(a, b):
            best_owners(err, point, sd, rho, sub, lay, lo, hi, top, kq, out, a, b)
    call(0, 1)   # compiled or loaded
    starts = np.linspace(0, n - width, windows).astype(int)
    start = time.process_time()
    for a in starts:
        call(a, a + width)
    cpu = time.process_time() - start
    start = time.process_time()
    for a in starts:
        call(a, a)
    setup = time.process_time() - start
    rows = np.concatenate([np.arange(a, a + width) for a in starts])
    digest = hashlib.sha1(out[rows].tobytes()).hexdigest()[:10]
    line = (f"{kind:8s} {n:>9,} x {replicates}: {(cpu - setup) / (rows.size * replicates) * 1e9:6.1f}"
            f" ns per entry and replicate (setup {setup / windows * 1e6:.0f} us a call)")
    if kind == "marginal":
        line += f", rounds {out[rows, 2].mean():.2f}"
    return line + f", digest {digest}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--replicates", type=int, default=200)
    parser.add_argument("--windows", type=int, default=40)
    parser.add_argument("--width", type=int, default=25)
    args = parser.parse_args()
    curve = sd_curve()
    for n in (int(x) for x in args.sizes.split(",")):
        for kind in ("marginal", "best"):
            print(one(kind, n, args.replicates, args.windows, args.width, curve), flush=True)


if __name__ == "__main__":
    main()
