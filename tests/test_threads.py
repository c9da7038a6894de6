"""Every compiled kernel run on threads gives the same bits whatever the split (issue 27).

``leaderboard._threads.threaded`` splits a kernel's task range over numba's thread count (two
on the 2-core machines the suite runs on, so the rest of the suite only ever sees one split).
Here each workload runs once on one thread (the whole range inline) and once split over three
(uneven ranges, up to twelve tasks per call), and the outputs must be byte-identical. A source scan
lists every kernel handed to ``threaded``; the test fails when one of them was not split here.
"""
from __future__ import annotations

import ast
import re
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import leaderboard
import leaderboard._threads as threads_module
from leaderboard.cli import main
from leaderboard.metrics import get_metric
from leaderboard.noise.universes.seeds import SeedsAUCUniverse
from leaderboard.shakeup.observed import SMALL_BOARD, board_ranks
from leaderboard.tiers.best_set import best_set
from leaderboard.tiers.rank_sets import rank_confidence_sets
from leaderboard.tiers.replicates import RankReplicates
from leaderboard.tiers.stability import stability
from leaderboard.tiers.winners_curse import winners_curse
from tests.tiers.test_boot_small import bootstrap_board

SEEN: Counter = Counter()   # kernel name -> calls split over more than one thread


class _Threads:
    """Stands in for numba's thread count in ``_threads``: a fixed count, and a record of the kernels
    the split ran (read from ``threaded``'s frame)."""

    def __init__(self, n: int):
        self.n = n

    def get_num_threads(self) -> int:
        if self.n > 1:
            SEEN[sys._getframe(1).f_locals["kernel"].__name__] += 1
        return self.n


def on_threads(monkeypatch, n: int, work):
    monkeypatch.setattr(threads_module, "thread_count", _Threads(n).get_num_threads)
    try:
        return work()
    finally:
        monkeypatch.undo()


def same_bits(a, b) -> None:
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            same_bits(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            same_bits(x, y)
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    else:
        assert a == b or (a != a and b != b), (a, b)


def check(monkeypatch, work) -> None:
    one = on_threads(monkeypatch, 1, work)
    three = on_threads(monkeypatch, 3, work)
    same_bits(one, three)


def rank_sets(reps: RankReplicates) -> dict:
    out = {}
    for simultaneous in (True, False):
        s = rank_confidence_sets(reps, 0.1, simultaneous=simultaneous)
        out[simultaneous] = (s.low, s.high, s.critical_value, s.steps)
    out["best"] = best_set(reps, 0.1)
    return out


def bootstrap_board_above_the_numpy_bound():
    """100 entries with copies (ties): the pair tiles (tile passes, entry rounds) and the best
    set's passes."""
    return rank_sets(bootstrap_board(0, 100, "ties"))


def scores_only_board():
    """170 entries (above the closed sets' numpy bound) with normal errors and shared correlation:
    the closed sets' block searches and the winner's curse."""
    rng = np.random.default_rng(1)
    point = np.sort(rng.normal(0.8, 0.01, 170))[::-1]
    sd = rng.uniform(0.004, 0.01, 170)
    reps = RankReplicates.normal(point, sd, 0.3, True, replicates=400, seed=2)
    return rank_sets(reps), vars(winners_curse(reps, 0.1))


def stability_above_the_small_bound():
    """300 close entries (above tiers.closed_small.SMALL, where the ranks stage leaves numpy):
    the replicates' min ranks, the Kendall taus and the rank percentiles' order statistics."""
    rng = np.random.default_rng(5)
    point = np.sort(rng.normal(0.8, 0.01, 300))[::-1]
    reps = RankReplicates.normal(point, np.full(300, 0.01), 0.3, True, replicates=300, seed=6)
    res = stability(reps, top_k=[1, 10], top=3)
    return [vars(res.probabilities), res.frequencies, res.taus]


def stability_past_the_rank_store():
    """The same board with the 16-bit rank store's limit lowered to 3 places: the entries whose
    percentiles fall past it take the exact pass (bucket counts, the ranks kept in the buckets
    holding their order statistics, those segments' order statistics)."""
    from leaderboard.tiers import rank_quantiles
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rank_quantiles, "OFFSET_LIMIT", 3)
        return stability_above_the_small_bound()


def rank_metric_replicates():
    """Average precision and the CAP accuracy ratio (a Lorenz curve), tile by tile over 37
    replicates (ten tiles)."""
    rng = np.random.default_rng(3)
    y = (rng.random(400) < 0.3).astype(float)
    preds = [np.round(y * 0.3 + rng.random(400), 2) for _ in range(5)]   # rounded: ties
    weights = rng.poisson(1.0, (37, 400)).astype(float)
    return [get_metric(m).impl.replicates(y, preds, weights)
            for m in ("average_precision", "cap_ar")]


def seeds_universe_merging_draws():
    """The seeds universe's merge of sorted draws (small test sets take that path)."""
    return SeedsAUCUniverse().simulate(np.array([0.7, 0.8, 0.9]), 150, 0.3, 300, 5)


def boards_above_the_small_bound():
    """Boards of more than SMALL_BOARD entries, with ties, ranked by the compiled radix sort (the
    shake-up's ranks of a large board; the example's boards are small enough for numpy)."""
    rng = np.random.default_rng(4)
    return board_ranks(np.round(rng.normal(size=(40, SMALL_BOARD + 60)), 1))


def submissions_example(tmp_path):
    """The bundled submissions example (AUC replicates, ROC/PR curves, rank quantiles and
    stability, the shake-up's ranks and Kendall taus, the winner's curse): the same JSON."""
    out = tmp_path / "r.json"
    assert main(["analyze", "--example", "submissions", "--replicates", "200", "--quiet",
                 "-o", str(tmp_path / "r.html"), "--json", str(out)]) == 0
    # the example is written to a fresh temporary folder, which the JSON names
    return re.sub(r"leaderboard-example-\w+", "EXAMPLE", out.read_text(encoding="utf-8"))


def threaded_kernels() -> set[str]:
    """Names of the kernels the package hands to ``threaded`` (or its aliases), from the source;
    ``_by_tiles(kernel, ...)`` passes its first argument on."""
    names = set()
    for path in Path(leaderboard.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and node.args:
                func = node.func
                called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
                if called in ("threaded", "_threaded", "_by_tiles"):
                    first = node.args[0]
                    name = first.id if isinstance(first, ast.Name) else getattr(first, "attr", "")
                    if name != "kernel":
                        names.add(name)
    return names


def test_every_threaded_kernel_gives_the_same_bits_on_one_and_three_threads(monkeypatch, tmp_path):
    """One test, so that the check of the kernels it reached sees all of its workloads."""
    SEEN.clear()
    workloads = [bootstrap_board_above_the_numpy_bound, scores_only_board, stability_above_the_small_bound,
                 stability_past_the_rank_store, rank_metric_replicates,
                 seeds_universe_merging_draws, boards_above_the_small_bound,
                 lambda: submissions_example(tmp_path)]
    for work in workloads:
        check(monkeypatch, work)
    expected = threaded_kernels()
    assert len(expected) >= 15, expected   # the scan itself works
    missing = expected - set(SEEN)
    assert not missing, f"kernels never split over threads here: {sorted(missing)}"
