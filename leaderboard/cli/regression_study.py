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

from leaderboard.cli.common import advance_by, write_output
from leaderboard.progress import Progress
from leaderboard.resources import data_dir
from leaderboard.safe_write import write_text
from leaderboard.studies.regression_calibration import (FAMILIES, default_regression_designs,
                                                        real_residual_shapes,
                                                        run_regression_design, summary)

DEFAULT_OUTPUT = "docs/scores_only_regression.md"


def run(args: argparse.Namespace, output: str | None = None) -> dict:
    """Run the regression study; write its page (and, unless quick, the quoted summary)."""
    designs = default_regression_designs(quick=args.quick)
    rows = run_cells(designs, partial(run_regression_design, alpha=args.alpha, seed=args.seed),
                     "regression competitions", args)
    shapes = real_residual_shapes(seed=args.seed, **({"rows": 400, "trees": 10} if args.quick
                                                      else {})).to_dict(orient="records")
    results = {"regression": rows, "residual_shapes": shapes, "alpha": args.alpha,
               "quick": bool(args.quick)}
    path = output or DEFAULT_OUTPUT
    write_output(lambda p: write_text(p, markdown(results)), path)
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
                future.add_done_callback(advance_by(progress, design.competitions))
            rows = [f.result() for f in futures]
    progress.close()
    return rows


def write_summary(rows: list[dict], path: Path | None = None) -> Path:
    """What the report quotes: per universe and metric, the coverage averaged over the families
    and in the worst one (:func:`~leaderboard.studies.regression_calibration.summary`)."""
    path = path or data_dir() / "regression_study.json"
    path.write_text(json.dumps(summary(rows), indent=2) + "\n", encoding="utf-8")
    return path


_LABELS = {"rmse": "RMSE", "mae": "MAE", "rmsle": "RMSLE", "mape": "MAPE", "r2": "R²"}


def _label(metric: str) -> str:
    return _LABELS.get(metric, metric.upper())


def _pct(value: float, se: float) -> str:
    return f"{100 * value:.1f} ± {100 * se:.1f}"


def markdown(results: dict) -> str:
    """The page: real residuals' shapes, then coverage per family, metric and universe."""
    target = f"{100 * (1 - results['alpha']):g}%"
    lines = [
        "# Scores only, regression: do the intervals hold under real residuals?",
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
        "Each competition: entries whose errors are a scale times residuals of one family ("
        + ", ".join(FAMILIES) + "; defined in `leaderboard/studies/regression_calibration.py`) "
        "on the metric's own error scale, the worst entry's scale 1.5 times the best's, each "
        "scored on its own test set: RMSE and MAE of additive errors (true RMSE 1 to 1.5), R² of "
        "a standard normal truth plus additive errors (true R² 0.91 down to 0.80), RMSLE of "
        "errors on the log1p scale (true RMSLE 0.3 to 0.45), MAPE of relative errors (true MAPE "
        "about 8% to 12%). The boards are analysed by `leaderboard analyze` from the scores alone "
        "with the universe named. *Coverage*: the share of entries whose interval holds the true "
        f"score, target {target}, ± one Monte Carlo SE (binomial, over the cell's entries). "
        "*Width*: the interval's width over the true score, on average. The default universe is "
        "Student t with 3 degrees of freedom, its tails held down to a probability of 1e-12 "
        "(all but MAPE's; `leaderboard/noise/universes/regression.py`).",
        "",
        "*Could be the best*: the share of the entries in the confidence set of the best under "
        "normal residuals and under the universe's own (the first screen's two counts when the "
        "tails are not stated, issue 39).",
        "",
        "| universe | metric | rows | family | coverage | width | true best in tier 1 | "
        "could be the best, normal to this universe |",
        "|---|---|---|---|---|---|---|---|",
    ]
    rows = results["regression"]
    for r in (r for r in rows if r.get("public_rows") is None):
        bracket = (f"{100 * r['best_set_light']:.0f}% to {100 * r['best_set_heavy']:.0f}%"
                   if "best_set_light" in r and r["best_set_light"] == r["best_set_light"]
                   else "-")
        lines.append(f"| {r['universe']} | {_label(r['metric'])} | {r['n_test']:,} | "
                     f"{r['family']} | {_pct(r['score_cover'], r['se:score_cover'])} | "
                     f"{r['relative_width']:.3f} | "
                     f"{_pct(r['best_in_tier1'], r['se:best_in_tier1'])} | {bracket} |")
    lines += gaps_section([r for r in rows if r.get("public_rows") is not None], target)
    table = summary(rows)
    lines += ["", "## Summary", "",
              "Each family's sizes pooled; the worst cell is one family at one size. *Width on "
              "normal residuals*: the interval's width when the residuals are in fact normal, over "
              "the normal universe's width there (what the heavy tails cost), by rows.", "",
              "| universe | metric | coverage, mean over families | worst family | "
              "coverage, worst family | worst cell | width on normal residuals | "
              "width over the exact one, normal residuals |",
              "|---|---|---|---|---|---|---|---|"]
    for universe, metrics in table.items():
        for metric, q in metrics.items():
            cell = q["worst_cell"]
            ratio = ", ".join(f"{v:.1f}x at {int(n):,}"
                              for n, v in q.get("width_ratio_on_normal", {}).items()) or "-"
            exact = ", ".join(f"{v:.2f}x at {int(n):,}" for n, v in
                              q.get("width_over_exact_on_normal", {}).items()) or "-"
            lines.append(f"| {universe} | {_label(metric)} | "
                         f"{_pct(q['coverage_mean'], q['coverage_mean_se'])} | "
                         f"{q['worst_family']} | "
                         f"{_pct(q['coverage_min'], q['coverage_min_se'])} | "
                         f"{cell['family']} at {cell['n_test']:,} rows: "
                         f"{_pct(cell['coverage'], cell['coverage_se'])} | {ratio} | {exact} |")
    lines += ["", "## The promise", "",
              "Issue 25 asks for coverage of at least 93% averaged over the families and at "
              "least 85% in the worst. Under the default universe:", ""]
    for metric, q in table.get("t, 3 df", {}).items():
        kept = q["coverage_mean"] >= 0.93 and q["coverage_min"] >= 0.85
        cell = q["worst_cell"]
        lines.append(f"- {_label(metric)}: {_pct(q['coverage_mean'], q['coverage_mean_se'])}% "
                     f"on average, {_pct(q['coverage_min'], q['coverage_min_se'])}% for "
                     f"{q['worst_family']} residuals (worst single size: "
                     f"{_pct(cell['coverage'], cell['coverage_se'])}% at {cell['n_test']:,} "
                     f"rows): {'kept' if kept else 'NOT kept'}.")
    for metric, q in table.get("t, 3 df", {}).items():
        ratio = q.get("width_ratio_on_normal")
        if ratio:
            lines.append(f"- The price for {_label(metric)}: when the residuals are in fact normal "
                         "its intervals are " + " and ".join(
                             f"{v:.1f} times as wide as they need be at {int(n):,} rows"
                             for n, v in ratio.items())
                         + " (`--residuals normal` when the residuals are known to be "
                         "normal; under heavier tails it held the truth far less often, as "
                         "its rows above show).")
    lines += promise_39(table)
    lines += ["", "The other regression metrics (MSE, MedAE, explained variance on the additive "
              "scale; MSLE, SMAPE on the multiplicative one) share the default but are not "
              "measured here.", ""]
    return "\n".join(lines)


def gaps_section(rows: list[dict], target: str) -> list[str]:
    """Boards with public and private scores: the noise read from the gaps (issue 39)."""
    if not rows:
        return []
    lines = [
        "", "## Boards with public and private scores: the noise read from the gaps", "",
        "Each entry is scored on a public slice and a disjoint private one; the analysis "
        "(defaults: `--correlation auto`, no `--residuals`) reads how far the public-minus-private "
        "gaps spread, in units of normal residuals' noise, and stretches that noise by the factor "
        "they show, at least 1 (`leaderboard/noise/tails.py`): the tails are read at correlation "
        "0 between entries, the lightest that explain the gaps. *gaps*: each entry on its own "
        "rows (independent errors, the reading's assumption). *gaps, 50% / 90% shared*: the "
        "entries share one test set, and that share of each row's residual is the same for "
        "every entry (rows every model gets wrong); their errors are then correlated, the gaps "
        "show only the part they do not share, and each entry's own interval can be too narrow "
        "(the comparisons between entries rest on the gaps alone). *Coverage* of the private "
        f"score's interval, target {target}, ± one Monte Carlo SE (binomial over the entries "
        "when they are independent, else over the boards). *Width / exact*: on normal residuals, "
        "the interval's width over the exact one (RMSE: chi-square; MAE: a mean of half-normals; "
        "RMSLE: none). *Scale*: the factor read from the gaps, on average.", "",
        "| universe | metric | public rows | private rows | family | coverage | width / exact | "
        "scale | true best in tier 1 |",
        "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        exact = (f"{r['width_over_exact']:.2f}" if r["family"] == "normal"
                 and r["width_over_exact"] == r["width_over_exact"] else "-")
        lines.append(f"| {r['universe']} | {_label(r['metric'])} | {r['public_rows']:,} | "
                     f"{r['n_test']:,} | {r['family']} | "
                     f"{_pct(r['score_cover'], r['se:score_cover'])} | {exact} | "
                     f"{r['scale']:.2f} | {_pct(r['best_in_tier1'], r['se:best_in_tier1'])} |")
    return lines


def promise_39(table: dict) -> list[str]:
    """Issue 39's promise for boards with public and private scores: coverage at least 90% on
    normal, t(3) and outlying residuals, and RMSE intervals at most 1.6 times the exact ones on
    normal residuals."""
    gaps = table.get("gaps", {})
    if not gaps:
        return []
    lines = ["", "Issue 39 asks, for boards with public and private scores, coverage of at least "
             "90% on normal, t(3) and outlying residuals, and on normal residuals intervals at "
             "most 1.6 times as wide as the exact ones. With each entry on its own rows "
             "(*gaps*):", ""]
    for metric, q in gaps.items():
        cover = q.get("family_coverage", {})
        held = [f"{f} {_pct(*cover[f])}%" for f in ("normal", "t3", "outliers") if f in cover]
        exact = q.get("width_over_exact_on_normal", {})
        widest = max(exact.values(), default=float("nan"))
        kept = (all(cover[f][0] >= 0.9 for f in ("normal", "t3", "outliers") if f in cover)
                and (not exact or widest <= 1.6))
        lines.append(f"- {_label(metric)}: " + ", ".join(held)
                     + (f"; width over the exact one at most {widest:.2f}x" if exact else "")
                     + f": {'kept' if kept else 'NOT kept'}.")
    for label in ("gaps, 50% shared", "gaps, 90% shared"):
        for metric, q in table.get(label, {}).items():
            cover = q.get("family_coverage", {})
            lines.append(f"- {_label(metric)}, {label.split(', ')[1]}: " + ", ".join(
                f"{f} {_pct(*cover[f])}%" for f in ("normal", "t3", "outliers") if f in cover)
                + " (each entry's own interval; the gaps cannot show what the entries share).")
    return lines
