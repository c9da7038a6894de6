"""The tier table as CSV and as Markdown (``--csv``, ``--markdown``; ``Result.to_csv``/``to_markdown``).

Team names are untrusted: every cell goes through :mod:`leaderboard.inert_text` (in the CSV a
name that a spreadsheet would run as a formula gets a leading ``'``; in Markdown a name is shown
as text and never becomes a link, an image, markup, HTML, a mention or a new cell or row). The
JSON keeps every name exactly as given.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from leaderboard.api_words import said
from leaderboard.confidence import confidence_label
from leaderboard.inert_text import csv_text, markdown_text
from leaderboard.tiers.methods import TIER_METHODS
from leaderboard.report.card_text import card_markdown
from leaderboard.report.numbers import Numbers
from leaderboard.report.vocabulary import vocabulary

if TYPE_CHECKING:
    from leaderboard.pipelines.scores import Analysis

# The columns exported, in order, named as in the API's table and the JSON (``rank_ci_low``, not a
# name of its own); those the analysis lacks are left out.
COLUMNS = {name: name for name in (
    "rank", "team", "score", "ci_low", "ci_high", "tier", "rank_ci_low", "rank_ci_high",
    "rank_sim_low", "rank_sim_high", "p_best", "in_best_set", "public_score", "private_score")}
# A pull-request comment holds about 65,000 characters: the Markdown keeps the top rows.
MARKDOWN_ROWS = 50


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
    out["team"] = [csv_text(name) for name in out["team"].astype(str)]
    # CRLF line ends (RFC 4180): the csv writer then quotes every cell holding a carriage
    # return, which with bare "\n" line ends it leaves unquoted, a row break for every reader
    return out.to_csv(index=False, float_format="%.10g", lineterminator="\r\n")


def to_markdown(analysis: Analysis, rows: int | None = MARKDOWN_ROWS) -> str:
    """:func:`tier_table` as a GitHub-flavoured Markdown table (a pull-request comment), with
    the report's precision: the top ``rows`` entries (None: all), then a line saying how many
    were left out and where the whole table is."""
    whole = tier_table(analysis)
    s = analysis.settings
    num = Numbers(s.metric, whole["score"].to_numpy(dtype=float), analysis.d95)
    out = whole if rows is None else whole.head(rows)
    conf = confidence_label(s.alpha)
    lines = []
    for _, r in out.iterrows():
        cells = [str(r["rank"]), markdown_text(r["team"]), num.score(r["score"])]
        if "ci_low" in out.columns:
            cells.append("—" if pd.isna(r["ci_low"]) else
                         f"{num.score(r['ci_low'])} – {num.score(r['ci_high'])}")
        if "tier" in out.columns:
            cells.append("—" if pd.isna(r["tier"]) else str(r["tier"]))
        if "rank_ci_low" in out.columns:
            cells.append(_ranks(r["rank_ci_low"], r["rank_ci_high"]))
            cells.append(_ranks(r["rank_sim_low"], r["rank_sim_high"]))
        if "p_best" in out.columns:
            cells.append("—" if pd.isna(r["p_best"]) else f"{100 * r['p_best']:.1f}%")
        lines.append(cells)
    entity = vocabulary(analysis).entity   # "model" on a benchmark's table (issue 26)
    head = ["rank", entity, "score"]
    head += [f"{conf} interval"] if "ci_low" in out.columns else []
    head += ["tier"] if "tier" in out.columns else []
    head += ["rank interval", "rank (all at once)"] if "rank_ci_low" in out.columns else []
    head += ["P(best)"] if "p_best" in out.columns else []
    table = ["| " + " | ".join(head) + " |", "|" + "|".join(
        "---" if h == entity else "---:" for h in head) + "|"]
    table += ["| " + " | ".join(cells) + " |" for cells in lines]
    omitted = len(whole) - len(out)
    if omitted:
        table.append(f"\n{omitted:,} more entries not shown; the whole table of {len(whole):,} "
                     + said("is in the CSV (`--csv`), the JSON (`--json`) and the HTML report."))
    method = TIER_METHODS[analysis.ranking.method if analysis.ranking is not None
                          else s.tier_method]
    return (f"**{markdown_text(s.metric.label)}**, {len(out):,} entries, best first; {conf} "
            f"intervals; tiers by {markdown_text(method.label)}.\n\n" + "\n".join(table) + "\n"
            + card_markdown(analysis.card, num.score, entity))


def _ranks(low, high) -> str:
    return "—" if pd.isna(low) or pd.isna(high) else f"{int(low)}–{int(high)}"
