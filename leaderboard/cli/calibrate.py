"""`leaderboard calibrate`: rerun the calibration study and write its table (docs/calibration.md).

The study itself is :mod:`leaderboard.studies.calibration`; this module runs its designs with a progress
bar and turns the results into the Markdown table the docs show, and optionally JSON.
"""
from __future__ import annotations

import argparse
import json
import math
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path

import pandas as pd

from leaderboard.studies.calibration import MODES, SCENARIOS, Design, default_designs, run_design
from leaderboard.cli.common import FRACTION, add_seed, count, echo, write_output
from leaderboard.errors import InputError
from leaderboard.progress import Progress
from leaderboard.tiers.ranking import TIER_METHODS


def add_parser(commands) -> None:
    """Register the `calibrate` command on the top-level subparsers."""
    p = commands.add_parser(
        "calibrate", help="rerun the calibration study (simulated competitions with known truth) "
                          "and write its table",
        description="Simulated competitions with known true scores, scored by the real pipeline "
                    "in both modes: how often each tier method puts the true best in tier 1, the "
                    "coverage of score and rank intervals, and the size of tier 1.")
    p.add_argument("-o", "--output", help="Markdown table path (default docs/calibration.md, "
                   "or docs/scores_only.md with --scores-only)")
    p.add_argument("--scores-only", action="store_true", help="instead: the noise study (each "
                   "universe against real models' score families) and leaderboards of those "
                   "families analysed from their scores alone")
    p.add_argument("--regression-only", action="store_true", help="with --scores-only: only "
                   "the regression study (RMSE and MAE coverage under five residual families; "
                   "docs/scores_only_regression.md)")
    p.add_argument("--json", help="also write every measure and its Monte Carlo SE as JSON")
    p.add_argument("--quick", action="store_true", help="a small version (a smoke run)")
    p.add_argument("--entries", type=count(2, 100_000), help="one board size only (with "
                   "--competitions)")
    p.add_argument("--competitions", type=count(2, 1_000_000), help="competitions per cell (with "
                   "--entries)")
    p.add_argument("--alpha", type=FRACTION, default=0.05, help="error rate (default 0.05)")
    add_seed(p)
    p.add_argument("--jobs", type=count(1, 256), default=1, help="cells run in parallel "
                   "processes (default 1; the numbers do not depend on it)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def _designs(args: argparse.Namespace) -> list[Design]:
    if (args.entries is None) != (args.competitions is None):
        raise InputError("give --entries and --competitions together")
    if args.entries is not None:
        if args.entries < 2 or args.competitions < 2:
            raise InputError("--entries and --competitions must be at least 2")
        return [Design(s, args.entries, m, args.competitions) for m in MODES for s in SCENARIOS]
    return default_designs(quick=args.quick)


def run(args: argparse.Namespace) -> pd.DataFrame:
    """Run the study from parsed arguments, write the table (and JSON); return the results."""
    if not 0 < args.alpha < 1:
        raise InputError(f"--alpha must be between 0 and 1, got {args.alpha:g}")
    if args.jobs < 1:
        raise InputError(f"--jobs must be at least 1, got {args.jobs}")
    if args.regression_only and not args.scores_only:
        raise InputError("--regression-only goes with --scores-only")
    if args.scores_only and args.regression_only:
        from leaderboard.cli import regression_study
        results = regression_study.run(args, args.output)
        if args.json:
            write_output(partial(write_study_json, args, "regression",
                                 {"regression": results["regression"]}), args.json)
        return results
    if args.scores_only:
        from leaderboard.cli import scores_study   # only this mode needs the noise study
        return scores_study.run(args)
    args.output = args.output or "docs/calibration.md"
    designs = _designs(args)
    progress = Progress("simulated competitions", quiet=args.quiet)
    progress.start(sum(d.competitions for d in designs))
    run_one = partial(run_design, alpha=args.alpha, seed=args.seed)
    if args.jobs == 1:
        rows = []
        for design in designs:
            rows.append(run_one(design))
            progress.advance(design.competitions)
    else:  # every cell is seeded on its own, so the order of completion changes nothing
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            futures = [pool.submit(run_one, d) for d in designs]
            for design, future in zip(designs, futures):
                future.add_done_callback(lambda _f, n=design.competitions: progress.advance(n))
            rows = [f.result() for f in futures]
    progress.close()
    results = pd.DataFrame(rows)
    write_output(lambda path: Path(path).write_text(markdown(results, args.alpha),
                                                    encoding="utf-8"), args.output)
    if args.json:
        write_output(partial(write_study_json, args, "tiers",
                             {"cells": results.to_dict(orient="records")}), args.json)
    if not args.quiet:
        echo(f"{len(designs)} cells, {sum(d.competitions for d in designs):,} competitions; "
             f"wrote {args.output}")
    return results


def write_study_json(args: argparse.Namespace, study: str, body: dict, path: str) -> None:
    """A study's results as strictly valid JSON (leaderboard/schema/calibrate.schema.json): the
    command, version and settings, then ``body``; a measure no competition defined is null."""
    from leaderboard import __version__

    document = {"command": "calibrate", "version": __version__, "study": study,
                "alpha": args.alpha, "seed": args.seed, "quick": bool(args.quick), **body}
    Path(path).write_text(json.dumps(_finite(document), indent=2, allow_nan=False) + "\n",
                          encoding="utf-8")


def _finite(value):
    """NaN and infinities as None, all the way down (JSON has no such numbers)."""
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _pct(value: float, se: float | None = None) -> str:
    text = f"{100 * value:.1f}"
    return text if se is None else f"{text} ± {100 * se:.1f}"


def markdown(results: pd.DataFrame, alpha: float) -> str:
    """The study as the Markdown page the docs ship (every rate with its Monte Carlo SE)."""
    target = f"{100 * (1 - alpha):g}%"
    methods = list(TIER_METHODS)
    lines = [
        "# Calibration study",
        "",
        "Regenerate with `leaderboard calibrate` (this whole page; `--quick` for a smoke run).",
        "Simulated competitions with known true accuracies on one shared test set of "
        f"{int(results['n_test'].iloc[0]):,} rows (see `leaderboard/studies/calibration.py` for the "
        "generator and the scenarios), scored by the real pipeline: *submissions* = paired "
        "bootstrap of the predictions, *scores* = the observed accuracies only (binomial "
        f"universe, entries assumed independent). alpha = {alpha:g}, so the target for every "
        f"coverage below is {target}. Rates are percentages ± one Monte Carlo standard error.",
        "",
        "## Is the true best in tier 1? (target at least " + target + ")",
        "",
        "Each best = the share of truly best entries in tier 1, the rate every method with a "
        "guarantee promises (there is one best entry except in the *ties* scenario, where three "
        "tie). All best = competitions in which every tied best entry is in tier 1 at once, a "
        "joint promise only the simultaneous rank sets make; it equals *each best* when the best "
        "is unique. Rank-set tier 1 is exactly the entries whose simultaneous rank set starts at "
        "1; its tiers are the layers of the simultaneous family's \"shown better\", so tiers "
        "hold = competitions in which every entry's tier was at most 1 + the number of entries "
        "truly better than it (the rank-set tiers' promise, all entries at once; for Holm and "
        "Scott-Knott only a description).",
        "",
        "| mode | entries | scenario | competitions | " + " | ".join(
            f"{m}: each best | {m}: all best | {m}: tier-1 size | {m}: tiers hold"
            for m in methods) + " |",
        "|" + "---|" * (4 + 4 * len(methods)),
    ]
    for _, r in results.iterrows():
        cells = [r["mode"], f"{int(r['entries']):,}", r["scenario"], f"{int(r['competitions'])}"]
        for m in methods:
            cells += [_pct(r[f"best_in_tier1[{m}]"], r[f"se:best_in_tier1[{m}]"]),
                      _pct(r[f"all_best_in_tier1[{m}]"], r[f"se:all_best_in_tier1[{m}]"]),
                      f"{r[f'tier1_size[{m}]']:.1f}",
                      _pct(r[f"tiers_hold[{m}]"], r[f"se:tiers_hold[{m}]"])]
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        "## Intervals and sets (target at least " + target + ")",
        "",
        "| mode | entries | scenario | score intervals | rank sets, each entry | "
        "rank sets, all at once | best set holds each best | best-set size | "
        "leader: raw error | leader: corrected error |",
        "|" + "---|" * 10,
    ]
    for _, r in results.iterrows():
        lines.append("| " + " | ".join([
            r["mode"], f"{int(r['entries']):,}", r["scenario"],
            _pct(r["score_cover"], r["se:score_cover"]),
            _pct(r["rank_cover"], r["se:rank_cover"]),
            _pct(r["rank_cover_all"], r["se:rank_cover_all"]),
            _pct(r["best_set_cover"], r["se:best_set_cover"]),
            f"{r['best_set_size']:.1f}",
            f"{r['leader_raw_error']:+.4f}", f"{r['leader_corrected_error']:+.4f}"]) + " |")
    lines += [
        "",
        "Score intervals and each-entry rank sets are averaged over entries; the all-at-once "
        "column counts competitions in which every entry's set held its true rank. The leader "
        "columns are the mean of (estimate - the observed leader's true accuracy): the raw "
        "score's error is the winner's curse, the corrected one what remains after the "
        "correction.",
        "",
    ]
    return "\n".join(lines)
