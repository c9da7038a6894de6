"""Battles mode as plain JSON (``leaderboard/schema/battles.schema.json``): strict, no NaN.

Top-level keys::

    version, mode ("battles"), format ("battles"), source, alpha, replicates, seed, anchor,
    scale, tier_method, tier_guarantee, battles, pairs_met, pairs_possible, not_comparable,
    dropped_replicates, notes, models

``models`` are in rating order, best first; a value that cannot be given (the anchor model's
interval: its rating is fixed by definition) is null, never a zero-width interval.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from leaderboard.noise.bradley_terry import SCALE

if TYPE_CHECKING:
    from leaderboard.pipelines.battles import BattlesAnalysis

_FLOATS = ("rating", "ci_low", "ci_high", "se_bootstrap", "se_sandwich", "sandwich_low",
           "sandwich_high", "score_share", "p_best")
_INTS = ("rank", "battles", "wins", "losses", "ties", "tier", "rank_sim_low", "rank_sim_high",
         "rank_ci_low", "rank_ci_high")


def _float(x) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def battles_json(a: BattlesAnalysis) -> dict:
    """The analysis as a JSON-ready dictionary."""
    from leaderboard import __version__

    s, b = a.settings, a.battles
    m = len(a.table)
    models = []
    for row in a.table.to_dict("records"):
        entry = {"model": str(row["model"])}
        entry.update({k: int(row[k]) for k in _INTS})
        entry.update({k: _float(row[k]) for k in _FLOATS})
        entry["p_top"] = {str(k): float(row[f"p_top_{k}"]) for k in a.ranking.top_k}
        entry["in_best_set"] = bool(row["in_best_set"])
        models.append(entry)
    return {
        "version": __version__, "mode": "battles", "format": "battles", "source": b.source,
        "alpha": s.alpha, "replicates": s.replicates, "seed": s.seed,
        "anchor": {"model": s.anchor, "rating": s.anchor_rating},
        "scale": {"points_per_logit": SCALE, "ties": "half a win for each model",
                  "model": "Bradley-Terry (logistic)"},
        "tier_method": s.tier_method,
        "tier_guarantee": a.ranking.description.words(s.alpha)["guarantee"],
        "battles": {"rows_read": b.rows_read, "kept": b.n_battles, "rated": a.battles_rated,
                    "ties": int(a.table["ties"].sum()) // 2, "both_bad": int(b.both_bad.sum()),
                    "dropped": [{"reason": d.reason, "count": d.count, "lines": list(d.lines)}
                                for d in b.dropped],
                    "columns": dict(b.columns)},
        "pairs_met": a.pairs_met, "pairs_possible": m * (m - 1) // 2,
        "not_comparable": [list(g) for g in a.not_comparable],
        "dropped_replicates": a.dropped_replicates, "notes": list(a.notes), "models": models}


def battles_csv(a: BattlesAnalysis) -> str:
    """The model table as CSV (``--csv``), a name a spreadsheet would run as a formula prefixed
    with ``'`` by :func:`leaderboard.inert_text.csv_text` (as the tier table's CSV does), CRLF
    line ends so a carriage return inside a name stays inside its quoted cell."""
    from leaderboard.inert_text import csv_text

    out = a.table.drop(columns=["p_vs_anchor"], errors="ignore").copy()
    out["model"] = [csv_text(name) for name in out["model"].astype(str)]
    return out.to_csv(index=False, float_format="%.10g", lineterminator="\r\n")
