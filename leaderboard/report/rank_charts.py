"""Chart geometry for the rank-uncertainty section: rank intervals with P(best), Kendall's tau of
resampled rankings (the blob plot and significance map are in
:mod:`leaderboard.report.rank_maps`).

Pure numbers, like :mod:`leaderboard.report.charts`: every coordinate, label, colour and tooltip
is decided here and ``templates/ranks.html.j2`` only loops over these frozen dataclasses. Team names
are kept as plain text (truncated for display, whole in tooltips); escaping is the template's job.
Coordinates go through :func:`~leaderboard.report.charts.px`, so the same input gives the same bytes.
Inputs list entries in observed rank order, best first.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from leaderboard.report.charts import (PALETTE, Bar, Frame, Marker, PlotBox, Scale, Tick, padded,
                                       px, tier_colour)
from leaderboard.report.simulate_charts import edges

ACCENT = PALETTE[0]
SIG_BETTER, SIG_WORSE, NOT_SIG, UNTESTED = ACCENT, "#A9CCE8", "#E5E7EB", "#FFFFFF"
_CHAR = 6.9   # rough width of a 12 px character; only used to leave room for labels


def share_text(p: float) -> str:
    """A share of replicates as a percentage that never claims 0% or 100% from a finite sample.

    Examples
    --------
    >>> [share_text(p) for p in (0.0, 0.0004, 0.004, 0.1449, 0.955, 1.0)]
    ['<0.1%', '<0.1%', '0.4%', '14%', '95.5%', '>99.9%']
    """
    x = 100.0 * float(p)
    if x < 0.1:
        return "<0.1%"
    if x > 99.9:
        return ">99.9%"
    return f"{x:.1f}%" if x < 10 or x > 90 else f"{x:.0f}%"


def _short(name: str, limit: int) -> str:
    name = str(name)
    return name if len(name) <= limit else name[:limit - 1] + "\u2026"


def _text_px(text: str, size: float = 12.0) -> float:
    return len(text) * _CHAR * size / 12.0


def _as_names(teams, n: int | None = None) -> list[str]:
    names = [str(t) for t in teams]
    if not names or (n is not None and len(names) != n):
        raise ValueError(f"expected {n or 'at least one'} team names, got {len(names)}")
    return names


@dataclass(frozen=True)
class Label:
    x: float
    y: float
    text: str


# --- 1. rank intervals, one row per entry ----------------------------------------------------

@dataclass(frozen=True)
class Glyph:
    """One SVG element of a key: its tag, CSS class and attributes (name, value) in order."""

    tag: str
    cls: str
    attrs: tuple[tuple[str, object], ...]


@dataclass(frozen=True)
class KeyItem:
    glyphs: tuple[Glyph, ...]
    text_x: float
    text_y: float
    label: str


_GREY = "#6B7280"


def _cross(x: float, y: float, arm: float) -> str:
    a, b, c, d = px(x - arm), px(x + arm), px(y - arm), px(y + arm)
    return f"M{a},{c}L{b},{d}M{a},{d}L{b},{c}"


def _glyphs(kind: str, x: float, y: float, size: float) -> tuple[Glyph, ...]:
    """A key's sample of ``kind``, starting at ``x`` (centred there for round glyphs) on line ``y``."""
    if kind == "bar":
        return (Glyph("rect", "rk-bar", (("x", px(x)), ("y", px(y - 4)), ("width", size),
                                         ("height", 8), ("rx", 2), ("fill", _GREY))),)
    if kind == "line":
        return (Glyph("line", "rk-sim", (("x1", px(x)), ("x2", px(x + size)), ("y1", px(y)),
                                          ("y2", px(y)), ("stroke", _GREY))),)
    if kind == "pbar":
        return (Glyph("rect", "rk-pbar", (("x", px(x)), ("y", px(y - 3)), ("width", size),
                                           ("height", 6))),)
    if kind in ("dot", "circle"):
        extra = (("fill", _GREY),) if kind == "circle" else ()
        return (Glyph("circle", "rk-obs" if kind == "dot" else "rk-blob",
                      (("cx", px(x)), ("cy", px(y)), ("r", px(size))) + extra),)
    if kind == "cross":
        d = _cross(x, y, size)
        return Glyph("path", "rk-cross-halo", (("d", d),)), Glyph("path", "rk-cross", (("d", d),))
    return (Glyph("line", "rk-range", (("x1", px(x)), ("x2", px(x)), ("y1", px(y - size)),
                                       ("y2", px(y + size)))),)


@dataclass(frozen=True)
class IntervalRow:
    y: float
    text_y: float
    bar_x: float
    bar_y: float
    bar_w: float
    sim_x1: float | None
    sim_x2: float | None
    hit_y: float
    cap_y1: float
    cap_y2: float
    x: float
    colour: str
    rank: str
    name: str
    p_text: str
    p_muted: bool
    p_w: float
    p_y: float
    tooltip: str


@dataclass(frozen=True)
class Band:
    y: float
    height: float


@dataclass(frozen=True)
class RankIntervalChart(PlotBox):
    chart_id: str
    title: str
    rank_x: float
    name_x: float
    p_x: float
    pbar_x: float
    head_y: float
    top_tick_y: float
    bottom_tick_y: float
    label_x: float
    label_y: float
    hit_h: float
    rows: list[IntervalRow]
    bands: list[Band]
    ticks: list[Tick]
    key: list[KeyItem]
    x_label: str
    shown: int
    total: int


class _RankAxis:
    """Rank to pixels, rank 1 at the left; linear, or log10 when ranks run into the thousands."""

    def __init__(self, hi: int, left: float, right: float, log: bool):
        self.log, self.hi = log, hi
        # half a rank of room each side (a log axis needs less at 1, where it is widest)
        lo_d, hi_d = (math.log10(0.8), math.log10(hi * 1.05)) if log else (0.5, hi + 0.5)
        self.scale = Scale(lo_d, hi_d, left, right)

    def __call__(self, rank: float) -> float:
        return self.scale(math.log10(rank) if self.log else rank)

    def ticks(self, target: int = 8) -> list[Tick]:
        if self.log:
            per_decade = (self.scale.p1 - self.scale.p0) / (self.scale.d1 - self.scale.d0)
            mantissas = (1, 2, 5) if per_decade >= 110 else (1,)
            values = [m * 10 ** e for e in range(len(str(self.hi)) + 1) for m in mantissas]
        else:
            step = next(s for s in (1, 2, 5, 10, 20, 25, 50) + tuple(
                m * 10 ** e for e in range(2, 9) for m in (1, 2, 2.5, 5)) if s * target >= self.hi)
            step = int(step)
            values = [1] + [v for v in range(step, self.hi + 1, step) if v - 1 >= step / 2]
        return [Tick(self(v), f"{v:,}") for v in values if v <= self.hi]


def _interval_iv(teams, arrays, p_best):
    n = len(arrays[0])
    names = _as_names(teams, n)
    ranks, low, high, sim_low, sim_high, tiers = (
        None if a is None else np.asarray(a).astype(int).ravel() for a in arrays)
    if any(a is not None and a.size != n for a in (ranks, low, high, sim_low, sim_high, tiers)):
        raise ValueError("teams, ranks, intervals and tiers must have one value per entry")
    if (sim_low is None) != (sim_high is None):
        raise ValueError("give both sim_low and sim_high, or neither")
    p = np.asarray(p_best, dtype=float).ravel()
    if p.size != n or not np.all((p >= 0) & (p <= 1)):
        raise ValueError("p_best must hold one probability in [0, 1] per entry")
    for lo, hi in ((low, high), (sim_low, sim_high)):
        if lo is not None and not np.all((1 <= lo) & (lo <= hi)):
            raise ValueError("rank intervals must satisfy 1 <= low <= high")
    if not np.all(ranks >= 1):
        raise ValueError("ranks are 1-based")
    return names, ranks, low, high, sim_low, sim_high, tiers, p


def rank_interval_chart(teams: list[str], ranks: np.ndarray, low: np.ndarray, high: np.ndarray,
                        sim_low: np.ndarray | None, sim_high: np.ndarray | None,
                        tiers: np.ndarray, p_best: np.ndarray, max_rows: int = 60, *,
                        level: str = "95%", log_scale: bool | None = None,
                        chart_id: str = "rank-intervals") -> RankIntervalChart:
    """One row per entry (the top ``max_rows``): its rank interval, observed rank and P(best).

    A thick bar spans the marginal rank interval ``[low, high]``, a thin line the simultaneous one
    (when given); the open dot is the observed rank; colours are the tiers. ``log_scale=None``
    switches to a log axis when the shown intervals reach more than five times past the shown rows
    and past rank 100, so that the leaders' short intervals stay visible.

    Examples
    --------
    >>> c = rank_interval_chart(["a", "b"], [1, 2], [1, 1], [2, 2], None, None, [1, 1], [0.6, 0.4])
    >>> c.rows[0].tooltip, [t.label for t in c.ticks]
    ('#1 a: rank 1 to 2, P(best) 60%', ['1', '2'])
    """
    names, ranks, low, high, sim_low, sim_high, tiers, p = _interval_iv(
        teams, (ranks, low, high, sim_low, sim_high, tiers), p_best)
    n = min(len(names), max(int(max_rows), 1))
    reach = int(max(high[:n].max(), ranks[:n].max(), 0 if sim_high is None else sim_high[:n].max()))
    log = (reach > 100 and reach > 5 * n) if log_scale is None else bool(log_scale)
    width, row_h, left, right, top = 1100, 18.0, 290.0, 992.0, 60.0
    pbar_x, pbar_max, p_x = 1006.0, 36.0, 1094.0
    bottom = top + row_h * n
    axis = _RankAxis(reach, left, right, log)
    rows = []
    for i in range(n):
        y = top + row_h * (i + 0.5)
        sim = sim_low is not None
        tip = f"#{ranks[i]} {names[i]}: rank {low[i]} to {high[i]}"
        if sim:
            tip += f" (simultaneous {sim_low[i]} to {sim_high[i]})"
        tip += f", P(best) {share_text(p[i])}"
        # bars end exactly at their ranks, like the simultaneous line; a one-rank interval still
        # shows as a short bar around its dot
        x0, x1 = axis(low[i]), axis(high[i])
        if x1 - x0 < 6:
            x0, x1 = px((x0 + x1) / 2 - 3), px((x0 + x1) / 2 + 3)
        rows.append(IntervalRow(
            y=px(y), text_y=px(y + 4), bar_x=x0, bar_y=px(y - 4), bar_w=px(x1 - x0),
            sim_x1=axis(sim_low[i]) if sim else None, sim_x2=axis(sim_high[i]) if sim else None,
            hit_y=px(y - row_h / 2), cap_y1=px(y - 3.5), cap_y2=px(y + 3.5), x=axis(ranks[i]),
            colour=tier_colour(int(tiers[i])), rank=str(ranks[i]), name=_short(names[i], 34),
            p_text=share_text(p[i]), p_muted=bool(p[i] < 0.001), p_w=px(pbar_max * p[i]),
            p_y=px(y - 3), tooltip=tip))
    bands = []
    if tiers[0] > 0:   # runs of equal tiers, shaded by the tier's parity (tiers may interleave)
        starts = [0] + [i for i in range(1, n) if tiers[i] != tiers[i - 1]] + [n]
        bands = [Band(px(top + row_h * a), px(row_h * (b - a)))
                 for a, b in zip(starts[:-1], starts[1:]) if tiers[a] % 2 == 1]
    key, x = [], left
    items = [("bar", f"{level} rank interval"), ("line", f"simultaneous {level} interval"),
             ("dot", "observed rank"), ("pbar", "P(best): share of replicates won")]
    for kind, label in items[:1] + items[1 if sim_low is not None else 2:]:
        glyph = 8.0 if kind == "dot" else 24.0
        at = x + 4 if kind == "dot" else x
        key.append(KeyItem(_glyphs(kind, at, 16.0, 3.6 if kind == "dot" else glyph),
                           px(x + glyph + 6), 20.0, label))
        x += glyph + 6 + _text_px(label) + 22
    title = (f"Rank intervals of the top {n} of {len(names):,} entries, with the share of "
             f"replicates each one won")
    x_label = "rank (1 = best" + (", log scale)" if log else ")")
    return RankIntervalChart(width, int(bottom + 50), left, right, top, bottom, chart_id, title,
                             36.0, 48.0, p_x, pbar_x, px(top - 10), px(top - 10), px(bottom + 16),
                             px((left + right) / 2), px(bottom + 38), row_h, rows, bands,
                             axis.ticks(), key, x_label, n, len(names))


# --- 2. Kendall's tau of resampled rankings --------------------------------------------------

@dataclass(frozen=True)
class TauHistogram:
    chart_id: str
    title: str
    frame: Frame
    x_labels: list[Label]
    y_labels: list[Label]
    bars: list[Bar]
    median: Marker | None
    note: str | None
    note_x: float
    note_y: float
    note_anchor: str

    @property
    def tick_end(self) -> float:
        return px(self.frame.bottom + 5)

    @property
    def x_label_y(self) -> float:
        return px(self.frame.bottom + 40)

    @property
    def marker_top(self) -> float:
        return px(self.median.label_y + 4) if self.median else self.frame.top


def _tau_text(t: float) -> str:
    return f"{t:.3f}" if abs(t) > 0.99 else f"{t:.2f}"


def tau_histogram(taus: np.ndarray, *, chart_id: str = "rank-tau") -> TauHistogram:
    """Histogram of Kendall's tau between the observed ranking and each resampled one.

    Non-finite taus (e.g. a single entry, where tau is undefined) are left out; with none left the
    chart is an empty frame with a note. Identical taus (all 1.0: the ranking never changed) give
    one narrow bar and a note saying so.

    Examples
    --------
    >>> h = tau_histogram(np.array([0.9, 0.95, 0.95, 1.0]))
    >>> h.median.label, h.note
    ('median tau 0.95', None)
    """
    t = np.asarray(taus, dtype=float).ravel()
    t = t[np.isfinite(t)]
    W, H, L, R, T, B = 540, 330, 58.0, 520.0, 50.0, 280.0
    title = "Histogram of Kendall's tau between the observed ranking and each resampled ranking"
    x_label, y_label = "Kendall's tau with the observed ranking", "share of replicates"
    if t.size == 0:
        xs, ys = Scale(0.0, 1.0, L, R), Scale(0.0, 1.0, B, T)
        frame = Frame(W, H, L, R, T, B, xs.ticks(5), ys.ticks(5, percent=True), x_label, y_label)
        return TauHistogram(chart_id, title, frame, *_frame_labels(frame), [], None,
                            "not defined: fewer than two entries", px((L + R) / 2), px((T + B) / 2),
                            "middle")
    if np.ptp(t) == 0:
        v = float(t[0])
        edge = np.array([v - 0.004, v + 0.004])
        lo, hi = v - 0.1, max(v, 1.0) + 0.006
        note = f"every replicate: tau = {_tau_text(v)}"
    else:
        edge = edges(t, 30)
        lo, hi = padded(float(edge[0]), max(float(edge[-1]), 1.0), 0.03)
        note = None
    counts, _ = np.histogram(t, bins=edge)
    share = counts / t.size
    xs, ys = Scale(lo, hi, L, R), Scale(0.0, float(share.max()) * 1.12, B, T)
    bars = [Bar(xs(a), ys(s), px(xs(b) - xs(a)), px(B - ys(s)))
            for a, b, s in zip(edge[:-1], edge[1:], share) if s > 0]
    med = float(np.median(t))
    label = f"median tau {_tau_text(med)}"
    anchor = "start" if xs(med) + 4 + _text_px(label, 12.5) < W else "end"
    x_ticks = [k for k in xs.ticks(6) if -1 - 1e-9 <= float(k.label) <= 1 + 1e-9]
    frame = Frame(W, H, L, R, T, B, x_ticks, ys.ticks(5, percent=True), x_label, y_label)
    return TauHistogram(chart_id, title, frame, *_frame_labels(frame), bars,
                        Marker(xs(med), label, anchor, 34.0, False), note, px(L + 10), px(T + 18),
                        "start")


def _frame_labels(f: Frame) -> tuple[list[Label], list[Label]]:
    """Where a frame's tick labels go (below the x axis, left of the y axis)."""
    return ([Label(t.pos, px(f.bottom + 18), t.label) for t in f.x_ticks],
            [Label(px(f.left - 6), px(t.pos + 4), t.label) for t in f.y_ticks])
