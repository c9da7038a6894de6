"""Chart geometry for the ``simulate`` report: overlaid distributions, ECDFs of pairwise differences
and the faceted grid figure. Coordinates only; ``templates/simulate.html.j2`` draws the SVG.

The single-case charts reuse :func:`leaderboard.report.charts.histogram` and ``ecdf``; these add the
pictures with several true scores at once. Every colour comes from the house palette (colour-blind
safe), one per true score in the order the scores were given.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from leaderboard.report.charts import PALETTE, Frame, Scale, Tick, padded, px

_W, _H, _L, _R, _T, _B = 540, 330, 58.0, 520.0, 30.0, 280.0


def score_colour(index: int) -> str:
    """Colour of the ``index``-th true score."""
    return PALETTE[index % len(PALETTE)]


@dataclass(frozen=True)
class Curve:
    """One true score's shape: an SVG path, its colour, and where its true score sits."""

    colour: str
    label: str
    path: str
    true_x: float


@dataclass(frozen=True)
class Overlay:
    frame: Frame
    curves: list[Curve]


@dataclass(frozen=True)
class Pin:
    x: float
    colour: str


@dataclass(frozen=True)
class EcdfSet:
    frame: Frame
    curves: list[Curve]   # ``path`` is a polyline's points here; ``true_x`` is unused (0)
    pins: list[Pin]
    level_y: float


@dataclass(frozen=True)
class Panel:
    x: float
    y: float
    title: str
    curves: list[Curve]
    d95: list[tuple[str, str]]   # (colour, text) per true score


@dataclass(frozen=True)
class Facets:
    width: int
    height: int
    panel_width: float
    plot_left: float
    plot_right: float
    plot_top: float
    plot_bottom: float
    panels: list[Panel]
    x_ticks: list[Tick]
    x_label: str


def edges(values: np.ndarray, target: int = 40) -> np.ndarray:
    """Histogram bin edges over ``values``; values on a lattice (counts over n) get bins aligned to
    the lattice, so that no bin is empty only because no count can fall in it."""
    unique = np.unique(values)
    lo, hi = float(unique[0]), float(unique[-1])
    if unique.size == 1:
        half = max(abs(lo) * 1e-3, 1e-6)
        return np.array([lo - half, lo + half])
    gap = float(np.diff(unique).min())
    steps = (unique - lo) / gap
    if np.all(np.abs(steps - np.round(steps)) < 1e-6) and steps[-1] < 1e5:
        width = math.ceil((round(steps[-1]) + 1) / target) * gap
        return lo - gap / 2 + width * np.arange(math.ceil((hi - lo + gap) / width) + 1)
    return np.linspace(lo, hi, target + 1)


def _outline(edge: np.ndarray, heights: np.ndarray, xs: Scale, ys: Scale) -> str:
    """A closed step outline of a histogram, as an SVG path."""
    parts = [f"M{xs(edge[0])},{ys(0)}"]
    for a, b, h in zip(edge[:-1], edge[1:], heights):
        parts.append(f"L{xs(a)},{ys(h)}L{xs(b)},{ys(h)}")
    parts.append(f"L{xs(edge[-1])},{ys(0)}Z")
    return "".join(parts)


def overlay(series: Sequence[tuple[str, float, np.ndarray]], x_label: str) -> Overlay:
    """Overlaid histograms of several true scores' sorted draws, on shared bins.

    ``series`` holds (label, true score, sorted draws) per true score; heights are the share of
    test sets per bin, so the curves are comparable.
    """
    edge = edges(np.concatenate([d for _, _, d in series]))
    shares = [np.histogram(d, bins=edge)[0] / d.size for _, _, d in series]
    top = max(float(s.max()) for s in shares) * 1.08 or 1.0
    truths = [s for _, s, _ in series]
    xs = Scale(*padded(min(edge[0], *truths), max(edge[-1], *truths), 0.03), _L, _R)
    ys = Scale(0.0, top, _B, _T)
    curves = [Curve(score_colour(i), label, _outline(edge, share, xs, ys), xs(true))
              for i, ((label, true, _), share) in enumerate(zip(series, shares))]
    frame = Frame(_W, _H, _L, _R, _T, _B, xs.ticks(6), ys.ticks(5, percent=True), x_label,
                  "share of test sets per bin")
    return Overlay(frame, curves)


def ecdfs(series: Sequence[tuple[str, np.ndarray, np.ndarray, float]], x_label: str) -> EcdfSet:
    """ECDFs of |difference| between two draws, one per true score, with each d95 pinned at 95%.

    ``series`` holds (label, thresholds, shares of pairs within them, d95) per true score.
    """
    reach = max(float(t[min(np.searchsorted(f, 0.999), t.size - 1)]) for _, t, f, _ in series)
    reach = max(reach, 1.3 * max(d for *_, d in series), 1e-12)
    xs, ys = Scale(0.0, reach * 1.02, _L, _R), Scale(0.0, 1.0, _B, _T)
    grid = np.linspace(0.0, reach, 240)
    curves, pins = [], []
    for i, (label, t, f, d95) in enumerate(series):
        # linear interpolation between the tabulated thresholds draws a smooth curve
        values = np.interp(grid, t, f, left=0.0, right=1.0)
        points = " ".join(f"{xs(x)},{ys(v)}" for x, v in zip(grid, values))
        curves.append(Curve(score_colour(i), label, points, 0.0))
        pins.append(Pin(xs(d95), score_colour(i)))
    frame = Frame(_W, _H, _L, _R, _T, _B, xs.ticks(6), ys.ticks(5, percent=True), x_label,
                  "share of pairs within this gap")
    return EcdfSet(frame, curves, pins, ys(0.95))


_PW, _PH = 360.0, 210.0              # one panel
_PL, _PR, _PT, _PB = 14.0, 346.0, 46.0, 176.0   # its plot area


def facets(panels: Sequence[tuple[str, Sequence[tuple[float, np.ndarray, str]]]], columns: int,
           x_label: str) -> Facets:
    """The grid figure: one panel per test-set kind, each with every true score's distribution.

    ``panels`` holds (title, [(true score, sorted draws, d95 text)]) in reading order, ``columns``
    panels to a row. All panels share one x axis, so narrowing distributions show as narrowing
    peaks; heights are densities scaled within each panel (one score's curve is as wide as its
    noise, so a narrow peak is a tall one).
    """
    binned = [[(edges(d, 24), d) for _, d, _ in items] for _, items in panels]
    lo = min(min(e[0] for e, _ in row) for row in binned)
    hi = max(max(e[-1] for e, _ in row) for row in binned)
    truths = [s for _, items in panels for s, _, _ in items]
    xs = Scale(*padded(min(lo, *truths), max(hi, *truths), 0.02), _PL, _PR)
    out = []
    for k, ((title, items), row) in enumerate(zip(panels, binned)):
        dens = [(edge, np.histogram(d, bins=edge)[0] / (d.size * np.diff(edge)))
                for edge, d in row]
        top = max(float(h.max()) for _, h in dens) * 1.05 or 1.0
        ys = Scale(0.0, top, _PB, _PT)
        curves = [Curve(score_colour(i), f"{s:g}", _outline(edge, h, xs, ys), xs(s))
                  for i, ((s, _, _), (edge, h)) in enumerate(zip(items, dens))]
        out.append(Panel(px((k % columns) * _PW), px((k // columns) * _PH), title, curves,
                         [(score_colour(i), text) for i, (_, _, text) in enumerate(items)]))
    rows = -(-len(panels) // columns)
    return Facets(int(columns * _PW), int(rows * _PH + 24), _PW, _PL, _PR, _PT, _PB, out,
                  xs.ticks(6), x_label)
