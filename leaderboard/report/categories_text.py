"""The report's words and numbers for per-item results with categories (``--category-col``)."""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pandas as pd

from leaderboard.api_words import said
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
        "interval_head": (f"{confidence_label(c.alpha)} interval (all at once"
                          + (", rough)" if c.method == "max-t" else ")")
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


# What the simultaneous intervals did on known-truth boards, by how they are built
# (benchmarks/study_category_intervals.py, 400 boards a shape, Monte Carlo SE 1.1 points;
# docs/categories.md): the share of boards on which all of them held together.
MEASURED = {"clopper-pearson": ("94.2%", "99.2%", "0/1 values, 10 to 200 items a category, "
                                "24 to 600 model-category cells"),
            "binomial-bound": ("99.5%", "100%", "values in [0, 1] with many 0s and 1s, 20 and "
                               "40 items a category"),
            "korn-graubard": ("94.5%", "100%", "0/1 values in clusters of 5 to 10 items, 10 to "
                              "20 clusters a category"),
            "max-t": ("27%", "72%", "lognormal values, 40 and 200 items a category")}

MAX_T_EACH = "94.5% to 97.4%"    # the same study: each marginal max-t (percentile) interval

# How each kind of interval is built, in one sentence
_BUILT = {
    "clopper-pearson": "Every interval is an exact binomial (Clopper-Pearson) interval of the "
                       "category's 0/1 values: it stays within [0, 1] and is as lopsided as the "
                       "data (near 1 it reaches further down than up).",
    "binomial-bound": "The values lie in [0, 1] but are not all 0 or 1; every interval is the "
                      "binomial one as if they were, the widest spread such values can have, "
                      "so it is conservative (wide when the values spread little) and stays "
                      "within [0, 1].",
    "korn-graubard": "Items come in clusters: every interval is a binomial one on the "
                     "effective number of items (the items over the clusters' design effect, "
                     "with a t correction for the number of clusters; Korn and Graubard), so it "
                     "stays within [0, 1] and is as lopsided as the data.",
    "max-t": "The values are not all in [0, 1], so no binomial bound applies: the intervals are "
             "bootstrap ones (percentile for each, a max-|t| bootstrap for all together)."}


def intervals_said(c) -> str:
    """How the per-category intervals are built, which the page shows, and what each promises,
    with the figure measured on known-truth boards where the promise is approximate (issues 25
    and 39)."""
    each, together = confidence_label(c.alpha / len(c.categories)), confidence_label(c.alpha)
    cells = len(c.table)
    low, high, where = MEASURED[c.method]
    exact = c.method in ("clopper-pearson", "binomial-bound")
    simultaneous = (f"The simultaneous ones are each at level 1 - {c.alpha:g} / {cells:,} "
                    f"(Bonferroni over the {cells:,} model-category cells), so "
                    + (f"all of them hold together with probability at least {together}, "
                       f"whatever the number of items (on known-truth boards, {where}: "
                       f"{low} to {high})." if exact else
                       f"together they are meant to hold with probability {together}; that is "
                       f"approximate: on known-truth boards ({where}) all held together in "
                       f"{low} to {high} of boards." if c.method == "korn-graubard" else
                       f"together they are meant to hold with probability {together}, but that "
                       f"is not backed: on known-truth boards ({where}) all held together in "
                       f"only {low} to {high} of boards. Read them as rough."))
    if c.shown == "simultaneous":
        return (f"{_BUILT[c.method]} The intervals shown are simultaneous. {simultaneous} The "
                f"marginal intervals ({each} each) are in the JSON as ci_low and ci_high.")
    return (f"{_BUILT[c.method]} The intervals shown are marginal: each holds its own model's "
            f"true score in its category with probability {each}"
            + ("" if c.method != "max-t" else
               f" (approximately: on known-truth boards ({MEASURED['max-t'][2]}) each held in "
               f"{MAX_T_EACH} of cases for a nominal 99%)")
            + f"; they do not all hold together (with many models some miss at once). "
            f"Intervals meant to hold together with probability {together} are in the JSON as "
            + said("ci_sim_low and ci_sim_high (shown with --category-intervals simultaneous). ")
            + simultaneous)


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
                         "once at 1 - alpha: each at 1 - alpha / cells, Bonferroni)",
            "interval_method": c.method,
            "simultaneous_guarantee": _guarantee(c),
            "shown_intervals": c.shown,
            "resampling": "stratified by category (items drawn within their category)",
            "categories": list(c.categories), "per_category": records(c.table),
            "macro_mean": records(c.aggregates["macro_mean"]),
            "win_rate": records(c.aggregates["win_rate"]),
            "win_rate_interval": "projection of the categories' simultaneous verdicts: sure "
                                 "wins to all but sure losses, all models at once"}


def _guarantee(c) -> dict:
    """The simultaneous intervals' promise in the JSON: ``at least`` 1 - alpha (exact or
    conservative binomial bounds) or ``approximate``, with the figure measured on known-truth
    boards (:data:`MEASURED`)."""
    low, high, where = MEASURED[c.method]
    return {"kind": "at least" if c.method in ("clopper-pearson", "binomial-bound")
            else "approximate", "nominal": 1 - c.alpha,
            "measured_all_hold": f"{low} to {high}", "measured_on": where,
            "source": "benchmarks/study_category_intervals.py (docs/categories.md)"}
