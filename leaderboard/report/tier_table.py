"""The report's tier table: its first rows as plain HTML, and every row as compact JSON for the
page's script (``templates/table.js``), which searches, sorts, filters, pages and pins it.

The page works without JavaScript: the template prints the first :data:`STATIC_ROWS` rows from
:func:`static_rows`, and the script replaces them with the interactive table built from
:func:`payload_text`. Both say the same thing: the payload's numbers are rounded to the decimals the
page prints, so the script's formatting (which mirrors :class:`~leaderboard.report.html.Numbers`
and :func:`~leaderboard.report.vega.common.share_text`, ties to even as Python rounds) gives the
same text as the plain rows (a browser test compares them). Rows are arrays, not objects, so a
100,000-entry board stays a few megabytes.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import numpy as np

from leaderboard.report import json_entries
from leaderboard.report.render import compact_json
from leaderboard.report.vega.common import share_text, tier_class
from leaderboard.report.tier_marks import anchor_mask, highest_above, out_of_order_mask

if TYPE_CHECKING:  # annotations only
    from leaderboard.pipelines.scores import Analysis

STATIC_ROWS = 100      # rows printed as plain HTML (what a reader without JavaScript sees)
# Rows of the script's data made and encoded at a time: a row here is ~15 numbers (a list of
# ~0.4 kB, ~75 characters), not the JSON's dict of ~1.3 kB, so eight of the JSON's blocks are
# ~3.5 MB of lists; with one block (1,024 rows) pandas' per-slice calls cost a fifth more CPU
# than the whole payload at once, with eight the same (20,000 entries, 0.08 s).
BLOCK = 8 * json_entries.BLOCK
DASH = "\u2014"


@dataclass(frozen=True)
class Row:
    rank: int
    team: str
    score: str
    interval: str
    tier: str
    chip: str
    p: str
    public: str
    private: str
    starts_tier: bool
    rank_interval: str = DASH
    rank_sim: str = DASH
    moved: str = ""   # tooltip of the out-of-order mark: a better tier than an entry above it
    p_best: str = DASH
    p_top: tuple[str, ...] = ()
    in_best_set: bool = False


def p_value_text(p: float, anchor: bool) -> str:
    """Holm's p against the tier's anchor, as the table prints it.

    Examples
    --------
    >>> [p_value_text(p, False) for p in (0.0004, 0.0123, float("nan"))], p_value_text(0.5, True)
    (['<0.001', '0.012', '—'], 'anchor')
    """
    if anchor:
        return "anchor"
    if not np.isfinite(p):
        return DASH
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def moved_text(tier: int, above: int) -> str:
    """The out-of-order mark's tooltip ("" when the entry's tier is not above one seen higher).

    Examples
    --------
    >>> print(moved_text(1, 2))  # doctest: +NORMALIZE_WHITESPACE
    In tier 1 although ranked below an entry of tier 2: no entry is shown to beat it (its
    comparisons with the entries above are noisier).
    >>> moved_text(3, 3)
    ''
    """
    if tier >= above:
        return ""
    beaten = ("no entry is shown to beat it" if tier == 1 else
              f"only entries of tier{' 1' if tier == 2 else f's 1 to {tier - 1}'} are shown to "
              "beat it")
    return (f"In tier {tier} although ranked below an entry of tier {above}: {beaten} (its "
            "comparisons with the entries above are noisier).")


def static_rows(a: Analysis, score: Callable, limit: int | None = STATIC_ROWS) -> list[Row]:
    """The first ``limit`` rows (all with ``None``), formatted for the plain HTML table."""
    t = a.table if limit is None else a.table.head(limit)
    has_tiers = a.tiers is not None
    tiers_all = a.table["tier"].to_numpy(dtype=int)
    anchors = anchor_mask(tiers_all) if has_tiers else np.zeros(len(a.table), bool)
    above = highest_above(tiers_all)
    nan = [math.nan] * len(t)
    public = t["public_score"] if "public_score" in t.columns else nan
    private = t["private_score"] if "private_score" in t.columns else nan
    rows = []
    for i, (rank, team, value, lo, hi, tier, p, pub, prv) in enumerate(zip(
            t["rank"], t["team"], t["score"], t["ci_low"], t["ci_high"], t["tier"],
            t["p_vs_anchor"], public, private)):
        interval = (f"{score(lo)} \u2013 {score(hi)}" if np.isfinite(lo) and np.isfinite(hi)
                    else DASH)
        placed = has_tiers and tier > 0
        rows.append(Row(int(rank), str(team), score(value), interval,
                        str(int(tier)) if placed else DASH, tier_class(int(tier)),
                        p_value_text(float(p), bool(anchors[i])) if has_tiers else DASH,
                        score(pub), score(prv), bool(anchors[i]) and i > 0,
                        moved=moved_text(int(tier), int(above[i])) if placed else "",
                        **_rank_cells(a, i)))
    return rows


def _rank_cells(a: Analysis, i: int) -> dict:
    """Row ``i``'s rank columns, from the table (rows left out of the ranking show dashes)."""
    r, row = a.ranking, a.table.iloc[i]
    if r is None:
        return {}
    if int(row["tier"]) == 0:
        return {"p_top": (DASH,) * len(r.top_k)}
    low, high = int(row["rank_ci_low"]), int(row["rank_ci_high"])
    s_low, s_high = int(row["rank_sim_low"]), int(row["rank_sim_high"])
    return {"rank_interval": f"{low}" if low == high else f"{low}\u2013{high}",
            "rank_sim": f"{s_low}" if s_low == s_high else f"{s_low}\u2013{s_high}",
            "p_best": share_text(row["p_best"]),
            "p_top": tuple(share_text(row[f"p_top_{k}"]) for k in r.top_k),
            "in_best_set": bool(row["in_best_set"])}


def caption(a: Analysis) -> str:
    """How to read the tier column, for the method that ran."""
    method = a.ranking.method if a.ranking is not None else a.settings.tier_method
    if method == "holm":
        return ("A line above a row marks the start of a new tier; the first entry of each tier is "
                "its anchor.")
    if method != "rank-sets":
        return "A line above a row marks the start of a new tier."
    moved = int(out_of_order_mask(a.table["tier"].to_numpy(dtype=int)).sum())
    return ("A line above a row marks where a new tier begins. Tier 1 is exactly the entries "
            "whose rank interval all at once (in brackets) starts at 1, and an entry's tier is one more "
            "than the highest tier of the entries shown to beat it"
            + (f", so tiers can interleave: \u2195 marks {moved:,} "
               f"entr{'y' if moved == 1 else 'ies'} in a better tier than an entry above "
               f"{'it' if moved == 1 else 'them'}." if moved else "."))


# --- the script's data --------------------------------------------------------------------------

def _rounded(values, decimals: int) -> list:
    """Numbers rounded as the page prints them (Python's correctly rounded format), NaN -> None."""
    return [float(f"{v:.{decimals}f}") if math.isfinite(v) else None
            for v in np.asarray(values, dtype=float).tolist()]


def _p_values(values) -> list:
    """Holm's p rounded as printed; 0 stands for "<0.001" (the script prints it so)."""
    out = []
    for p in np.asarray(values, dtype=float).tolist():
        out.append(None if not math.isfinite(p) else 0 if p < 0.001 else float(f"{p:.3f}"))
    return out


def _shares(values) -> list:
    """Shares of replicates kept exact: the script's percentages switch precision at 10% and 90%,
    so a rounded share could cross a threshold and print otherwise than the plain rows."""
    return [None if not math.isfinite(p) else (0 if p == 0 else p)
            for p in np.asarray(values, dtype=float).tolist()]


def payload_text(a: Analysis, decimals: int, meta: dict, block: int | None = None
                 ) -> Iterator[str]:
    """Every entry for the page's script, as the pieces of one compact JSON object
    (:func:`~leaderboard.report.render.compact_json`, not yet escaped for the page):
    ``{"fields": [...], "rows": [[...], ...], "meta": meta}``, ``fields`` naming the positions
    of each row array. The rows are made and encoded ``block`` rows at a time (default
    :data:`BLOCK`), from the table's column slices as the JSON's entries are
    (:func:`~leaderboard.report.json_entries.entry_blocks`), so a large board's rows are never
    all held (one list per column and one per row cost 0.5 GB at 1,000,000 entries).

    Fields: ``rank``, ``team``, ``score``; with a noise model ``ci_low``, ``ci_high``, ``tier``
    (0: not compared), ``p`` (Holm's p, when the table shows it); with rank statistics
    ``rank_low``, ``rank_high``, ``sim_low``, ``sim_high``, ``p_best``, ``p_top_<k>``, ``best``
    (1 in the confidence set of the best); ``public``, ``private`` when the board has them.
    Scores and bounds are rounded to the ``decimals`` the page prints; shares are exact.

    Examples
    --------
    >>> import pandas as pd
    >>> from types import SimpleNamespace
    >>> t = pd.DataFrame({"rank": [1, 2], "team": ["a", "b"], "score": [0.91234, 0.9],
    ...                   "tier": [0, 0]})
    >>> "".join(payload_text(SimpleNamespace(table=t, tiers=None, ranking=None), 4, {}, 1))
    '{"fields":["rank","team","score"],"rows":[[1,"a",0.9123],[2,"b",0.9]],"meta":{}}'
    """
    block = block or BLOCK   # read at each call: the tests make it small
    t = a.table
    has_p = a.tiers is not None and bool(np.isfinite(t["p_vs_anchor"].to_numpy(dtype=float)).any())
    opening = '{"fields":' + compact_json(list(_columns(a, t.iloc[:0], decimals, has_p)))
    opening += ',"rows":['
    for start in range(0, len(t), block):
        columns = _columns(a, t.iloc[start:start + block], decimals, has_p)
        yield opening + compact_json([list(row) for row in zip(*columns.values())])[1:-1]
        opening = ","
    closing = '],"meta":' + compact_json(meta) + "}"
    yield closing if opening == "," else opening + closing   # an empty table: "rows":[]


def _columns(a: Analysis, t, decimals: int, has_p: bool) -> dict[str, list]:
    """The payload's columns of the rows in ``t`` (a slice of the table); ``has_p``: the whole
    table has a p-value to show."""
    columns: dict[str, list] = {"rank": t["rank"].astype(int).tolist(),
                                "team": t["team"].astype(str).tolist(),
                                "score": _rounded(t["score"], decimals)}
    if a.tiers is not None:
        columns["ci_low"] = _rounded(t["ci_low"], decimals)
        columns["ci_high"] = _rounded(t["ci_high"], decimals)
        columns["tier"] = t["tier"].astype(int).tolist()
        if has_p:
            columns["p"] = _p_values(t["p_vs_anchor"])
    if a.ranking is not None:
        placed = t["tier"].to_numpy(dtype=int) > 0
        for name, source in (("rank_low", "rank_ci_low"), ("rank_high", "rank_ci_high"),
                             ("sim_low", "rank_sim_low"), ("sim_high", "rank_sim_high")):
            values = t[source].to_numpy(dtype=float)
            columns[name] = [int(v) if ok else None for v, ok in zip(values.tolist(), placed)]
        columns["p_best"] = _shares(t["p_best"].where(placed))
        for k in a.ranking.top_k:
            columns[f"p_top_{k}"] = _shares(t[f"p_top_{k}"].where(placed))
        columns["best"] = (t["in_best_set"].to_numpy(dtype=bool) & placed).astype(int).tolist()
    for name in ("public", "private"):
        if f"{name}_score" in t.columns:
            columns[name] = _rounded(t[f"{name}_score"], decimals)
    return columns


def tier_options(a: Analysis) -> list[tuple[str, str]]:
    """The tier filter's choices: (value, label) for every tier present, then "no tier"."""
    if a.tiers is None:
        return []
    values, counts = np.unique(a.table["tier"].to_numpy(dtype=int), return_counts=True)
    options = [(str(v), f"tier {v:,} ({c:,})") for v, c in zip(values.tolist(), counts.tolist())
               if v > 0]
    if values.size and values[0] == 0:
        options.append(("0", f"no tier ({int(counts[0]):,})"))
    return options
