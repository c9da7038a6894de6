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
from leaderboard.report.headline import fit_answer
from leaderboard.report.words import Fact, pct

if TYPE_CHECKING:
    from leaderboard.pipelines.battles import BattlesAnalysis, GroupRating

TEMPLATE = "battles.html.j2"
CHART_ROWS = 40
TIER_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
                "#999999")
_ROW, _LEFT, _WIDTH, _TOP, _NARROW = 20, 180, 700, 34, 360
# measured by leaderboard.studies.battles_coverage (docs/battles.md has the table)
COVERAGE_WORDS = ("On simulated arenas with a model of 15 battles among well-measured ones, the "
                  "95% interval held that model's true rating 94% of the time, the others' 95%.")


NOT_PLACED = "#FFFFFF"


def tier_colour(tier: int) -> str:
    """One colour per tier for the first seven; grey for tier 8 and every tier after it (a
    cycle would give tier 9 tier 1's colour); white (an open dot) for a model not placed."""
    if int(tier) < 1:
        return NOT_PLACED
    return TIER_COLOURS[min(int(tier), len(TIER_COLOURS)) - 1]


def _legend(g: GroupRating) -> list[dict]:
    top = int(g.table["tier"].max())
    out = [{"label": f"tier {k}" + ("+" if k == len(TIER_COLOURS) and top > k else ""),
            "colour": tier_colour(k)} for k in range(1, min(top, len(TIER_COLOURS)) + 1)]
    if not g.table["placed"].all():
        out.append({"label": "too few battles to place", "colour": NOT_PLACED})
    return out


def _num(x: float, digits: int = 0) -> str:
    return "\u2013" if x is None or not math.isfinite(x) else f"{x:,.{digits}f}"


def _models(count: int) -> str:
    return f"{count:,} model{'s' if count != 1 else ''}"


def _list(names: list[str], limit: int = 6) -> str:
    """Names for a sentence: ``a, b and c``, or ``a, b and 4 more`` past ``limit``.

    Examples
    --------
    >>> _list(["a", "b"]), _list(["a", "b", "c"], limit=2)
    ('a and b', 'a, b and 1 more')
    """
    if len(names) > limit:
        return ", ".join(names[:limit]) + f" and {len(names) - limit:,} more"
    return " and ".join([", ".join(names[:-1]), names[-1]]) if len(names) > 1 else "".join(names)


def answer(a: BattlesAnalysis) -> tuple[str, list[str]]:
    """The headline and the sentences that say how sure it is (of the group with the most
    battles; the others are counted in the headline)."""
    from leaderboard.pipelines.battles import group_sentence

    t, conf = a.table, confidence_label(a.settings.alpha)
    top = t[t["tier"] == 1]["model"].tolist()
    leader = t[t["placed"]].iloc[0] if t["placed"].any() else t.iloc[0]
    thin = a.groups[0].thin
    method = a.ranking.description
    if not top:
        head = "No model is placed: every model has too few battles."
        said = []
    elif len(top) == 1 and method.same_family_as_rank_sets and not thin:
        head = f"{top[0]} is the best model, and the battles show it."
        said = [f"Every other model has some model shown better than it by the simultaneous "
                f"tests (confidence {conf} for all the page's 'shown better' at once), so only "
                f"{top[0]} can be the best."]
    elif len(top) == 1 and method.same_family_as_rank_sets:
        head = (f"{top[0]} is the best of the models the battles place; "
                f"{_list(list(thin))} {'has' if len(thin) == 1 else 'have'} too few battles "
                "to say.")
        said = [f"Every other placed model has some model shown better than it by the "
                f"simultaneous tests (confidence {conf} for all the page's 'shown better' at "
                f"once), so only {top[0]} can be the best of them."]
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
    groups = a.groups
    if len(groups) > 1:   # which group the answer is about (it had said "This is the first.")
        others = len(groups) - 1
        head += (f" This answer is for the group with the most battles "
                 f"({group_sentence(groups[0])}): the models fall into {len(groups):,} groups "
                 f"that never met, each rated on its own (the other{'s' if others > 1 else ''}: "
                 f"{'; '.join(group_sentence(g) for g in groups[1:4])}"
                 + ("; ..." if others > 3 else "") + ").")
    if thin:
        low, high = (int(t.loc[t["model"] == thin[0], c].iloc[0])
                     for c in ("rank_sim_low", "rank_sim_high"))
        said.append(f"Too few battles to place {_list(list(thin))}: not in any tier"
                    + (f" ({thin[0]} could hold any rank from {low} to {high})."
                       if len(thin) == 1 else "."))
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
           Fact("Ratings", "Bradley-Terry, bias-reduced (Firth), 400/ln 10 = 173.7 points per "
                "logit (400 points is 10:1 odds); " + (
                    f"{s.anchor} fixed at {_num(s.anchor_rating)}" if s.anchor else
                    f"the models' mean rating is {_num(s.anchor_rating)}")),
           Fact("Ties", "half a win for each model, as the arenas count them"),
           Fact("Intervals", f"{confidence_label(s.alpha)}: a bootstrap of "
                + (f"clusters of battles ({show_column(b.columns['cluster'])})"
                   if b.cluster is not None else "battles")
                + f", {s.replicates:,} redraws, every model refitted on each (seed {s.seed}); "
                + (f"{a.dropped_replicates:,} redraws could not be refitted and are left out"
                   if a.dropped_replicates else "every redraw kept (none is unbounded: each "
                   "is refitted with the fit's virtual ties)")
                + "; the sandwich standard error beside it")]
    if len(a.groups) > 1:
        out.insert(3, Fact("Groups that never met", "; ".join(
            f"{k}: {len(g.table):,} models, {g.battles:,} battles"
            for k, g in enumerate(a.groups, start=1))))
    for role in ("judge", "category", "date", "id"):
        if role in b.columns:
            values = np.unique(b.extra[role].astype(str))
            label = "Battle id" if role == "id" else role.capitalize()
            out.append(Fact(f"{label} column", f"{b.columns[role]}: "
                            f"{values.size:,} distinct value{'s' if values.size != 1 else ''} "
                            "(shown, not modelled)"))
    return out


def _chart(g: GroupRating) -> dict:
    """Coordinates of the rating chart: a dot per model at its rating, a bar for its interval.

    Two layouts of the same numbers: ``wide`` (names in a column left of the bars) and, shown
    below 600 px by the stylesheet, ``narrow`` (each name above its bar, the bars the phone's
    whole width), so a phone shows every dot without scrolling the chart sideways."""
    t = g.table.head(CHART_ROWS)
    lo = np.nanmin(np.r_[t["ci_low"].to_numpy(float), t["rating"].to_numpy(float)])
    hi = np.nanmax(np.r_[t["ci_high"].to_numpy(float), t["rating"].to_numpy(float)])
    pad = max((hi - lo) * 0.04, 1.0)
    lo, hi = lo - pad, hi + pad
    return {"wide": _layout(t, lo, hi, _nice_step((hi - lo) / 6), _LEFT, _WIDTH, _ROW,
                            above=False),
            "narrow": _layout(t, lo, hi, _nice_step((hi - lo) / 4), 8, _NARROW, 2 * _ROW,
                              above=True),
            "shown": len(t), "total": len(g.table)}


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
                     "stroke": tier_colour(r.tier) if r.placed else "#555555",
                     "tip": f"{r.model}: {_num(r.rating)} ({_num(r.ci_low)} to "
                            f"{_num(r.ci_high)}), "
                            + (f"tier {int(r.tier)}" if r.placed else "not placed")})
    return {"width": width, "height": _TOP + len(rows) * row + 10, "left": left,
            "ticks": ticks, "rows": rows}


def _nice_step(raw: float) -> float:
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def _rows(a: BattlesAnalysis, g: GroupRating) -> list[dict]:
    rows = []
    for r in g.table.itertuples(index=False):
        rank_set = (str(r.rank_sim_low) if r.rank_sim_low == r.rank_sim_high
                    else f"{r.rank_sim_low}\u2013{r.rank_sim_high}")
        rows.append({"rank": r.rank, "model": r.model,
                     "tier": int(r.tier) if r.placed else "not placed",
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


def show_column(name: str) -> str:
    """A column's name as the page quotes it."""
    from leaderboard.ingest.toolkit.messages import show

    shown = show(name)
    return shown if shown.startswith(("'", '"')) else f"'{shown}'"


def _groups(a: BattlesAnalysis) -> list[dict]:
    """One chart and table per rated group, the one with the most battles first."""
    from leaderboard.pipelines.battles import group_sentence

    several = len(a.groups) > 1
    return [{"id": f"group-{k}", "title": (f"Group {k} of {len(a.groups)}: "
                                           f"{group_sentence(g)}" if several else ""),
             "chart": _chart(g), "rows": _rows(a, g), "legend": _legend(g),
             "thin": bool(g.thin)}
            for k, g in enumerate(a.groups, start=1)]


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
             "1 / (1 + 10^((R_j \u2212 R_i) / 400)). Fitted on the counts of wins and ties of "
             "every pair, ties counted as half a win for each model, by Firth's bias-reduced "
             "likelihood: the plain maximum-likelihood fit the arenas publish with a few virtual "
             "ties added (the pairs' leverages, as many in all as there are models less one), so "
             "it is finite even for a model that never lost, and a model with few battles is "
             "not pushed to the extremes. On thousands of battles the two fits differ by a "
             "fraction of a point (the JSON and CSV give both: rating, rating_mle). Only "
             "differences are measured; the anchor places them."),
        Fact("95% interval" if conf == "95%" else f"{conf} interval",
             "The middle of the model's ratings over redraws of the battles with replacement "
             "(a percentile interval), every model refitted on each redraw, so the redraws are "
             "paired across models. Each redraw is smoothed by the fit's virtual ties, so a "
             "model with no loss (or no win) among few battles still loses (wins) in some "
             f"redraws. {COVERAGE_WORDS} "
             "It assumes the battles are independent (or, with a cluster column, the clusters); "
             "battles by one voter or on one prompt that go together make it too narrow "
             "otherwise."),
        Fact("Not placed", "A model whose rank set is every rank of its group and whose interval "
             "is more than twice as wide as the group's typical one: its battles do not place "
             "it, so it gets no tier (it would otherwise sit in tier 1 only because nothing can "
             "be shown better than it). Its rank set and interval are still shown."),
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
    said, more = fit_answer(head, said)   # the answer box's words at most; the rest below it
    return {"title": f"Arena ratings: {a.battles.source}", "headline": head, "said": said,
            "more": more,
            "facts": facts(a), "notes": list(a.notes), "groups": _groups(a),
            "conf": confidence_label(a.settings.alpha), "how": how_to_read(a),
            "dropped": [{"reason": d.reason, "count": f"{d.count:,}",
                         "lines": ", ".join(map(str, d.lines))
                         + (", ..." if d.count > len(d.lines) else "")}
                        for d in a.battles.dropped],
            "not_comparable": [_list(list(g), 12) for g in a.not_comparable],
            "version": __version__, "seed": a.settings.seed,
            "card": card_context(a.card, lambda x: f"{float(x):,.0f} points")}


def render_battles(a: BattlesAnalysis) -> str:
    """The self-contained HTML page."""
    return render_page(TEMPLATE, context(a))
