"""`leaderboard calibrate --scores-only`: the noise study and the scores-only calibration.

Runs :func:`leaderboard.studies.noise.auc_study` (each universe against real-model score families)
and :func:`leaderboard.studies.scores_calibration.run_board_design` (leaderboards of those families,
analysed from their scores alone and from their predictions), and, when available, the
correlation study of ``--correlation auto``; writes ``docs/scores_only.md`` and the summary the
report quotes (``data/noise_study.json``).
"""
from __future__ import annotations

import argparse
from functools import partial
from pathlib import Path

from leaderboard.cli import regression_study
from leaderboard.cli.common import write_output
from leaderboard.cli.regression_study import run_cells
from leaderboard.progress import Progress
from leaderboard.report.calibrate_report import (scores_only_markdown, write_study_json,
                                                 write_summary)
from leaderboard.studies.correlation import correlation_study
from leaderboard.studies.noise import auc_study
from leaderboard.studies.scores_calibration import default_board_designs, run_board_design
from leaderboard.safe_write import write_text

DEFAULT_OUTPUT = "docs/scores_only.md"


def run(args: argparse.Namespace) -> dict:
    """Run both studies from parsed ``calibrate`` arguments; write the page and the summary."""
    quick = args.quick
    # --quick is a smoke run of every step (its tables are never quoted): one small cell, and
    # the fewest draws the noise models take
    progress = Progress("noise study", quiet=args.quiet)
    progress.start(1)
    study = (auc_study(cells=((1000, 0.1),), aucs=(0.85,), draws=100, universe_draws=100,
                       seed=args.seed) if quick else auc_study(seed=args.seed))
    progress.advance()
    progress.close()
    designs = default_board_designs(quick=quick)
    boards = run_cells(designs, partial(run_board_design, alpha=args.alpha, seed=args.seed),
                       "scores-only competitions", args)
    progress = Progress("correlation study", quiet=args.quiet)
    progress.start(1)
    correlations = (correlation_study(boards=4, entries=(10,), rhos=(0.6,), seed=args.seed,
                                      alpha=args.alpha, replicates=300) if quick else
                    correlation_study(seed=args.seed, alpha=args.alpha))
    progress.advance()
    progress.close()
    # With -o, the regression page goes beside it (never over the repository's docs page: a
    # quick run from the tests once replaced the full study's tables there)
    beside = (None if args.output is None else
              str(Path(args.output).with_name(Path(args.output).stem + "_regression.md")))
    regression = regression_study.run(args, beside)["regression"]
    results = {"noise_study": study, "boards": boards, "correlation": correlations,
               "regression": regression, "alpha": args.alpha, "quick": quick}
    output = args.output or DEFAULT_OUTPUT
    write_output(lambda path: write_text(path, scores_only_markdown(results)), output)
    if not quick:   # the report quotes the full study only
        write_summary(study)
    if args.json:
        body = {k: results[k] for k in ("noise_study", "boards", "correlation", "regression")}
        write_output(partial(write_study_json, study="scores_only", body=body, alpha=args.alpha,
                             seed=args.seed, quick=args.quick), args.json)
    if not args.quiet:
        print(f"{len(study)} noise-study rows, {len(boards)} board cells; wrote {output}")
    return results
