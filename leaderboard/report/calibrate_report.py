"""``leaderboard calibrate``'s outputs: the tiers study's page (docs/calibration.md), the
scores-only page (docs/scores_only.md), the summary the report quotes (data/noise_study.json) and
the studies' JSON (leaderboard/schema/calibrate.schema.json)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from leaderboard.confidence import confidence_label
from leaderboard.inert_text import markdown_text
from leaderboard.resources import data_dir
from leaderboard.studies.correlation import markdown_table
from leaderboard.studies.noise import auc_summary
from leaderboard.tiers.methods import TIER_METHODS
from leaderboard.safe_write import write_text


def write_study_json(path: str, study: str, body: dict, *, alpha: float, seed: int,
                     quick: bool) -> None:
    """A study's results as strictly valid JSON (leaderboard/schema/calibrate.schema.json): the
    command, version and settings, then ``body``; a measure no competition defined is null."""
    from leaderboard import __version__

    document = {"command": "calibrate", "version": __version__, "study": study,
                "alpha": alpha, "seed": seed, "quick": bool(quick), **body}
    write_text(path, json.dumps(_finite(document), indent=2, allow_nan=False) + "\n")


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


KEPT = "<!-- kept by leaderboard calibrate: the shape studies below are written by hand -->"


def with_kept_tail(text: str, path) -> str:
    """``text`` followed by what an existing page at ``path`` holds from :data:`KEPT` on (the
    tables of benchmarks/study_tier_shapes.py and its siblings, which ``leaderboard calibrate``
    does not run), so that regenerating the study does not delete them.

    Examples
    --------
    >>> with_kept_tail("# Study", "/nonexistent.md")
    '# Study'
    >>> import tempfile, pathlib
    >>> page = pathlib.Path(tempfile.mkdtemp()) / "calibration.md"
    >>> _ = page.write_text("# Old study" + chr(10) + KEPT + " shapes", encoding="utf-8")
    >>> with_kept_tail("# New study", page).splitlines()[0], with_kept_tail("# New", page)[-6:]
    ('# New study', 'shapes')
    """
    try:
        old = Path(path).read_text(encoding="utf-8")
    except OSError:
        return text
    at = old.find(KEPT)
    return text if at < 0 else text.rstrip("\n") + "\n\n" + old[at:]


def tiers_markdown(results: pd.DataFrame, alpha: float) -> str:
    """The tiers study as the Markdown page the docs ship (every rate with its Monte Carlo SE)."""
    target = confidence_label(alpha)
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
        cells = [markdown_text(r["mode"]), f"{int(r['entries']):,}", markdown_text(r["scenario"]),
                 f"{int(r['competitions'])}"]
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
            markdown_text(r["mode"]), f"{int(r['entries']):,}", markdown_text(r["scenario"]),
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


def scores_only_markdown(results: dict) -> str:
    """The scores-only page: the noise study's summary, then the leaderboards' rates."""
    summary = auc_summary(results["noise_study"])
    target = confidence_label(results["alpha"])
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
        lines.append(f"| {markdown_text(r['family'])} | {markdown_text(r['universe'])} | "
                     f"{r['sd_ratio_min']:.2f}–{r['sd_ratio_max']:.2f} | {_pct(r['coverage_mean'])} | "
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
            markdown_text(r["family"]), f"{r['entries']:,}", f"{r['competitions']}",
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
