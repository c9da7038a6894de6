"""Benchmark: three product paths the test suite (and every small board) spends its time in
(issue 27).

Each is timed against its former implementation (kept below as the baseline, run in this process
on the same inputs), after checking that both give the same bits:

* ``pairs_max``: the replicate maxima of the max-t step-down over the standing pairs of a board
  of up to ``closed_small.SMALL`` entries (:func:`leaderboard.tiers.closed_small.pairs_max`),
  called once per round of every simultaneous rank-set step-down of a small scores-only board
  (the correlation sweep of ``analyze``, the tier-one simulations, the family-wise error tests).
  Now one row's pairs at a time instead of one gather of every pair (baseline: main b3a8973),
  timed through whole step-downs (``rank_confidence_sets``) of boards of 3 to 160 entries.
* ``column_quantiles``: the pointwise bands of the leading entries' ROC, PR and CAP curves
  (:func:`leaderboard.noise.curves.column_quantiles`), on every submissions-mode board with a
  binary target. ``np.nanquantile(..., axis=0)`` sorted each of the 101 grid points' columns in
  a Python loop; now one sort and one vectorised ``np.quantile`` per group of columns with the
  same number of values.
* ``holm``: the leader-anchored Holm tiers of scores-only boards
  (:func:`leaderboard.tiers.holm.leader_anchored_tiers` with
  :func:`~leaderboard.tiers.holm.paired_p_values`), thousands of times in the tier-one
  simulations: the p-values by ``scipy.special.ndtr(-z)`` and the screen's quantile by
  ``-ndtri`` instead of ``scipy.stats.norm.sf`` / ``norm.isf`` (the functions those call, without
  their argument checks).

    python benchmarks/bench_tier_paths.py [--repeat 5]
"""
from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from scipy.stats import norm

from leaderboard.noise.curves import column_quantiles
from leaderboard.tiers import RankReplicates, closed_small, holm
from leaderboard.tiers.holm import leader_anchored_tiers, paired_p_values
from leaderboard.tiers.closed_small import _CELLS, pairs_max as pairs_max_now
from leaderboard.tiers.rank_sets import rank_confidence_sets


def baseline_pairs_max(e, a, rows, cols):
    """The maxima as they were computed (main b3a8973): one gather of every listed pair."""
    n_rep = e.shape[1]
    m = np.full(n_rep, -np.inf)
    if rows.size == 0:
        return m
    coef = a[rows, cols][:, None]
    step = max(1, _CELLS // rows.size)
    for r0 in range(0, n_rep, step):
        r1 = min(n_rep, r0 + step)
        m[r0:r1] = ((e[rows, r0:r1] - e[cols, r0:r1]) * coef).max(axis=0)
    return m


def baseline_column_quantiles(values, q):
    """The bands as they were computed (main b3a8973)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # all-NaN columns
        return np.nanquantile(values, q, axis=0)


def board_cases(rng) -> dict[str, list[tuple]]:
    """Scores-only boards of 3 to 160 entries as ``RankReplicates.normal`` draws them (float32
    errors), ties near the top, SDs apart or equal (the family-wise error test's boards), each
    drawn and then ranked by the whole simultaneous step-down:
    the maxima's temporaries cost through the allocator (page faults once other work has
    returned the heap), which a loop over the one call alone hides (there the two are even up to
    20 entries)."""
    out = {}
    for n, n_rep, boards, equal in ((3, 400, 200, False), (20, 400, 100, False),
                                    (20, 400, 100, True), (60, 1000, 10, False),
                                    (160, 2000, 2, False)):
        cases = []
        for b in range(boards):
            point = np.sort(rng.normal(0, 1, n))[::-1]
            point[1] = point[0]
            sd = np.ones(n) if equal else rng.uniform(0.5, 1.0, n)
            cases.append((point, sd, 0.0 if equal else 0.3, n_rep, b))
        out[f"{boards} x {n}{' equal SDs' if equal else ''} x {n_rep}"] = cases
    return out


def _step_down(pairs_max):
    """A board drawn, then its simultaneous rank sets with ``pairs_max`` in place: low, high,
    critical value, rounds."""
    def run(point, sd, rho, n_rep, seed):
        reps = RankReplicates.normal(point, sd, rho, True, replicates=n_rep, seed=seed)
        saved = closed_small.pairs_max
        closed_small.pairs_max = pairs_max
        try:
            sets = rank_confidence_sets(reps, 0.05)
        finally:
            closed_small.pairs_max = saved
        return np.concatenate([sets.low, sets.high, sets.critical_value, [sets.steps]])
    return run


def quantile_cases(rng) -> dict[str, list[tuple]]:
    """Bands of 101 grid points: no NaN, whole replicates NaN (a replicate without both
    classes), NaN scattered per column, and an all-NaN column."""
    q = [0.025, 0.975]
    out = {}
    for n_rep in (300, 2000):
        clean = rng.random((n_rep, 101))
        rows_nan = clean.copy()
        rows_nan[rng.random(n_rep) < 0.05] = np.nan
        scattered = clean.copy()
        scattered[rng.random(clean.shape) < 0.02] = np.nan
        scattered[:, 0] = np.nan
        out[f"{n_rep} replicates"] = [(clean, q), (rows_nan, q), (scattered, q)]
    return out


def holm_cases(rng) -> dict[str, list[tuple]]:
    """Boards of 3, 10 and 40 unit-SD entries, the best ahead by 0 or 0.25 SD, as the tier-one
    test draws them (32 replicates: the closed form reads only the SDs)."""
    out = {}
    for n, gap, boards in ((3, 0.0, 300), (10, 0.0, 300), (40, 0.25, 300)):
        truth = np.r_[0.0, np.full(n - 1, -gap)]
        out[f"{boards} x {n} entries"] = [(-np.sort(-(truth + rng.standard_normal(n))),)
                                          for _ in range(boards)]
    return out


def _tiers(ndtr, ndtri):
    """A board's Holm tiers and p-values with the normal tail functions ``ndtr``/``ndtri``."""
    def run(point):
        saved = holm.ndtr, holm.ndtri
        holm.ndtr, holm.ndtri = ndtr, ndtri
        try:
            reps = RankReplicates.normal(point, np.ones(point.size), 0.0, True, replicates=32)
            tiers = leader_anchored_tiers(point.size, paired_p_values(reps), 0.05)
        finally:
            holm.ndtr, holm.ndtri = saved
        return np.concatenate([tiers.tier, tiers.p_vs_anchor])
    return run


def _seconds(function, cases) -> float:
    start = time.perf_counter()
    for args in cases:
        function(*args)
    return time.perf_counter() - start


def _best_of(new, old, cases, repeat: int) -> tuple[float, float]:
    """Each one's best time over ``repeat`` runs, the two taking turns (what the allocator holds
    after one changes the other's time: turns and best-of make that fair)."""
    times = [(_seconds(old, cases), _seconds(new, cases)) for _ in range(repeat)]
    return min(t[0] for t in times), min(t[1] for t in times)


def main_benchmark() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args().repeat
    rng = np.random.default_rng(0)
    print(f"{'path':18} {'case':28} {'baseline ms':>12} {'now ms':>9} {'ratio':>7}")
    for label, new, old, cases in (("pairs_max", _step_down(pairs_max_now),
                                    _step_down(baseline_pairs_max), board_cases(rng)),
                                   ("column_quantiles", column_quantiles,
                                    baseline_column_quantiles, quantile_cases(rng)),
                                   ("holm", _tiers(holm.ndtr, holm.ndtri),
                                    _tiers(lambda x: norm.sf(-x), lambda q: -norm.isf(q)),
                                    holm_cases(rng))):
        for case, args_list in cases.items():
            for args in args_list:
                assert new(*args).tobytes() == old(*args).tobytes(), (label, case)
            t_old, t_new = _best_of(new, old, args_list, repeat)
            print(f"{label:18} {case:28} {t_old * 1e3:12.2f} {t_new * 1e3:9.2f} "
                  f"{t_old / t_new:6.1f}x")


if __name__ == "__main__":
    main_benchmark()
