"""The ``simulate`` page's charts: several true scores' distributions overlaid, their pairwise
difference ECDFs with each d95, and the grid's small multiples (one panel per test set).

The single-score charts are :func:`~.analyze.distribution_chart` and :func:`~.analyze.ecdf_chart`.
Colours follow the house palette, one per true score in the order given. Data in,
:class:`~.common.Spec` out.
"""
from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import numpy as np

from leaderboard.report.vega.analyze import bin_edges, ecdf_curve
from leaderboard.report.vega.common import (Chart, INK, PALETTE, Spec, data, finish, finite,
                                            with_data)
from leaderboard.report.vega.common import axis_title, skeleton
from leaderboard.report.vega.layering import layered


def score_colour(index: int) -> str:
    """Colour of the ``index``-th true score.

    Examples
    --------
    >>> score_colour(0), score_colour(8)
    ('#0072B2', '#0072B2')
    """
    return PALETTE[index % len(PALETTE)]


def _steps(edge: np.ndarray, heights: np.ndarray, **fields) -> list[dict]:
    """A histogram as the points of a step line: one per bin start, the last edge closing it."""
    xs = np.r_[edge, edge[-1]]
    ys = np.r_[heights, heights[-1], 0.0]
    return [{**fields, "x": finite([x], 10)[0], "y": finite([y], 6)[0]}
            for x, y in zip(np.r_[edge[0], xs], np.r_[0.0, ys])]


def overlay_chart(series: Sequence[tuple[str, float, np.ndarray]], x_title: str) -> Spec:
    """Overlaid histograms (share of test sets per bin, shared bins) of several true scores'
    draws, each with a line at its true score; ``series`` holds (label, true score, draws).

    Examples
    --------
    >>> s = overlay_chart([("0.8", 0.8, np.array([0.79, 0.8, 0.81])),
    ...                    ("0.9", 0.9, np.array([0.9, 0.91]))], "AUC").to_dict(validate=True)
    >>> sorted({r["label"] for r in s["datasets"]["steps"]}), s["datasets"]["truths"][1]["x"]
    (['0.8', '0.9'], 0.9)
    """
    edge = bin_edges(np.concatenate([d for _, _, d in series]))
    steps, truths = [], []
    for i, (name, true, draws) in enumerate(series):
        share = np.histogram(draws, bins=edge)[0] / max(len(draws), 1)
        steps += _steps(edge, share, label=name, order=i)
        truths.append({"label": name, "order": i, "x": finite([true])[0]})
    return with_data(_overlay(x_title, tuple(name for name, _, _ in series)), steps=steps,
                     truths=truths)


def _colour(labels: tuple[str, ...]) -> alt.Color:
    """A true score's colour (the page's legend names them, with their d95)."""
    return alt.Color("label:N", scale=alt.Scale(domain=list(labels),
                                                range=[score_colour(i) for i in range(len(labels))]),
                     legend=None)


@skeleton(maxsize=16)
def _overlay(x_title: str, labels: tuple[str, ...]) -> dict:
    steps = Chart(data("steps"))
    colour = _colour(labels)
    x = alt.X("x:Q", title=axis_title(x_title), scale=alt.Scale(zero=False, nice=False))
    y = alt.Y("y:Q", title="share of test sets per bin", axis=alt.Axis(format="%"), stack=None)
    layers = [steps.mark_area(interpolate="step-after", opacity=0.16).encode(
                  x=x, y=y, color=colour, detail="label:N"),
              steps.mark_line(interpolate="step-after", strokeWidth=1.8).encode(
                  x=x, y=y, color=colour, detail="label:N",
                  tooltip=[alt.Tooltip("label:N", title="true score"),
                           alt.Tooltip("x:Q", title="bin from", format=".4g"),
                           alt.Tooltip("y:Q", title="share", format=".1%")]),
              Chart(data("truths")).mark_rule(strokeWidth=1.6).encode(x="x:Q", color=colour)]
    return finish(layered(*layers, width=420, height=230), "simulate-overlay")


def ecdfs_chart(series: Sequence[tuple[str, np.ndarray, np.ndarray, float]],
                x_title: str) -> Spec:
    """ECDFs of |difference| between two draws, one per true score, each d95 pinned where its
    curve crosses 95%; ``series`` holds (label, thresholds, shares of pairs, d95)."""
    reach = max(ecdf_curve(t, f, d95)[2] for _, t, f, d95 in series)
    lines, pins = [], []
    grid = np.linspace(0.0, reach, 240)
    for i, (name, t, f, d95) in enumerate(series):
        values = np.interp(grid, t, f, left=0.0, right=1.0)
        lines += [{"label": name, "order": i, "gap": finite([g], 8)[0], "share": finite([v], 6)[0]}
                  for g, v in zip(grid, values)]
        pins.append({"label": name, "order": i, "x": finite([d95])[0], "y": 0.95, "y0": 0.0})
    labels = tuple(name for name, *_ in series)
    return with_data(_ecdfs(x_title, labels), lines=lines, pins=pins,
                     level=[{"y": 0.95, "text": "95% of pairs"}])


@skeleton(maxsize=16)
def _ecdfs(x_title: str, labels: tuple[str, ...]) -> dict:
    colour = _colour(labels)
    layers = [
        Chart(data("level")).mark_rule(color=INK, strokeDash=[5, 4]).encode(y="y:Q"),
        Chart(data("level")).mark_text(align="left", dx=6, dy=-7, color=INK,
                                           fontSize=11.5).encode(x=alt.value(0), y="y:Q",
                                                                 text="text:N"),
        Chart(data("lines")).mark_line(strokeWidth=2).encode(
            x=alt.X("gap:Q", title=axis_title(x_title), scale=alt.Scale(nice=False)),
            y=alt.Y("share:Q", title="share of pairs within this gap",
                    axis=alt.Axis(format="%"), scale=alt.Scale(domain=[0, 1])),
            color=colour, detail="label:N",
            tooltip=[alt.Tooltip("label:N", title="true score"),
                     alt.Tooltip("gap:Q", title="gap", format=".3g"),
                     alt.Tooltip("share:Q", title="share of pairs", format=".1%")]),
        Chart(data("pins")).mark_rule(strokeDash=[5, 4]).encode(
            x="x:Q", y="y0:Q", y2="y:Q", color=colour),
        Chart(data("pins")).mark_circle(size=45, opacity=1).encode(
            x="x:Q", y="y:Q", color=colour,
            tooltip=[alt.Tooltip("label:N", title="true score"),
                     alt.Tooltip("x:Q", title="d95", format=".4g")]),
    ]
    return finish(layered(*layers, width=420, height=230), "simulate-ecdfs")


def facets_chart(panels: Sequence[tuple[str, Sequence[tuple[float, np.ndarray, str]]]],
                 columns: int, x_title: str) -> Spec:
    """The grid figure: one panel per test-set kind with every true score's distribution (a
    density outline, heights scaled within each panel), all panels on one x axis so narrowing
    distributions show as narrowing peaks, and each panel's d95 per true score written in it.
    ``panels`` holds (title, [(true score, draws, d95 text)]) in reading order.

    Examples
    --------
    >>> s = facets_chart([("n = 100", [(0.8, np.array([0.7, 0.8, 0.9]), "0.2")])], 1, "AUC")
    >>> s.to_dict(validate=True)["datasets"]["rows"][-1]["text"]
    'true 0.8: d95 0.2'
    """
    rows = []
    labels = list(dict.fromkeys(f"{s:g}" for _, items in panels for s, _, _ in items))
    for k, (title, items) in enumerate(panels):
        for s, draws, d95 in items:
            edge = bin_edges(draws, 24)
            dens = np.histogram(draws, bins=edge)[0] / (len(draws) * np.diff(edge))
            i = labels.index(f"{s:g}")
            rows += _steps(edge, dens, panel=title, p=k, label=f"{s:g}", order=i, kind="step")
            rows.append({"panel": title, "p": k, "label": f"{s:g}", "order": i, "kind": "truth",
                         "x": finite([s])[0], "y": None})
            rows.append({"panel": title, "p": k, "label": f"{s:g}", "order": i, "kind": "d95",
                         "x": None, "y": None, "text": f"true {s:g}: d95 {d95}"})
    return with_data(_facets(x_title, tuple(labels), int(columns)), rows=rows)


@skeleton(maxsize=16)
def _facets(x_title: str, labels: tuple[str, ...], columns: int) -> dict:
    colour = _colour(labels)
    x = alt.X("x:Q", title=axis_title(x_title), scale=alt.Scale(zero=False, nice=False),
              axis=alt.Axis(tickCount=5, labelOverlap=True))
    y = alt.Y("y:Q", title=None, axis=None, stack=None)
    base = Chart()
    layer = alt.layer(
        base.transform_filter("datum.kind == 'step'").mark_area(
            interpolate="step-after", opacity=0.16).encode(x=x, y=y, color=colour,
                                                           detail="label:N"),
        base.transform_filter("datum.kind == 'step'").mark_line(
            interpolate="step-after", strokeWidth=1.5).encode(x=x, y=y, color=colour,
                                                              detail="label:N"),
        base.transform_filter("datum.kind == 'truth'").mark_rule(strokeWidth=1.4).encode(
            x="x:Q", color=colour),
        base.transform_filter("datum.kind == 'd95'").mark_text(
            align="left", fontSize=11, dx=4, y=alt.ExprRef("10 + 13 * datum.order")).encode(
            x=alt.value(0), text="text:N", color=colour),
        data=data("rows")).properties(width=300, height=130)
    chart = layer.facet(facet=alt.Facet("panel:N", title=None,
                                        sort=alt.EncodingSortField("p", order="ascending"),
                                        header=alt.Header(labelFontSize=12.5,
                                                          labelFontWeight="bold",
                                                          labelAnchor="start")),
                        columns=columns).resolve_scale(y="independent")
    return finish(chart, "simulate-grid", fit=False)
