"""The seeds' figures for a binary target (submissions mode): ROC and precision-recall curves of
the leading entries with bootstrap bands, the CAP with its accuracy ratio (seed 004) and the cost
curves (seed 001), from :class:`~leaderboard.noise.curves.Curves`.

Each chart holds the point curves of the first :data:`~leaderboard.noise.curves.SHOWN` entries
and shows the top :data:`SHOW` of them plus the selected team when it is among the others; bands
come with the entries that were resampled. Data in, :class:`~.common.Spec` out.
"""
from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import numpy as np

from leaderboard.noise.curves import GRID, Curves
from leaderboard.report.vega.common import (Chart, INK, PALETTE, SELECTED, Spec, data, finish,
                                            finite, label, with_data)
from leaderboard.report.vega.common import skeleton
from leaderboard.report.vega.layering import layered

SHOW = 5


def _who(names: Sequence[str], texts: Sequence[str]) -> list[str]:
    return [f"{label(n)} ({t})" for n, t in zip(names, texts)]


def _long(curves: Curves, field: str) -> list[dict]:
    """One row per entry (``t``, its place) and grid point: x, y and, for resampled entries, the
    band (``lo``, ``hi``; absent otherwise). Names come from the ``entries`` dataset."""
    rows = []
    xs = [round(float(x), 2) for x in GRID]
    for t, c in enumerate(curves.entries):
        ys = finite(getattr(c, field)[:len(xs)], 4)
        band = getattr(c, f"{field}_band", None)
        if band is None:
            rows += [{"t": t, "x": x, "y": y} for x, y in zip(xs, ys)]
        else:
            lo, hi = (finite(b[:len(xs)], 4) for b in band[:2])
            rows += [{"t": t, "x": x, "y": y, "lo": a, "hi": b}
                     for x, y, a, b in zip(xs, ys, lo, hi)]
    return rows


def _entries(names: list[str], texts: list[str]) -> list[dict]:
    return [{"t": t, "team": n, "who": w, "rank": t + 1}
            for t, (n, w) in enumerate(zip(names, _who(names, texts)))]


def curve_charts(curves: Curves, teams: Sequence[str], *, conf: str) -> dict[str, Spec]:
    """The four charts by name (``roc``, ``pr``, ``cap``, ``cost``) for the entries of
    ``curves`` (``teams[i]`` names ``curves.entries[i]``, best first).

    Examples
    --------
    >>> from leaderboard.noise.curves import board_curves
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 300)
    >>> c = board_curves(y, [y + rng.normal(size=300) for _ in range(2)], replicates=64, seed=0)
    >>> specs = curve_charts(c, ["a", "b"], conf="95%")
    >>> sorted(specs), specs["roc"].to_dict(validate=True)["datasets"]["entries"][0]["team"]
    (['cap', 'cost', 'pr', 'roc'], 'a')
    """
    names = [label(t) for t in teams]
    n = len(curves.entries)
    auc = [f"AUC {c.auc:.3f}" + (f", {conf} {c.auc_interval[0]:.3f}\u2013{c.auc_interval[1]:.3f}"
                                  if c.auc_interval else "") for c in curves.entries]
    ar = [f"AR {c.ar:.3f} = Gini {c.gini:.3f}" for c in curves.entries]
    pi = curves.prevalence
    out = {
        "roc": with_data(_chart("roc", n), curves=_long(curves, "roc"),
                         entries=_entries(names, auc),
                         reference=[{"x": 0.0, "y": 0.0}, {"x": 1.0, "y": 1.0}]),
        "pr": with_data(_chart("pr", n), curves=_long(curves, "pr"), entries=_entries(names, auc),
                        reference=[{"x": 0.0, "y": round(pi, 6)}, {"x": 1.0, "y": round(pi, 6)}]),
        "cap": with_data(_chart("cap", n), curves=_long(curves, "cap"),
                         entries=_entries(names, ar),
                         reference=[{"x": 0.0, "y": 0.0}, {"x": 1.0, "y": 1.0}],
                         perfect=[{"x": 0.0, "y": 0.0}, {"x": round(pi, 6), "y": 1.0},
                                  {"x": 1.0, "y": 1.0}]),
    }
    cost = [f"expected cost {_area(c.cost):.3f}" for c in curves.entries]
    out["cost"] = with_data(_chart("cost", n), curves=_long(curves, "cost"),
                            entries=_entries(names, cost),
                            reference=[{"x": 0.0, "y": 0.0}, {"x": 1.0, "y": 1.0}],
                            other=[{"x": 0.0, "y": 1.0}, {"x": 1.0, "y": 0.0}])
    return out


def _area(y: np.ndarray) -> float:
    """The area under a curve on :data:`GRID` (trapezoids): for the cost curve, the expected cost
    over probability-costs drawn uniformly."""
    return float(np.sum(np.diff(GRID) * (y[1:] + y[:-1]) / 2))


_AXES = {"roc": ("false positive rate", "true positive rate"),
         "pr": ("recall (true positive rate)", "precision"),
         "cap": ("share of rows, highest scores first", "share of positives found"),
         "cost": ("probability-cost PC(+)", "normalised expected cost")}


# A legend label ("name (AUC 0.871, 95% 0.846-0.894)") that would not fit the chart's width (a
# phone) is set on two lines, the name over its numbers, each line cut with an ellipsis only past
# the chart's width (issue 43: at 390 px the longest labels ran past the chart and were cut).
_NARROW = "width < 420"
_TWO_LINES = (f"{_NARROW} ? [slice(datum.label, 0, "
              "lastindexof(datum.label, ' (')), slice(datum.label, lastindexof(datum.label, ' (')"
              " + 1)] : datum.label")


@skeleton(maxsize=16)
def _chart(kind: str, n: int) -> dict:
    x_title, y_title = _AXES[kind]
    shown = f"datum.rank <= {SHOW} || datum.team === {SELECTED}"
    base = Chart(data("curves")).transform_lookup(
        lookup="t", from_=alt.LookupData(data=data("entries"), key="t",
                                          fields=["team", "who", "rank"])).transform_filter(shown)
    x = alt.X("x:Q", title=x_title, scale=alt.Scale(domain=[0, 1], nice=False))
    y = alt.Y("y:Q", title=y_title, scale=alt.Scale(domain=[0, 0.5 if kind == "cost" else 1],
                                                    nice=False, clamp=True))
    palette = [PALETTE[i % len(PALETTE)] for i in range(n)]
    colour = alt.Color("who:N", sort=alt.EncodingSortField("rank", order="ascending"),
                       scale=alt.Scale(range=palette),
                       legend=alt.Legend(title=None, orient="bottom", direction="vertical",
                                         labelExpr=_TWO_LINES, labelLimit=alt.ExprRef(
                                             "max(120, width - 10)"), rowPadding=alt.ExprRef(
                                             f"{_NARROW} ? 12 : 2"), labelBaseline=alt.ExprRef(
                                             f"{_NARROW} ? 'top' : 'middle'"),
                                         symbolType="stroke",
                                         symbolOpacity=1, symbolStrokeWidth=2.5))
    tips = [alt.Tooltip("team:N", title="entry"), alt.Tooltip("x:Q", title=x_title, format=".2f"),
            alt.Tooltip("y:Q", title=y_title, format=".3f")]
    selected = f"{SELECTED} !== '' && datum.team === {SELECTED}"
    layers = []
    if kind != "cost":   # bands where the entry was resampled
        tips += [alt.Tooltip("lo:Q", title="band from", format=".3f"),
                 alt.Tooltip("hi:Q", title="to", format=".3f")]
        layers.append(base.transform_filter("isValid(datum.lo)").mark_area(
            opacity=0.15, clip=True).encode(x=x, y=alt.Y("lo:Q", scale=alt.Scale(domain=[0, 1])),
                                           y2="hi:Q", color=colour))
    ref = Chart(data("reference")).mark_line(color="#9ca3af", strokeDash=[4, 4]).encode(
        x="x:Q", y="y:Q")
    layers.append(ref)
    if kind == "cap":
        layers.append(Chart(data("perfect")).mark_line(color=INK, strokeDash=[2, 2],
                                                           strokeWidth=1).encode(x="x:Q", y="y:Q"))
    if kind == "cost":
        layers.append(Chart(data("other")).mark_line(color="#9ca3af", strokeDash=[4, 4])
                      .encode(x="x:Q", y="y:Q"))
    layers.append(base.mark_line(clip=True).encode(
        x=x, y=y, color=colour, detail="team:N", tooltip=tips,
        strokeWidth=alt.condition(selected, alt.value(3.5), alt.value(1.8))))
    return finish(layered(*layers, width=360, height=300), f"curves-{kind}")
