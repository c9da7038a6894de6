"""Battles mode as plain JSON (``leaderboard/schema/battles.schema.json``): strict, no NaN.

Top-level keys::

    version, mode ("battles"), format ("battles"), source, alpha, replicates, seed, anchor,
    scale, tier_method, tier_guarantee, battles, pairs_met, pairs_possible, not_comparable,
    dropped_replicates, bootstrap, notes, models, groups, clusters, grouping_columns, look_alike

``models`` (and ``pairs_met``, ``pairs_possible``) are the first group's, the connected group
with the most battles; ``groups`` holds every rated group, that one first, each with its own
models. Models are in rating order, best first; a value that cannot be given (the anchor model's
interval: its rating is fixed by definition; the tier of a model too thin to place) is null,
never a zero-width interval.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from leaderboard.api_words import said
from leaderboard.noise.bradley_terry import SCALE
from leaderboard.report.card_text import card_json, card_markdown

if TYPE_CHECKING:
    from leaderboard.pipelines.battles import BattlesAnalysis

_FLOATS = ("rating", "rating_mle", "ci_low", "ci_high", "se_bootstrap", "se_sandwich", "sandwich_low",
           "sandwich_high", "score_share", "p_best")
_INTS = ("rank", "battles", "wins", "losses", "ties", "rank_sim_low", "rank_sim_high",
         "rank_ci_low", "rank_ci_high")


def _float(x) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def _models(g) -> list[dict]:
    models = []
    for row in g.table.to_dict("records"):
        entry: dict[str, Any] = {"model": str(row["model"])}   # one model's JSON object
        entry.update({k: int(row[k]) for k in _INTS})
        entry.update({k: _float(row[k]) for k in _FLOATS})
        entry["tier"] = int(row["tier"]) if row["placed"] else None
        entry["placed"] = bool(row["placed"])
        entry["p_top"] = {str(k): float(row[f"p_top_{k}"]) for k in g.ranking.top_k}
        entry["in_best_set"] = bool(row["in_best_set"])
        models.append(entry)
    return models


def _group(g) -> dict:
    m = len(g.table)
    return {"n_models": m, "battles": g.battles, "pairs_met": g.pairs_met,
            "pairs_possible": m * (m - 1) // 2, "clusters": g.clusters,
            "dropped_replicates": g.dropped_replicates,
            "not_placed": list(g.thin),
            "unbounded_mle": [{"model": n, "why": kind} for n, kind in g.unbounded],
            "models": _models(g)}


def battles_json(a: BattlesAnalysis) -> dict:
    """The analysis as a JSON-ready dictionary."""
    from leaderboard import __version__

    s, b = a.settings, a.battles
    m = len(a.table)
    groups = [_group(g) for g in a.groups]
    return {
        "version": __version__, "command": "analyze", "mode": "battles", "format": "battles",
        "source": b.source,
        "alpha": s.alpha, "replicates": s.replicates, "seed": s.seed,
        "anchor": {"model": s.anchor, "rating": s.anchor_rating},
        "scale": {"points_per_logit": SCALE, "ties": "half a win for each model",
                  "model": "Bradley-Terry (logistic)",
                  "fit": "Firth's bias-reduced likelihood (rating); plain maximum likelihood "
                         "(rating_mle)"},
        "tier_method": s.tier_method,
        "tier_guarantee": a.ranking.description.words(s.alpha)["guarantee"],
        "battles": {"rows_read": b.rows_read, "kept": b.n_battles, "rated": a.battles_rated,
                    "ties": int(a.table["ties"].sum()) // 2, "both_bad": int(b.both_bad.sum()),
                    "dropped": [{"reason": d.reason, "count": d.count, "lines": list(d.lines)}
                                for d in b.dropped],
                    "columns": dict(b.columns)},
        "pairs_met": a.pairs_met, "pairs_possible": m * (m - 1) // 2,
        "not_comparable": [list(g) for g in a.not_comparable],
        "dropped_replicates": a.dropped_replicates,
        "bootstrap": {
            "resampled": ("clusters of battles (" + b.columns["cluster"] + ")"
                          if b.cluster is not None else "battles"),
            "interval": "percentile of the redraws, each smoothed and refitted with the "
                        "bias-reduced fit's virtual ties",
            "dropped_replicates": ("redraws whose refit failed numerically, left out of "
                                   "every interval, rank set and tier; none is unbounded, "
                                   "as each is refitted with the virtual ties")},
        "notes": list(a.notes),
        "models": groups[0]["models"], "groups": groups,
        "clusters": (None if b.cluster is None else
                     {"column": b.columns["cluster"],
                      "count": [g.clusters for g in a.groups]}),
        "grouping_columns": [{"column": c, "groups": k} for c, k in b.grouping],
        "look_alike": [list(n) for n in b.look_alike],
        "card": card_json(a.card)}


def battles_csv(a: BattlesAnalysis) -> str:
    """The model table as CSV (``--csv``), a name a spreadsheet would run as a formula prefixed
    with ``'`` by :func:`leaderboard.inert_text.csv_text` (as the tier table's CSV does), CRLF
    line ends so a carriage return inside a name stays inside its quoted cell. Every rated
    group, the first (most battles) first; ``group`` says which."""
    import pandas as pd

    from leaderboard.inert_text import csv_text

    out = pd.concat([g.table.assign(group=k) for k, g in enumerate(a.groups, start=1)],
                    ignore_index=True).drop(columns=["p_vs_anchor"], errors="ignore")
    out["model"] = [csv_text(name) for name in out["model"].astype(str)]
    return out.to_csv(index=False, float_format="%.10g", lineterminator="\r\n")


MARKDOWN_ROWS = 50    # a pull-request comment holds about 65,000 characters


def battles_markdown(a: BattlesAnalysis, rows: int | None = MARKDOWN_ROWS) -> str:
    """The model table as GitHub-flavoured Markdown (``--markdown``, a pull-request comment):
    the top ``rows`` models (None: all), every name through
    :func:`leaderboard.inert_text.markdown_text` (never a link, markup, a mention or a new cell),
    then the models that could not be rated and why.

    Examples
    --------
    >>> import pandas as pd, leaderboard
    >>> df = pd.DataFrame({"model_a": ["x", "y", "z"] * 30, "model_b": ["y", "z", "x"] * 30,
    ...                    "winner": ["model_a", "tie", "model_a"] * 30})
    >>> text = battles_markdown(leaderboard.analyze_battles(df, replicates=100).analysis)
    >>> text.splitlines()[2]
    '| rank | model | rating | 95% interval | tier | rank (all at once) | P(best) | battles |'
    """
    from leaderboard.confidence import confidence_label
    from leaderboard.inert_text import markdown_text

    conf = confidence_label(a.settings.alpha)

    def number(x) -> str:
        return "\u2014" if not math.isfinite(float(x)) else f"{float(x):,.0f}"

    head = ["rank", "model", "rating", f"{conf} interval", "tier", "rank (all at once)",
            "P(best)", "battles"]
    lines = []
    for k, g in enumerate(a.groups, start=1):
        t = g.table
        shown = t if rows is None else t.head(rows)
        if len(a.groups) > 1:
            lines.append(f"{'' if k == 1 else chr(10)}Group {k} of {len(a.groups)}: "
                         f"{len(t):,} models, {g.battles:,} battles (never met the other "
                         "groups)\n")
        lines += ["| " + " | ".join(head) + " |",
                  "|" + "|".join("---" if h == "model" else "---:" for h in head) + "|"]
        for r in shown.itertuples(index=False):
            interval = (f"{number(r.ci_low)} \u2013 {number(r.ci_high)}"
                        if math.isfinite(r.ci_low)
                        else "anchor (fixed)" if r.model == a.settings.anchor else "\u2014")
            ranks = (str(r.rank_sim_low) if r.rank_sim_low == r.rank_sim_high
                     else f"{r.rank_sim_low}\u2013{r.rank_sim_high}")
            lines.append("| " + " | ".join([str(r.rank), markdown_text(r.model),
                                             number(r.rating), interval,
                                             str(int(r.tier)) if r.placed else "not placed",
                                             ranks, f"{100 * r.p_best:.1f}%",
                                             f"{r.battles:,}"]) + " |")
        if len(t) > len(shown):
            lines.append(f"\n{len(t) - len(shown):,} more models not shown; the whole table is "
                         + said("in the CSV (`--csv`), the JSON (`--json`) and the HTML report."))
    for group in a.not_comparable:
        lines.append("\nNot rated, never linked by battles to the models above (no rating "
                     "compares them): " + ", ".join(markdown_text(m) for m in group) + ".")
    method = a.ranking.description
    rated = sum(g.battles for g in a.groups)
    models = sum(len(g.table) for g in a.groups)
    return (f"**Bradley-Terry ratings** from {rated:,} battles, {models:,} models, "
            f"best first; {conf} intervals from a bootstrap of battles; tiers by "
            f"{markdown_text(method.label)}.\n\n" + "\n".join(lines) + "\n"
            + card_markdown(a.card, lambda x: f"{float(x):,.0f}"))
