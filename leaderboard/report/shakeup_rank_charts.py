"""Chart geometry of the shake-up's rank changes: a slope chart from public to private rank, with
an optional panel of the private ranks that noise alone gives each public place.

Pure numbers like :mod:`leaderboard.report.shakeup_charts`, whose label helpers it shares;
``templates/shakeup.html.j2`` only loops over these frozen dataclasses.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from leaderboard.report.charts import PlotBox, px
from leaderboard.report.rank_charts import KeyItem, _as_names, _short, _text_px
from leaderboard.report.shakeup_charts import (_GAP, BAND, FELL, INK, ROSE, SAME, TextMark,
                                               _flow_key, _sorted_spread)

@dataclass(frozen=True)
class SlopeLine:
    x1: float
    y1: float
    x2: float
    y2: float
    colour: str
    tooltip: str


@dataclass(frozen=True)
class EndLabel:
    """A name and its rank at one end of the slope chart; the ranks form a right-aligned column."""

    y: float
    rank_x: float
    rank: str
    name_x: float
    name: str
    anchor: str                  # of the name: "end" left of the left axis, "start" right of the right
    leader: str


@dataclass(frozen=True)
class NoiseColumn:
    """One public place of the noise panel: the noise-only range of private ranks, its median and
    the private rank the entry at that place actually got."""

    x: float
    hit_x: float
    bar_x: float
    bar_y: float
    bar_h: float
    tick_x1: float
    tick_x2: float
    mid_y: float
    obs_y: float
    colour: str
    tooltip: str


@dataclass(frozen=True)
class NoisePanel:
    left: float
    right: float
    top: float
    bottom: float
    hit_w: float
    plot_h: float
    bar_w: float
    bar_colour: str
    tick_colour: str
    columns: list[NoiseColumn]
    x_labels: list[TextMark]
    y_labels: list[TextMark]
    grid_y: list[float]
    axis_path: str
    break_path: str
    key: list[KeyItem]
    title: TextMark
    x_label: TextMark
    y_label: TextMark


@dataclass(frozen=True)
class RankChangeChart(PlotBox):
    """``left``/``right`` are the x of the public and private rank axes, ``top``/``bottom`` the
    span of rank 1 to the last shown rank."""

    chart_id: str
    title: str
    caption: str
    lines: list[SlopeLine]
    left_labels: list[EndLabel]
    right_labels: list[EndLabel]
    ticks: list[TextMark]
    heads: list[TextMark]
    axis_path: str
    break_path: str
    key: list[KeyItem]
    panel: NoisePanel | None
    shown: int
    total: int


class _RankY:
    """Rank to y, rank 1 at the top: one row per rank down to ``n``; past it, after a break, a
    log axis down to ``reach`` (only when ``reach`` is well past ``n``, else all rows)."""

    def __init__(self, n: int, reach: int, y0: float, row: float, tail_h: float):
        self.n, self.reach, self.y0, self.row = n, reach, y0, row
        self.broken = reach > max(1.5 * n, n + 2)
        self.lin_end = y0 + row * (n if self.broken else reach)
        self.tail0 = self.lin_end + 22
        self.end = px(self.tail0 + tail_h if self.broken else self.lin_end)
        self.tail_h = tail_h

    def __call__(self, rank: float) -> float:
        if not self.broken or rank <= self.n:
            return px(self.y0 + self.row * (rank - 0.5))
        a, b = math.log(self.n + 1), math.log(self.reach)
        return px(self.tail0 + (math.log(rank) - a) / (b - a) * self.tail_h)

    def tail_ticks(self) -> list[int]:
        if not self.broken:
            return []
        nice = [m * 10 ** e for e in range(1, 8) for m in (1, 2, 5)]
        out = [self.n + 1, self.reach]
        for v in (v for v in nice if self.n + 1 < v < self.reach):
            if all(abs(self(v) - self(u)) >= 13 for u in out):
                out.append(v)
        return sorted(out)

    def axis_path(self, x: float) -> str:
        path = f"M{px(x)},{px(self.y0)}V{px(self.lin_end)}"
        return path + (f"M{px(x)},{px(self.tail0)}V{self.end}" if self.broken else "")

    def break_path(self, x: float) -> str:
        if not self.broken:
            return ""
        return "".join(f"M{px(x - 6)},{px(y + 3)}L{px(x + 6)},{px(y - 3)}"
                       for y in (self.lin_end + 6, self.tail0 - 6))


def _rank_iv(public_rank, private_rank, teams, band, top):
    pub, pri = (np.asarray(a, dtype=float).ravel() for a in (public_rank, private_rank))
    names = _as_names(teams, pub.size)
    if pri.size != pub.size:
        raise ValueError("public_rank, private_rank and teams need one value per entry")
    ok = np.isfinite(pub) & np.isfinite(pri) & (pub >= 1) & (pri >= 1)
    if not ok.any():
        raise ValueError("no entry has both a public and a private rank (1-based)")
    if np.any(pub[ok] != np.round(pub[ok])) or np.any(pri[ok] != np.round(pri[ok])):
        raise ValueError("ranks must be whole numbers (competition ranking, 1 = best)")
    if int(top) < 1:
        raise ValueError("top must be at least 1")
    if band is not None:
        band = np.asarray(band, dtype=float)
        if band.ndim != 2 or band.shape[0] != 3 or band.shape[1] < 1:
            raise ValueError(f"band must have shape (3, E), got {band.shape}")
        if not np.all(np.isfinite(band)) or np.any(band < 1) or np.any(np.diff(band, axis=0) < 0):
            raise ValueError("band rows must be finite ranks >= 1 with low <= median <= high")
    return np.where(ok, pub, 0).astype(int), np.where(ok, pri, 0).astype(int), names, ok, band


def _end_labels(items, y: _RankY, axis_x: float, side: int) -> list[EndLabel]:
    """Labels at one axis (side -1: left of it, +1: right), in rank order, spread to stay apart;
    one that had to move is joined to its line end by a short leader."""
    want = [y(r) for r, _ in items]
    spread = _sorted_spread(want, _GAP, y.y0 + 4)
    rank_w = max(_text_px(f"{r:,}") for r, _ in items)
    out = []
    for (r, name), w, s in zip(items, want, spread):
        moved = abs(s - w) > 1
        near = axis_x + side * (12 if moved else 8)          # the rank column's edge by the axis
        rank_x = near if side < 0 else near + rank_w
        name_x = near - rank_w - 6 if side < 0 else near + rank_w + 6
        lead = f"M{px(axis_x + side * 3)},{w}L{px(axis_x + side * 10)},{px(s)}" if moved else ""
        out.append(EndLabel(px(s + 4), px(rank_x), f"{r:,}", px(name_x), name,
                            "end" if side < 0 else "start", lead))
    return out


def rank_change_chart(public_rank: np.ndarray, private_rank: np.ndarray, teams: Sequence[str], *,
                      band: np.ndarray | None = None, top: int = 20,
                      chart_id: str = "shakeup-ranks") -> RankChangeChart:
    """Slope chart of public rank (left) to private rank (right) for the union of both top ``top``.

    Lines are green for entries that rose, orange for those that fell, grey for the unchanged.
    Ranks ``1..top`` get one row each (names at both ends, spread apart where ties or crowding
    would overlap them); when the shown ranks reach well past ``top``, the axes break and continue
    on a log scale to the last shown rank. Entries with a missing or non-positive rank are left
    out. ``band`` (shape (3, K): the 2.5, 50 and 97.5% quantiles of the private rank that noise
    alone gives to the entry at public place p = column p - 1) adds a panel below: for each of the
    public top ``top`` places (ties in public rank in input order) a bar of that range, a tick at
    its median and a dot at the private rank that entry actually got.

    Examples
    --------
    >>> c = rank_change_chart([1, 2, 3], [3, 1, 2], ["a", "b", "c"], top=2)
    >>> [ln.tooltip for ln in c.lines][-1], (c.right_labels[0].rank, c.right_labels[0].name)
    ('b: public rank 2, private rank 1 (rose 1 place)', ('1', 'b'))
    """
    pub, pri, names, ok, band = _rank_iv(public_rank, private_rank, teams, band, top)
    top = int(top)
    sel = np.flatnonzero(ok & ((pub <= top) | (pri <= top)))
    reach = int(max(pub[sel].max(), pri[sel].max()))
    width, lx, rx = 760, 236.0, 524.0
    key, last = _flow_key([("line", ROSE, "rose"), ("line", FELL, "fell"),
                           ("line", SAME, "same rank")], lx - 150, 18.0, width)
    y0 = px(last + 40)
    row = float(min(22.0, max(14.0, 440.0 / top)))
    # the log tail grows with the number of names it has to hold, so they can stay near their ranks
    crowd = max(np.count_nonzero(pub[sel] > top), np.count_nonzero(pri[sel] > top))
    y = _RankY(top, reach, y0, row, float(min(max(150.0, 15.0 * crowd), 600.0)))
    lines = []
    for i in sorted(sel, key=lambda i: (pri[i] != pub[i], -pri[i], i)):
        d = int(pub[i] - pri[i])
        verb = "same rank" if d == 0 else f"{'rose' if d > 0 else 'fell'} {abs(d):,} " \
               f"place{'s' if abs(d) != 1 else ''}"
        lines.append(SlopeLine(lx, y(pub[i]), rx, y(pri[i]), ROSE if d > 0 else FELL if d < 0
                               else SAME, f"{_short(names[i], 60)}: public rank {pub[i]:,}, "
                               f"private rank {pri[i]:,} ({verb})"))
    left = _end_labels([(pub[i], _short(names[i], 24))
                        for i in sorted(sel, key=lambda i: (pub[i], i))], y, lx, -1)
    right = _end_labels([(pri[i], _short(names[i], 24))
                         for i in sorted(sel, key=lambda i: (pri[i], i))], y, rx, +1)
    ticks = [TextMark(px(x + 5 * s), px(y(v) + 4), f"{v:,}", "start" if s > 0 else "end")
             for v in y.tail_ticks() for x, s in ((lx, 1), (rx, -1))]
    bottom = max(y.end, *(lb.y for lb in left + right))
    heads = [TextMark(lx, px(y0 - 12), "public rank", "middle"),
             TextMark(rx, px(y0 - 12), "private rank", "middle")]
    panel = None if band is None else _noise_panel(pub, pri, names, ok, band, top, bottom + 46)
    height = int(math.ceil((panel.bottom + 52) if panel else bottom + 16))
    caption = _rank_caption(len(sel), int(ok.sum()), top, y, len(panel.columns) if panel else 0,
                            int(pub.size - ok.sum()))
    return RankChangeChart(
        width, height, lx, rx, y0, y.end, chart_id,
        f"Public to private rank of the {len(sel)} entries in the top {top} of either board",
        caption, lines, left, right, ticks, heads, y.axis_path(lx) + y.axis_path(rx),
        y.break_path(lx) + y.break_path(rx), key, panel, len(sel), int(ok.sum()))


def _noise_panel(pub, pri, names, ok, band, top, at) -> NoisePanel:
    kept = np.flatnonzero(ok)
    m = min(top, kept.size, band.shape[1])
    order = kept[np.lexsort((kept, pub[kept]))][:m]            # the entries at public places 1..m
    q = band[:, :m]
    key, last = _flow_key([("band", BAND, "95% range of private ranks from noise alone"),
                           ("tick", INK, "its median"), ("dot", ROSE, "rose beyond it"),
                           ("dot", FELL, "fell beyond it"), ("dot", INK, "within it")],
                          74.0, at + 22, 742.0)
    left, right, y0 = 74.0, 742.0, px(last + 20)
    reach = int(math.ceil(max(q.max(), pri[order].max())))
    y = _RankY(top, reach, y0, float(min(9.0, max(4.0, 200.0 / top))), 80.0)
    cw = (right - left) / m
    bw = px(min(12.0, 0.5 * cw))
    cols, x_labels = [], []
    for p, i in enumerate(order):
        lo, mid, hi = (float(v) for v in q[:, p])
        x = left + cw * (p + 0.5)
        obs = int(pri[i])
        colour = ROSE if obs < lo else FELL if obs > hi else INK
        y_lo, y_hi = y(lo), y(hi)
        h = max(y_hi - y_lo, 3.0)
        tip = (f"public place {p + 1}: {_short(names[i], 60)}, private rank {obs:,}; noise alone "
               f"puts it between {_rank_text(lo)} and {_rank_text(hi)} in 95% of simulations "
               f"(median {_rank_text(mid)})")
        cols.append(NoiseColumn(px(x), px(x - cw / 2), px(x - bw / 2), px((y_lo + y_hi - h) / 2),
                                px(h), px(x - bw / 2 - 2), px(x + bw / 2 + 2), y(mid), y(obs),
                                colour, tip))
        if cw >= 18 or p == 0 or (p + 1) % 5 == 0:
            x_labels.append(TextMark(px(x), px(y.end + 18), str(p + 1), "middle"))
    step = next(k for k in (1, 2, 5, 10, 20, 50, 100, 10 ** 9) if k * y.row >= 13)
    lin = [1] + [r for r in range(step, (top if y.broken else reach) + 1, step)
                 if (r - 1) * y.row >= 13]
    y_ranks = lin + [v for v in y.tail_ticks() if v > top]
    mid_y = px((y0 + y.end) / 2)
    return NoisePanel(left, right, y0, y.end, px(cw), px(y.end - y0), bw, BAND, INK, cols, x_labels,
                      [TextMark(px(left - 7), px(y(r) + 4), f"{r:,}", "end") for r in y_ranks],
                      [y(r) for r in y_ranks], y.axis_path(left), y.break_path(left), key,
                      TextMark(left, px(at), "How far noise alone moves each of the public top "
                               f"{m} places"),
                      TextMark(px((left + right) / 2), px(y.end + 40), "public place", "middle"),
                      TextMark(30.0, mid_y, "private rank", "middle", f"rotate(-90 30.0 {mid_y})"))


def _rank_text(v: float) -> str:
    return f"{v:,.0f}" if abs(v - round(v)) < 0.05 else f"{v:,.1f}"


def _rank_caption(shown, total, top, y: _RankY, panel, missing) -> str:
    s = [f"Each line joins an entry's public rank (left) to its private rank (right), for the "
         f"{shown} of {total:,} entries in the top {top} of either board; green lines rose, orange "
         f"fell, grey kept their rank."]
    if y.broken:
        s.append(f"Ranks 1 to {top} get one row each; below the break, ranks {top + 1:,} to "
                 f"{y.reach:,} are on a log scale so that far moves still fit.")
    if panel:
        s.append(f"Below, for each of the public top {panel} place{'s' if panel > 1 else ''}: the "
                 "grey bar is the "
                 "range of private ranks that noise alone gives the entry at that place in 95% of "
                 "simulated competitions, the tick its median, the dot the private rank that entry "
                 "actually got; a dot outside its bar moved further than chance explains.")
    if missing:
        s.append(f"{missing:,} {'entry' if missing == 1 else 'entries'} without both ranks "
                 f"{'is' if missing == 1 else 'are'} left out.")
    return " ".join(s)
