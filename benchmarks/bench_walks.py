"""Benchmark: the marginal and best rank sets (their replicate walks) against another checkout.

The closed-form marginal sets and the best set of a scores-only board (``bench_goals``' scores,
SDs growing down the board, correlation ``--rho``) are timed in a child process per checkout, this one
and ``--base`` (a ``git archive`` copy of an older commit), alternating old/new for ``--rounds``
rounds; each child times each kernel ``--repeat`` times after one warm call (numba's cache beside
each copy's sources: the first round of a fresh copy compiles, discard it) and prints the median
CPU seconds (user + system, every thread) and a digest of the answers, which must agree::

    git -C . archive de6e93a | tar -x -C /tmp/base
    python benchmarks/bench_walks.py --base /tmp/base [--entries 1000,10000] [--rounds 3]

The marginal sets took 2.5x less CPU at 1,000 x 2,000 once the walks of a round went in one call
per side instead of one per replicate (docs/benchmarks.md, "Round 6").
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def child(n: int, replicates: int, rho: float, repeat: int) -> None:
    """Time this checkout's marginal sets and best set (``PYTHONPATH`` picks the checkout)."""
    import numpy as np
    from leaderboard.tiers import RankReplicates
    from leaderboard.tiers.best_set import best_set
    from leaderboard.tiers.rank_sets import rank_confidence_sets

    sys.path.insert(0, str(HERE))
    from bench_scale_scores import board

    point = np.sort(board(n, False)["score"].to_numpy())[::-1]   # the goals' scores board
    sd = 0.003 * (1 + np.linspace(0, 1, n))   # noisier further down, as a universe's are
    reps = RankReplicates.normal(point, sd, rho, True, replicates=replicates, seed=1)
    found = {}
    for name, call in (("marginal", lambda: rank_confidence_sets(reps, simultaneous=False)),
                       ("best", lambda: best_set(reps))):
        answer = call()
        times = []
        for _ in range(repeat):
            start = time.process_time()
            call()
            times.append(time.process_time() - start)
        digest = _digest(answer)
        found[name] = [float(np.median(times)), digest]
    print(json.dumps(found))


def _digest(answer) -> str:
    """SHA-1 of every array and number an answer holds (a dataclass's fields, or an array)."""
    import dataclasses

    import numpy as np

    parts = ([getattr(answer, f.name) for f in dataclasses.fields(answer)]
             if dataclasses.is_dataclass(answer) else [answer])
    sha = hashlib.sha1()
    for part in parts:
        if isinstance(part, (np.ndarray, np.generic, int, float)):   # bool is an int
            sha.update(np.asarray(part).tobytes())
    return sha.hexdigest()[:10]


def run(tree: str, n: int, args) -> dict:
    env = dict(os.environ, PYTHONPATH=tree)
    out = subprocess.run([sys.executable, __file__, "--child", str(n), "--replicates",
                          str(args.replicates), "--rho", str(args.rho), "--repeat",
                          str(args.repeat)], env=env, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", help="the other checkout (a git archive copy)")
    parser.add_argument("--entries", default="1000,10000")
    parser.add_argument("--replicates", type=int, default=2000)
    parser.add_argument("--rho", type=float, default=0.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.replicates, args.rho, args.repeat)
        return
    trees = {"new": str(HERE.parent)}
    if args.base:
        trees = {"old": str(Path(args.base).resolve()), **trees}
    print(f"load {os.getloadavg()[0]:.1f}; CPU s, median of {args.repeat}; {args.replicates} "
          f"replicates, rho {args.rho}")
    for n in (int(x) for x in args.entries.split(",")):
        for k in range(args.rounds):
            got = {name: run(tree, n, args) for name, tree in trees.items()}
            line = "  ".join(f"{name} marginal {r['marginal'][0]:.3f} best {r['best'][0]:.3f}"
                             for name, r in got.items())
            if args.base:
                old, new = got["old"], got["new"]
                same = all(old[key][1] == new[key][1] for key in old)
                line += (f"  ratio {old['marginal'][0] / new['marginal'][0]:.2f}x "
                         f"{old['best'][0] / new['best'][0]:.2f}x  same answers: {same}")
            print(f"{n:>9,} round {k + 1}: {line}")
    print(f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
