"""Words and page of battles mode (``leaderboard analyze --battles``).

Every sentence is decided here from :class:`~leaderboard.pipelines.battles.BattlesAnalysis`;
``templates/battles.html.j2`` lays it out through Jinja2 autoescaping (model names are
untrusted). The chart is inline SVG drawn from numbers computed here, so the page needs no script
but the table's "find a model" filter. The same inputs and seed render the same bytes.
"""
from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

import numpy as np

from leaderboard.confidence import confidence_label
from leaderboard.report.card_text import card_context
from leaderboard.report.render import render_page
from leaderboard.report.words import Fact, pct

if TYPE_CHECKING:
    from leaderboard.pipelines.battles import BattlesAnalysis

TEMPLATE = "battles.html.j2"
CHART_ROWS = 40
TIER_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
                "#999999")
_ROW, _LEFT, _WIDTH, _TOP, _NARROW = 20, 180, 700, 34, 360


def tier_colour(tier: int) -> str:
    """One colour per tier for the first seven; grey for tier 8 and every tier after it (a
    cycle would give tier 9 tier 1's colour)."""
    return TIER_COLOURS[min(int(tier), len(TIER_COLOURS)) - 1]


def _legend(a: BattlesAnalysis) -> list[dict]:
    top = int(a.table["tier"].max())
    return [{"label": f"tier {k}" + ("+" if k == len(TIER_COLOURS) and top > k else ""),
             "colour": tier_colour(k)} for k in range(1, min(top, len(TIER_COLOURS)) + 1)]


def _num(x: float, digits: int = 0) -> str:
    return "\u2013" if x is None or not math.isfinite(x) else f"{x:,.{digits}f}"


def _models(count: int) -> str:
    return f"{count:,} model{'s' if count != 1 else ''}"


def _list(names: list[str], limit: int = 6) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit:,} more" if len(names) > limit else "")


def answer(a: BattlesAnalysis) -> tuple[str, list[str]]:
    """The headline and the sentences that say how sure it is."""
    t, conf = a.table, confidence_label(a.settings.alpha)
    top = t[t["tier"] == 1]["model"].tolist()
    leader = t.iloc[0]
    method = a.ranking.description
    if len(top) == 1 and method.same_family_as_rank_sets:
        head = f"{top[0]} is the best model, and the battles show it."
        said = [f"Every other model has some model shown better than it by the simultaneous "
                f"tests (confidence {conf} for all the page's 'shown better' at once), so only "
                f"{top[0]} can be the best."]
    elif len(top) == 1:
        head = f"{top[0]} is alone in tier 1."
        said = [f"Tiers here are {method.label}: "
                f"{_as_models(method.words(a.settings.alpha)['guarantee'])}."]
    else:
        head = (f"{len(top):,} models share tier 1: the battles cannot tell which is best "
                f"among {_list(top)}.")
        said = [f"{leader['model']} has the highest rating ({_num(leader['rating'])}), but no "
                "other model of tier 1 is shown worse than it at "
                f"confidence {conf}, all comparisons at once."]
    said.append(f"{leader['model']} is best on {pct(leader['p_best'])} of the redraws of the "
                f"battles; its rating's {conf} interval is {_num(leader['ci_low'])} to "
                f"{_num(leader['ci_high'])}.")
    return head, said


def facts(a: BattlesAnalysis) -> list[Fact]:
    b, s, t = a.battles, a.settings, a.table
    m = len(t)
    ties = int(t["ties"].sum()) // 2
    both_bad = int(b.both_bad.sum())
    dropped = sum(d.count for d in b.dropped)
    out = [Fact("Battles file", b.source),
           Fact("Battles read", f"{b.rows_read:,} ({b.n_battles:,} kept, {dropped:,} not used)"),
           Fact("Battles rated", f"{a.battles_rated:,} among {_models(m)}; {ties:,} ties "
                f"({pct(ties / max(a.battles_rated, 1))}), of which {both_bad:,} 'both bad'"),
           Fact("Pairs of models that met", f"{a.pairs_met:,} of {m * (m - 1) // 2:,} possible"),
           Fact("Ratings", "Bradley-Terry, 400/ln 10 = 173.7 points per logit (400 points is 10:1 "
                "odds); " + (f"{s.anchor} fixed at {_num(s.anchor_rating)}" if s.anchor else
                             f"the models' mean rating is {_num(s.anchor_rating)}")),
           Fact("Ties", "half a win for each model, as the arenas count them"),
           Fact("Intervals", f"{confidence_label(s.alpha)}: a basic bootstrap of battles, "
                f"{s.replicates:,} redraws, every model refitted on each (seed {s.seed}); the "
                "sandwich standard error beside it")]
    for role in ("judge", "category", "date"):
        if role in b.columns:
            values = np.unique(b.extra[role].astype(str))
            out.append(Fact(f"{role.capitalize()} column", f"{b.columns[role]}: "
                            f"{values.size:,} distinct value{'s' if values.size != 1 else ''} "
                            "(shown, not modelled)"))
    return out


def _chart(a: BattlesAnalysis) -> dict:
    """Coordinates of the rating chart: a dot per model at its rating, a bar for its interval.

    Two layouts of the same numbers: ``wide`` (names in a column left of the bars) and, shown
    below 600 px by the stylesheet, ``narrow`` (each name above its bar, the bars the phone's
    whole width), so a phone shows every dot without scrolling the chart sideways."""
    t = a.table.head(CHART_ROWS)
    lo = np.nanmin(np.r_[t["ci_low"].to_numpy(float), t["rating"].to_numpy(float)])
    hi = np.nanmax(np.r_[t["ci_high"].to_numpy(float), t["rating"].to_numpy(float)])
    pad = max((hi - lo) * 0.04, 1.0)
    lo, hi = lo - pad, hi + pad
    return {"wide": _layout(t, lo, hi, _nice_step((hi - lo) / 6), _LEFT, _WIDTH, _ROW,
                            above=False),
            "narrow": _layout(t, lo, hi, _nice_step((hi - lo) / 4), 8, _NARROW, 2 * _ROW,
                              above=True),
            "shown": len(t), "total": len(a.table)}


def _layout(t, lo: float, hi: float, step: float, left: float, width: float, row: float,
            above: bool) -> dict:
    span = width - left - 20

    def x(v: float) -> float:
        return round(left + (v - lo) / (hi - lo) * span, 1)

    ticks = [{"x": x(v), "label": f"{v:,.0f}"} for v in
             np.arange(math.ceil(lo / step) * step, hi, step)]
    rows = []
    for k, r in enumerate(t.itertuples(index=False)):
        y = _TOP + k * row + (row * 0.7 if above else row / 2)
        has_ci = math.isfinite(r.ci_low) and math.isfinite(r.ci_high)
        limit = 44 if above else 26
        name = r.model if len(r.model) <= limit else r.model[:limit - 1] + "\u2026"
        rows.append({"y": y, "name": name, "full": r.model, "dot": x(r.rating),
                     "name_x": left if above else left - 10,
                     "name_y": y - 11 if above else y + 4,
                     "lo": x(r.ci_low) if has_ci else None,
                     "hi": x(r.ci_high) if has_ci else None,
                     "colour": tier_colour(r.tier),
                     "tip": f"{r.model}: {_num(r.rating)} ({_num(r.ci_low)} to "
                            f"{_num(r.ci_high)}), tier {int(r.tier)}"})
    return {"width": width, "height": _TOP + len(rows) * row + 10, "left": left,
            "ticks": ticks, "rows": rows}


def _nice_step(raw: float) -> float:
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def _rows(a: BattlesAnalysis) -> list[dict]:
    rows = []
    for r in a.table.itertuples(index=False):
        rank_set = (str(r.rank_sim_low) if r.rank_sim_low == r.rank_sim_high
                    else f"{r.rank_sim_low}\u2013{r.rank_sim_high}")
        rows.append({"rank": r.rank, "model": r.model, "tier": int(r.tier),
                     "colour": tier_colour(r.tier),
                     "rating": _num(r.rating),
                     "interval": (f"{_num(r.ci_low)} to {_num(r.ci_high)}"
                                  if math.isfinite(r.ci_low) else
                                  "anchor (fixed)" if r.model == a.settings.anchor else
                                  "none (see the notes)"),
                     "sandwich": _num(r.se_sandwich, 1), "bootstrap": _num(r.se_bootstrap, 1),
                     "rank_set": rank_set, "p_best": pct(r.p_best),
                     "battles": f"{r.battles:,}", "share": pct(r.score_share)})
    return rows


def _as_models(text: str) -> str:
    """A tier method's words, said of models ("entry" is the other modes' word)."""
    text = re.sub(r"\bentries\b", "models", text)
    return re.sub(r"\ban entry\b", "a model", re.sub(r"\bentry\b", "model", text))


def how_to_read(a: BattlesAnalysis) -> list[Fact]:
    s = a.settings
    conf = confidence_label(s.alpha)
    method = a.ranking.description.words(s.alpha)
    return [
        Fact("Rating", "A Bradley-Terry (logistic) fit: model i beats model j with probability "
             "1 / (1 + 10^((R_j \u2212 R_i) / 400)). Fitted by maximum likelihood on the counts of "
             "wins and ties of every pair (Newton's method), ties counted as half a win for each "
             "model. Only differences are measured; the anchor places them."),
        Fact("95% interval" if conf == "95%" else f"{conf} interval",
             "The model's rating over redraws of the battles with replacement, every model "
             "refitted on each redraw (so the redraws are paired across models), reflected "
             "around the rating (twice the rating minus the redraws' upper and lower points: "
             "the basic bootstrap interval; on 1,600 simulated arenas its 95% interval held the "
             "true rating 94.6\u201395.4% of the time, the plain percentile one, short with few "
             "battles, 94.2\u201394.8%). "
             "It assumes the battles are independent; battles by one voter or on one prompt "
             "that go together make it too narrow."),
        Fact("SE (sandwich)", "The robust standard error from the fit itself (the inverse Hessian "
             "around the observed spread of each battle's outcome); it should be close to the "
             "bootstrap's standard error (SE (bootstrap)). A large gap means few battles for "
             "that model."),
        Fact("Rank set", f"Simultaneous {conf} rank confidence sets: with probability at least "
             f"{conf} every model's true rank is in its set, all models at once."),
        Fact("Tier", _as_models(method["explanation"])),
        Fact("P(best)", "Share of the redraws of the battles on which the model has the highest "
             "rating. A description of the uncertainty, not the probability that it is truly "
             "best."),
        Fact("Win share", "Wins plus half the ties, over the model's battles. It depends on whom "
             "the model met; the rating accounts for that."),
    ]


def context(a: BattlesAnalysis) -> dict:
    from leaderboard import __version__

    head, said = answer(a)
    return {"title": f"Arena ratings: {a.battles.source}", "headline": head, "said": said,
            "facts": facts(a), "notes": list(a.notes), "chart": _chart(a), "rows": _rows(a),
            "conf": confidence_label(a.settings.alpha), "how": how_to_read(a),
            "dropped": [{"reason": d.reason, "count": f"{d.count:,}",
                         "lines": ", ".join(map(str, d.lines))
                         + (", ..." if d.count > len(d.lines) else "")}
                        for d in a.battles.dropped],
            "not_comparable": [_list(list(g), 12) for g in a.not_comparable],
            "version": __version__, "seed": a.settings.seed,
            "legend": _legend(a),
            "card": card_context(a.card, lambda x: f"{float(x):,.0f} points")}


def render_battles(a: BattlesAnalysis) -> str:
    """The self-contained HTML page."""
    return render_page(TEMPLATE, context(a))
