"""Chart geometry for the rank section's two maps: the blob plot of resampled ranks and the
pairwise significance map (the row charts are in :mod:`leaderboard.report.rank_charts`).

Pure numbers, like :mod:`leaderboard.report.charts`: ``templates/ranks.html.j2`` only loops over
these frozen dataclasses; names stay plain text and the template escapes them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from leaderboard.report.charts import PlotBox, px, tier_colour
from leaderboard.report.rank_charts import (ACCENT, NOT_SIG, SIG_BETTER, SIG_WORSE, UNTESTED,
                                            KeyItem, Label, _as_names, _cross, _glyphs,
                                            _short, _text_px, share_text)


# --- 3. blob plot of resampled ranks ---------------------------------------------------------

@dataclass(frozen=True)
class Blob:
    cx: float
    cy: float
    r: float
    tooltip: str


@dataclass(frozen=True)
class BlobColumn:
    x: float
    hit_x: float
    colour: str
    name: str
    label_y: float
    line_y1: float
    line_y2: float
    cap_x1: float
    cap_x2: float
    obs_y: float
    cross: str            # an SVG path: the observed rank's cross
    blobs: list[Blob]
    tooltip: str


@dataclass(frozen=True)
class BlobPlot(PlotBox):
    chart_id: str
    title: str
    cell: float
    columns: list[BlobColumn]
    y_labels: list[Label]
    grid_y: list[float]
    key: list[KeyItem]
    y_label: str
    y_label_x: float
    mid_y: float

    @property
    def plot_h(self) -> float:
        return px(self.bottom - self.top)


def _blob_iv(teams, frequencies, ranks, tiers):
    freq = np.asarray(frequencies, dtype=float)
    if freq.ndim != 2 or freq.shape[1] - freq.shape[0] not in (0, 1) or freq.shape[0] == 0:
        raise ValueError(f"frequencies must be a non-empty (top, top) or (top, top + 1) array, "
                         f"got {freq.shape}")
    top = freq.shape[0]
    names = _as_names(teams, top)
    totals = freq.sum(axis=1, keepdims=True)
    if not np.all(np.isfinite(freq)) or np.any(freq < 0) or np.any(totals <= 0):
        raise ValueError("frequencies must be finite, non-negative, with a positive sum in each row")
    ranks = np.asarray(ranks).astype(int).ravel()
    tiers = np.zeros(top, int) if tiers is None else np.asarray(tiers).astype(int).ravel()
    if ranks.size != top or tiers.size != top or np.any(ranks < 1):
        raise ValueError("ranks (1-based) and tiers need one value per row of frequencies")
    return names, freq / totals, ranks, tiers


def blob_plot(teams: list[str], frequencies: np.ndarray, ranks: np.ndarray, *,
              tiers: np.ndarray | None = None, level: float = 0.95,
              chart_id: str = "rank-blobs") -> BlobPlot:
    """challengeR-style blob plot: how often each entry took each rank among the resampled rankings.

    ``frequencies[i, r]`` counts (or shares) the replicates in which entry ``i`` took rank ``r + 1``;
    an optional last column counts ranks beyond ``top`` (not drawn, but part of each row's total,
    which normalises the row). A circle's AREA is proportional to that share; the vertical
    line spans the central ``level`` range of the entry's resampled ranks (the inverted-CDF
    quantiles: the first rank whose cumulative share reaches (1 - level) / 2, and the first that
    reaches (1 + level) / 2), the cross marks its observed rank. Circles take the tier colours when
    ``tiers`` is given (accent colour otherwise).

    Examples
    --------
    >>> b = blob_plot(["a", "b"], np.array([[3, 1], [1, 3]]), [1, 2])
    >>> b.columns[0].blobs[0].tooltip
    'a: rank 1 in 75% of replicates'
    """
    names, share, ranks, tiers = _blob_iv(teams, frequencies, ranks, tiers)
    top = len(names)
    cell = float(min(44, max(22, 900 // top)))
    r_max = 0.46 * cell
    shown = [_short(n, 24) for n in names]
    diag = max(_text_px(s) for s in shown) * math.sqrt(0.5)
    left = px(max(72.0, diag - cell / 2 + 8))
    key_h = 2 * r_max + 18
    ptop = px(key_h + 10)
    right, bottom = px(left + cell * top), px(ptop + cell * top)

    def at_rank(r: float) -> float:
        return px(ptop + cell * (r - 0.5))

    q = (1 - level) / 2
    columns = []
    for i in range(top):
        x = left + cell * (i + 0.5)
        cum = np.cumsum(share[i])
        lo, hi = (int(np.searchsorted(cum, v - 1e-12)) + 1 for v in (q, 1 - q))
        hi = min(hi, top)
        blobs = [Blob(px(x), at_rank(r + 1), px(r_max * math.sqrt(s)),
                      f"{names[i]}: rank {r + 1} in {share_text(s)} of replicates")
                 for r, s in enumerate(share[i][:top]) if px(r_max * math.sqrt(s)) > 0]
        oy = at_rank(min(ranks[i], top))
        tip = (f"#{ranks[i]} {names[i]}: observed rank {ranks[i]}; the middle {level:.0%} of "
               f"replicates rank it {lo} to {hi}")
        colour = tier_colour(int(tiers[i])) if tiers[i] > 0 else ACCENT
        columns.append(BlobColumn(px(x), px(x - cell / 2), colour, shown[i], px(bottom + 10),
                                  at_rank(lo), at_rank(hi), px(x - 0.16 * cell),
                                  px(x + 0.16 * cell), oy, _cross(x, oy, 0.2 * cell), blobs, tip))
    y_labels = [Label(px(left - 8), px(at_rank(r) + 4), str(r)) for r in range(1, top + 1)]
    lead = "share of replicates"
    key, kx = [KeyItem((), left, px(12 + r_max), lead)], left + _text_px(lead) + 10
    for s in (0.1, 0.5, 1.0):
        rr = px(r_max * math.sqrt(s))
        key.append(KeyItem(_glyphs("circle", kx + rr, 8 + r_max, rr), px(kx + 2 * rr + 4),
                           px(12 + r_max), f"{s:.0%}"))
        kx += 2 * rr + 4 + _text_px(f"{s:.0%}") + 12
    kx += 10
    for kind, label in (("cross", "observed rank"), ("range", f"middle {level:.0%} of ranks")):
        key.append(KeyItem(_glyphs(kind, kx + 6, 8 + r_max, 5.0 if kind == "cross" else 8.0),
                           px(kx + 16), px(12 + r_max), label))
        kx += 16 + _text_px(label) + 14
    width = int(math.ceil(max(right + 16, kx)))
    height = int(math.ceil(bottom + 10 + diag + 10))
    y_label = "rank in the resampled rankings"
    if _text_px(y_label, 13) > bottom - ptop:    # a short plot gets a short label
        y_label = "rank"
    title = (f"Blob plot: how often each of the top {top} entries took each rank over the "
             f"resampled rankings")
    return BlobPlot(width, height, left, right, ptop, bottom, chart_id, title, cell, columns,
                    y_labels, [at_rank(r) for r in range(1, top + 1)], key,
                    y_label, 16.0, px((ptop + bottom) / 2))


# --- 4. pairwise significance map ------------------------------------------------------------

@dataclass(frozen=True)
class Cell:
    x: float
    y: float
    fill: str
    kind: str      # "better", "worse", "ns" or "untested"
    tooltip: str


@dataclass(frozen=True)
class LegendItem:
    x: float
    y: float
    fill: str
    kind: str
    text_x: float
    text_y: float
    label: str


@dataclass(frozen=True)
class SignificanceChart(PlotBox):
    chart_id: str
    title: str
    cell: float
    cells: list[Cell]
    row_labels: list[Label]
    col_labels: list[Label]
    legend: list[LegendItem]
    diagonal: str   # an SVG path striking through the diagonal's cells (an entry against itself)

    @property
    def plot_w(self) -> float:
        return px(self.right - self.left)

    @property
    def plot_h(self) -> float:
        return px(self.bottom - self.top)


def _t_text(t: float) -> str:
    return "t = \u221e" if t == math.inf else f"t = {t:.2f}"


def _significance_iv(teams, significant, stat):
    sig = np.asarray(significant, dtype=bool)
    t = np.asarray(stat, dtype=float)
    if sig.ndim != 2 or sig.shape[0] != sig.shape[1] or sig.shape[0] == 0 or t.shape != sig.shape:
        raise ValueError("significant and stat must be square (k, k) arrays of the same shape")
    names = _as_names(teams, sig.shape[0])
    if np.any(np.tril(sig)):
        raise ValueError("significant[i, j] can be true only for i < j (row better than column)")
    if np.any(sig & np.isnan(t)):
        raise ValueError("a significant pair needs a tested statistic (not NaN)")
    return names, sig, t


def significance_chart(teams: list[str], significant: np.ndarray, stat: np.ndarray, *,
                       critical: float, mirror: bool = True,
                       chart_id: str = "rank-significance") -> SignificanceChart:
    """A k x k map of the simultaneous family's verdicts: row ``i`` against column ``j``.

    Above the diagonal a filled cell means the row entry is shown better than the column entry
    (all pairs of the board tested at once), a light cell that it is not, a blank one that the
    pair was not tested (NaN statistic). With ``mirror`` the lower triangle repeats each pair from
    the other side (pale: the column entry is shown better than the row). Tooltips give the
    studentised gap ``stat`` and the family's ``critical`` value.

    Examples
    --------
    >>> c = significance_chart(["a", "b"], [[False, True], [False, False]],
    ...                        [[np.nan, 5.2]] * 2, critical=3.1)
    >>> [x.kind for x in c.cells], c.cells[0].tooltip
    (['better', 'worse'], 'a vs b: t = 5.20 > 3.10, a shown better (all pairs at once)')
    """
    names, sig, t = _significance_iv(teams, significant, stat)
    k = len(names)
    cell = float(min(30, max(12, 600 // k)))
    shown = [_short(n, 24) for n in names]
    name_w = max(_text_px(s) for s in shown)
    diag = name_w * math.sqrt(0.5)
    left, top = px(name_w + 14), px(diag + 14)
    right, bottom = px(left + cell * k), px(top + cell * k)
    cells = []
    for i in range(k):
        for j in range(k):
            if i == j or (i > j and not mirror):
                continue
            a, b = min(i, j), max(i, j)
            tv = t[a, b] if not np.isnan(t[a, b]) else t[b, a]
            if sig[a, b]:
                kind = "better" if i < j else "worse"
                tip = (f"{names[a]} vs {names[b]}: {_t_text(tv)} > {critical:.2f}, {names[a]} "
                       "shown better (all pairs at once)")
            elif not np.isnan(tv):
                kind = "ns"
                tip = (f"{names[a]} vs {names[b]}: {_t_text(tv)}, not shown apart at "
                       f"{critical:.2f} (all pairs at once)")
            else:
                kind, tip = "untested", f"{names[a]} vs {names[b]}: not tested"
            fill = {"better": SIG_BETTER, "worse": SIG_WORSE, "ns": NOT_SIG}.get(kind, UNTESTED)
            cells.append(Cell(px(left + cell * j), px(top + cell * i), fill, kind, tip))
    row_labels = [Label(px(left - 6), px(top + cell * (i + 0.5) + 4), s) for i, s in enumerate(shown)]
    col_labels = [Label(px(left + cell * (j + 0.5) + 3), px(top - 6), s) for j, s in enumerate(shown)]
    items = [("better", SIG_BETTER, "row shown better than column (all pairs at once)"),
             ("worse", SIG_WORSE, "column shown better than row") if mirror else None,
             ("ns", NOT_SIG, "not shown apart"), ("untested", UNTESTED, "not tested")]
    legend, y = [], bottom + 16
    for item in items:
        if item is None:
            continue
        legend.append(LegendItem(left, px(y), item[1], item[0], px(left + 18), px(y + 10), item[2]))
        y += 18
    width = int(math.ceil(max(right + max(diag - cell / 2, 0) + 10,
                              left + 18 + max(_text_px(t[2]) for t in items if t) + 10)))
    title = (f"Which of the top {k} entries is shown to beat which: the verdicts of the "
             "simultaneous tests of all pairs")
    diagonal = "".join(f"M{px(left + cell * i + 3)},{px(top + cell * (i + 1) - 3)}"
                       f"L{px(left + cell * (i + 1) - 3)},{px(top + cell * i + 3)}" for i in range(k))
    return SignificanceChart(width, int(math.ceil(y + 6)), left, right, top, bottom, chart_id,
                             title, cell, cells, row_labels, col_labels, legend, diagonal)
