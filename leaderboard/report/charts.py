"""Chart geometry for the HTML report: pixel coordinates, tick labels and colours.

Everything numeric about a chart is decided here; ``templates/report.html.j2`` only loops over these
small dataclasses and draws SVG elements. Coordinates are rounded to 0.1 px so the output is compact
and byte-for-byte reproducible.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

# Okabe & Ito's colour-blind-safe qualitative palette; tiers past the eighth reuse it in order.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#F0E442", "#000000")
NO_TIER = "#6B7280"
MAX_DOT_ROWS = 60


def tier_class(tier: int) -> str:
    """CSS class of a tier's colour (``c0`` ... ``c7``), ``c-none`` when there are no tiers."""
    return f"c{(tier - 1) % len(PALETTE)}" if tier > 0 else "c-none"


def tier_colour(tier: int) -> str:
    return PALETTE[(tier - 1) % len(PALETTE)] if tier > 0 else NO_TIER


def px(value: float) -> float:
    """A pixel coordinate rounded to 0.1 px: compact SVG, and the same bytes on every run.

    Examples
    --------
    >>> px(12.345), px(0.05)
    (12.3, 0.1)
    """
    return round(float(value), 1)


@dataclass(frozen=True)
class Tick:
    pos: float
    label: str


@dataclass(frozen=True)
class Scale:
    """Linear map from data ``[d0, d1]`` to pixels ``[p0, p1]``."""

    d0: float
    d1: float
    p0: float
    p1: float

    def __call__(self, value: float) -> float:
        return px(self.p0 + (value - self.d0) / (self.d1 - self.d0) * (self.p1 - self.p0))

    def ticks(self, target: int = 6, percent: bool = False) -> list[Tick]:
        """Round-numbered ticks inside the domain, labelled with just enough decimals."""
        step = _nice_step(self.d1 - self.d0, target)
        first, last = math.ceil(self.d0 / step - 1e-9), math.floor(self.d1 / step + 1e-9)
        shown = step * 100 if percent else step
        decimals = next(d for d in range(12) if abs(shown * 10 ** d - round(shown * 10 ** d)) < 1e-6)
        out = []
        for k in range(first, last + 1):
            value = k * step
            text = f"{value * 100 if percent else value:.{decimals}f}"
            if text.lstrip("-").strip("0.") == "":
                text = text.lstrip("-")
            out.append(Tick(self(value), text + ("%" if percent else "")))
        return out


def _nice_step(span: float, target: int) -> float:
    raw = span / max(target, 1)
    magnitude = 10 ** math.floor(math.log10(raw))
    for mantissa in (1, 2, 2.5, 5, 10):
        if mantissa * magnitude >= raw * (1 - 1e-9):
            return mantissa * magnitude
    return 10 * magnitude


def padded(lo: float, hi: float, pad: float = 0.04) -> tuple[float, float]:
    """A data range widened by ``pad`` of its span at each end (a point gets a small range).

    Examples
    --------
    >>> padded(0.0, 1.0), padded(2.0, 2.0)
    ((-0.04, 1.04), (1.98, 2.02))
    """
    if not hi > lo:
        half = max(abs(lo) * 0.01, 1e-3)
        return lo - half, hi + half
    span = hi - lo
    return lo - pad * span, hi + pad * span


# --- scores with intervals, one row per entry ---------------------------------------------------

@dataclass(frozen=True)
class DotRow:
    y: float
    x: float
    lo: float | None
    hi: float | None
    colour: str
    rank: str
    name: str
    tooltip: str


@dataclass(frozen=True)
class TierBand:
    y: float
    height: float
    shaded: bool
    label: str
    label_y: float
    colour: str


@dataclass(frozen=True)
class PlotBox:
    """An SVG canvas and the plot area inside it."""

    width: int
    height: int
    left: float
    right: float
    top: float
    bottom: float


@dataclass(frozen=True)
class DotChart(PlotBox):
    rank_x: float
    name_x: float
    tier_x: float
    rows: list[DotRow]
    bands: list[TierBand]
    ticks: list[Tick]
    leader_x: float
    x_label: str
    shown: int
    total: int

    @property
    def mid_x(self) -> float:
        return px((self.left + self.right) / 2)


def dot_chart(table: pd.DataFrame, fmt: Callable[[float], str], x_label: str,
              interval_name: str, max_rows: int = MAX_DOT_ROWS) -> DotChart:
    """Dot-and-whisker geometry for the best ``max_rows`` entries of a ranked table."""
    top_rows = table.head(max_rows)
    scores = top_rows["score"].to_numpy(dtype=float)
    lo_col = top_rows["ci_low"].to_numpy(dtype=float)
    hi_col = top_rows["ci_high"].to_numpy(dtype=float)
    tiers = top_rows["tier"].to_numpy(dtype=int)
    extent = np.concatenate([scores, lo_col[np.isfinite(lo_col)], hi_col[np.isfinite(hi_col)]])
    row_h, width, left, right, top = 18, 1100, 290.0, 1030.0, 34.0
    bottom = top + row_h * len(top_rows)
    scale = Scale(*padded(float(extent.min()), float(extent.max())), left, right)
    rows, bands = [], []
    for i, (team, rank) in enumerate(zip(top_rows["team"], top_rows["rank"])):
        y = px(top + row_h * (i + 0.5))
        has_ci = bool(np.isfinite(lo_col[i]) and np.isfinite(hi_col[i]))
        tip = f"#{int(rank)} {team}: {fmt(scores[i])}"
        if has_ci:
            tip += f", {interval_name} {fmt(lo_col[i])} to {fmt(hi_col[i])}, tier {tiers[i]}"
        name = str(team)
        rows.append(DotRow(y, scale(scores[i]), scale(lo_col[i]) if has_ci else None,
                           scale(hi_col[i]) if has_ci else None, tier_colour(tiers[i]),
                           str(int(rank)), name if len(name) <= 34 else name[:33] + "\u2026", tip))
    if tiers.size and tiers[0] > 0:
        # One band per run of equal tiers; rank-set tiers can interleave, so a tier may have
        # several runs, and shading by the tier's parity keeps all its runs alike.
        starts = [0] + [i for i in range(1, len(tiers)) if tiers[i] != tiers[i - 1]]
        for j, start in enumerate(starts):
            end = starts[j + 1] if j + 1 < len(starts) else len(tiers)
            y0, y1 = top + row_h * start, top + row_h * end
            bands.append(TierBand(px(y0), px(y1 - y0), tiers[start] % 2 == 1,
                                  f"tier {tiers[start]}" if tiers[start] > 0 else "no tier",
                                  px((y0 + y1) / 2 + 4), tier_colour(tiers[start])))
    return DotChart(width, int(bottom + 42), left, right, top, bottom, 36.0, 48.0, right + 14,
                    rows, bands, scale.ticks(8), scale(scores[0]), x_label,
                    len(top_rows), len(table))


# --- the leader's simulated distribution --------------------------------------------------------

@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    w: float
    h: float


@dataclass(frozen=True)
class Marker:
    x: float
    label: str
    anchor: str
    label_y: float
    dashed: bool

    @property
    def label_x(self) -> float:
        return px(self.x + {"end": -4, "start": 4}.get(self.anchor, 0))


@dataclass(frozen=True)
class Frame(PlotBox):
    """A plot area with axes, shared by the histogram and the ECDF."""

    x_ticks: list[Tick]
    y_ticks: list[Tick]
    x_label: str
    y_label: str

    @property
    def mid_x(self) -> float:
        return px((self.left + self.right) / 2)

    @property
    def mid_y(self) -> float:
        return px((self.top + self.bottom) / 2)


@dataclass(frozen=True)
class Histogram:
    frame: Frame
    bars: list[Bar]
    markers: list[Marker]


@dataclass(frozen=True)
class Ecdf:
    frame: Frame
    points: str
    d95_x: float
    level_y: float
    label: str
    label_x: float
    label_anchor: str


_W, _H, _L, _R, _T, _B = 540, 330, 58.0, 520.0, 50.0, 280.0


def _bin_edges(draws: np.ndarray, target: int = 40) -> np.ndarray:
    """Histogram edges; draws on a lattice (counts over n) get bins aligned to it, so no combing."""
    values = np.unique(draws)
    lo, hi = float(values[0]), float(values[-1])
    if values.size == 1:
        return np.array([lo - 0.5e-3, lo + 0.5e-3])
    gap = float(np.diff(values).min())
    steps = (values - lo) / gap
    if np.all(np.abs(steps - np.round(steps)) < 1e-6) and steps[-1] < 1e5:
        width = math.ceil((round(steps[-1]) + 1) / target) * gap
        count = math.ceil((hi - lo + gap) / width)
        return lo - gap / 2 + width * np.arange(count + 1)
    return np.linspace(lo, hi, target + 1)


def histogram(draws: np.ndarray, true_score: float, q_low: float, q_high: float,
              fmt: Callable[[float], str], x_label: str, q_names: tuple[str, str], *,
              centre: str = "true score", y_label: str = "share of test sets") -> Histogram:
    """Histogram of the leader's simulated scores with its true score and central quantiles.

    ``centre`` names the solid line (the simulated true score, or the observed score when the
    draws are bootstrap replicates) and ``y_label`` what the bars count."""
    draws = np.asarray(draws, dtype=float)
    edges = _bin_edges(draws)
    counts, _ = np.histogram(draws, bins=edges)
    share = counts / max(draws.size, 1)
    lo, hi = padded(float(min(edges[0], true_score)), float(max(edges[-1], true_score)), 0.03)
    xs = Scale(lo, hi, _L, _R)
    ys = Scale(0.0, float(share.max()) * 1.08 or 1.0, _B, _T)
    bars = [Bar(xs(a), ys(s), px(xs(b) - xs(a)), px(_B - ys(s)))
            for a, b, s in zip(edges[:-1], edges[1:], share) if s > 0]
    low_label, high_label = f"{q_names[0]} {fmt(q_low)}", f"{q_names[1]} {fmt(q_high)}"
    # Quantile labels sit outside their lines unless that would run off the chart (~7 px a letter).
    low_anchor = "end" if xs(q_low) - 7 * len(low_label) > 0 else "start"
    high_anchor = "start" if xs(q_high) + 7 * len(high_label) < _W else "end"
    markers = [Marker(xs(true_score), f"{centre} {fmt(true_score)}", "middle", 16.0, False),
               Marker(xs(q_low), low_label, low_anchor, 34.0, True),
               Marker(xs(q_high), high_label, high_anchor, 34.0, True)]
    frame = Frame(_W, _H, _L, _R, _T, _B, xs.ticks(6), ys.ticks(5, percent=True), x_label,
                  y_label)
    return Histogram(frame, bars, markers)


def ecdf(t: np.ndarray, f: np.ndarray, d95: float, fmt: Callable[[float], str],
         x_label: str) -> Ecdf:
    """ECDF of |difference| between two simulated scores, drawn through 240 points, with d95."""
    t, f = np.asarray(t, dtype=float), np.asarray(f, dtype=float)
    x_max = float(t[min(np.searchsorted(f, 0.999), t.size - 1)]) if t.size else 1.0
    x_max = max(x_max, d95 * 1.3, 1e-9)
    xs, ys = Scale(0.0, x_max * 1.02, _L, _R), Scale(0.0, 1.0, _B, _T)
    grid = np.linspace(0.0, x_max, 240)
    # The ECDF may come tabulated at a coarse grid of thresholds or as every pair's distance; linear
    # interpolation draws both smoothly (a step lookup would saw-tooth between coarse thresholds).
    values = np.interp(grid, t, f, left=0.0, right=1.0) if t.size else np.zeros_like(grid)
    points = " ".join(f"{xs(x)},{ys(v)}" for x, v in zip(grid, values))
    dx = xs(d95)
    right_side = dx < (_L + _R) / 2
    frame = Frame(_W, _H, _L, _R, _T, _B, xs.ticks(6), ys.ticks(5, percent=True), x_label,
                  "share of pairs within this gap")
    # Left of d95 the curve stays below 95%, so a label just above the dashed line is clear of it.
    return Ecdf(frame, points, dx, ys(0.95), f"d95 = {fmt(d95)}",
                px(dx + 8 if right_side else dx - 8), "start" if right_side else "end")
