"""The analysis page's main charts: scores with intervals by tier, the leader's noise (histogram
and pairwise-difference ECDF) and the whole board's score histogram with the d95 band.

Each function takes data (a DataFrame or arrays) and returns a :class:`~.common.Spec`; nothing
here writes markup. Per-entry charts show the top :data:`~.common.TOP` entries, and the page adds
the selected team's row when it ranks below (the filter :func:`~.common.top_or_selected`);
histograms carry binned counts, never raw draws, so a chart's size does not grow with the board or
the number of replicates. Skeletons are cached by their parameters; scale domains come from the
data (Vega computes them), so a skeleton never depends on the numbers.
"""
from __future__ import annotations

import math

import altair as alt
import numpy as np
import pandas as pd

from leaderboard.report.vega.common import (Chart, BAND, HIGHLIGHT, INK, NO_TIER, PALETTE, TOP,
                                            WIDTH, Spec, data, dim_others, finish, finite,
                                            is_selected, label, label_limit, number_format,
                                            share_text, top_or_selected, with_data)
from leaderboard.report.vega.common import axis_title, skeleton
from leaderboard.report.vega.layering import layered
from leaderboard.report.tier_marks import out_of_order_mask

ROW = 18   # pixels per entry row
BAR = "#8fb8da"


def _runs(tiers: np.ndarray) -> np.ndarray:
    """True where a run of equal tiers starts (rank-set tiers can interleave)."""
    return np.r_[True, tiers[1:] != tiers[:-1]] if tiers.size else tiers.astype(bool)


def entry_rows(table: pd.DataFrame, digits: int = 8, limit: int | None = None) -> pd.DataFrame:
    """The per-entry charts' fields of every entry (or of the first ``limit``), in rank order:
    ``rank``, ``team``, ``score``, ``lo``/``hi`` (the interval), ``tier``, ``starts`` (1 where a
    run of equal tiers starts), ``moved`` (1: in a better tier than an entry above it) and, with
    rank statistics, ``rlo``/``rhi`` (rank interval), ``slo``/``shi`` (simultaneous), ``pbest``
    and ``ptext`` (P(best) as the page writes it).

    The charts keep the top :data:`~.common.TOP` rows (the page takes a selected team's row from
    the table's data), so a page asks for ``TOP + 1`` rows (the one more says the board goes on
    below): every row of a 100,000-entry board took 2 s of the page's 6 s, twice."""
    t = table if limit is None else table.iloc[:limit]
    out = pd.DataFrame({"rank": t["rank"].to_numpy(dtype=int),
                        "team": [label(x) for x in t["team"]],
                        "score": finite(t["score"], digits),
                        "lo": finite(t["ci_low"], digits), "hi": finite(t["ci_high"], digits),
                        "tier": t["tier"].to_numpy(dtype=int)})
    tiers = out["tier"].to_numpy()
    out["starts"] = (_runs(tiers) & (tiers > 0)).astype(int)
    # in a better tier than an entry ranked above it (entries above are in the prefix: exact)
    out["moved"] = out_of_order_mask(tiers).astype(int)
    if "rank_ci_low" in t.columns:
        for name, col in (("rlo", "rank_ci_low"), ("rhi", "rank_ci_high"),
                          ("slo", "rank_sim_low"), ("shi", "rank_sim_high")):
            out[name] = pd.Series([None if v is None else int(v) for v in finite(t[col])],
                                  dtype=object)
        out["pbest"] = finite(t["p_best"], 4)
        out["ptext"] = [share_text(p) for p in t["p_best"]]
    return out


def tone() -> str:
    """Vega expression: a tier's place in the palette (no tier: past its end)."""
    return f"datum.tier > 0 ? (datum.tier - 1) % {len(PALETTE)} : {len(PALETTE)}"


def tone_scale() -> alt.Scale:
    return alt.Scale(domain=list(range(len(PALETTE) + 1)), range=[*PALETTE, NO_TIER])


def scores_chart(rows: pd.DataFrame, *, decimals: int, x_title: str, interval: str | None,
                 leader: float, top: int = TOP) -> Spec:
    """Scores and intervals by tier: one row per entry (the top ``top``, and the selected team),
    best at the top; dots are the observed scores, whiskers the intervals, colours the tiers, a
    dashed line the leader's score; alternate runs of a tier are shaded and each run labelled.
    The x axis zooms and pans (drag, wheel); clicking a row selects its team.

    ``rows`` is :func:`entry_rows` (any number of entries: the chart keeps the top); ``interval``
    names the whiskers in tooltips (None: no intervals, a plain ranking).

    Examples
    --------
    >>> rows = pd.DataFrame({"rank": [1, 2], "team": ["a", "b"], "score": [0.9, 0.8],
    ...                      "lo": [0.85, 0.7], "hi": [0.95, 0.85], "tier": [1, 1],
    ...                      "starts": [1, 0]})
    >>> spec = scores_chart(rows, decimals=2, x_title="AUC", interval="95% interval",
    ...                     leader=0.9).to_dict(validate=True)
    >>> spec["datasets"]["entries"][1]["team"], sorted(p["name"] for p in spec["params"])
    ('b', ['selected_team', 'zoom'])
    """
    shown = min(len(rows), top)
    # a fixed height (a step height cannot take the box's width); one row more when the
    # selected team can come from below the top
    height = ROW * (shown + (len(rows) > top))
    return with_data(_scores(decimals, x_title, interval, top, height), entries=rows.head(top),
                     leader=[{"leader": finite([leader])[0]}])


@skeleton(maxsize=32)
def _scores(decimals: int, x_title: str, interval: str | None, top: int, height: int) -> dict:
    fmt = number_format(decimals)
    tips = [alt.Tooltip("rank:Q", title="rank"), alt.Tooltip("team:N", title="entry"),
            alt.Tooltip("score:Q", title="score", format=fmt)]
    if interval:
        tips += [alt.Tooltip("lo:Q", title=f"{interval} from", format=fmt),
                 alt.Tooltip("hi:Q", title="to", format=fmt), alt.Tooltip("tier:Q", title="tier")]
    base = (Chart(data("entries"))
            .transform_filter(top_or_selected(top))
            .transform_calculate(who="datum.rank + '. ' + datum.team", tone=tone(),
                                 odd="datum.tier % 2")
            .encode(y=alt.Y("who:N", sort=alt.EncodingSortField("rank", order="ascending"),
                            title=None, axis=alt.Axis(labelLimit=label_limit(260), labelFontSize=12,
                                                      domain=False, ticks=False, grid=False))))
    scale = alt.Scale(zero=False, nice=False, padding=12)
    x = alt.X("score:Q", title=x_title, scale=scale, axis=alt.Axis(orient="top", grid=True))
    colour = alt.Color("tone:N", scale=tone_scale(), legend=None)
    zoom = alt.selection_interval(bind="scales", encodings=["x"], name="zoom")
    full = {"x": alt.value(0), "x2": alt.value("width")}
    layers = [
        # alternate tiers shaded, all runs of one tier alike (by the tier's parity)
        base.mark_rect(color="#f5f7fa").encode(
            **full, opacity=alt.condition("datum.odd == 1", alt.value(1), alt.value(0))),
        base.mark_rect(color=HIGHLIGHT).transform_filter(is_selected()).encode(**full),
    ]
    if interval:
        layers.append(base.mark_rule(strokeWidth=2.2, strokeCap="round").encode(
            x=alt.X("lo:Q", title=x_title, scale=scale, axis=alt.Axis(orient="top", grid=True)),
            x2="hi:Q", color=colour, opacity=dim_others(), tooltip=tips))
    layers += [
        base.mark_circle(stroke=INK, opacity=1).encode(
            x=x, color=colour, opacity=dim_others(), tooltip=tips,
            size=alt.condition(is_selected(), alt.value(200), alt.value(70)),
            strokeWidth=alt.condition(is_selected(), alt.value(2.5), alt.value(0.7)))
        .add_params(zoom),
        Chart(data("leader")).mark_rule(color=INK, strokeDash=[5, 4], strokeWidth=1.2)
        .encode(x="leader:Q"),
        # an entry in a better tier than one ranked above it: marked, and the tooltip says why
        base.mark_text(align="left", dx=54, fontSize=13, fontWeight="bold", color=INK,
                       clip=False)
        .transform_filter(f"datum.moved == 1 && datum.rank <= {top}")
        .transform_calculate(mark="'\u2195'", why=(
            "'tier ' + datum.tier + ' although ranked below an entry of a worse tier: its "
            "comparisons are too noisy for it to be shown beaten'"))
        .encode(x=alt.value("width"), text="mark:N",   # right of the tier's label
                tooltip=[alt.Tooltip("team:N", title="entry"), alt.Tooltip("why:N", title="")]),
        # labels right of the plot: never clipped by the zoom
        base.mark_text(align="left", dx=6, fontSize=11.5, fontWeight="bold", color=INK,
                       clip=False)
        .transform_filter(f"datum.starts && datum.rank <= {top}")
        .transform_calculate(name="'tier ' + datum.tier")
        .encode(x=alt.value("width"), text="name:N"),
    ]
    chart = layered(
        *layers, width=WIDTH, height=height, usermeta={"lb_rows": "entries", "lb_top": top},
        padding={"left": 6, "top": 6, "right": 72, "bottom": 6})
    return finish(chart, "scores")


def bin_edges(draws: np.ndarray, target: int = 40) -> np.ndarray:
    """Histogram edges; draws on a lattice (counts over n) get bins aligned to it, so no bin is
    empty only because no count can fall in it.

    Examples
    --------
    >>> bin_edges(np.array([0.5, 0.5])).round(4).tolist()
    [0.4995, 0.5005]
    """
    values = np.unique(draws)
    lo, hi = float(values[0]), float(values[-1])
    if values.size == 1:
        half = max(abs(lo) * 1e-3, 1e-6)
        return np.array([lo - half, lo + half])
    gap = float(np.diff(values).min())
    steps = (values - lo) / gap
    if np.all(np.abs(steps - np.round(steps)) < 1e-6) and steps[-1] < 1e5:
        width = math.ceil((round(steps[-1]) + 1) / target) * gap
        return lo - gap / 2 + width * np.arange(math.ceil((hi - lo + gap) / width) + 1)
    return np.linspace(lo, hi, target + 1)


def binned(values: np.ndarray, target: int = 40) -> pd.DataFrame:
    """Bins of the finite ``values``: ``x0``, ``x1``, ``count`` and ``share``."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    edges = bin_edges(v, target)
    counts, _ = np.histogram(v, bins=edges)
    return pd.DataFrame({"x0": finite(edges[:-1], 10), "x1": finite(edges[1:], 10),
                         "count": counts.astype(int),
                         "share": finite(counts / max(v.size, 1), 6)})


def histogram_bars(x_title: str, y_field: str, y_title: str, fmt: str, percent: bool) -> alt.Chart:
    """Bars of a histogram from dataset ``bins`` (``x0``, ``x1`` and ``y_field``), shares as
    percentages when ``percent``: the score and tau distributions' bars.

    Examples
    --------
    >>> histogram_bars("score", "count", "entries", ".3f", False).mark.type
    'rect'
    """
    return Chart(data("bins")).mark_rect(color=BAR, stroke="white", strokeWidth=0.5).encode(
        x=alt.X("x0:Q", title=axis_title(x_title),
                scale=alt.Scale(zero=False, nice=False, padding=8)),
        x2="x1:Q", y=alt.Y(f"{y_field}:Q", title=y_title,
                           axis=alt.Axis(format="%") if percent else alt.Axis()),
        tooltip=[alt.Tooltip("x0:Q", title="from", format=fmt),
                 alt.Tooltip("x1:Q", title="to", format=fmt),
                 alt.Tooltip(f"{y_field}:Q", title=y_title, format=".1%" if percent else "d")])


def labelled_rules() -> list[alt.Chart]:
    """Vertical lines with labels above the plot, from dataset ``marks``: ``x``, ``text``,
    ``dash`` (0/1), ``side`` (-1: the label ends at the line, 0: centred on it, one line
    higher, 1: starts at it, or ends at it where it would run past the plot's right edge at
    the width drawn) and ``frac`` (the line's place across the x domain, 0 to 1).

    Examples
    --------
    >>> [layer.mark.type for layer in labelled_rules()]
    ['rule', 'text']
    """
    base = Chart(data("marks"))
    out = [base.mark_rule(color=INK, strokeWidth=1.4).encode(
        x="x:Q", strokeDash=alt.condition("datum.dash == 1", alt.value([5, 4]), alt.value([1, 0])),
        tooltip=[alt.Tooltip("text:N", title="")])]
    side = _SIDE
    out.append(base.mark_text(
        align=alt.ExprRef(f"{side} < 0 ? 'right' : {side} > 0 ? 'left' : 'center'"),
        dx=alt.ExprRef(f"3 * {side}"), y=alt.ExprRef("datum.side == 0 ? -20 : -5"),
        baseline="bottom", fontSize=11.5, color=INK).encode(x="x:Q", text="text:N"))
    return out


# A quantile's label goes to the left of its line when it would run past the plot's right edge
# at the width drawn (a phone's plot is ~300 px: "97.5%: 0.89254" was cut there; the left has
# the y axis's room); 6.8 px a character at 11.5 px, as the scatter's labels (placing.CHAR)
_AT = "(8 + datum.frac * (width - 16))"   # the line's pixel: the x scale pads 8 px each side
_SIDE = f"(datum.side > 0 && {_AT} + 3 + 6.8 * length(datum.text) > width ? -1 : datum.side)"


def distribution_chart(draws: np.ndarray, centre: float, q_low: float, q_high: float, *,
                       x_title: str, y_title: str, centre_name: str, fmt_text,
                       decimals: int, name: str = "noise-hist") -> Spec:
    """Histogram of one model's scores over simulated test sets or bootstrap replicates (the
    share of draws per bin), with a solid line at ``centre`` (the true or the observed score) and
    dashed ones at the 2.5% and 97.5% quantiles; ``fmt_text`` writes the labels' numbers."""
    bins = binned(draws)
    lo, hi = min(bins["x0"].iloc[0], centre), max(bins["x1"].iloc[-1], centre)
    near = 0.2 * (hi - lo)   # a label this close to an edge goes inside the line, not past it
    marks = pd.DataFrame({"x": finite([centre, q_low, q_high]),
                          "text": [f"{centre_name} {fmt_text(centre)}",
                                   f"2.5%: {fmt_text(q_low)}", f"97.5%: {fmt_text(q_high)}"],
                          "frac": finite((np.array([centre, q_low, q_high]) - lo)
                                         / ((hi - lo) or 1.0), 6),
                          "dash": [0, 1, 1],
                          "side": [0, 1 if q_low - lo < near else -1,
                                   -1 if hi - q_high < near else 1]})
    return with_data(_distribution(x_title, y_title, decimals, name), bins=bins, marks=marks)


@skeleton(maxsize=32)
def _distribution(x_title: str, y_title: str, decimals: int, name: str) -> dict:
    chart = layered(histogram_bars(x_title, "share", y_title, number_format(decimals), True),
                    *labelled_rules(), width=420, height=230)
    return finish(chart, name)


def ecdf_curve(t: np.ndarray, f: np.ndarray, d95: float, points: int = 240
               ) -> tuple[np.ndarray, np.ndarray, float]:
    """The pairwise-difference ECDF at ``points`` gaps from 0 to where 99.9% of pairs are
    within (at least 1.3 d95): ``(gaps, shares, x_max)``. Linear interpolation draws both a
    coarse tabulation and every pair's distance smoothly (a step lookup would saw-tooth)."""
    t, f = np.asarray(t, dtype=float), np.asarray(f, dtype=float)
    x_max = float(t[min(int(np.searchsorted(f, 0.999)), t.size - 1)]) if t.size else 1.0
    x_max = max(x_max, d95 * 1.3, 1e-9)
    grid = np.linspace(0.0, x_max, points)
    values = np.interp(grid, t, f, left=0.0, right=1.0) if t.size else np.zeros_like(grid)
    return grid, values, x_max


def ecdf_chart(t: np.ndarray, f: np.ndarray, d95: float, *, x_title: str, d95_text: str,
               name: str = "noise-ecdf") -> Spec:
    """The share of pairs of draws at most a given distance apart (the seeds' pairwise
    difference ECDF), with d95 where it crosses 95%."""
    grid, values, x_max = ecdf_curve(t, f, d95)
    right = d95 < x_max / 2
    pin = [{"x": finite([d95])[0], "y": 0.95, "x0": 0.0, "y0": 0.0, "text": f"d95 = {d95_text}",
            "right": int(right)}]
    return with_data(_ecdf(x_title, name), curve=pd.DataFrame(
        {"gap": finite(grid, 8), "share": finite(values, 6)}), pin=pin)


@skeleton(maxsize=32)
def _ecdf(x_title: str, name: str) -> dict:
    line = Chart(data("curve")).mark_line(color=PALETTE[0], strokeWidth=2.2).encode(
        x=alt.X("gap:Q", title=axis_title(x_title), scale=alt.Scale(nice=False)),
        y=alt.Y("share:Q", title="share of pairs within this gap", axis=alt.Axis(format="%"),
                scale=alt.Scale(domain=[0, 1])),
        tooltip=[alt.Tooltip("gap:Q", title="gap", format=".3g"),
                 alt.Tooltip("share:Q", title="share of pairs", format=".1%")])
    guide = Chart(data("pin"))
    layers = [line, guide.mark_rule(color=INK, strokeDash=[5, 4]).encode(x="x0:Q", x2="x:Q",
                                                                          y="y:Q"),
              guide.mark_rule(color=INK, strokeDash=[5, 4]).encode(x="x:Q", y="y0:Q", y2="y:Q"),
              guide.mark_circle(color=INK, size=40, opacity=1).encode(
                  x="x:Q", y="y:Q", tooltip=[alt.Tooltip("text:N", title="")])]
    layers.append(guide.mark_text(align=alt.ExprRef("datum.right ? 'left' : 'right'"),
                                  dx=alt.ExprRef("datum.right ? 8 : -8"), dy=-9, fontSize=11.5,
                                  color=INK).encode(x="x:Q", y="y:Q", text="text:N"))
    return finish(layered(*layers, width=420, height=230), name)


def board_histogram(scores: np.ndarray, leader: float, d95: float | None, *, higher: bool,
                    x_title: str, decimals: int, d95_text: str | None) -> Spec:
    """Every entry's score, binned (any board size gives at most ~40 bars), with the band within
    d95 of the leader: entries inside it are closer to the leader than two equally good models
    usually land apart.

    Junk cannot stretch the axis: scores worse than the far-out fence (:func:`bulk_fence`, the
    junk flag's own rule) are left out of the bins and counted in a label at the axis's worse
    edge, so the bars show the bulk of the board and the leader."""
    v = np.asarray(scores, dtype=float)
    v = v[np.isfinite(v)]
    fence = bulk_fence(v, higher)
    tail = v[v < fence] if higher else v[v > fence]
    bulk = v[v >= fence] if higher else v[v <= fence]
    band = []
    if d95 is not None and d95 > 0:
        far = leader - d95 if higher else leader + d95
        band = [{"a": finite([min(leader, far)])[0], "b": finite([max(leader, far)])[0],
                 "at": finite([leader])[0], "text": f"within d95 = {d95_text} of the leader"}]
    sets = {"bins": binned(bulk), "leader": [{"x": finite([leader])[0]}]}
    if band:
        sets["band"] = band
    if tail.size:
        fmt = f"{{:.{decimals}f}}"
        worst = float(tail.min() if higher else tail.max())
        edge = float(sets["bins"]["x0"].min() if higher else sets["bins"]["x1"].max())
        words = (f"\u2190 {tail.size:,} more, down to {fmt.format(worst)}" if higher else
                 f"{tail.size:,} more, up to {fmt.format(worst)} \u2192")
        sets["tail"] = [{"x": finite([edge])[0], "count": int(tail.size),
                         "text": f"{words} (far worse, off the axis)"}]
    return with_data(_board(x_title, decimals, higher, bool(band), bool(tail.size)), **sets)


def bulk_fence(values: np.ndarray, higher: bool) -> float:
    """The worse side's far-out fence: three interquartile ranges past the quartile (Tukey), as
    the junk flag uses; -inf/inf (nothing cut) when the quartiles coincide.

    Examples
    --------
    >>> bulk_fence(np.array([0.30, 0.31, 0.32, 0.33, 35.0]), higher=False)
    0.39
    """
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    sign = 1.0 if higher else -1.0
    if v.size < 4:
        return -math.inf if higher else math.inf
    q1, q3 = np.percentile(sign * v, [25, 75])
    if q3 <= q1:
        return -math.inf if higher else math.inf
    return float(round(sign * (q1 - 3.0 * (q3 - q1)), 12))


@skeleton(maxsize=32)
def _board(x_title: str, decimals: int, higher: bool, has_band: bool, has_tail: bool) -> dict:
    layers = [histogram_bars(x_title, "count", "entries", number_format(decimals), False),
              Chart(data("leader")).mark_rule(color=INK, strokeWidth=1.4).encode(x="x:Q")]
    if has_tail:   # the junk left off the axis, counted at its worse edge
        layers.append(Chart(data("tail")).mark_text(
            align="left" if higher else "right", dx=2 if higher else -2, baseline="top",
            fontSize=11, color=INK, dy=22).encode(x="x:Q", y=alt.value(0), text="text:N"))
    if has_band:
        band = Chart(data("band"))
        layers = [band.mark_rect(color=BAND, opacity=0.55).encode(
                      x="a:Q", x2="b:Q", tooltip=[alt.Tooltip("text:N", title="")]),
                  *layers,
                  # the band's label, inside it, from the leader's side
                  band.mark_text(align="right" if higher else "left", dx=-4 if higher else 4,
                                 baseline="top", fontSize=11, color=INK).encode(
                      x="at:Q", y=alt.value(4), text="text:N")]
    return finish(layered(*layers, width=WIDTH, height=200), "board-hist")
