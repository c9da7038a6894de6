"""Benchmark: scores-only AUC boards of 1,000 to 100,000 entries, end to end and step by step.

Three parts, all on the board of bench_scores_only.py (``0.93 - Gamma(2, 0.03)``, clipped to
[0.5, 1], five decimals; 10,000 test rows, 10% positives, 2,000 draws and replicates):

1. **End to end** (``--sizes``): ``leaderboard analyze board.csv --metric auc ...`` (HTML and JSON
   written) in a subprocess per size, its wall time and peak RSS (``os.wait4`` of that child),
   and the ratio of the times at 10k and 1k entries (issue 16: within 5x).
2. **Steps** (``--steps``): each step of the scores pipeline timed with perf_counter in this
   process, with its peak RSS above what was held before it (the kernel's high-water mark, reset
   before each step). ``--skip-rank-sets`` leaves out the rank confidence sets, the best set
   and the significance map (timed by bench_rank_sets.py) and stands in trivial ones for the
   report, here and in the end-to-end runs (in this script's processes only), so that what is
   left shows.
3. **Old code** (``--old``, default 1000,10000): the whole-array code of the steps issue 16
   changed (tests/scale_reference.py) against the package's, in this process on the same
   replicates, with the ratio at each size and how each side grew from 1k to 10k.

``--post-mortem`` gives the boards a public score (private plus noise) and --n-public/--n-private,
so the post-mortem runs too. Timings on a shared machine are noisy: compare ratios of one run.

    python benchmarks/bench_scale_scores.py [--sizes 1000,10000,100000] [--steps 10000,100000]
        [--old 1000,10000] [--skip-rank-sets] [--post-mortem]
"""
from __future__ import annotations

import argparse
import gc
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # scale_reference

N_TEST, PREVALENCE, N_PUBLIC, N_PRIVATE = 10000, 0.1, 3000, 7000


def board(n: int, post_mortem: bool) -> pd.DataFrame:
    """The benchmark board; with ``post_mortem``, public scores noisier than the private ones."""
    rng = np.random.default_rng(0)
    scores = np.clip(0.93 - rng.gamma(2.0, 0.03, size=n), 0.5, 1.0).round(5)
    frame = pd.DataFrame({"team": [f"team {i}" for i in range(n)], "score": scores})
    if post_mortem:
        public = np.clip(scores + 0.01 * rng.standard_normal(n), 0.5, 1.0).round(5)
        frame = pd.DataFrame({"team": frame["team"], "public": public, "private": scores})
    return frame


def cli_args(csv: Path, out: Path, args) -> list[str]:
    argv = ["analyze", str(csv), "--metric", "auc", "--n-test", str(N_TEST), "--prevalence",
            str(PREVALENCE), "--draws", str(args.draws), "--replicates", str(args.replicates),
            "--quiet", "-o", str(out / "report.html"), "--json", str(out / "report.json")]
    if args.post_mortem:
        argv += ["--public-col", "public", "--private-col", "private", "--n-public",
                 str(N_PUBLIC), "--n-private", str(N_PRIVATE)]
    return argv


def end_to_end(n: int, args) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one ``leaderboard analyze`` run in its own process."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        board(n, args.post_mortem).to_csv(tmp / "board.csv", index=False)
        start = time.perf_counter()
        # with --skip-rank-sets the child is this script, which stands in trivial rank sets and
        # then runs the command line as it is
        runner = [__file__, "--child"] if args.skip_rank_sets else ["-m", "leaderboard"]
        child = subprocess.Popen([sys.executable, *runner,
                                  *cli_args(tmp / "board.csv", tmp, args)])
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"leaderboard analyze failed on {n} entries (status {status})")
    return seconds, usage.ru_maxrss / 1024  # kB on Linux


# ---- steps in this process ------------------------------------------------------------------

def _status(key: str) -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key):
                return int(line.split()[1]) / 1024
    return float("nan")


class Steps:
    """Times each step (wall and CPU seconds of the process, every thread); peak RSS above the
    RSS before it (Linux high-water mark, reset), and the process's peak RSS during the step."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, float, float, float, float]] = []

    def __call__(self, name, fn, *a, **k):
        gc.collect()
        try:
            Path("/proc/self/clear_refs").write_text("5")   # reset VmHWM to the current RSS
        except OSError:
            pass
        before = _status("VmRSS")
        start, cpu = time.perf_counter(), time.process_time()
        out = fn(*a, **k)
        high = _status("VmHWM")
        self.rows.append((name, time.perf_counter() - start, time.process_time() - cpu,
                          high - before, high))
        return out


def trivial_sets(reps, alpha=0.05, *, simultaneous=True, batch=None):
    """Stand-in rank sets for --skip-rank-sets: every entry's set is every rank."""
    from leaderboard.tiers.rank_sets import RankSets
    from leaderboard.tiers.shown_better import ShownBetter
    n = reps.n_entries
    rel = ShownBetter(reps.point, np.zeros(n + 1, dtype=np.int64), np.zeros(0, np.int32), 0.0)
    return RankSets(low=np.ones(n, int), high=np.full(n, n), simultaneous=simultaneous,
                    alpha=alpha, steps=0, pairs_examined=0, pairs_screened=0,
                    critical_value=np.zeros(n), shown_better=rel if simultaneous else None)


def trivial_map(sets, reps, k):
    from leaderboard.tiers.shown_better import SignificanceMap
    return SignificanceMap(t=np.full((k, k), np.nan), significant=np.zeros((k, k), bool),
                           critical_value=0.0, alpha=sets.alpha)


def skip_rank_sets() -> None:
    """Trivial rank sets, best set and map, in this process only (the package is untouched)."""
    from leaderboard.tiers import ranking
    ranking.rank_confidence_sets = trivial_sets
    ranking.best_set = lambda reps, alpha=0.05: np.ones(reps.n_entries, bool)
    ranking.significance_map = trivial_map


def steps(n: int, args) -> list[tuple[str, float, float]]:
    """Every step of ``analyze`` on an n-entry board, called one by one."""
    from leaderboard.flags import board_flags
    from leaderboard.ingest.leaderboards import read_leaderboard
    from leaderboard.metrics import get_metric
    from leaderboard.noise.grid import build_noise_model
    from leaderboard.options import NoiseOptions, RankOptions
    from leaderboard.pipelines import scores as pipeline
    from leaderboard.slices import SliceSizes
    from leaderboard.pipelines.shakeup import shakeup_from_scores, slice_noise
    from leaderboard.report import write_html, write_json
    from leaderboard.tiers import ranking
    from leaderboard.tiers.holm import leader_anchored_tiers, paired_p_values
    from leaderboard.tiers.replicates import RankReplicates
    from leaderboard.tiers.scott_knott import scott_knott_esd
    from leaderboard.tiers.stability import stability
    from leaderboard.tiers.winners_curse import winners_curse

    if args.skip_rank_sets:
        skip_rank_sets()
    step, metric = Steps(), get_metric("auc")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        board(n, args.post_mortem).to_csv(tmp / "board.csv", index=False)
        cols = {"public_col": "public", "private_col": "private"} if args.post_mortem else {}
        lb = step("read the board", read_leaderboard, tmp / "board.csv", higher_is_better=True,
                  **cols)
        table = pipeline.rank_entries(lb.entries, True)
        s = table["score"].to_numpy(float)
        if args.post_mortem:
            pub, priv = (table[f"{k}_score"].to_numpy(float) for k in ("public", "private"))
            post = pipeline.Settings(
                metric, NoiseOptions(higher_is_better=True, prevalence=PREVALENCE,
                                     draws=args.draws),
                RankOptions(replicates=args.replicates,
                            method="holm" if args.skip_rank_sets else "rank-sets"),
                SliceSizes(ranking=N_TEST, public=N_PUBLIC, private=N_PRIVATE))
            sliced = step("post-mortem: both slices' noise", slice_noise, pub, priv, post)
            step("post-mortem: the rest", shakeup_from_scores, pub, priv, post, noise=sliced)
        noise = step("noise model (simulation)", build_noise_model, metric, s,
                     leader_score=float(s[0]), n_test=N_TEST, prevalence=PREVALENCE,
                     draws=args.draws, leader_at_noise_level=True)
        sd = noise.interval_sd(s)
        reps = step("RankReplicates.normal", RankReplicates.normal, s, sd, 0.0, True,
                    replicates=args.replicates)
        if not args.skip_rank_sets:
            sim = step("rank sets, simultaneous", ranking.rank_confidence_sets, reps, 0.05)
            step("rank sets, marginal", ranking.rank_confidence_sets, reps, 0.05,
                 simultaneous=False)
            step("best set", ranking.best_set, reps, 0.05)
            step("rank-set tiers", ranking.rank_set_tiers, sim)
            step("significance map", ranking.significance_map, sim, reps, min(20, n))
        step("Holm tiers", leader_anchored_tiers, n, paired_p_values(reps), 0.05)
        step("Scott-Knott tiers", scott_knott_esd, reps, 0.05)
        step("stability (P(best), taus, blobs)", stability, reps, (3,), min(20, n))
        step("winner's curse", winners_curse, reps, 0.05)
        from leaderboard.pipelines.assumptions import SWEEP_REPLICATES, correlation_sweep
        step("correlation sweep (assumptions)", correlation_sweep, s, sd, True, alpha=0.05,
             tier_method="rank-sets", replicates=min(args.replicates, SWEEP_REPLICATES),
             known={0.0: (0, 0)})
        step("sanity flags", board_flags, table["team"], table["score"], metric, True)
        del reps
        settings = pipeline.Settings(
            metric, NoiseOptions(higher_is_better=True, prevalence=PREVALENCE, draws=args.draws,
                                 correlation=0.0),
            RankOptions(replicates=args.replicates),
            SliceSizes(ranking=N_TEST, public=N_PUBLIC if args.post_mortem else None,
                       private=N_PRIVATE if args.post_mortem else None))
        t0, c0 = time.perf_counter(), time.process_time()
        analysis = pipeline.analyze(lb, settings)   # the whole pipeline again, for the report
        whole, whole_cpu = time.perf_counter() - t0, time.process_time() - c0
        step("report: HTML", write_html, analysis, str(tmp / "report.html"))
        step("report: JSON", write_json, analysis, str(tmp / "report.json"))
        step.rows.append(("(the whole pipeline in one call)", whole, whole_cpu, float("nan"),
                          float("nan")))
    return step.rows


# ---- old code --------------------------------------------------------------------------------

def old_vs_new(n: int, args) -> list[tuple[str, float, float]]:
    """(step, old seconds, new seconds) on one n-entry board's replicates."""
    import scale_reference as ref
    from leaderboard.shakeup import NoiseDraws, overfit_test, shakeup_baseline, shakeup_stats
    from leaderboard.shakeup.truth import estimate_truth
    from leaderboard.tiers.holm import leader_anchored_tiers, paired_p_values
    from leaderboard.tiers.replicates import RankReplicates
    from leaderboard.tiers.stability import stability
    from leaderboard.tiers.winners_curse import winners_curse

    s = board(n, False)["score"].sort_values(ascending=False).to_numpy()
    sd = 0.004 + 0.01 * (1 - s)
    r = args.replicates

    def timed(fn, *a, **k):
        start = time.perf_counter()
        out = fn(*a, **k)
        return out, time.perf_counter() - start

    rows = []
    _, t_old = timed(ref.normal_errors, s, sd, 0.0, r, 0)
    reps, t_new = timed(RankReplicates.normal, s, sd, 0.0, True, replicates=r)
    rows.append(("normal replicates", t_old, t_new))
    old = [timed(f, *a)[1] for f, a in ((ref.rank_probabilities, (reps, (3,))),
                                         (ref.kendall_taus, (reps,)),
                                         (ref.rank_frequencies, (reps, min(20, n))))]
    rows.append(("stability", sum(old), timed(stability, reps, (3,), min(20, n))[1]))
    rows.append(("winner's curse", timed(ref.winners_curse_levels, reps)[1],
                 timed(winners_curse, reps)[1]))
    pv = paired_p_values(reps)
    rows.append(("Holm tiers", timed(leader_anchored_tiers, n, lambda a, o: pv(a, o))[1],
                 timed(leader_anchored_tiers, n, pv)[1]))
    rng = np.random.default_rng(1)
    public = s + 0.01 * rng.standard_normal(n)
    truth, t_new = timed(estimate_truth, s, sd)
    rows.append(("post-mortem: true scores", timed(ref.posterior_means, s, sd)[1], t_new))
    draws = NoiseDraws.normal(truth, sd * 1.5, sd, True, replicates=r)
    observed = shakeup_stats(public, s, True)
    arrays, t_draw = timed(lambda: NoiseDraws(truth=draws.truth,
                                              public_errors=np.array(draws.public_errors),
                                              private_errors=np.array(draws.private_errors)))
    _, t_old = timed(ref.shakeup_baseline_arrays, arrays, observed)
    rows.append(("post-mortem: noise baseline", t_draw + t_old,
                 timed(shakeup_baseline, draws, observed)[1]))
    test, t_new = timed(overfit_test, public, s, draws, True)
    rows.append(("post-mortem: overfitting test", timed(ref.overfit_null_arrays, arrays,
                                                         test.top_size)[1], t_new))
    return rows


def main() -> None:
    if sys.argv[1:2] == ["--child"]:   # an end-to-end run with the rank sets skipped
        from leaderboard.cli import main as cli
        skip_rank_sets()
        raise SystemExit(cli(sys.argv[2:]))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sizes = lambda text: [int(x) for x in text.split(",") if x]   # noqa: E731
    parser.add_argument("--sizes", type=sizes, default=[1000, 10000, 100000])
    parser.add_argument("--steps", type=sizes, default=[])
    parser.add_argument("--old", type=sizes, default=[1000, 10000])
    parser.add_argument("--draws", type=int, default=2000)
    parser.add_argument("--replicates", type=int, default=2000)
    parser.add_argument("--skip-rank-sets", action="store_true")
    parser.add_argument("--post-mortem", action="store_true")
    args = parser.parse_args()
    mode = "with the post-mortem" if args.post_mortem else "scores only"
    print(f"AUC board, {mode}; n_test {N_TEST}, prevalence {PREVALENCE}, {args.draws} draws, "
          f"{args.replicates} replicates")
    ends = {}
    for n in args.sizes:
        ends[n] = end_to_end(n, args)
        print(f"end to end {n:>7,} entries: {ends[n][0]:8.1f} s, peak RSS {ends[n][1]:7,.0f} MB",
              flush=True)
    if 1000 in ends and 10000 in ends:
        print(f"time ratio 10k / 1k: {ends[10000][0] / ends[1000][0]:.1f}x (issue 16: at most 5x)")
    for n in args.steps:
        print(f"\nsteps at {n:,} entries{' (rank sets skipped)' if args.skip_rank_sets else ''}:")
        print(f"  {'step':36s} {'wall':>8s}   {'CPU':>8s}   {'above before':>13s} "
              f"{'process peak':>13s}")
        for name, seconds, cpu, peak, high in steps(n, args):
            print(f"  {name:36s} {seconds:8.2f} s {cpu:8.2f} s   +{peak:8,.0f} MB "
                  f"{high:9,.0f} MB")
    if args.old:   # compile and load every kernel first, so no size pays for it
        old_vs_new(200, argparse.Namespace(**{**vars(args), "replicates": 64}))
    old = {n: old_vs_new(n, args) for n in args.old}
    if old:
        print("\nold whole-array code vs now, same replicates, this process:")
        print(f"  {'step':32s}" + "".join(f"{f'{n:,}: old / new':>26s}" for n in old))
        for i, name in enumerate(r[0] for r in next(iter(old.values()))):
            cells = "".join(f"{old[n][i][1]:9.2f} / {old[n][i][2]:6.2f} s {old[n][i][1] / old[n][i][2]:5.1f}x"
                            for n in old)
            print(f"  {name:32s}{cells}")
        if 1000 in old and 10000 in old:
            print("  growth from 1k to 10k (time at 10k / time at 1k), old and now:")
            for a, b in zip(old[1000], old[10000]):
                print(f"    {a[0]:32s} old {b[1] / a[1]:6.1f}x   now {b[2] / a[2]:6.1f}x")


if __name__ == "__main__":
    main()
