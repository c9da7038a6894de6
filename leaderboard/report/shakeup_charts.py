"""Chart geometry for the shake-up section: public vs private scores with the noise band, and the
public-to-private rank changes (a slope chart, with an optional panel of the noise-only ranks).

Pure numbers, like :mod:`leaderboard.report.rank_charts`: every coordinate, colour, word and
tooltip is decided here and ``templates/shakeup.html.j2`` only loops over these frozen
dataclasses. Team names stay plain text (shortened for labels, up to 60 characters in tooltips);
escaping is the template's job. Coordinates are rounded to 0.1 px, so the same input gives the
same bytes. Scores are raw (not oriented): the axes always ascend and arrows say where better is.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from leaderboard.report.charts import PALETTE, PlotBox, Scale, Tick, padded, px
from leaderboard.report.rank_charts import Glyph, KeyItem, _as_names, _short, _text_px

DOT, FLAG, ROSE, FELL, SAME = PALETTE[0], PALETTE[3], PALETTE[2], PALETTE[3], "#9CA3AF"
BAND, INK = "#C9D3DE", "#374151"
_FENCE = 1.5      # outliers: beyond 1.5 times the 10-90% spread past the 10% and 90% quantiles
_GAP = 14.0       # vertical room of one 12 px label


@dataclass(frozen=True)
class TextMark:
    x: float
    y: float
    text: str
    anchor: str = "start"
    transform: str = ""          # e.g. "rotate(-90 x y)"; empty for none


@dataclass(frozen=True)
class Dot:
    """One entry of the scatter: a circle, or for an off-range entry a triangle (``path``)."""

    x: float
    y: float
    colour: str
    tooltip: str
    path: str = ""


@dataclass(frozen=True)
class EntryLabel:
    x: float
    y: float
    text: str
    anchor: str
    ring_x: float
    ring_y: float
    leader: str                  # SVG path from the dot to a label that had to move; "" if none


@dataclass(frozen=True)
class ScatterChart(PlotBox):
    chart_id: str
    title: str
    caption: str
    dot_r: float
    ring_r: float
    dots: list[Dot]
    labels: list[EntryLabel]
    band_path: str               # closed polygon "M..L..Z" (lower edge left to right, upper back)
    centre_path: str             # middle of the band (may have gaps where it leaves the plot)
    diagonal: str                # private = public, where it crosses the plot
    x_ticks: list[Tick]          # grid lines; their labels are in x_labels / y_labels
    y_ticks: list[Tick]
    x_labels: list[TextMark]
    y_labels: list[TextMark]
    tick_end: float
    band_colour: str
    line_colour: str
    diag_colour: str
    key: list[KeyItem]
    x_label: TextMark
    y_label: TextMark
    better_x: TextMark
    better_y: TextMark
    shown: int
    clipped: int
    missing: int


def _sorted_spread(want: Sequence[float], gap: float, lo: float = -math.inf,
                   hi: float = math.inf) -> list[float]:
    """Positions closest (least squares) to the ascending ``want`` that are ``gap`` apart, kept in
    ``[lo, hi]`` when they fit (pool-adjacent-violators on want_k - k * gap)."""
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


def _flow_key(items: list[tuple[str, str, str]], x0: float, y0: float, right: float
              ) -> tuple[list[KeyItem], float]:
    """Key items ``(kind, colour, label)`` flowed into rows; returns them and the y of the last row."""
    key, x, y = [], x0, y0
    for kind, colour, label in items:
        w = 22 + _text_px(label) + 20
        if x > x0 and x + w > right:
            x, y = x0, y + 18
        cy = px(y - 4)
        glyph = {"dot": Glyph("circle", "sk-dot", (("cx", px(x + 8)), ("cy", cy), ("r", 3.5),
                                                    ("fill", colour))),
                 "band": Glyph("rect", "sk-band", (("x", px(x)), ("y", px(cy - 6)), ("width", 16),
                                                   ("height", 12), ("fill", colour))),
                 "line": Glyph("line", "sk-line", (("x1", px(x)), ("x2", px(x + 16)), ("y1", cy),
                                                   ("y2", cy), ("stroke", colour))),
                 "dash": Glyph("line", "sk-diag", (("x1", px(x)), ("x2", px(x + 16)), ("y1", cy),
                                                   ("y2", cy), ("stroke", colour))),
                 "clip": Glyph("path", "sk-dot", (("d", _triangle(x + 8, cy, 4.5, "r")),
                                                  ("fill", colour))),
                 "tick": Glyph("line", "sk-med", (("x1", px(x + 3)), ("x2", px(x + 13)),
                                                  ("y1", cy), ("y2", cy), ("stroke", colour)))}[kind]
        key.append(KeyItem((glyph,), px(x + 22), px(y), label))
        x += w
    return key, y


def _triangle(x: float, y: float, s: float, way: str) -> str:
    """A triangle centred near (x, y) pointing ``way`` (l, r, u, d): an entry off that edge."""
    dx, dy = {"l": (-1, 0), "r": (1, 0), "u": (0, -1), "d": (0, 1)}[way]
    tip = (x + dx * s, y + dy * s)
    b1 = (x - dx * s * 0.6 - dy * s * 0.8, y - dy * s * 0.6 - dx * s * 0.8)
    b2 = (x - dx * s * 0.6 + dy * s * 0.8, y - dy * s * 0.6 + dx * s * 0.8)
    return "M{},{}L{},{}L{},{}Z".format(*(px(v) for v in (*tip, *b1, *b2)))


def _robust_domain(v: np.ndarray, higher_is_better: bool) -> tuple[float, float]:
    """The data range, cut on the WORSE side at a fence far outside the central 80% so that a few
    broken submissions do not squash the rest (for normal data the fence sits 5.1 SD out), then
    padded by 4%. The better side is never cut: entries far ahead are the story, not noise."""
    q10, q90 = np.quantile(v, [0.1, 0.9])
    s = _FENCE * (q90 - q10)
    inside = v[v >= q10 - s] if higher_is_better else v[v <= q90 + s]
    return padded(float(inside.min()), float(inside.max()))


def _scatter_iv(public, private, teams, band, flagged, labelled):
    pub, pri = (np.asarray(a, dtype=float).ravel() for a in (public, private))
    names = _as_names(teams, pub.size)
    if pri.size != pub.size:
        raise ValueError("public, private and teams need one value per entry")
    flag = np.zeros(pub.size, bool) if flagged is None else np.asarray(flagged, bool).ravel()
    if flag.size != pub.size:
        raise ValueError("flagged must be a boolean mask with one value per entry")
    notes = dict(labelled) if isinstance(labelled, Mapping) else {int(i): "" for i in labelled}
    if any(not 0 <= int(i) < pub.size for i in notes):
        raise ValueError(f"labelled indices must lie in [0, {pub.size})")
    if (band[0] is None) != (band[1] is None) or (band[0] is None) != (band[2] is None):
        raise ValueError("give band_x, band_low and band_high together, or none of them")
    if band[0] is not None:
        band = tuple(np.asarray(a, dtype=float).ravel() for a in band)
        bx, bl, bh = band
        if not (bx.size == bl.size == bh.size >= 2) or not np.all(np.isfinite(np.r_[bx, bl, bh])):
            raise ValueError("band_x, band_low, band_high must be finite, of one length >= 2")
        if np.any(np.diff(bx) < 0) or np.any(bl > bh):
            raise ValueError("band_x must ascend and band_low <= band_high")
    if not np.any(np.isfinite(pub) & np.isfinite(pri)):
        raise ValueError("no entry has both a public and a private score")
    return pub, pri, names, band, flag, {int(k): str(v) for k, v in notes.items()}


def shakeup_scatter(public: np.ndarray, private: np.ndarray, teams: Sequence[str], *,
                    band_x: np.ndarray | None, band_low: np.ndarray | None,
                    band_high: np.ndarray | None, flagged: np.ndarray | None = None,
                    labelled: Sequence[int] | Mapping[int, str] = (),
                    higher_is_better: bool = True, fmt: Callable[[float], str] = "{:.4g}".format,
                    chart_id: str = "shakeup-scatter") -> ScatterChart:
    """Public score across, private score up, one dot per entry, over the band noise allows.

    The band is the polygon between ``band_low`` and ``band_high`` (the 95% range of private
    scores that chance alone gives at public score ``band_x``, ascending), drawn where it overlaps
    the plot, with its middle as a line; ``None`` for all three leaves it out. ``flagged`` entries
    (public beats private by more than noise) get the warning colour and are drawn last (``None``:
    no such test, and no key item for it);
    ``labelled`` entries (indices, or a mapping index -> note such as "private winner") get a ring
    and a short label. Axis ranges come from the data, but on the worse side of each axis entries
    beyond a fence 1.5 times the 10-90% spread past the 10% (or 90%) quantile are drawn as
    triangles on the edge they are off (the caption says how many); the better side is never cut.
    Entries without both scores are left out and counted.

    Examples
    --------
    >>> c = shakeup_scatter([0.9, 0.8, 0.85], [0.88, 0.83, 0.8], ["a", "b", "c"],
    ...                     band_x=[0.8, 0.9], band_low=[0.77, 0.87], band_high=[0.83, 0.93],
    ...                     flagged=[False, False, True], labelled={0: "private winner"})
    >>> c.dots[-1].tooltip, c.labels[0].text, c.better_x.text
    ('c: public 0.85, private 0.8 (beats private by more than noise)', 'a · private winner', 'better →')
    """
    pub, pri, names, band, flag, notes = _scatter_iv(public, private, teams,
                                                     (band_x, band_low, band_high), flagged,
                                                     labelled)
    ok = np.isfinite(pub) & np.isfinite(pri)
    n = int(ok.sum())
    width, left, right = 760, 74.0, 742.0
    key_items = [("dot", DOT, "entry")]
    if flagged is not None:
        key_items.append(("dot", FLAG, f"public beats private by more than noise "
                                       f"({int((flag & ok).sum())})"))
    if band[0] is not None:
        key_items += [("band", BAND, "95% range of private scores from noise alone"),
                      ("line", INK, "its middle")]
    key_items.append(("dash", SAME, "private = public"))
    (x0, x1), (y0, y1) = (_robust_domain(v[ok], higher_is_better) for v in (pub, pri))
    off = ok & ((pub < x0) | (pub > x1) | (pri < y0) | (pri > y1))
    if off.any():
        key_items.append(("clip", DOT, "off the shown range"))
    key, last = _flow_key(key_items, left, 18.0, right)
    top = px(last + 18)
    bottom = px(top + 460)
    xs, ys = Scale(x0, x1, left, right), Scale(y0, y1, bottom, top)
    dot_r = 3.6 if n <= 300 else 2.8 if n <= 1500 else 2.2
    # Vectorised pixel positions (the scales are linear; clamping puts off-range entries on edges).
    cx = np.round(left + (np.clip(pub, x0, x1) - x0) / (x1 - x0) * (right - left), 1)
    cy = np.round(bottom + (np.clip(pri, y0, y1) - y0) / (y1 - y0) * (top - bottom), 1)
    dots = []
    for i in sorted(np.flatnonzero(ok), key=lambda i: (bool(flag[i]), i)):
        tip = f"{_short(names[i], 60)}: public {fmt(pub[i])}, private {fmt(pri[i])}"
        tip += " (beats private by more than noise)" if flag[i] else ""
        way = ("l" if pub[i] < x0 else "r" if pub[i] > x1 else "d" if pri[i] < y0 else "u"
               if pri[i] > y1 else "")
        dots.append(Dot(float(cx[i]), float(cy[i]), FLAG if flag[i] else DOT, tip,
                        _triangle(cx[i], cy[i], dot_r + 2.4, way) if way else ""))
    labels = _entry_labels([i for i in notes if ok[i]], notes, names, cx, cy, dot_r, top, bottom,
                           right)
    band_path, centre_path = _band_paths(band, xs, ys, (x0, x1), (y0, y1))
    v0, v1 = max(x0, y0), min(x1, y1)
    diagonal = f"M{xs(v0)},{ys(v0)}L{xs(v1)},{ys(v1)}" if v0 < v1 else ""
    x_ticks, y_ticks = xs.ticks(7), ys.ticks(7)
    up = "better \u2192" if higher_is_better else "\u2190 better"
    mid_y = px((top + bottom) / 2)
    yb = px(top if higher_is_better else bottom)
    caption = _scatter_caption(n, int(off.sum()), pub.size - n, band[0] is not None,
                               higher_is_better, x0, x1, y0, y1, fmt)
    return ScatterChart(
        width, int(bottom + 52), left, right, top, bottom, chart_id,
        "Public versus private score of every entry, with the range noise alone allows", caption,
        dot_r, px(dot_r + 2.6), dots, labels, band_path, centre_path, diagonal, x_ticks, y_ticks,
        [TextMark(t.pos, px(bottom + 18), t.label, "middle") for t in x_ticks],
        [TextMark(px(left - 7), px(t.pos + 4), t.label, "end") for t in y_ticks],
        px(bottom + 5), BAND, INK, SAME, key,
        TextMark(px((left + right) / 2), px(bottom + 42), "public score", "middle"),
        TextMark(18.0, mid_y, "private score", "middle", f"rotate(-90 18.0 {mid_y})"),
        TextMark(right if higher_is_better else left, px(bottom + 42), up,
                 "end" if higher_is_better else "start"),
        TextMark(18.0, yb, up, "end" if higher_is_better else "start", f"rotate(-90 18.0 {yb})"),
        n, int(off.sum()), pub.size - n)


def _entry_labels(idx, notes, names, cx, cy, dot_r, top, bottom, right) -> list[EntryLabel]:
    """Labels right of their dots (left near the right edge); labels whose boxes would collide
    are spread apart vertically and joined to their dots by a leader line."""
    items = []
    for i in idx:
        text = _short(names[i], 22) + (f" \u00b7 {notes[i]}" if notes[i] else "")
        w = _text_px(text)
        flip = cx[i] + dot_r + 6 + w > right + 12
        tx = cx[i] - dot_r - 5 if flip else cx[i] + dot_r + 5
        items.append([i, text, "end" if flip else "start", tx, float(cy[i]), w])
    items.sort(key=lambda t: (t[4], t[0]))
    group = list(range(len(items)))               # union-find: labels that would collide
    def root(k: int) -> int:
        while group[k] != k:
            k = group[k]
        return k
    for a in range(len(items)):
        for b in range(a + 1, len(items)):
            ea, eb = (sorted((t[3], t[3] + (t[5] if t[2] == "start" else -t[5])))
                      for t in (items[a], items[b]))
            if ea[0] < eb[1] and eb[0] < ea[1] and abs(items[a][4] - items[b][4]) < _GAP:
                group[root(b)] = root(a)
    group = [root(k) for k in range(len(items))]
    out = []
    for g in sorted(set(group)):
        members = [t for t, k in zip(items, group) if k == g]
        ys = _sorted_spread([t[4] for t in members], _GAP, top + 6, bottom - 4)
        for (i, text, anchor, tx, y, _), ly in zip(members, ys):
            moved = abs(ly - y) > 1
            lead = (f"M{px(cx[i])},{px(y)}L{px(tx)},{px(ly)}" if moved else "")
            out.append(EntryLabel(px(tx + (2 if anchor == "start" else -2) * moved), px(ly + 4),
                                  text, anchor, float(cx[i]), float(cy[i]), lead))
    return out


def _band_paths(band, xs: Scale, ys: Scale, xd, yd) -> tuple[str, str]:
    """The band resampled on the shown x range and clamped to the shown y range (for a region
    between two curves, clamping is clipping; the fine grid keeps the corners true)."""
    if band[0] is None:
        return "", ""
    bx, bl, bh = band
    a, b = max(xd[0], bx[0]), min(xd[1], bx[-1])
    if not a < b:
        return "", ""
    inner = bx[(bx > a) & (bx < b)]
    grid = np.unique(np.r_[np.linspace(a, b, 161), inner if inner.size <= 200 else []])
    low, high = np.interp(grid, bx, bl), np.interp(grid, bx, bh)
    lo_c, hi_c = np.clip(low, *yd), np.clip(high, *yd)
    pts = [(xs(x), ys(y)) for x, y in zip(grid, lo_c)] + \
          [(xs(x), ys(y)) for x, y in zip(grid[::-1], hi_c[::-1])]
    poly = "M" + "L".join(f"{x},{y}" for x, y in pts) + "Z"
    mid = (low + high) / 2
    inside = (mid >= yd[0]) & (mid <= yd[1])
    centre, pen = "", "M"
    for x, y, keep in zip(grid, mid, inside):
        if keep:
            centre += f"{pen}{xs(x)},{ys(y)}"
            pen = "L"
        else:
            pen = "M"
    return poly, centre


def _scatter_caption(n, clipped, missing, has_band, higher, x0, x1, y0, y1, fmt) -> str:
    s = [f"Each dot is one of the {n:,} entries: its public score across, its private score up."
         if n > 1 else "The dot is the only entry: its public score across, its private score up."]
    s.append("Higher is better, so the best entries are at the top right." if higher else
             "Lower is better, so the best entries are at the bottom left.")
    if has_band:
        worse = "below" if higher else "above"
        s.append("The shaded band is where 95% of private scores would fall by chance alone at "
                 f"each public score, the line its middle; entries {worse} the band did worse in "
                 "private than noise explains, and those coloured orange beat their private score "
                 "by more than noise on the public board (a sign of fitting the public board).")
    if clipped:
        side, pub_edge, pri_edge = ("below", x0, y0) if higher else ("above", x1, y1)
        s.append(f"{clipped:,} {'entry lies' if clipped == 1 else 'entries lie'} far behind the "
                 f"rest ({side} public {fmt(pub_edge)} or private {fmt(pri_edge)}) and "
                 f"{'is' if clipped == 1 else 'are'} drawn as "
                 f"triangle{'' if clipped == 1 else 's'} on the edge, so as not to squash the "
                 "others; hover for the scores.")
    if missing:
        s.append(f"{missing:,} {'entry' if missing == 1 else 'entries'} without both scores "
                 f"{'is' if missing == 1 else 'are'} left out.")
    return " ".join(s)
