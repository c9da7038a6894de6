"""The rank section's charts: rank intervals with P(best), Kendall's tau of resampled rankings,
how often each top entry took each rank (a blob plot), and the significance map.

Data in, :class:`~.common.Spec` out, like :mod:`~leaderboard.report.vega.analyze`. Entries come
in observed rank order, best first; names pass :func:`~.common.label`.
"""
from __future__ import annotations

import math

import altair as alt
import numpy as np
import pandas as pd

from leaderboard.report.vega.analyze import ROW, binned, tone, tone_scale
from leaderboard.report.vega.common import (Chart, HIGHLIGHT, INK, LOG_LABELS, PALETTE, TOP, WIDTH,
                                            Spec, data, dim_others, finish, finite, is_selected,
                                            label, label_limit, share_text, top_or_selected,
                                            with_data)
from leaderboard.report.vega.common import skeleton
from leaderboard.report.vega.layering import layered
from leaderboard.params import DEFAULT_LEVEL

SIG_BETTER, SIG_WORSE, NOT_SIG, UNTESTED = PALETTE[0], "#A9CCE8", "#E5E7EB", "#FFFFFF"
CROSS = "M-1,-1L1,1M-1,1L1,-1"   # an x, as an SVG path in the unit square


# --- rank intervals ---------------------------------------------------------------------------

def log_ranks(high: np.ndarray, shown: int) -> bool:
    """A log rank axis when the shown intervals reach more than five times past the shown rows
    and past rank 100, so that the leaders' short intervals stay visible.

    Examples
    --------
    >>> log_ranks(np.array([3, 2410]), 60), log_ranks(np.array([3, 90]), 60)
    (True, False)
    """
    reach = int(np.nanmax(high)) if np.size(high) else 1
    return reach > 100 and reach > 5 * shown


def rank_interval_chart(rows: pd.DataFrame, *, level: str, top: int = TOP,
                        log: bool | None = None) -> Spec:
    """One row per entry (the top ``top``, and the selected team): a thick bar over its
    marginal rank interval, a thin line over the simultaneous one, an open dot at its observed
    rank, colours by tier, and P(best) written at the right. ``rows`` is
    :func:`~leaderboard.report.vega.analyze.entry_rows` (with the rank columns); ``log=None``
    picks the axis by :func:`log_ranks`.

    Examples
    --------
    >>> rows = pd.DataFrame({"rank": [1, 2], "team": ["a", "b"], "tier": [1, 1], "score": [2, 1],
    ...     "rlo": [1, 1], "rhi": [2, 2], "slo": [1, 1], "shi": [2, 2], "pbest": [0.6, 0.4],
    ...     "ptext": ["60%", "40%"]})
    >>> s = rank_interval_chart(rows, level="95%").to_dict(validate=True)
    >>> [r["ptext"] for r in s["datasets"]["entries"]]
    ['60%', '40%']
    """
    _interval_iv(rows, top)
    shown = rows.head(top)
    if log is None:
        log = log_ranks(shown[["rhi", "shi"]].to_numpy(dtype=float), len(shown))
    height = ROW * (len(shown) + (len(rows) > top))
    return with_data(_intervals(level, top, bool(log), height), entries=shown,
                     head=[{"text": "P(best)"}])


def _interval_iv(rows: pd.DataFrame, top: int) -> None:
    missing = {"rank", "team", "tier", "rlo", "rhi", "slo", "shi", "pbest", "ptext"} - set(rows)
    if missing:
        raise ValueError(f"rows need the columns {sorted(missing)}")
    if len(rows) == 0 or int(top) < 1:
        raise ValueError("need at least one entry and top >= 1")
    for lo, hi in (("rlo", "rhi"), ("slo", "shi")):
        a, b = rows[lo].to_numpy(dtype=float), rows[hi].to_numpy(dtype=float)
        if not np.all((1 <= a) & (a <= b)):
            raise ValueError("rank intervals must satisfy 1 <= low <= high")
    p = rows["pbest"].to_numpy(dtype=float)
    if not np.all((p >= 0) & (p <= 1)):
        raise ValueError("pbest must hold one probability in [0, 1] per entry")


@skeleton(maxsize=32)
def _intervals(level: str, top: int, log: bool, height: int) -> dict:
    scale = (alt.Scale(type="log", nice=False, padding=10) if log else
             alt.Scale(zero=False, nice=False, padding=10))
    title = "rank (1 = best" + (", log scale)" if log else ")")
    tips = [alt.Tooltip("rank:Q", title="observed rank"), alt.Tooltip("team:N", title="entry"),
            alt.Tooltip("rlo:Q", title=f"{level} rank interval from"),
            alt.Tooltip("rhi:Q", title="to"),
            alt.Tooltip("slo:Q", title="all at once from"), alt.Tooltip("shi:Q", title="to"),
            alt.Tooltip("ptext:N", title="P(best)"), alt.Tooltip("tier:Q", title="tier")]
    base = (Chart(data("entries")).transform_filter(top_or_selected(top))
            .transform_calculate(who="datum.rank + '. ' + datum.team", tone=tone())
            .encode(y=alt.Y("who:N", sort=alt.EncodingSortField("rank", order="ascending"),
                            title=None, axis=alt.Axis(labelLimit=label_limit(260),
                                                      labelFontSize=12, domain=False,
                                                      ticks=False))))
    colour = alt.Color("tone:N", scale=tone_scale(), legend=None)
    full = {"x": alt.value(0), "x2": alt.value("width")}
    zoom = alt.selection_interval(bind="scales", encodings=["x"], name="zoom")
    layers = [
        base.mark_rect(color=HIGHLIGHT).transform_filter(is_selected()).encode(**full),
        base.mark_rule(strokeWidth=1.5).encode(
            x=alt.X("slo:Q", scale=scale, title=title,
                    axis=alt.Axis(orient="top", grid=True, labelExpr=LOG_LABELS) if log else
                    alt.Axis(orient="top", grid=True)),
            x2="shi:Q", color=colour, opacity=dim_others(), tooltip=tips),
        base.mark_bar(height=8, cornerRadius=2, stroke="black", strokeOpacity=0.3,
                      strokeWidth=0.6).encode(x="rlo:Q", x2="rhi:Q", color=colour,
                                              opacity=dim_others(), tooltip=tips),
        base.mark_point(filled=True, fill="white", stroke=INK, strokeWidth=1.3, size=40,
                        opacity=1).encode(x="rank:Q", tooltip=tips).add_params(zoom),
        # P(best), written right of the plot (never clipped by the zoom)
        base.mark_text(align="right", dx=60, fontSize=12, clip=False, color=INK).encode(
            x=alt.value("width"), text="ptext:N",
            opacity=alt.condition("datum.pbest < 0.001", alt.value(0.45), alt.value(1))),
    ]
    head = Chart(data("head")).mark_text(align="right", dx=60, dy=-8, fontSize=11,
                                             color="#6b7280", clip=False).encode(
        x=alt.value("width"), y=alt.value(0), text="text:N")
    chart = layered(
        *layers, head, width=WIDTH, height=height, usermeta={"lb_rows": "entries", "lb_top": top},
        padding={"left": 6, "top": 6, "right": 70, "bottom": 6})
    return finish(chart, "rank-intervals")


# --- Kendall's tau ----------------------------------------------------------------------------

def tau_chart(taus: np.ndarray) -> Spec:
    """Histogram of Kendall's tau between the observed ranking and each resampled one (share of
    replicates per bin), with the median marked. Non-finite taus (one entry) are left out; with
    none left, or all equal (the order never changed), a note says so.

    Examples
    --------
    >>> s = tau_chart(np.array([0.9, 0.95, 0.95, 1.0])).to_dict(validate=True)
    >>> s["datasets"]["marks"][0]["text"], s["datasets"]["note"]
    ('median tau 0.95', [])
    """
    t = np.asarray(taus, dtype=float).ravel()
    t = t[np.isfinite(t)]
    note, marks = [], []
    if t.size == 0:
        bins = pd.DataFrame({"x0": [], "x1": [], "count": [], "share": []})
        note = [{"text": "not defined: fewer than two entries"}]
    else:
        if np.ptp(t) == 0:
            v = float(t[0])
            bins = pd.DataFrame({"x0": [v - 0.004], "x1": [v + 0.004], "count": [t.size],
                                 "share": [1.0]})
            note = [{"text": f"every replicate: tau = {_tau_text(v)}"}]
        else:
            bins = binned(t, 30)
        med = float(np.median(t))
        lo, hi = min(float(bins["x0"].min()), med), max(float(bins["x1"].max()), med)
        marks = [{"x": finite([med], 8)[0], "text": f"median tau {_tau_text(med)}", "dash": 0,
                  "side": 1, "frac": finite([(med - lo) / ((hi - lo) or 1.0)], 6)[0]}]
    return with_data(_tau(), bins=bins, marks=marks, note=note)


def _tau_text(t: float) -> str:
    return f"{t:.3f}" if abs(t) > 0.99 else f"{t:.2f}"


@skeleton(maxsize=1)
def _tau() -> dict:
    from leaderboard.report.vega.analyze import histogram_bars, labelled_rules

    note = Chart(data("note")).mark_text(align="left", fontStyle="italic", fontSize=12.5,
                                              color="#4b5563").encode(
        x=alt.value(10), y=alt.value(18), text="text:N")
    chart = layered(histogram_bars("Kendall's tau with the observed ranking", "share",
                          "share of replicates", ".3f", True), *labelled_rules(), note,
                    width=420, height=230)
    return finish(chart, "rank-tau")


# --- how often each top entry took each rank --------------------------------------------------

def frequency_chart(teams: list[str], counts: np.ndarray, ranks: np.ndarray, tiers: np.ndarray,
                    level: float = DEFAULT_LEVEL) -> Spec:
    """challengeR's blob plot: one column per top entry, one row per rank (and a last row for
    ranks beyond the top), a circle whose AREA is the share of replicates at that rank, a line
    over the middle ``level`` of its ranks (inverted-CDF quantiles) and a cross at its observed
    rank. ``counts`` is (top, top) or (top, top + 1) (the last column: ranks beyond the top).

    Examples
    --------
    >>> s = frequency_chart(["a", "b"], np.array([[3, 1, 0], [1, 3, 0]]), np.array([1, 2]),
    ...                     np.array([1, 1])).to_dict(validate=True)
    >>> [(c["team"], c["rank"], c["share"]) for c in s["datasets"]["cells"]][:2]
    [('a', 1, 0.75), ('a', 2, 0.25)]
    """
    share, ranks, tiers = _frequency_iv(teams, counts, ranks, tiers)
    top = share.shape[0]
    names = [label(t) for t in teams]
    cells, columns = [], []
    q = (1 - level) / 2
    for i in range(top):
        for r in range(share.shape[1]):
            if share[i, r] > 0:
                cells.append({"team": names[i], "col": i + 1, "rank": r + 1,
                              "share": finite([share[i, r]], 4)[0],
                              "text": share_text(share[i, r]), "tier": int(tiers[i])})
        cum = np.cumsum(share[i])
        lo, hi = (int(np.searchsorted(cum, v - 1e-12)) + 1 for v in (q, 1 - q))
        columns.append({"team": names[i], "col": i + 1, "lo": lo, "hi": min(hi, top + 1),
                        "obs": int(min(ranks[i], top + 1)), "rank": int(ranks[i])})
    return with_data(_frequencies(top, level), cells=cells, columns=columns)


def _frequency_iv(teams, counts, ranks, tiers):
    freq = np.asarray(counts, dtype=float)
    if freq.ndim != 2 or freq.shape[1] - freq.shape[0] not in (0, 1) or freq.shape[0] == 0:
        raise ValueError(f"counts must be a non-empty (top, top) or (top, top + 1) array, got "
                         f"{freq.shape}")
    top = freq.shape[0]
    totals = freq.sum(axis=1, keepdims=True)
    if not np.all(np.isfinite(freq)) or np.any(freq < 0) or np.any(totals <= 0):
        raise ValueError("counts must be finite, non-negative, with a positive sum in each row")
    ranks = np.asarray(ranks).astype(int).ravel()
    tiers = np.asarray(tiers).astype(int).ravel()
    if len(teams) != top or ranks.size != top or tiers.size != top or np.any(ranks < 1):
        raise ValueError("teams, ranks (1-based) and tiers need one value per row of counts")
    return freq / totals, ranks, tiers


@skeleton(maxsize=8)
def _frequencies(top: int, level: float) -> dict:
    cell = int(min(40, max(22, 760 // top)))
    ranks = list(range(1, top + 2))
    y = alt.Y("rank:O", title="rank in the resampled rankings", scale=alt.Scale(domain=ranks),
              axis=alt.Axis(labelExpr=f"datum.value > {top} ? '>{top}' : datum.label"))
    x = alt.X("col:O", title=None, axis=alt.Axis(labelExpr="''", ticks=False, domain=False))
    cells = Chart(data("cells")).transform_calculate(tone=tone())
    columns = Chart(data("columns"))
    layers = [
        cells.mark_circle(opacity=0.8, stroke="black", strokeWidth=0.5, strokeOpacity=0.4).encode(
            x=x, y=y, color=alt.Color("tone:N", scale=tone_scale(), legend=None),
            size=alt.Size("share:Q", scale=alt.Scale(domain=[0, 1], range=[0, (0.9 * cell) ** 2
                                                                              * math.pi / 4]),
                          legend=alt.Legend(title="share of replicates", values=[0.1, 0.5, 1],
                                            format=".0%", orient="top",
                                            symbolFillColor="#9ca3af", symbolStrokeWidth=0)),
            opacity=dim_others(),
            tooltip=[alt.Tooltip("team:N", title="entry"), alt.Tooltip("rank:O", title="rank"),
                     alt.Tooltip("text:N", title="share of replicates")]),
        columns.mark_rule(color=INK, strokeWidth=1.2).encode(
            x=x, y="lo:O", y2="hi:O",
            tooltip=[alt.Tooltip("team:N", title="entry"),
                     alt.Tooltip("rank:Q", title="observed rank"),
                     alt.Tooltip("lo:Q", title=f"middle {level:.0%} of ranks from"),
                     alt.Tooltip("hi:Q", title="to")]),
        # the observed rank: a white-haloed cross
        columns.mark_point(shape=CROSS, size=90, color="white", strokeWidth=4,
                           opacity=1).encode(x=x, y=alt.Y("obs:O")),
        columns.mark_point(shape=CROSS, size=90, color=INK, strokeWidth=1.8,
                           opacity=1).encode(x=x, y=alt.Y("obs:O")),
        columns.mark_text(align="right", angle=315, dx=-4, dy=4, fontSize=11.5, color=INK,
                          limit=150, fontWeight=alt.ExprRef(f"{is_selected()} ? 'bold' : "
                                                             "'normal'")).encode(
            x=x, y=alt.value(cell * (top + 1)), text="team:N"),
    ]
    chart = layered(*layers, width=cell * top, height=cell * (top + 1))
    return finish(chart, "rank-frequencies", fit=False)


# --- the significance map ---------------------------------------------------------------------

def significance_chart(teams: list[str], significant: np.ndarray, stat: np.ndarray, *,
                       critical: float, mirror: bool = True) -> Spec:
    """A k x k map of the simultaneous family's verdicts, row ``i`` against column ``j``: above
    the diagonal a filled cell means the row's entry is shown better than the column's, a light
    one that it is not, a blank one that the pair was not tested (NaN); with ``mirror`` the lower
    triangle repeats each pair from the other side (pale: the column's entry is better).

    Examples
    --------
    >>> s = significance_chart(["a", "b"], np.array([[False, True], [False, False]]),
    ...                        np.array([[np.nan, 5.2]] * 2), critical=3.1).to_dict()
    >>> [(c["kind"], c["tip"]) for c in s["datasets"]["cells"]][0]
    ('better', 'a vs b: t = 5.20 > 3.10, a shown better (all pairs at once)')
    """
    sig, t = _significance_iv(teams, significant, stat)
    k = sig.shape[0]
    names = [label(x) for x in teams]
    cells = []
    for i in range(k):
        for j in range(k):
            if i == j or (i > j and not mirror):
                continue
            a, b = min(i, j), max(i, j)
            tv = t[a, b] if not np.isnan(t[a, b]) else t[b, a]
            if sig[a, b]:
                kind = "better" if i < j else "worse"
                tip = (f"{names[a]} vs {names[b]}: {_t_text(tv)} > {critical:.2f}, {names[a]} "
                       "shown better (all pairs at once)")
            elif not np.isnan(tv):
                kind = "ns"
                tip = (f"{names[a]} vs {names[b]}: {_t_text(tv)}, not shown apart at "
                       f"{critical:.2f} (all pairs at once)")
            else:
                kind, tip = "untested", f"{names[a]} vs {names[b]}: not tested"
            cells.append({"row": f"{i + 1}. {names[i]}", "col": f"{j + 1}. {names[j]}",
                          "i": i + 1, "j": j + 1, "kind": kind, "tip": tip, "team": names[i]})
    return with_data(_significance(k, mirror), cells=cells)


def _significance_iv(teams, significant, stat):
    sig = np.asarray(significant, dtype=bool)
    t = np.asarray(stat, dtype=float)
    if sig.ndim != 2 or sig.shape[0] != sig.shape[1] or sig.shape[0] == 0 or t.shape != sig.shape:
        raise ValueError("significant and stat must be square (k, k) arrays of the same shape")
    if len(teams) != sig.shape[0]:
        raise ValueError(f"expected {sig.shape[0]} team names, got {len(teams)}")
    if np.any(np.tril(sig)):
        raise ValueError("significant[i, j] can be true only for i < j (row better than column)")
    if np.any(sig & np.isnan(t)):
        raise ValueError("a significant pair needs a tested statistic (not NaN)")
    return sig, t


def _t_text(t: float) -> str:
    return "t = \u221e" if t == math.inf else f"t = {t:.2f}"


KINDS = {"better": (SIG_BETTER, "row shown better than column (all pairs at once)"),
         "worse": (SIG_WORSE, "column shown better than row"),
         "ns": (NOT_SIG, "not shown apart"), "untested": (UNTESTED, "not tested")}


@skeleton(maxsize=8)
def _significance(k: int, mirror: bool) -> dict:
    cell = int(min(24, max(12, 480 // max(k, 1))))
    kinds = [x for x in KINDS if mirror or x != "worse"]
    colour = alt.Color("kind:N", scale=alt.Scale(domain=kinds, range=[KINDS[x][0] for x in kinds]),
                       legend=alt.Legend(title=None, orient="bottom", direction="vertical",
                                         labelExpr=" : ".join(
                                             f"datum.value == '{x}' ? '{KINDS[x][1]}'"
                                             for x in kinds) + " : ''",
                                         symbolType="square", symbolStrokeColor="#9ca3af",
                                         labelLimit=400))
    chart = Chart(data("cells")).mark_rect(stroke="white", strokeWidth=1).encode(
        x=alt.X("col:N", sort=alt.EncodingSortField("j", order="ascending"), title=None,
                axis=alt.Axis(orient="top", labelAngle=-45, labelLimit=150, labelFontSize=11)),
        y=alt.Y("row:N", sort=alt.EncodingSortField(field="i", order="ascending"), title=None,
                axis=alt.Axis(labelLimit=170, labelFontSize=11)),
        color=colour, opacity=dim_others(),
        tooltip=[alt.Tooltip("tip:N", title="")]).properties(width=cell * k, height=cell * k)
    return finish(chart, "rank-significance", fit=False)
