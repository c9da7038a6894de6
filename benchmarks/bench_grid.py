"""Benchmark: the seeds' 27-case grid at 1000 draws per case, ours against the seeds' own procedure.

Both run in this process on the same grid (true ROC .7/.8/.9 x n 1000/5000/10000 x prevalence
1%/5%/20%). Ours is :func:`leaderboard.pipelines.simulate.run_experiment`: every statistic the simulate
report shows (d95 without a pairwise matrix, quantiles, pairwise ECDF, ahead probabilities, partial
correlations). The seeds' procedure, per case: the universe built as they build it (documented in
:class:`~leaderboard.noise.universes.SeedsAUCUniverse`), then per draw m positives and k negatives
drawn with replacement and one scikit-learn ``roc_auc_score`` call, then
``sklearn.metrics.pairwise_distances`` over the draws and the 95th percentile of its upper triangle.
The two d95 must agree within Monte Carlo error. Prints the ratio of the wall times.

    python benchmarks/bench_grid.py [--draws 1000] [--seed 0] [--quick]

``--quick`` runs the seeds' procedure on 100 draws per case and extrapolates the time of the draws
linearly to ``--draws``; its d95 comes from those 100 draws (so agreement is checked more loosely)
and the pairwise_distances step is timed at full size on the 100 draws repeated.
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np
from sklearn.metrics import pairwise_distances, roc_auc_score

from leaderboard.pipelines.simulate import grid_lists, run_experiment
from leaderboard.metrics import get_metric
from leaderboard.noise.universes import SeedsAUCUniverse, class_counts, get_universe

REL_SE_D95 = 0.9  # relative SE of d95 is 0.9 / sqrt(draws), measured (see tests/pipelines/test_simulate.py)


def seeds_case(auc: float, n_test: int, prevalence: float, draws: int, d95_draws: int,
               rng: np.random.Generator) -> tuple[float, float, float]:
    """The seeds' procedure for one case: (d95, seconds for the draws, seconds for d95)."""
    neg, pos = SeedsAUCUniverse()._grids(max(auc, 1 - auc))  # exactly the seeds' universe
    m, k = class_counts(n_test, prevalence)
    labels = np.r_[np.zeros(k), np.ones(m)]
    start = time.perf_counter()
    rocs = []
    for _ in range(draws):
        scores = np.r_[neg[rng.integers(0, neg.size, k)], pos[rng.integers(0, pos.size, m)]]
        rocs.append(roc_auc_score(labels, scores))
    drawn = time.perf_counter()
    dist = pairwise_distances(np.array(rocs).reshape(-1, 1))
    d95 = float(np.percentile(dist[np.triu_indices(draws, k=1)], 95))
    done = time.perf_counter()
    if d95_draws != draws:  # --quick: time the d95 step at its full size on repeated draws
        sample = np.resize(np.array(rocs), d95_draws)
        drawn = time.perf_counter()
        dist = pairwise_distances(sample.reshape(-1, 1))
        np.percentile(dist[np.triu_indices(d95_draws, k=1)], 95)
        done = time.perf_counter()
    return d95, drawn - start, done - drawn


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3, help="time our side this many times and "
                        "keep the fastest (the machine may be shared; default 3)")
    parser.add_argument("--quick", action="store_true", help="seeds' side on 100 draws per case, "
                        "its time extrapolated to --draws")
    args = parser.parse_args()
    auc = get_metric("auc")
    scores, n_tests, prevalences = grid_lists(None, None, None)

    # Warm both sides up on a tiny case (imports, first-call overheads), then time.
    run_experiment(auc, [0.8], [1000], [0.2], draws=100, seed=args.seed)
    roc_auc_score([0, 1, 0, 1], [0.1, 0.9, 0.3, 0.2])
    ours_seconds = math.inf
    for _ in range(max(args.repeat, 1)):
        start = time.perf_counter()
        ours = run_experiment(auc, scores, n_tests, prevalences, draws=args.draws, seed=args.seed)
        ours_seconds = min(ours_seconds, time.perf_counter() - start)
    simulate_seconds = math.inf  # the universe's share of our time, for the profile line
    for _ in range(max(args.repeat, 1)):
        start = time.perf_counter()
        for n in n_tests:
            for p in prevalences:
                get_universe(auc, n, p).simulate(np.array(scores), n, p, args.draws, args.seed)
        simulate_seconds = min(simulate_seconds, time.perf_counter() - start)

    seeds_draws = 100 if args.quick else args.draws
    rng = np.random.default_rng(args.seed)
    draw_seconds = d95_seconds = 0.0
    rows = []
    for case in ours.cases:
        d95, t_draws, t_d95 = seeds_case(case.score, case.n_test, case.prevalence, seeds_draws,
                                         args.draws, rng)
        draw_seconds += t_draws
        d95_seconds += t_d95
        rows.append((case, d95))
    seeds_seconds = draw_seconds * args.draws / seeds_draws + d95_seconds

    # Agreement: each case within 4 SE of the difference, and the mean log-ratio within 4 SE of 0
    # counting 9 independent test-set kinds on our side (3 cases of a kind share test sets).
    se_ours = REL_SE_D95 / math.sqrt(args.draws)
    se_seeds = REL_SE_D95 / math.sqrt(seeds_draws)
    print(f"{'ROC':>4} {'n':>6} {'prev':>5} {'d95 ours':>9} {'d95 seeds':>9} {'ratio':>6}")
    ratios = []
    for case, d95 in rows:
        ratios.append(d95 / case.d95)
        print(f"{case.score:4.1f} {case.n_test:6d} {case.prevalence:5.2f} {case.d95:9.4f} "
              f"{d95:9.4f} {ratios[-1]:6.3f}")
    per_case = 4 * math.hypot(se_ours, se_seeds)
    log_ratios = np.log(ratios)
    mean_tol = 4 * math.hypot(se_ours / 3, se_seeds / math.sqrt(len(rows)))
    bad = [f"{c.score:g}/{c.n_test}/{c.prevalence:g}" for (c, _), r in zip(rows, log_ratios)
           if abs(r) > per_case]
    print(f"agreement: every case within {per_case:.1%} (4 SE): "
          f"{'yes' if not bad else 'NO: ' + ', '.join(bad)}; mean log-ratio "
          f"{log_ratios.mean():+.4f} (tolerance {mean_tol:.4f}): "
          f"{'yes' if abs(log_ratios.mean()) <= mean_tol else 'NO'}")

    note = f" (measured on {seeds_draws} draws per case, extrapolated)" if args.quick else ""
    print(f"27 cases x {args.draws} draws")
    print(f"ours (run_experiment, all statistics, fastest of {max(args.repeat, 1)}): "
          f"{ours_seconds:.2f} s, of which the universe's simulate {simulate_seconds:.2f} s")
    print(f"seeds' procedure: {seeds_seconds:.1f} s = roc_auc_score draws "
          f"{draw_seconds * args.draws / seeds_draws:.1f} s{note} + pairwise_distances d95 "
          f"{d95_seconds:.2f} s")
    print(f"ratio seeds / ours: {seeds_seconds / ours_seconds:.0f}x (target >= 100x)")


if __name__ == "__main__":
    main()
