"""The ``plan`` page's chart: the minimum detectable difference against the test-set size, on a
log axis, for the whole test set and its public slice, with the asked-for points marked.

Data in, :class:`~.common.Spec` out.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import altair as alt

from leaderboard.report.vega.common import (Chart, INK, LOG_LABELS, PALETTE, Spec, data, finish,
                                            finite, with_data)
from leaderboard.report.vega.common import skeleton
from leaderboard.report.vega.layering import layered

FULL, PUBLIC = PALETTE[0], PALETTE[1]
HEIGHT = 250   # the plot's height in pixels


def mdd_chart(curve: Sequence[tuple[int, float]], *, public_fraction: float | None,
              delta: float | None, pins: Sequence[tuple[float, float, str, bool, bool]],
              metric: str) -> Spec:
    """MDD against n: ``curve`` holds (rows, MDD); the public slice of a test set of n rows holds
    ``public_fraction * n`` rows, so its curve is the same one moved right by 1 / fraction;
    ``delta`` (the difference asked about) is a dotted line; ``pins`` hold (n, MDD, label,
    label above the point?, label left of it?) (:func:`pin_sides`).

    Examples
    --------
    >>> s = mdd_chart([(100, 0.1), (400, 0.05)], public_fraction=0.5, delta=0.06,
    ...               pins=[(400, 0.05, "your n: 400 rows, MDD 0.05", True, False)],
    ...               metric="AUC")
    >>> [(r["series"], r["n"]) for r in s.to_dict(validate=True)["datasets"]["curve"]]
    [('whole test set', 100), ('whole test set', 400), ('its public slice', 200)]
    """
    hi = max(n for n, _ in curve)
    rows = [{"series": "whole test set", "n": int(n), "mdd": finite([d], 8)[0]} for n, d in curve]
    if public_fraction is not None and public_fraction < 1:
        rows += [{"series": "its public slice", "n": int(round(n / public_fraction)),
                  "mdd": finite([d], 8)[0]} for n, d in curve if n / public_fraction <= hi]
    marks = [{"n": float(n), "mdd": finite([d], 8)[0], "text": text, "above": int(above),
              "left": int(left)} for n, d, text, above, left in pins]
    sets = {"curve": rows, "pins": marks}
    if delta is not None:
        sets["delta"] = [{"mdd": float(delta), "text": f"delta = {delta:g}"}]
    series = tuple(dict.fromkeys(r["series"] for r in rows))
    return with_data(_mdd(metric, series, delta is not None), **sets)


@skeleton(maxsize=16)
def _mdd(metric: str, series: tuple[str, ...], has_delta: bool) -> dict:
    x = alt.X("n:Q", title="rows in the test set (log scale)",
              scale=alt.Scale(type="log", nice=False), axis=alt.Axis(labelExpr=LOG_LABELS,
                                                                     format="~s"))
    y = alt.Y("mdd:Q", title=f"MDD in {metric}", scale=alt.Scale(zero=True))
    colour = alt.Color("series:N", scale=alt.Scale(domain=list(series),
                                                   range=[FULL, PUBLIC][:len(series)]),
                       legend=alt.Legend(title=None, orient="top"))
    layers = [Chart(data("curve")).mark_line(strokeWidth=2.2).encode(
        x=x, y=y, color=colour,
        strokeDash=alt.StrokeDash("series:N", scale=alt.Scale(domain=list(series),
                                                              range=[[1, 0], [7, 5]]),
                                  legend=alt.Legend(title=None, orient="top")),
        tooltip=[alt.Tooltip("series:N", title=""), alt.Tooltip("n:Q", title="rows", format=","),
                 alt.Tooltip("mdd:Q", title="MDD", format=".4g")])]
    if has_delta:
        delta = Chart(data("delta"))
        layers += [delta.mark_rule(color=INK, strokeDash=[2, 3], strokeWidth=1.2).encode(y="mdd:Q"),
                   delta.mark_text(align="left", dx=4, dy=-6, fontSize=11.5, color=INK).encode(
                       x=alt.value(0), y="mdd:Q", text="text:N")]
    pins = Chart(data("pins"))
    layers += [pins.mark_circle(size=60, color=INK, opacity=1).encode(
                   x="n:Q", y="mdd:Q", tooltip=[alt.Tooltip("text:N", title="")]),
               # a white halo under each label keeps it readable where a curve passes under it
               *[pins.mark_text(fontSize=12, color=colour_, stroke=stroke, strokeWidth=width,
                                align=alt.ExprRef("datum.left ? 'right' : 'left'"),
                                dx=alt.ExprRef("datum.left ? -7 : 7"),
                                dy=alt.ExprRef("datum.above ? -9 : 14")).encode(
                     x="n:Q", y="mdd:Q", text="text:N")
                 for colour_, stroke, width in (("white", "white", 4), (INK, None, 0))]]
    return finish(layered(*layers, width=660, height=HEIGHT), "plan-mdd")


def pin_sides(pins: Sequence[tuple[float, float, str, bool]], lo: int, hi: int,
              width: float = 660, top: float | None = None,
              height: float = HEIGHT) -> list[tuple[float, float, str, bool, bool]]:
    """Where each pin's label goes: ``above`` as asked (above a point on the public curve, below
    one on the whole test set's: clear of both falling curves), on the right when above and on
    the left when below, unless that runs off the plot (about 7 px a letter); a label asked
    below a point within two lines of the plot's bottom (the y axis runs from 0 to ``top``) goes
    above it, off the axis and its numbers. Returns (n, MDD, text, above, left).

    Examples
    --------
    >>> pin_sides([(1000, 0.1, "x" * 30, True)], 10, 1000)
    [(1000, 0.1, 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', True, True)]
    >>> pin_sides([(1000, 0.01, "minimum n: 1,000", False)], 10, 1000, top=0.16)
    [(1000, 0.01, 'minimum n: 1,000', True, True)]
    """
    out = []
    span = math.log10(hi) - math.log10(lo) or 1.0
    for n, d, text, above in pins:
        x = (math.log10(n) - math.log10(lo)) / span * width
        if not above and top and d / top * height < 24:
            above = True
        left = not above
        if left and x < 7 * len(text):
            left = False
        elif not left and width - x < 7 * len(text):
            left = True
        out.append((n, d, text, above, left))
    return out
