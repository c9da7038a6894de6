"""`leaderboard calibrate --scores-only`: the noise study and the scores-only calibration.

Runs :func:`leaderboard.studies.noise.auc_study` (each universe against real-model score families)
and :func:`leaderboard.studies.scores_calibration.run_board_design` (leaderboards of those families,
analysed from their scores alone and from their predictions), and, when available, the
correlation study of ``--correlation auto``; writes ``docs/scores_only.md`` and the summary the
report quotes (``data/noise_study.json``).
"""
from __future__ import annotations

import argparse
import json
from functools import partial
from pathlib import Path

from leaderboard.cli import regression_study
from leaderboard.cli.calibrate import write_study_json
from leaderboard.cli.regression_study import run_cells
from leaderboard.cli.common import write_output
from leaderboard.studies.correlation import correlation_study, markdown_table
from leaderboard.studies.noise import auc_study, auc_summary
from leaderboard.progress import Progress
from leaderboard.resources import data_dir
from leaderboard.studies.scores_calibration import default_board_designs, run_board_design

DEFAULT_OUTPUT = "docs/scores_only.md"


def run(args: argparse.Namespace) -> dict:
    """Run both studies from parsed ``calibrate`` arguments; write the page and the summary."""
    quick = args.quick
    cells = ((3000, 0.1),) if quick else None
    progress = Progress("noise study", quiet=args.quiet)
    progress.start(1)
    study = auc_study(**({"cells": cells, "aucs": (0.85,), "draws": 100,
                          "universe_draws": 300} if quick else {}), seed=args.seed)
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
    regression = regression_study.run(args)["regression"]
    results = {"noise_study": study, "boards": boards, "correlation": correlations,
               "regression": regression, "alpha": args.alpha, "quick": quick}
    output = args.output or DEFAULT_OUTPUT
    write_output(lambda path: Path(path).write_text(markdown(results), encoding="utf-8"), output)
    if not quick:   # the report quotes the full study only
        write_summary(study)
    if args.json:
        body = {k: results[k] for k in ("noise_study", "boards", "correlation", "regression")}
        write_output(partial(write_study_json, args, "scores_only", body), args.json)
    if not args.quiet:
        print(f"{len(study)} noise-study rows, {len(boards)} board cells; wrote {output}")
    return results


def write_summary(study: list[dict], path: Path | None = None) -> Path:
    """What the report quotes of the study, per universe: the range of its SD ratio over every
    family and cell, the lowest and the mean coverage, and how many families it was tried on."""
    summary = auc_summary(study)
    quoted = {universe: {"sd_ratio_min": round(float(g["sd_ratio_min"].min()), 3),
                         "sd_ratio_max": round(float(g["sd_ratio_max"].max()), 3),
                         "coverage_min": round(float(g["coverage_min"].min()), 4),
                         "coverage_mean": round(float(g["coverage_mean"].mean()), 4),
                         "families": int(len(g))}
              for universe, g in summary.groupby("universe", sort=False)}
    path = path or data_dir() / "noise_study.json"
    path.write_text(json.dumps(quoted, indent=2) + "\n", encoding="utf-8")
    return path


def _pct(value: float, se: float | None = None) -> str:
    return f"{100 * value:.1f}" + ("" if se is None else f" ± {100 * se:.1f}")


def markdown(results: dict) -> str:
    """The page: the noise study's summary, then the leaderboards' rates."""
    summary = auc_summary(results["noise_study"])
    target = f"{100 * (1 - results['alpha']):g}%"
    lines = [
        "# Scores only: does the noise match real models, and do the tiers keep their promise?",
        "",
        "Regenerate with `leaderboard calibrate --scores-only --jobs 2` (this whole page).",
        "",
        "## The noise study (AUC)",
        "",
        "Six families of real models' score distributions with known truth "
        "(`leaderboard/studies/noise.py`): equal-SD normal scores, the minority class's scores "
        "twice as spread, the majority's twice as spread, exponential scores (Hanley and McNeil), "
        "scores cut into 10 tied levels, and a latent-signal logistic model. Each is tried at "
        "true AUCs 0.7, 0.85 and 0.95 on test sets of 1,000 rows at 1% positives, 3,000 at 10%, "
        "10,000 at 20% and 500 at 50%. *SD ratio*: the universe's exact SD over the family's "
        "exact SD (U-statistic variance) at the same truth, size and balance: below 1 the "
        "universe understates the noise. *Coverage*: the share of the family's observed AUCs "
        f"whose {target} interval from the universe holds its true AUC (lowest cell ± one "
        "binomial SE).",
        "",
        "| family | universe | SD ratio | coverage, mean | coverage, lowest cell |",
        "|---|---|---|---|---|",
    ]
    for _, r in summary.iterrows():
        lines.append(f"| {r['family']} | {r['universe']} | {r['sd_ratio_min']:.2f}–"
                     f"{r['sd_ratio_max']:.2f} | {_pct(r['coverage_mean'])} | "
                     f"{_pct(r['coverage_min'], r['coverage_min_se'])} |")
    default = "binormal, minority spread 2"
    lines += [
        "",
        f"The default AUC universe is the last one, *{default}* (`--spread 2`): the noisiest "
        "shape of the families, so its intervals are not narrower than any family's. "
        "`--universe linspace` is the seed articles' universe (it reproduces their figures) and "
        "`--spread 1` the equal-SD binormal.",
        "",
        "## Leaderboards of these families, scores only (default settings)",
        "",
        "Each competition: entries with known true AUCs (dense at the top), scored on one shared "
        "test set of 3,000 rows at 10% positives, 30% public, entries correlated through a "
        "shared row difficulty (`leaderboard/studies/scores_calibration.py`). The public and private "
        "AUCs go to `leaderboard analyze` with its defaults; the same predictions also go "
        "through submissions mode (the private rows' paired bootstrap). Rates ± one Monte Carlo "
        f"SE; target at least {target}.",
        "",
        "| family | entries | competitions | score intervals hold the truth | true best in tier 1 "
        "| true best in the best set | tier-1 size, scores | tier-1 size, submissions | "
        "true best in tier 1, submissions |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results["boards"]:
        lines.append("| " + " | ".join([
            r["family"], f"{r['entries']:,}", f"{r['competitions']}",
            _pct(r["score_cover"], r["se:score_cover"]),
            _pct(r["best_in_tier1"], r["se:best_in_tier1"]),
            _pct(r["best_in_best_set"], r["se:best_in_best_set"]),
            f"{r['tier1_size']:.1f}", f"{r['submissions_tier1_size']:.1f}",
            _pct(r["submissions_best_in_tier1"], r["se:submissions_best_in_tier1"])]) + " |")
    lines += [
        "",
        "## `--correlation auto`: the correlation between entries, from the public/private pairs",
        "",
        "Boards with known between-entry correlation rho (normal errors with per-entry SDs at a "
        "public and a private slice; `leaderboard/studies/correlation.py` names the scenarios, "
        "including over-fitting entries and a shift between the slices). The interval should "
        "cover rho in at least 90% of boards (95% is its design); the comparisons use its lower "
        "end, which should be at most rho in at least 97.5%; and the true best should stay in "
        f"tier 1 in at least {target} of boards with the estimate, while tier 1 shrinks against "
        "correlation 0. Rates in % ± one Monte Carlo SE.",
        "",
        markdown_table(results["correlation"]),
        "",
        "## Regression (RMSE, MAE)",
        "",
        "Coverage under five residual families, and the default residual shape (Student t with "
        "3 degrees of freedom) it led to: `docs/scores_only_regression.md`.",
        "",
    ]
    return "\n".join(lines)

