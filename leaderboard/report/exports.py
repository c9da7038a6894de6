"""The tier table as CSV and as Markdown (``--csv``, ``--markdown``; ``Result.to_csv``/``to_markdown``).

Team names are untrusted: in the CSV a name that a spreadsheet would run as a formula (``=``,
``+``, ``-``, ``@``, tab or carriage return first) is prefixed with ``'``, as OWASP advises; in
Markdown every character with a meaning (``|``, ``*``, ``_``, backticks, brackets, ``<``, ...)
is escaped and control characters are dropped, so a name is shown as text and never becomes a
link, an image, markup or a new column. The JSON keeps every name exactly as given.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pandas as pd

from leaderboard.confidence import confidence_label
from leaderboard.tiers.methods import TIER_METHODS
from leaderboard.report.numbers import Numbers

if TYPE_CHECKING:
    from leaderboard.pipelines.scores import Analysis

# The columns exported, in order, and their headers; those the analysis lacks are left out.
COLUMNS = {"rank": "rank", "team": "team", "score": "score", "ci_low": "ci_low",
           "ci_high": "ci_high", "tier": "tier", "rank_ci_low": "rank_low",
           "rank_ci_high": "rank_high", "rank_sim_low": "rank_all_at_once_low",
           "rank_sim_high": "rank_all_at_once_high", "p_best": "p_best",
           "in_best_set": "in_best_set", "public_score": "public_score",
           "private_score": "private_score"}
_FORMULA = ("=", "+", "-", "@", "\t", "\r")
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()<>#+!|~&-])")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def tier_table(analysis: Analysis) -> pd.DataFrame:
    """One row per entry, best first: score, interval, tier, rank intervals, P(best).

    Entries without a noise model keep their rank and score; their interval, tier and rank
    columns are empty (tier 0 in the analysis means "not compared").
    """
    table = analysis.table
    out = table[[c for c in COLUMNS if c in table.columns]].rename(columns=COLUMNS).copy()
    if "tier" in out.columns:
        out["tier"] = out["tier"].where(out["tier"] > 0).astype("Int64")
    if "in_best_set" in out.columns:
        out["in_best_set"] = out["in_best_set"].astype(bool)
    return out


def to_csv(analysis: Analysis) -> str:
    """:func:`tier_table` as CSV text, formulas in team names neutralised."""
    out = tier_table(analysis)
    out["team"] = [("'" + name) if name.startswith(_FORMULA) else name
                   for name in out["team"].astype(str)]
    return out.to_csv(index=False, float_format="%.10g")


def to_markdown(analysis: Analysis) -> str:
    """:func:`tier_table` as a GitHub-flavoured Markdown table (a pull-request comment), with
    the report's precision."""
    out = tier_table(analysis)
    s = analysis.settings
    num = Numbers(s.metric, out["score"].to_numpy(dtype=float), analysis.d95)
    conf = confidence_label(s.alpha)
    rows = []
    for _, r in out.iterrows():
        cells = [str(r["rank"]), markdown_text(r["team"]), num.score(r["score"])]
        if "ci_low" in out.columns:
            cells.append("—" if pd.isna(r["ci_low"]) else
                         f"{num.score(r['ci_low'])} – {num.score(r['ci_high'])}")
        if "tier" in out.columns:
            cells.append("—" if pd.isna(r["tier"]) else str(r["tier"]))
        if "rank_low" in out.columns:
            cells.append(_ranks(r["rank_low"], r["rank_high"]))
            cells.append(_ranks(r["rank_all_at_once_low"], r["rank_all_at_once_high"]))
        if "p_best" in out.columns:
            cells.append("—" if pd.isna(r["p_best"]) else f"{100 * r['p_best']:.1f}%")
        rows.append(cells)
    head = ["rank", "team", "score"]
    head += [f"{conf} interval"] if "ci_low" in out.columns else []
    head += ["tier"] if "tier" in out.columns else []
    head += ["rank interval", "rank (all at once)"] if "rank_low" in out.columns else []
    head += ["P(best)"] if "p_best" in out.columns else []
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(
        "---" if h == "team" else "---:" for h in head) + "|"]
    lines += ["| " + " | ".join(cells) + " |" for cells in rows]
    method = TIER_METHODS[analysis.ranking.method if analysis.ranking is not None
                          else s.tier_method]
    return (f"**{markdown_text(s.metric.label)}**, {len(out):,} entries, best first; {conf} "
            f"intervals; tiers by {markdown_text(method.label)}.\n\n" + "\n".join(lines) + "\n")


def markdown_text(value: object) -> str:
    """Untrusted text for Markdown: control characters dropped, every marker escaped."""
    return _MARKDOWN.sub(r"\\\1", _CONTROL.sub("", str(value)))


def _ranks(low, high) -> str:
    return "—" if pd.isna(low) or pd.isna(high) else f"{int(low)}–{int(high)}"
