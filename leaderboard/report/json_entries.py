"""The JSON's ``entries``, made and encoded a block of rows at a time (issue 41).

Every entry's row is a Python dict of ~1.3 kB; holding all of them before the text was written
cost 1.3 GB at 1,000,000 entries, the memory peak of the run. The rows are built here from the
table's columns a block at a time (``BLOCK`` rows: each column's slice read once, not row by
row), so :func:`leaderboard.report.json_out.write_json` holds one block's rows and text, and
:func:`leaderboard.report.json_out.to_json_dict` lists them all for the Python API. The text is
the same bytes as ``json.dumps`` of the whole list inside the document (checked by
``tests/report/test_json_stream.py``).
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from leaderboard.report.numbers import json_number as _num
from leaderboard.report.tier_marks import anchor_mask
from leaderboard.report.vocabulary import is_items

if TYPE_CHECKING:  # annotations only
    from leaderboard.pipelines.scores import Analysis

BLOCK = 1024   # rows built, encoded and written at a time: ~1.3 MB of dicts, ~5 MB of pieces
_COLUMNS = ["rank", "team", "score", "ci_low", "ci_high", "sd", "d95", "p_vs_anchor", "tier"]
_RANK_INTS = ("rank_ci_low", "rank_ci_high", "rank_sim_low", "rank_sim_high")
_NO_RANKS = {"rank_ci_low": None, "rank_ci_high": None, "rank_sim_low": None,
             "rank_sim_high": None, "p_best": None, "p_top": None, "in_best_set": None}


def entry_blocks(analysis: Analysis) -> Iterator[list[dict]]:
    """The JSON's entries in rank order, as lists of at most :data:`BLOCK` row dicts (none for
    an empty table)."""
    block = BLOCK   # read at each call: the tests make it small
    table = analysis.table
    has_tiers = analysis.tiers is not None
    anchors = anchor_mask(table["tier"].to_numpy()) if has_tiers else np.zeros(len(table), bool)
    extra = [c for c in ("file", "public_score", "private_score") if c in table.columns]
    items, submissions = is_items(analysis), analysis.submissions is not None
    for start in range(0, len(table), block):
        part = table.iloc[start:start + block]
        rows = zip(*(part[c].tolist() for c in _COLUMNS + extra))
        identical = part["identical_to"].tolist() if submissions else [None] * len(part)
        out = []
        for i, row, ranks, same in zip(range(start, start + len(part)), rows,
                                       _rank_fields(analysis, part), identical):
            rank, team, score, lo, hi, sd, d95, p, tier, *rest = row
            entry = {"team": str(team), "score": _num(score), "rank": int(rank),
                     "ci_low": _num(lo), "ci_high": _num(hi),
                     "tier": int(tier) if has_tiers and tier > 0 else None,   # 0: left out
                     "sd": _num(sd), "d95": _num(d95),
                     "p_vs_anchor": None if anchors[i] else _num(p),
                     "is_anchor": bool(anchors[i])}
            for name, value in zip(extra, rest):
                entry[name] = str(value) if name == "file" else _num(value)
            entry.update(ranks)
            if submissions:
                entry["identical_to"] = None if same is None else str(same)
            if items:   # a benchmark's word for the entry, beside the "team" consumers read
                entry["model"] = entry["team"]
            out.append(entry)
        yield out


def _rank_fields(analysis: Analysis, part) -> list[dict]:
    """The rank statistics of the rows in ``part`` (a slice of the table), from its columns;
    all null without a ranking, and for entries left out of it (tier 0)."""
    ranking = analysis.ranking
    if ranking is None:
        return [dict(_NO_RANKS) for _ in range(len(part))]
    tops = [str(k) for k in ranking.top_k]
    columns = zip(part["tier"].tolist(), *(part[c].tolist() for c in _RANK_INTS),
                  part["p_best"].tolist(), part["in_best_set"].tolist(),
                  *(part[f"p_top_{k}"].tolist() for k in ranking.top_k))
    return [dict(_NO_RANKS) if int(tier) == 0 else {
        "rank_ci_low": int(low), "rank_ci_high": int(high), "rank_sim_low": int(sim_low),
        "rank_sim_high": int(sim_high), "p_best": _num(p_best),
        "p_top": {k: _num(p) for k, p in zip(tops, p_top)}, "in_best_set": bool(best)}
        for tier, low, high, sim_low, sim_high, p_best, best, *p_top in columns]


def tier_counts(analysis: Analysis) -> tuple[int | None, int | None]:
    """(``n_tiers``, ``tier1_size``) of the JSON: the highest tier and the top tier's size, from
    the tier column (None without tiers)."""
    if analysis.tiers is None:
        return None, None
    tiers = analysis.table["tier"].to_numpy()
    placed = tiers[tiers > 0]   # 0: left out
    if not placed.size:
        return None, None
    return int(placed.max()), int(np.count_nonzero(placed == 1))


def entries_text(analysis: Analysis, encoder: json.JSONEncoder) -> Iterator[str]:
    """The ``entries`` list's text as the indented document holds it (two levels in), a block of
    rows at a time: each block encoded as a list, its brackets cut and its lines indented once
    more (a string's newlines are escaped, so every newline in the text is indentation)."""
    opening = "["
    for rows in entry_blocks(analysis):
        text = encoder.encode(rows)   # "[\n  {...},\n  {...}\n]"
        yield opening + text[1:-2].replace("\n", "\n  ")
        opening = ","
    yield "[]" if opening == "[" else "\n  ]"
