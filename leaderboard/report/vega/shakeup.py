"""The post-mortem's charts: public against private score over the band noise allows, and the
public-to-private rank changes (a slope chart, with a panel of the ranks noise alone gives).

Data in, :class:`~.common.Spec` out. Scores are raw (not oriented): the axes ascend, and their
titles say where better is. On boards past :data:`SCATTER_POINTS` entries the scatter draws every
entry as binned counts and only the leading and the flagged entries as dots.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import altair as alt
import numpy as np
import pandas as pd

from leaderboard.report.vega.common import (Chart, BAND, INK, PALETTE, Spec, data, dim_others,
                                            finish, finite, is_selected, label, padded, with_data)
from leaderboard.report.vega.common import skeleton
from leaderboard.report.vega.layering import layered
from leaderboard.report.vega.placing import CHAR, place_labels

DOT, FLAG, ROSE, FELL, SAME = PALETTE[0], PALETTE[3], PALETTE[2], PALETTE[3], "#9CA3AF"
SCATTER_POINTS = 2000   # past this, the scatter bins the board
FENCE = 1.5             # outliers: beyond 1.5 times the 10-90% spread past the 10%/90% quantiles
LABEL_GAP = 14.0        # pixels between two labels of a column
HEIGHT = 440            # the scatter's plot height in pixels


def robust_domain(v: np.ndarray, higher_is_better: bool) -> list[float]:
    """The data range, cut on the WORSE side at a fence far outside the central 80% so that a
    few broken submissions do not squash the rest (for normal data the fence sits 5.1 SD out),
    then padded by 4%. The better side is never cut: entries far ahead are the story.

    Examples
    --------
    >>> robust_domain(np.r_[np.linspace(0.8, 0.9, 50), 0.1], True)
    [0.796, 0.904]
    """
    q10, q90 = np.quantile(v, [0.1, 0.9])
    s = FENCE * (q90 - q10)
    inside = v[v >= q10 - s] if higher_is_better else v[v <= q90 + s]
    return [round(x, 12) for x in padded([float(inside.min()), float(inside.max())])]


def scatter_chart(public: np.ndarray, private: np.ndarray, teams: Sequence[str], *,
                  band: tuple[np.ndarray, np.ndarray, np.ndarray] | None,
                  flagged: np.ndarray | None, labelled: Mapping[int, str],
                  higher_is_better: bool, fmt: Callable[[float], str],
                  decimals: int, two_stage: bool = False) -> tuple[Spec, str]:
    """Public score across, private score up, one dot per entry, over the band noise allows
    (``band``: public scores, low and high private bounds; None: no band); ``flagged`` entries
    (public beats private by more than noise) in the warning colour; ``labelled`` entries
    (index -> note) named. Axis ranges come from the data, but on the worse side entries beyond
    a fence (:func:`robust_domain`) sit on the edge as triangles. Returns the chart and its
    caption (the words say what the picture cannot; ``two_stage``: the public board is other
    data, so a gap beyond noise is not called fitting the public board).

    Examples
    --------
    >>> spec, caption = scatter_chart(np.array([0.9, 0.8, 0.85]), np.array([0.88, 0.83, 0.8]),
    ...     ["a", "b", "c"], band=None, flagged=np.array([False, False, True]),
    ...     labelled={0: "private winner"}, higher_is_better=True, fmt="{:.2f}".format,
    ...     decimals=2)
    >>> [(e["team"], e["flag"], e["note"]) for e in spec.to_dict(validate=True)[
    ...     "datasets"]["entries"]]
    [('a', 0, 'a · private winner'), ('b', 0, ''), ('c', 1, '')]
    """
    pub, pri, flag, band = _scatter_iv(public, private, teams, band, flagged, labelled)
    ok = np.isfinite(pub) & np.isfinite(pri)
    xd, yd = (robust_domain(v[ok], higher_is_better) for v in (pub, pri))
    if band is not None:   # the band is never cut at the top or the bottom of the plot
        inside = (band[0] >= xd[0]) & (band[0] <= xd[1])
        if inside.any():
            yd = [min(yd[0], float(band[1][inside].min())), max(yd[1], float(band[2][inside].max()))]
    off = ok & ((pub < xd[0]) | (pub > xd[1]) | (pri < yd[0]) | (pri > yd[1]))
    n = int(ok.sum())
    binned = n > SCATTER_POINTS
    keep = ok.copy()
    if binned:   # dots for the leaders of either board, the flagged and the labelled
        lead = _leading(pub, pri, ok, higher_is_better, 50)
        keep = ok & (lead | flag | np.isin(np.arange(pub.size), list(labelled)))
    names = [label(t) for t in teams]
    short = {int(i): identifying(names, int(i)) for i in labelled}
    notes = {int(i): f"{short[int(i)]} \u00b7 {note}" if note else short[int(i)]
             for i, note in labelled.items()}
    shown = np.flatnonzero(keep)
    fx = (np.clip(pub[shown], xd[0], xd[1]) - xd[0]) / (xd[1] - xd[0])
    fy = HEIGHT * (1 - (np.clip(pri[shown], yd[0], yd[1]) - yd[0]) / (yd[1] - yd[0]))
    at = {int(i): k for k, i in enumerate(shown)}
    named = [i for i in labelled if keep[i]]
    place = {shown[k]: p for k, p in place_labels(
        fx, fy, [at[int(i)] for i in named], [notes[int(i)] for i in named], HEIGHT).items()}
    rows = []
    for i in sorted(shown, key=lambda i: (bool(flag[i]), i)):
        way = ("left" if pub[i] < xd[0] else "right" if pub[i] > xd[1] else "down"
               if pri[i] < yd[0] else "up" if pri[i] > yd[1] else "")
        left, dy = place.get(i, (False, 0.0))
        rows.append({"team": names[i], "pub": finite([pub[i]])[0], "pri": finite([pri[i]])[0],
                     "flag": int(flag[i]), "shape": f"triangle-{way}" if way else "circle",
                     "note": notes.get(int(i), ""), "right": int(left), "dy": dy})
    sets = {"entries": rows,
            "diagonal": [{"v": v} for v in finite([max(xd[0], yd[0]), min(xd[1], yd[1])])]}
    if band is not None:
        bx, lo, hi = band
        sets["band"] = pd.DataFrame({"x": finite(bx, 8), "lo": finite(lo, 8),
                                     "hi": finite(hi, 8), "mid": finite((lo + hi) / 2, 8)})
    if binned:
        sets["bins"] = _bins2d(pub[ok], pri[ok], xd, yd)
    kinds = ["entry"] + ([f"public beats private by more than noise ({int((flag & ok).sum())})"]
                         if flagged is not None else [])
    skeleton = _scatter(tuple(xd), tuple(yd), higher_is_better, band is not None, binned,
                        tuple(kinds), decimals)
    caption = _caption(n, int(off.sum()), pub.size - n, band is not None, higher_is_better,
                       xd, yd, fmt, shown=len(rows) if binned else None, two_stage=two_stage)
    return with_data(skeleton, **sets), caption


def _scatter_iv(public, private, teams, band, flagged, labelled):
    pub, pri = (np.asarray(a, dtype=float).ravel() for a in (public, private))
    if pri.size != pub.size or len(teams) != pub.size:
        raise ValueError("public, private and teams need one value per entry")
    flag = np.zeros(pub.size, bool) if flagged is None else np.asarray(flagged, bool).ravel()
    if flag.size != pub.size:
        raise ValueError("flagged must be a boolean mask with one value per entry")
    if any(not 0 <= int(i) < pub.size for i in labelled):
        raise ValueError(f"labelled indices must lie in [0, {pub.size})")
    if band is not None:
        band = tuple(np.asarray(a, dtype=float).ravel() for a in band)
        bx, bl, bh = band
        if not (bx.size == bl.size == bh.size >= 2) or not np.all(np.isfinite(np.r_[bx, bl, bh])):
            raise ValueError("the band's x, low and high must be finite, of one length >= 2")
        if np.any(np.diff(bx) < 0) or np.any(bl > bh):
            raise ValueError("the band's x must ascend and low <= high")
    if not np.any(np.isfinite(pub) & np.isfinite(pri)):
        raise ValueError("no entry has both a public and a private score")
    return pub, pri, flag, band


def identifying(names: Sequence[str], i: int, limit: int = 22) -> str:
    """Name ``i`` cut to about ``limit`` characters so that it still tells it from every other
    name: its start when that is unique, else its shortest unique ending (Kaggle files and
    notebook runs share long prefixes: ``test_prediction_01_20_56``).

    Examples
    --------
    >>> names = ["test_prediction_01_20_56", "test_prediction_01_20_57", "short"]
    >>> identifying(names, 0), identifying(names, 2)
    ('\u2026prediction_01_20_56', 'short')
    >>> identifying(["Pierre Fillard (Therapixel)", "grt123"], 0)
    'Pierre Fillard (Thera\u2026'
    """
    name = names[i]
    if len(name) <= limit:
        return name
    others = [n for k, n in enumerate(names) if k != i]
    head = name[:limit - 1]
    if not any(n.startswith(head) for n in others):
        return head + "\u2026"
    for k in range(4, len(name) + 1):
        if not any(n.endswith(name[-k:]) for n in others):
            tail = name[-max(k, limit - 1):]
            # start at a word boundary when one lies before the part that identifies
            cut = next((j + 1 for j, ch in enumerate(tail[:len(tail) - k]) if ch in " _-."), 0)
            return "\u2026" + tail[cut:]
    return name   # the same name twice: nothing shorter tells them apart


def _leading(pub, pri, ok, higher, top) -> np.ndarray:
    sign = 1.0 if higher else -1.0
    out = np.zeros(pub.size, bool)
    for v in (pub, pri):
        order = np.argsort(-sign * np.where(ok, v, -sign * np.inf), kind="stable")
        out[order[:top]] = True
    return out & ok


def _bins2d(x, y, xd, yd, n: int = 60) -> pd.DataFrame:
    """Counts of entries on an n x n grid over the shown ranges (entries off them on the edge)."""
    ex, ey = np.linspace(xd[0], xd[1], n + 1), np.linspace(yd[0], yd[1], n + 1)
    counts, _, _ = np.histogram2d(np.clip(x, xd[0], xd[1]), np.clip(y, yd[0], yd[1]),
                                  bins=[ex, ey])
    i, j = np.nonzero(counts)
    return pd.DataFrame({"x0": finite(ex[i], 8), "x1": finite(ex[i + 1], 8),
                         "y0": finite(ey[j], 8), "y1": finite(ey[j + 1], 8),
                         "count": counts[i, j].astype(int)})


@skeleton()
def _scatter(xd, yd, higher, has_band, binned, kinds, decimals) -> dict:
    fmt = f".{decimals}f"
    up = "better \u2192" if higher else "\u2190 better"
    xs = alt.Scale(domain=list(xd), nice=False, zero=False, clamp=True)
    ys = alt.Scale(domain=list(yd), nice=False, zero=False, clamp=True)
    x = alt.X("pub:Q", scale=xs, title=f"public score ({up})")
    y = alt.Y("pri:Q", scale=ys, title=f"private score ({up})")
    layers = []
    if binned:
        layers.append(Chart(data("bins")).mark_rect(clip=True).encode(
            x=alt.X("x0:Q", scale=xs, title=f"public score ({up})"), x2="x1:Q",
            y=alt.Y("y0:Q", scale=ys, title=f"private score ({up})"), y2="y1:Q",
            color=alt.Color("count:Q", scale=alt.Scale(scheme="greys", type="log"),
                            legend=alt.Legend(title="entries per cell", orient="right")),
            tooltip=[alt.Tooltip("count:Q", title="entries")]))
    if has_band:
        band = Chart(data("band"))
        layers += [band.mark_area(color=BAND, opacity=0.7, clip=True).encode(
                       x=alt.X("x:Q", scale=xs), y=alt.Y("lo:Q", scale=ys), y2="hi:Q"),
                   band.mark_line(color=INK, strokeWidth=1.2, clip=True).encode(
                       x="x:Q", y="mid:Q")]
    layers.append(Chart(data("diagonal")).mark_line(color=SAME, strokeDash=[4, 4],
                                                        clip=True).encode(
        x=alt.X("v:Q", scale=xs), y=alt.Y("v:Q", scale=ys)))
    # the dot's distance from the left edge in pixels, at the width drawn (a phone's is smaller)
    at = f"((datum.pub - {xd[0]!r}) / {xd[1] - xd[0]!r} * width)"
    flip = _FLIP.format(at=at)
    # a label too long for either side of its dot at the width drawn (a phone's) breaks after
    # the name, so that it is never cut at the chart's edge; chars: its longest line
    entries = Chart(data("entries")).transform_calculate(
        kind=f"datum.flag ? '{kinds[-1]}' : 'entry'",
        label="datum.note != '' ? datum.note : datum.team").transform_calculate(
        label=f"max({at}, width - {at}) - 9 >= {CHAR} * length(datum.label) || "
              "indexof(datum.label, ' \u00b7 ') < 0 ? datum.label : "
              "replace(datum.label, ' \u00b7 ', '\\n')").transform_calculate(
        chars="indexof(datum.label, '\\n') < 0 ? length(datum.label) : "
              "max(indexof(datum.label, '\\n'), length(datum.label) - "
              "indexof(datum.label, '\\n') - 1)")
    zoom = alt.selection_interval(bind="scales", name="zoom")
    layers += [
        entries.mark_point(filled=True, opacity=0.85, size=36).encode(
            x=x, y=y, shape=alt.Shape("shape:N", scale=None),
            color=alt.Color("kind:N", scale=alt.Scale(domain=list(kinds),
                                                      range=[DOT, FLAG][:len(kinds)]),
                            legend=alt.Legend(title=None, orient="top", direction="vertical",
                                              labelLimit=400)),
            opacity=dim_others(low=0.3),
            tooltip=[alt.Tooltip("team:N", title="team"),
                     alt.Tooltip("pub:Q", title="public", format=fmt),
                     alt.Tooltip("pri:Q", title="private", format=fmt)]).add_params(zoom),
        entries.transform_filter(f"datum.note != '' || {is_selected()}").mark_point(
            size=140, color=INK, strokeWidth=1.5).encode(x=x, y=y),
        # a label moved up or down off its dot's height (clear of the other dots) is tied to it
        entries.transform_filter("datum.note != '' && datum.dy != 0").mark_rule(
            color=INK, strokeWidth=0.6, opacity=0.6,
            x2Offset=alt.ExprRef(f"{flip} ? -9 : 9"), y2Offset=alt.ExprRef("datum.dy")).encode(
            x=x, y=y, x2="pub:Q", y2="pri:Q"),
        entries.transform_filter(f"datum.note != '' || {is_selected()}").mark_text(
            fontSize=12, color=INK, align=alt.ExprRef(f"{flip} ? 'right' : 'left'"),
            dx=alt.ExprRef(f"{flip} ? -9 : 9"), dy=alt.ExprRef("datum.dy"),
            lineBreak="\n").encode(x=x, y=y, text=alt.Text("label:N")),
    ]
    return finish(layered(*layers, width=660, height=HEIGHT), "shakeup-scatter")


# A label goes to the left of its dot when it would run past the plot's right edge at the width
# drawn (a phone's is half the desktop's) and there is more room on the left: about 6.8 px a
# character at 12 px, 9 px from the dot.
_FLIP = (f"({{at}} + 9 + {CHAR} * datum.chars > width ? {{at}} > width - {{at}} : "
         f"(datum.right && {{at}} - 9 - {CHAR} * datum.chars >= 0))")


def _caption(n, clipped, missing, has_band, higher, xd, yd, fmt, shown, two_stage=False) -> str:
    s = [f"Each dot is one of the {n:,} entries: its public score across, its private score up."
         if n > 1 else "The dot is the only entry: its public score across, its private score up."]
    if shown is not None:
        s[0] = (f"The {n:,} entries are counted in grey cells (darker: more entries); dots mark "
                f"the {shown:,} leading, flagged and named ones: public score across, private "
                "score up.")
    s.append("Higher is better, so the best entries are at the top right." if higher else
             "Lower is better, so the best entries are at the bottom left.")
    if has_band:
        worse = "below" if higher else "above"
        s.append("The shaded band is where 95% of private scores would fall by chance alone at "
                 f"each public score, the line its middle; entries {worse} the band did worse in "
                 "private than noise explains, and those coloured orange beat their private score "
                 "by more than noise on the public board (" + (
                     "on this two-stage board, whose public board is other data, that can be the "
                     "two test sets' difference as much as fitting the public board)."
                     if two_stage else "a sign of fitting the public board)."))
    if clipped:
        side, pub_edge, pri_edge = ("below", xd[0], yd[0]) if higher else ("above", xd[1], yd[1])
        s.append(f"{clipped:,} {'entry lies' if clipped == 1 else 'entries lie'} far behind the "
                 f"rest ({side} public {fmt(pub_edge)} or private {fmt(pri_edge)}) and "
                 f"{'is' if clipped == 1 else 'are'} drawn as "
                 f"triangle{'' if clipped == 1 else 's'} on the edge, so as not to squash the "
                 "others; hover for the scores.")
    if missing:
        s.append(f"{missing:,} {'entry' if missing == 1 else 'entries'} without both scores "
                 f"{'is' if missing == 1 else 'are'} left out.")
    return " ".join(s)


# --- rank changes -----------------------------------------------------------------------------

def sorted_spread(want: Sequence[float], gap: float, lo: float = -math.inf,
                  hi: float = math.inf) -> list[float]:
    """Positions closest (least squares) to the ascending ``want`` that are ``gap`` apart, kept
    in ``[lo, hi]`` when they fit (pool-adjacent-violators on want_k - k * gap): where the labels
    of a column go so that none overlaps.

    Examples
    --------
    >>> sorted_spread([10.0, 10.0], 14.0), sorted_spread([1.0, 50.0], 14.0)
    ([3.0, 17.0], [1.0, 50.0])
    """
    blocks: list[list[float]] = []                   # [top, count, sum of want_k - k * gap]
    for w in want:
        blocks.append([w, 1, w])
        while len(blocks) > 1 and blocks[-2][0] + blocks[-2][1] * gap > blocks[-1][0] + 1e-9:
            _, n2, s2 = blocks.pop()
            _, n1, s1 = blocks.pop()
            s = s1 + s2 - n1 * n2 * gap
            blocks.append([s / (n1 + n2), n1 + n2, s])
    out = [t + k * gap for t, n, _ in blocks for k in range(int(n))]
    for i in range(len(out) - 1, -1, -1):            # fit under hi, then (winning) below lo
        out[i] = min(out[i], hi if i == len(out) - 1 else out[i + 1] - gap)
    for i in range(len(out)):
        out[i] = max(out[i], lo if i == 0 else out[i - 1] + gap)
    return out
