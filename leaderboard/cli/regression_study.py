"""`leaderboard calibrate --scores-only`: the regression part (alone with ``--regression-only``).

Runs :func:`leaderboard.studies.regression_calibration.run_regression_design` for every residual
family, metric and universe, and the real residuals' shapes; writes ``docs/scores_only_regression.md``
and the summary the report quotes (``data/regression_study.json``).
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path

from leaderboard.cli.common import write_output
from leaderboard.progress import Progress
from leaderboard.resources import data_dir
from leaderboard.studies.regression_calibration import (FAMILIES, default_regression_designs,
                                                        real_residual_shapes,
                                                        run_regression_design, summary)

DEFAULT_OUTPUT = "docs/scores_only_regression.md"


def run(args: argparse.Namespace, output: str | None = None) -> dict:
    """Run the regression study; write its page (and, unless quick, the quoted summary)."""
    designs = default_regression_designs(quick=args.quick)
    rows = run_cells(designs, partial(run_regression_design, alpha=args.alpha, seed=args.seed),
                     "regression competitions", args)
    shapes = real_residual_shapes(seed=args.seed).to_dict(orient="records")
    results = {"regression": rows, "residual_shapes": shapes, "alpha": args.alpha,
               "quick": bool(args.quick)}
    path = output or DEFAULT_OUTPUT
    write_output(lambda p: Path(p).write_text(markdown(results), encoding="utf-8"), path)
    if not args.quick:   # the report quotes the full study only
        write_summary(rows)
    return results


def run_cells(designs: list, run_one, label: str, args: argparse.Namespace) -> list[dict]:
    """``run_one`` on every design, in ``args.jobs`` spawned processes (spawn, not fork: the
    noise study may have started numba's OpenMP threads here), with a progress bar by
    competitions; the results in the designs' order."""
    progress = Progress(label, quiet=args.quiet)
    progress.start(sum(d.competitions for d in designs))
    if args.jobs == 1:
        rows = []
        for design in designs:
            rows.append(run_one(design))
            progress.advance(design.competitions)
    else:
        with ProcessPoolExecutor(max_workers=args.jobs,
                                 mp_context=multiprocessing.get_context("spawn")) as pool:
            futures = [pool.submit(run_one, d) for d in designs]
            for design, future in zip(designs, futures):
                future.add_done_callback(lambda _f, n=design.competitions: progress.advance(n))
            rows = [f.result() for f in futures]
    progress.close()
    return rows


def write_summary(rows: list[dict], path: Path | None = None) -> Path:
    """What the report quotes: per universe and metric, the coverage averaged over the families
    and in the worst one (:func:`~leaderboard.studies.regression_calibration.summary`)."""
    path = path or data_dir() / "regression_study.json"
    path.write_text(json.dumps(summary(rows), indent=2) + "\n", encoding="utf-8")
    return path


def _pct(value: float, se: float) -> str:
    return f"{100 * value:.1f} ± {100 * se:.1f}"


def markdown(results: dict) -> str:
    """The page: real residuals' shapes, then coverage per family, metric and universe."""
    target = f"{100 * (1 - results['alpha']):g}%"
    lines = [
        "# Scores only, regression: do RMSE and MAE intervals hold under real residuals?",
        "",
        "Regenerate with `leaderboard calibrate --scores-only --regression-only --jobs 2` "
        "(this page; `leaderboard calibrate --scores-only` writes it too).",
        "",
        "## Real residuals",
        "",
        "Held-out residuals (5-fold cross-validation) of scikit-learn models on its bundled "
        "regression data sets (`real_residual_shapes` in "
        "`leaderboard/studies/regression_calibration.py`). Normal residuals have excess "
        "kurtosis 0 and skew 0.",
        "",
        "| data | rows | model | excess kurtosis | skew |",
        "|---|---|---|---|---|",
    ]
    for r in results["residual_shapes"]:
        lines.append(f"| {r['data']} | {r['rows']:,} | {r['model']} | "
                     f"{r['excess_kurtosis']:.2f} | {r['skew']:.2f} |")
    lines += [
        "",
        "## Coverage of the true score, scores only",
        "",
        "Each competition: entries whose true RMSEs run from 1 to 1.5, each scored on its own "
        "test set of residuals of one family (" + ", ".join(FAMILIES) + "; defined in "
        "`leaderboard/studies/regression_calibration.py`), analysed by `leaderboard analyze` "
        "from the scores alone with the universe named. *Coverage*: the share of entries whose "
        f"interval holds the true RMSE (or MAE), target {target}, ± one Monte Carlo SE "
        "(binomial, over the cell's entries). *Width*: the interval's width over the true "
        "score, on average. The default universe is Student t with 3 degrees of freedom.",
        "",
        "| universe | metric | rows | family | coverage | width | true best in tier 1 |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in results["regression"]:
        lines.append(f"| {r['universe']} | {r['metric'].upper()} | {r['n_test']:,} | "
                     f"{r['family']} | {_pct(r['score_cover'], r['se:score_cover'])} | "
                     f"{r['relative_width']:.3f} | "
                     f"{_pct(r['best_in_tier1'], r['se:best_in_tier1'])} |")
    lines += ["", "## Summary (both sizes pooled per family)", "",
              "| universe | metric | coverage, mean over families | worst family | "
              "coverage, worst family |", "|---|---|---|---|---|"]
    for universe, metrics in summary(results["regression"]).items():
        for metric, q in metrics.items():
            lines.append(f"| {universe} | {metric.upper()} | "
                         f"{_pct(q['coverage_mean'], q['coverage_mean_se'])} | "
                         f"{q['worst_family']} | "
                         f"{_pct(q['coverage_min'], q['coverage_min_se'])} |")
    lines += ["", "The same default applies to every regression metric (RMSE, MSE, MAE, MedAE, "
              "R², explained variance on the additive scale; RMSLE, MSLE, MAPE, SMAPE on the "
              "multiplicative one); this study measures RMSE and MAE.", ""]
    return "\n".join(lines)
