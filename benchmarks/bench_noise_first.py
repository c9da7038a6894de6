"""Benchmark: the example's noise models, which a first run computes (issue 41, item 3).

``analyze --example`` builds three noise models (the board, and the shake-up's public and private
slices: binormal AUC, 2,000 draws each, 195 levels in all); a warm run reads them from the result
cache, so they are most of what a first run pays beyond a warm one besides the chart renderer.
The simulation scores every level's test sets from the drawn positives' places among the
negatives' cumulative counts (:mod:`leaderboard.noise.universes.sorted_auc`). The *baseline* here
is the same code scoring one level at a time (a pass over each block per level, as before; the
negatives' counts summed once per block, where before they were summed once per direction);
both run in this process on the calls the example makes (recorded from one in-process run with
the caches off), alternating, and every model's numbers (levels, bounds, SDs, d95, the leader's
draws) must be the same bit for bit.

    python benchmarks/bench_noise_first.py [--rounds 3]
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

os.environ["LEADERBOARD_CACHE_DIR"] = ""   # every call computed, never read from disk

from leaderboard.noise import grid  # noqa: E402
from leaderboard.noise.universes import sorted_auc  # noqa: E402

_GROUPS = sorted_auc._level_groups


def example_calls() -> list[tuple[tuple, dict]]:
    """The arguments of every build_noise_model call of ``analyze --example``."""
    import leaderboard.pipelines.scores as scores
    import leaderboard.pipelines.shakeup as shakeup
    from leaderboard.cli import main

    calls: list[tuple[tuple, dict]] = []
    real = grid.build_noise_model

    def record(*args, **kwargs):
        calls.append((args, {k: v for k, v in kwargs.items() if k != "progress"}))
        return real(*args, **kwargs)

    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        for module in (scores, shakeup):
            stack.enter_context(_patched(module, "build_noise_model", record))
        main(["analyze", "--example", "--quiet", "-o", str(Path(tmp) / "r.html")])
    return calls


@contextlib.contextmanager
def _patched(owner, name: str, value):
    saved = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, saved)


def _per_level_groups(places: list, negatives: int) -> list:
    """The baseline's grouping: one group per level (its own pass over each block)."""
    groups = []
    for i, place in enumerate(places):
        (_, backward, lower, up_to), = _GROUPS([place], negatives)
        groups.append((np.array([i]), backward, lower, up_to))
    return groups


def digest(models) -> str:
    h = hashlib.sha256()
    for model in models:
        for field in ("levels", "lower", "upper", "sd", "d95"):
            h.update(np.ascontiguousarray(getattr(model, field)).tobytes())
        h.update(model.leader.draws.tobytes())
        h.update(model.method.encode())
    return h.hexdigest()


def timed(calls) -> tuple[float, str]:
    start = time.process_time()
    models = [grid.build_noise_model(*args, **kwargs) for args, kwargs in calls]
    return time.process_time() - start, digest(models)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    calls = example_calls()
    timed(calls)   # every universe built and calibrated once, as the run that recorded them did
    cpu: dict[str, list[float]] = {"baseline (a pass per level)": [], "now": []}
    digests = set()
    for _ in range(args.rounds):
        with _patched(sorted_auc, "_level_groups", _per_level_groups):
            seconds, d = timed(calls)
        cpu["baseline (a pass per level)"].append(seconds)
        digests.add(d)
        seconds, d = timed(calls)
        cpu["now"].append(seconds)
        digests.add(d)
    print(f"the example's {len(calls)} noise models, CPU s (calibrations kept), "
          f"median of {args.rounds}; load {os.getloadavg()[0]:.1f}")
    for name, values in cpu.items():
        print(f"  {name:28s} {statistics.median(values):6.3f} s   "
              f"({', '.join(f'{v:.3f}' for v in values)})")
    ratio = statistics.median(cpu["baseline (a pass per level)"]) / statistics.median(cpu["now"])
    print(f"  ratio {ratio:.2f}; the same numbers to the bit: {len(digests) == 1}")
    sys.exit(0 if len(digests) == 1 else 1)


if __name__ == "__main__":
    main()
