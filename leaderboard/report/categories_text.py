"""The report's words and numbers for per-item results with categories (``--category-col``)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import pandas as pd

from leaderboard.confidence import confidence_label

if TYPE_CHECKING:
    from leaderboard.pipelines.scores import Analysis

SHOW_NAMES = 6     # tier-1 models named per category; the JSON holds them all
SHOW_MACRO = 20    # rows of the macro-mean table


def context(a: Analysis, score: Callable[[float], str]) -> dict | None:
    """The "By category" section: one line per category, then the macro mean's top rows."""
    c = a.categories
    if c is None:
        return None
    conf = confidence_label(c.alpha)
    low, high = c.shown_columns
    rows = []
    for name, part in c.table.groupby("category", sort=False):
        tier1 = part.loc[part["tier"] == 1, "team"].tolist()
        lead = part.iloc[0]
        rows.append({"category": name, "n_items": f"{int(lead['items']):,}",
                     "leader": lead["team"], "score": score(lead["score"]),
                     "interval": f"{score(lead[low])} \u2013 {score(lead[high])}",
                     "tier1": f"{len(tier1):,}",
                     "names": ", ".join(tier1[:SHOW_NAMES])
                     + (f", \u2026 ({len(tier1) - SHOW_NAMES:,} more)"
                        if len(tier1) > SHOW_NAMES else "")})
    macro = c.aggregates["macro_mean"]
    return {
        "said": (f"Each of the {len(c.categories):,} categories is resampled on its own (items "
                 "drawn within their category, every model on the same draws). Within each "
                 "category, tier 1 holds the models no other model is shown to beat; intervals "
                 f"and rank sets are computed at alpha {c.alpha:g} / {len(c.categories):,} "
                 "(Bonferroni), so every category's rank sets hold at once with probability at "
                 f"least {conf}. {intervals_said(c)} The macro mean (each category counts the "
                 f"same) comes from the same replicates, with {conf} intervals and simultaneous "
                 "rank sets."),
        "interval_head": (f"{confidence_label(c.alpha)} interval (all at once)"
                          if c.shown == "simultaneous" else
                          f"{confidence_label(c.alpha / len(c.categories))} interval (each)"),
        "rows": rows,
        "macro": [_macro_row(r, score) for r in macro.head(SHOW_MACRO).itertuples()],
        "macro_total": len(macro),
        "wins": [_macro_row(r, _share) for r in
                 c.aggregates["win_rate"].head(SHOW_MACRO).itertuples()],
        "wins_said": ("The share of (category, other model) pairs each model wins, ties counting "
                      "one half. Its interval is not a bootstrap percentile (a win rate jumps "
                      "with the means, and its bootstrap is biased): a pair the category's "
                      "simultaneous rank sets decide is a sure win or loss, an undecided pair "
                      "may go either way, so the interval runs from the sure wins to all but "
                      f"the sure losses and holds every model's true win rate at once with "
                      f"probability at least {conf}. Conservative by construction."),
    }


def intervals_said(c) -> str:
    """Which per-category intervals the page shows, and what each promises (issue 25 item 5)."""
    each, together = confidence_label(c.alpha / len(c.categories)), confidence_label(c.alpha)
    if c.shown == "simultaneous":
        return (f"The intervals shown are simultaneous: all of them, every model in every "
                f"category, hold together with probability {together} (a max-|t| bootstrap). "
                "That is approximate: on boards with known true scores and 100 to 200 items a "
                "category they all held together in 93% of boards with 24 model-category "
                "cells, but only 82-84% with 50 to 100 cells (docs/categories.md). Each is "
                f"wider than a marginal one; the marginal intervals ({each} each) are in the "
                "JSON as ci_low and ci_high.")
    return (f"The intervals shown are marginal: each holds its own model's true score in its "
            f"category with probability {each}; they do not all hold together (with many models "
            f"some miss at once). Intervals that all hold together with probability {together} "
            "are in the JSON as ci_sim_low and ci_sim_high (shown with --category-intervals "
            "simultaneous).")


def _share(x: float) -> str:
    return f"{100 * x:.1f}%"


def _macro_row(r, score) -> dict:
    return {"rank": int(r.rank), "team": r.team, "score": score(r.score),
            "interval": f"{score(r.ci_low)} \u2013 {score(r.ci_high)}",
            "rank_sim": f"{int(r.rank_sim_low)}\u2013{int(r.rank_sim_high)}", "tier": int(r.tier)}


def to_json(a: Analysis) -> dict | None:
    """Every (category, model) row and the macro mean, in full."""
    c = a.categories
    if c is None:
        return None

    def records(frame: pd.DataFrame) -> list[dict]:
        return [{k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()}
                for row in frame.to_dict(orient="records")]

    return {"alpha": c.alpha, "per_category_alpha": c.alpha / len(c.categories),
            "correction": "Bonferroni over categories", "replicates": c.replicates,
            "intervals": "ci_low/ci_high marginal (each model and category at 1 - alpha / C); "
                         "ci_sim_low/ci_sim_high simultaneous (all models and categories at "
                         "once at 1 - alpha, max-|t| bootstrap)",
            "shown_intervals": c.shown,
            "resampling": "stratified by category (items drawn within their category)",
            "categories": list(c.categories), "per_category": records(c.table),
            "macro_mean": records(c.aggregates["macro_mean"]),
            "win_rate": records(c.aggregates["win_rate"]),
            "win_rate_interval": "projection of the categories' simultaneous verdicts: sure "
                                 "wins to all but sure losses, all models at once"}
