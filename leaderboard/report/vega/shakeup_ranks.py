"""The post-mortem's rank changes: a slope chart from public to private rank for the leaders of
either board, and a panel of the private ranks that noise alone gives each public place.

Data in, :class:`~.common.Spec` out. Ranks 1 to ``top`` get one row each; when the shown ranks
reach well past ``top`` the axes break and go on, on a log scale, to the last shown rank (the
labels of each column are spread so that none overlaps: :func:`~.shakeup.sorted_spread`).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import altair as alt
import numpy as np

from leaderboard.report.vega.common import (Chart, BAND, INK, LOG_LABELS, Spec, data, dim_others,
                                            finish, label, with_data)
from leaderboard.report.vega.common import skeleton
from leaderboard.report.vega.layering import layered
from leaderboard.report.vega.shakeup import FELL, LABEL_GAP, ROSE, SAME, sorted_spread


class RankY:
    """Rank to pixels from the top: one row per rank down to ``n``; past it, after a gap, a log
    axis down to ``reach`` (only when ``reach`` is well past ``n``)."""

    def __init__(self, n: int, reach: int, row: float, tail_h: float):
        self.n, self.reach, self.row = n, reach, row
        self.broken = reach > max(1.5 * n, n + 2)
        self.lin_end = row * (n if self.broken else reach)
        self.tail0 = self.lin_end + 22
        self.end = self.tail0 + tail_h if self.broken else self.lin_end

    def __call__(self, rank: float) -> float:
        if not self.broken or rank <= self.n:
            return round(self.row * (rank - 0.5), 1)
        a, b = math.log(self.n + 1), math.log(self.reach)
        return round(self.tail0 + (math.log(rank) - a) / (b - a) * (self.end - self.tail0), 1)


def rank_change_chart(public_rank: np.ndarray, private_rank: np.ndarray, teams: Sequence[str],
                      *, top: int = 20) -> tuple[Spec, dict]:
    """Slope chart of public rank (left) to private rank (right) for the union of both top
    ``top``: green lines rose, orange fell, grey kept their rank. Entries without both ranks are
    left out. Returns the chart and what its caption needs (``shown``, ``total``, ``broken``,
    ``reach``, ``missing``).

    Examples
    --------
    >>> spec, facts = rank_change_chart(np.array([1, 2, 3]), np.array([3, 1, 2]), ["a", "b", "c"],
    ...                                 top=2)
    >>> [(p["team"], p["change"]) for p in spec.to_dict(validate=True)["datasets"]["ends"]][:3]
    [('a', 'fell'), ('a', 'fell'), ('b', 'rose')]
    """
    pub, pri, ok = _rank_iv(public_rank, private_rank, teams, None, top)
    sel = np.flatnonzero(ok & ((pub <= top) | (pri <= top)))
    reach = int(max(pub[sel].max(), pri[sel].max()))
    crowd = max(np.count_nonzero(pub[sel] > top), np.count_nonzero(pri[sel] > top))
    y = RankY(top, reach, float(min(22.0, max(14.0, 440.0 / top))),
              float(min(max(150.0, 15.0 * crowd), 600.0)))
    names = [label(t) for t in teams]
    ends: list[dict[str, Any]] = []     # the datasets' rows
    labels: list[dict[str, Any]] = []
    for i in sel:
        d = int(pub[i] - pri[i])
        change = "same" if d == 0 else "rose" if d > 0 else "fell"
        verb = "same rank" if d == 0 else (f"{change} {abs(d):,} place{'s' if abs(d) != 1 else ''}")
        tip = f"public rank {pub[i]:,}, private rank {pri[i]:,} ({verb})"
        for side, rank in (("public", pub[i]), ("private", pri[i])):
            ends.append({"team": names[i], "side": side, "y": y(rank), "change": change,
                         "tip": tip})
    for side, ranks, sign in (("public", pub, -1), ("private", pri, 1)):
        order = sorted(sel, key=lambda i: (ranks[i], i))
        spread = sorted_spread([y(ranks[i]) for i in order], LABEL_GAP, 4.0)
        for i, at in zip(order, spread):
            short = names[i] if len(names[i]) <= 24 else names[i][:23] + "\u2026"
            text = f"{short}  {ranks[i]:,}" if sign < 0 else f"{ranks[i]:,}  {short}"
            labels.append({"team": names[i], "side": side, "y": round(at, 1), "text": text})
    axes = [{"side": s, "y0": 0.0, "y1": round(y.lin_end, 1)} for s in ("public", "private")]
    if y.broken:
        axes += [{"side": s, "y0": round(y.tail0, 1), "y1": round(y.end, 1)}
                 for s in ("public", "private")]
    height = int(math.ceil(max(y.end, *(lb["y"] for lb in labels)) + 8))
    facts = {"shown": len(sel), "total": int(ok.sum()), "broken": y.broken, "reach": reach,
             "top": top, "missing": int(pub.size - ok.sum())}
    return with_data(_slopes(height), ends=ends, labels=labels, axes=axes), facts


def _rank_iv(public_rank, private_rank, teams, band, top):
    pub, pri = (np.asarray(a, dtype=float).ravel() for a in (public_rank, private_rank))
    if pri.size != pub.size or len(teams) != pub.size:
        raise ValueError("public_rank, private_rank and teams need one value per entry")
    ok = np.isfinite(pub) & np.isfinite(pri) & (pub >= 1) & (pri >= 1)
    if not ok.any():
        raise ValueError("no entry has both a public and a private rank (1-based)")
    if np.any(pub[ok] != np.round(pub[ok])) or np.any(pri[ok] != np.round(pri[ok])):
        raise ValueError("ranks must be whole numbers (competition ranking, 1 = best)")
    if int(top) < 1:
        raise ValueError("top must be at least 1")
    if band is not None:
        if band.ndim != 2 or band.shape[0] != 3 or band.shape[1] < 1:
            raise ValueError(f"band must have shape (3, E), got {band.shape}")
        if not np.all(np.isfinite(band)) or np.any(band < 1) or np.any(np.diff(band, axis=0) < 0):
            raise ValueError("band rows must be finite ranks >= 1 with low <= median <= high")
    return np.where(ok, pub, 0).astype(int), np.where(ok, pri, 0).astype(int), ok


@skeleton()
def _slopes(height: int) -> dict:
    x = alt.X("side:N", sort=["public", "private"], title=None,
              scale=alt.Scale(type="point", domain=["public", "private"], padding=0),
              axis=alt.Axis(orient="top", labelExpr="datum.value + ' rank'", labelFontSize=12,
                            ticks=False, domain=False, labelPadding=10, labelAngle=0))
    y_scale = alt.Scale(domain=[0, height], reverse=True, nice=False, zero=False)
    y = alt.Y("y:Q", scale=y_scale, axis=None)
    colour = alt.Color("change:N", scale=alt.Scale(domain=["rose", "fell", "same"],
                                                   range=[ROSE, FELL, SAME]),
                       legend=alt.Legend(title=None, orient="top",
                                         labelExpr="datum.value == 'same' ? 'same rank' : "
                                                   "datum.value"))
    ends = Chart(data("ends"))
    tips = [alt.Tooltip("team:N", title="team"), alt.Tooltip("tip:N", title="")]
    lab = Chart(data("labels"))
    layers = [
        Chart(data("axes")).mark_rule(color="#9ca3af").encode(
            x=x, y=alt.Y("y0:Q", scale=y_scale, axis=None), y2="y1:Q"),
        ends.mark_line(strokeWidth=1.8).encode(x=x, y=y, detail="team:N", color=colour,
                                               opacity=dim_others(), tooltip=tips),
        ends.mark_circle(size=22, opacity=1).encode(x=x, y=y, color=colour,
                                                    opacity=dim_others(), tooltip=tips),
        lab.mark_text(fontSize=12, color=INK, align=alt.ExprRef(
            "datum.side == 'public' ? 'right' : 'left'"), dx=alt.ExprRef(
            "datum.side == 'public' ? -8 : 8"), fontWeight=alt.ExprRef(
            "datum.team === selected_team ? 'bold' : 'normal'")).encode(
            x=x, y=y, text="text:N", tooltip=[alt.Tooltip("team:N", title="team")]),
    ]
    chart = layered(*layers, width=290, height=height)
    return finish(chart, "shakeup-ranks", fit=False)


def noise_panel_chart(public_rank: np.ndarray, private_rank: np.ndarray, teams: Sequence[str],
                      band: np.ndarray, *, top: int = 20) -> Spec:
    """For each of the public top ``top`` places (ties in input order): the range of private
    ranks noise alone gives the entry at that place in 95% of simulations (a bar), its median (a
    tick) and the private rank that entry got (a dot: green if it rose beyond the range, orange
    if it fell beyond it). ``band`` has shape (3, E): the 2.5, 50 and 97.5% quantiles by place.

    Examples
    --------
    >>> band = np.array([[1, 1, 2], [1, 2, 3], [2, 3, 3]])
    >>> s = noise_panel_chart(np.array([1, 2, 3]), np.array([3, 1, 2]), list("abc"), band).to_dict()
    >>> [(c["place"], c["kind"]) for c in s["datasets"]["places"]]
    [(1, 'fell'), (2, 'within'), (3, 'within')]
    """
    band = np.asarray(band, dtype=float)
    pub, pri, ok = _rank_iv(public_rank, private_rank, teams, band, top)
    kept = np.flatnonzero(ok)
    m = min(top, kept.size, band.shape[1])
    order = kept[np.lexsort((kept, pub[kept]))][:m]            # the entries at public places 1..m
    names = [label(t) for t in teams]
    places = []
    for p, i in enumerate(order):
        lo, mid, hi = (float(v) for v in band[:, p])
        obs = int(pri[i])
        kind = "rose" if obs < lo else "fell" if obs > hi else "within"
        places.append({"place": p + 1, "team": names[i], "lo": lo, "mid": mid, "hi": hi,
                       "obs": obs, "kind": kind,
                       "tip": f"private rank {obs:,}; noise alone puts it between {_r(lo)} and "
                              f"{_r(hi)} in 95% of simulations (median {_r(mid)})"})
    return with_data(_panel(m), places=places)


def _r(v: float) -> str:
    return f"{v:,.0f}" if abs(v - round(v)) < 0.05 else f"{v:,.1f}"


@skeleton()
def _panel(m: int) -> dict:
    # a phone's plot has ~15 px a place: every other number shown rather than "10111213..."
    x = alt.X("place:O", title="public place", axis=alt.Axis(labelAngle=0, labelOverlap="parity",
                                                               labelSeparation=4))
    y = alt.Y("lo:Q", title="private rank (log scale)",
              scale=alt.Scale(type="log", reverse=True, nice=False, padding=6),
              axis=alt.Axis(labelExpr=LOG_LABELS))
    base = Chart(data("places"))
    tips = [alt.Tooltip("place:O", title="public place"), alt.Tooltip("team:N", title="team"),
            alt.Tooltip("tip:N", title="")]
    layers = [
        base.mark_bar(color=BAND, size=12).encode(x=x, y=y, y2="hi:Q", tooltip=tips),
        base.mark_tick(color=INK, thickness=2, size=16).encode(x=x, y="mid:Q", tooltip=tips),
        base.mark_circle(size=40, opacity=1).encode(
            x=x, y="obs:Q", tooltip=tips, opacity=dim_others(),
            color=alt.Color("kind:N", scale=alt.Scale(domain=["rose", "fell", "within"],
                                                      range=[ROSE, FELL, INK]),
                            legend=alt.Legend(title=None, orient="top", columns=2, labelExpr=(
                                "datum.value == 'within' ? 'within the range' : datum.value + "
                                "' beyond it'")))),
    ]
    return finish(layered(*layers, width=max(24 * m, 300), height=220),
                  "shakeup-noise")
