"""`leaderboard calibrate`: rerun the calibration study and write its table (docs/calibration.md).

The study itself is :mod:`leaderboard.studies.calibration`; this module runs its designs with a progress
bar; :mod:`leaderboard.report.calibrate_report` writes the Markdown table the docs show, and JSON.
"""
from __future__ import annotations

import argparse
from concurrent.futures import ProcessPoolExecutor
from functools import partial

import pandas as pd

from leaderboard.params import check
from leaderboard.studies.calibration import MODES, SCENARIOS, Design, default_designs, run_design
from leaderboard.cli.common import COMMANDS, add_parameter, advance_by, count, echo, write_output
from leaderboard.errors import InputError
from leaderboard.progress import Progress
from leaderboard.safe_write import write_text


def add_parser(commands) -> None:
    """Register the `calibrate` command on the top-level subparsers."""
    p = commands.add_parser(
        "calibrate", help=COMMANDS["calibrate"],
        description="Simulated competitions with known true scores, scored by the real pipeline "
                    "in both modes: how often each tier method puts the true best in tier 1, the "
                    "coverage of score and rank intervals, and the size of tier 1.")
    p.add_argument("-o", "--output", help="Markdown table path (default docs/calibration.md, "
                   "or docs/scores_only.md with --scores-only)")
    p.add_argument("--scores-only", action="store_true", help="instead: the noise study (each "
                   "universe against real models' score families) and leaderboards of those "
                   "families analysed from their scores alone")
    p.add_argument("--regression-only", action="store_true", help="with --scores-only: only "
                   "the regression study (RMSE, MAE, RMSLE, MAPE and R2 coverage under five "
                   "residual families; docs/scores_only_regression.md)")
    p.add_argument("--json", help="also write every measure and its Monte Carlo SE as JSON")
    p.add_argument("--quick", action="store_true", help="a small version (a smoke run)")
    p.add_argument("--entries", type=count(2, 100_000), help="one board size only (with "
                   "--competitions)")
    p.add_argument("--competitions", type=count(2, 1_000_000), help="competitions per cell (with "
                   "--entries)")
    for name in ("alpha", "seed"):
        add_parameter(p, name, "calibrate")
    add_parameter(p, "jobs", "calibrate")
    add_parameter(p, "quiet", "calibrate", action="store_true")


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
    # the report package loads Altair (~0.4 s): only when a study's table is written, so that
    # every other command (and --help) starts without it
    from leaderboard.report.calibrate_report import (tiers_markdown, with_kept_tail,
                                                     write_study_json)

    check("alpha", args.alpha, where="--alpha")
    if args.jobs < 1:
        raise InputError(f"--jobs must be at least 1, got {args.jobs}")
    if args.regression_only and not args.scores_only:
        raise InputError("--regression-only goes with --scores-only")
    if args.scores_only and args.regression_only:
        from leaderboard.cli import regression_study
        results = regression_study.run(args, args.output)
        if args.json:
            write_output(partial(write_study_json, study="regression",
                                 body={"regression": results["regression"]}, alpha=args.alpha,
                                 seed=args.seed, quick=args.quick), args.json)
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
                future.add_done_callback(advance_by(progress, design.competitions))
            rows = [f.result() for f in futures]
    progress.close()
    results = pd.DataFrame(rows)
    write_output(lambda path: write_text(path, with_kept_tail(tiers_markdown(results, args.alpha),
                                                              path)), args.output)
    if args.json:
        write_output(partial(write_study_json, study="tiers",
                             body={"cells": results.to_dict(orient="records")},
                             alpha=args.alpha, seed=args.seed, quick=args.quick), args.json)
    if not args.quiet:
        echo(f"{len(designs)} cells, {sum(d.competitions for d in designs):,} competitions; "
             f"wrote {args.output}")
    return results
