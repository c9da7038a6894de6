"""The report's words and JSON for a benchmark's extras (issue 26): cost per model and the
cost-accuracy frontier (``--cost-col``), and published scores checked against the per-item data
(``--published``).

Every cost interval says what it rests on: the same paired bootstrap replicates of the items as
the scores, so it assumes what they assume (items a random sample of the benchmark's population,
independent, or independent clusters).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from leaderboard.confidence import confidence_label
from leaderboard.params import DEFAULT_ALPHA
from leaderboard.pipelines.item_costs import COVERAGE

COVERAGE_AT_2 = tuple(COVERAGE[2.0].values())   # the heaviest tails measured
SHORT = 0.94    # 95% less two Monte Carlo SEs of the COVERAGE table (0.5 points each)

if TYPE_CHECKING:
    from leaderboard.pipelines.scores import Analysis


def _num(value: float) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None


def cost(value: float) -> str:
    """A cost as the page prints it: four significant figures.

    Examples
    --------
    >>> cost(0.052050075), cost(1234.5678)
    ('0.05205', '1,235')
    """
    if not math.isfinite(value):
        return "\u2013"
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.4g}"


def costs_json(a: Analysis) -> dict | None:
    """The ``costs`` object of the JSON (None without ``--cost-col``)."""
    c = a.costs
    if c is None:
        return None
    return {
        "column": c.column, "n_items": c.n_items, "replicates": c.replicates,
        "resample": c.resample, "alpha": c.alpha,
        "interval": "bootstrap-t (studentized), from the paired bootstrap replicates the "
                    "scores used (same items drawn on each replicate); savings likewise, on the "
                    "per-item differences",
        "interval_coverage": _coverage_json(c),
        "total": "mean cost per item times n_items (the cost of one run of the benchmark)",
        "best_model": c.best,
        "models": [{"model": m, "score": _num(s), "tier": int(t) if t > 0 else None,
                    "mean_cost": _num(mu), "mean_cost_low": _num(lo),
                    "mean_cost_high": _num(hi), "total_cost": _num(tot),
                    "total_cost_low": _num(tlo), "total_cost_high": _num(thi),
                    "on_frontier": bool(f)}
                   for m, s, t, mu, lo, hi, tot, tlo, thi, f in zip(
                       c.models, c.scores, c.tiers, c.mean, c.mean_low, c.mean_high, c.total,
                       c.total_low, c.total_high, c.on_frontier)],
        "cheaper_in_top_tier": [
            {"model": x.model, "mean_cost": _num(x.mean_cost), "saving": _num(x.saving),
             "saving_low": _num(x.saving_low), "saving_high": _num(x.saving_high),
             "shown_cheaper": x.shown_cheaper, "score_gap": _num(x.score_gap),
             "score_gap_low": _num(x.score_gap_low), "score_gap_high": _num(x.score_gap_high)}
            for x in c.cheaper],
    }


def _coverage_json(c) -> dict | None:
    """What the cost intervals covered on known-truth costs of this board's tail and size."""
    m = c.measured
    if m is None:
        return None
    return {"largest_log_sd": _num(m.log_sd), "measured_items": m.items, "nominal": 0.95,
            "coverage": m.coverage if c.alpha == DEFAULT_ALPHA else None,
            "how": "95% bootstrap-t intervals of the mean of lognormal costs with the board's "
                   "largest log-SD (linear between the measured log-SDs 0.5 to 2) and the "
                   "measured number of items at or below the board's: "
                   "benchmarks/study_cost_intervals.py"}


def coverage_said(c) -> str:
    """The cost intervals' coverage measured at the board's shape, in words (issue 39).

    Examples
    --------
    >>> from types import SimpleNamespace as N
    >>> print(coverage_said(N(alpha=0.05, n_items=400, measured=N(log_sd=1.14, items=300,
    ...                                                           coverage=0.941))))
    ... # doctest: +NORMALIZE_WHITESPACE
    Measured on known-truth lognormal costs with tails as heavy as these (the heaviest-tailed
    model's log costs have SD 1.14) and 300 items, such 95% intervals covered the true mean cost
    94.1% of the time: a little less than 95%, as for any bootstrap interval of a heavy-tailed mean.
    """
    m = c.measured
    if m is None:
        return ""
    if c.alpha != DEFAULT_ALPHA:   # the study measured the default level only
        return ("Their coverage was measured for 95% intervals only (docs/commands/"
                "analyze-items.md).")
    if m.coverage is None:
        return (f"How often they cover is not known here: the costs' tails are heavier (log-SD "
                f"{m.log_sd:.2f}) than any measured; at log-SD 2, 95% intervals covered the true "
                f"mean cost only {min(COVERAGE_AT_2):.0%} to {max(COVERAGE_AT_2):.0%} of the "
                "time (50 to 3,000 items). Read them as rough.")
    fewer = " (fewer items than the 50 measured)" if c.n_items < m.items else ""
    short = m.coverage < SHORT    # below 95% by more than two Monte Carlo SEs
    return (f"Measured on known-truth lognormal costs with tails as heavy as these (the "
            f"heaviest-tailed model's log costs have SD {m.log_sd:.2f}) and {m.items:,} "
            f"items{fewer}, "
            f"such 95% intervals covered the true mean cost {100 * m.coverage:.1f}% of the time"
            + (f": read them as about {100 * m.coverage:.0f}% intervals." if short else
               ": a little less than 95%, as for any bootstrap interval of a heavy-tailed mean."
               if m.coverage < 0.95 else "."))


def published_json(a: Analysis) -> dict | None:
    """The ``published`` object of the JSON (None without ``--published``)."""
    p = a.published
    if p is None:
        return None
    return {"source": str(p.source), "alpha": p.alpha, "percent_assumed": p.percent_assumed,
            "read": p.how, "measured_on": p.items, "rows_read": p.rows_read,
            "models": [{"model": r.model, "published": _num(r.published),
                        "measured": _num(r.measured), "ci_low": _num(r.low),
                        "ci_high": _num(r.high), "outside": r.outside} for r in p.rows],
            "outside": [r.model for r in p.outside],
            "not_in_data": list(p.not_in_data), "not_published": list(p.not_published)}


def costs_context(a: Analysis, score) -> dict | None:
    """The page's cost section: its sentences and table rows (``score`` formats a score)."""
    c = a.costs
    if c is None:
        return None
    conf = confidence_label(c.alpha)
    best_cost = cost(c.mean[0])
    if c.cheaper:
        shown = [x for x in c.cheaper if x.shown_cheaper]
        names = ", ".join(x.model for x in c.cheaper[:5]) + (
            f" and {len(c.cheaper) - 5:,} more" if len(c.cheaper) > 5 else "")
        answer = (f"{len(c.cheaper):,} model{'s' if len(c.cheaper) > 1 else ''} of tier 1 "
                  f"cost{'s' if len(c.cheaper) == 1 else ''} less per item than the best-scored "
                  f"model, {c.best} ({best_cost}): {names}. "
                  + (f"{len(shown):,} of them {'is' if len(shown) == 1 else 'are'} shown cheaper "
                     f"(the {conf} interval of the saving lies above 0)."
                     if shown else "None is shown cheaper: every saving's interval reaches 0."))
    else:
        answer = (f"No model of tier 1 costs less per item than the best-scored model, "
                  f"{c.best} ({best_cost}).")
    coverage = coverage_said(c)
    if c.measured is not None and (c.measured.coverage is None or c.measured.coverage < SHORT):
        answer += " " + coverage     # the stated level falls short: say so beside the answer
    cheaper = [{"model": x.model, "cost": cost(x.mean_cost),
                "saving": f"{cost(x.saving)} [{cost(x.saving_low)}, {cost(x.saving_high)}]",
                "share": f"{100 * x.saving / c.mean[0]:.0f}%" if c.mean[0] > 0 else "\u2013",
                "gap": f"{score(x.score_gap)} [{score(x.score_gap_low)}, "
                       f"{score(x.score_gap_high)}]",
                "shown": x.shown_cheaper} for x in c.cheaper]
    rows = [{"model": m, "score": score(s), "tier": int(t) if t > 0 else "\u2013",
             "mean": f"{cost(mu)} [{cost(lo)}, {cost(hi)}]",
             "total": f"{cost(tot)} [{cost(tlo)}, {cost(thi)}]", "frontier": bool(f)}
            for m, s, t, mu, lo, hi, tot, tlo, thi, f in zip(
                c.models, c.scores, c.tiers, c.mean, c.mean_low, c.mean_high, c.total,
                c.total_low, c.total_high, c.on_frontier)]
    frontier = [m for m, f in zip(c.models, c.on_frontier) if f]
    return {
        "column": c.column, "answer": answer, "cheaper": cheaper, "rows": rows, "conf": conf,
        "frontier": ", ".join(frontier),
        "method": (f"Cost is each model's mean of column {c.column!r} per item; the total is that "
                   f"mean times the {c.n_items:,} items (one run of the benchmark). Intervals "
                   f"are {conf} bootstrap-t intervals (studentized: each replicate's mean "
                   "against its own standard error, which follows the skew of heavy-tailed "
                   f"costs) over the same {c.replicates:,} paired "
                   "bootstrap replicates as the scores: each replicate draws the items once and "
                   "both the scores and the costs are computed on that draw, so a saving and the "
                   "score given up for it come from one resampling. They assume what the scores' "
                   "intervals assume: the items are a random sample of the benchmark's "
                   "population, independent of each other (or in independent clusters). The "
                   "saving's and the score gap's intervals are for that one pair (marginal); "
                   "tier 1 is a simultaneous statement about every model at once, so a model can "
                   "be in tier 1 while its gap to the best, alone, excludes 0. The frontier uses "
                   "the point estimates: a model is on it when no other model scores at least as "
                   "well for at most its cost. " + coverage),
    }


def published_context(a: Analysis, score) -> dict | None:
    """The page's section on published scores."""
    p = a.published
    if p is None:
        return None
    conf = confidence_label(p.alpha)
    rows = [{"model": r.model, "published": score(r.published), "measured": score(r.measured),
             "interval": f"[{score(r.low)}, {score(r.high)}]", "outside": r.outside}
            for r in p.rows]
    return {"rows": rows, "conf": conf, "n_outside": len(p.outside),
            "not_in_data": list(p.not_in_data), "not_published": list(p.not_published),
            "percent_assumed": p.percent_assumed, "source": str(p.source), "read": p.how,
            "measured_on": p.items}
