"""Geometry and rendering of the shake-up charts (leaderboard/report/shakeup_charts.py)."""
from __future__ import annotations

import re
import time
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.stats import rankdata

from leaderboard.report import shakeup_charts as sc
from leaderboard.report import shakeup_rank_charts as rc
from leaderboard.report.render import environment

SCRIPT = "<script>alert(1)</script>"
AMP = "Tom & Jerry <b>"
SVG = ""      # inline SVG in HTML: no namespace


def render(macro: str, chart) -> str:
    page = '{% import "shakeup.html.j2" as sk %}{{ sk.' + macro + '(c) }}'
    return environment().from_string(page).render(c=chart)


def parse(svg: str) -> ET.Element:
    """The macro's output must be one well-formed SVG element (nothing unescaped breaks it)."""
    root = ET.fromstring(svg)
    assert root.tag == "svg" and root.find("title") is not None
    return root


def board(n=300, seed=0, higher=True, n_public=300, n_private=1200):
    """A simulated competition: close true accuracies, binomial-sized noise on both slices."""
    rng = np.random.default_rng(seed)
    truth = rng.normal(0.86, 0.02, n)
    sd_pub, sd_pri = (np.sqrt(truth * (1 - truth) / k) for k in (n_public, n_private))
    pub = truth + rng.normal(size=n) * sd_pub
    pri = truth + rng.normal(size=n) * sd_pri
    if not higher:
        pub, pri = 1 - pub, 1 - pri
    sd_gap = float(np.sqrt(sd_pub ** 2 + sd_pri ** 2).mean())
    bx = np.linspace(pub.min(), pub.max(), 60)
    teams = [SCRIPT, AMP] + [f"team {i}" for i in range(2, n)]
    return pub, pri, teams, bx, bx - 1.96 * sd_gap, bx + 1.96 * sd_gap


def scatter(n=300, seed=0, higher=True, **kw):
    pub, pri, teams, bx, lo, hi = board(n, seed, higher)
    args = dict(band_x=bx, band_low=lo, band_high=hi, higher_is_better=higher,
                fmt="{:.4f}".format)
    args.update(kw)
    return sc.shakeup_scatter(pub, pri, teams, **args), (pub, pri, bx, lo, hi)


def path_points(d: str) -> list[tuple[float, float]]:
    return [(float(x), float(y)) for x, y in re.findall(r"(-?[\d.]+),(-?[\d.]+)", d)]


def axis_value(ticks):
    """Pixel -> data map recovered from two tick labels (independent of the module's scale)."""
    (p0, v0), (p1, v1) = ((t.pos, float(t.label)) for t in (ticks[0], ticks[-1]))
    return lambda p: v0 + (p - p0) * (v1 - v0) / (p1 - p0)


# --- scatter ----------------------------------------------------------------------------------

def test_scatter_dots_sit_inside_the_plot_at_their_scores():
    c, (pub, pri, *_) = scatter()
    assert len(c.dots) == c.shown == pub.size and c.clipped == 0 and c.missing == 0
    xv, yv = axis_value(c.x_ticks), axis_value(c.y_ticks)
    names = [SCRIPT, AMP] + [f"team {i}" for i in range(2, pub.size)]
    for i in (0, 1, 7, 150, 299):
        d = c.dots[i]                         # nothing flagged or missing: dots in input order
        assert d.tooltip == f"{names[i]}: public {pub[i]:.4f}, private {pri[i]:.4f}"
        # 0.1 px of rounding is worth this much of a score
        assert abs(xv(d.x) - pub[i]) <= abs(xv(0.06) - xv(0))
        assert abs(yv(d.y) - pri[i]) <= abs(yv(0.06) - yv(0))
    for d in c.dots:
        assert c.left <= d.x <= c.right and c.top <= d.y <= c.bottom and d.path == ""
    # the axes ascend: x tick labels left to right, y tick labels bottom to top
    assert [float(t.label) for t in c.x_ticks] == sorted(float(t.label) for t in c.x_ticks)
    assert np.all(np.diff([t.pos for t in c.y_ticks]) < 0)


def test_flagged_dots_are_coloured_and_drawn_last():
    n = 300
    flagged = np.zeros(n, bool)
    flagged[[3, 50, 51]] = True
    c, _ = scatter(n, flagged=flagged)
    colours = [d.colour for d in c.dots]
    assert colours[-3:] == [sc.FLAG] * 3 and colours.count(sc.FLAG) == 3
    assert all(d.tooltip.endswith("(beats private by more than noise)") for d in c.dots[-3:])
    assert any("(3)" in k.label for k in c.key)


def test_outliers_are_clipped_to_the_edge_and_do_not_squash_the_rest():
    pub, pri, teams, bx, lo, hi = board(200, seed=4)
    pub, pri = pub.copy(), pri.copy()
    pub[:3], pri[:3] = 0.5, [0.5, 0.86, 0.87]              # three broken submissions
    pri[3] = 0.2                                            # one scored 0.2 privately only
    c = sc.shakeup_scatter(pub, pri, teams, band_x=bx, band_low=lo, band_high=hi)
    assert c.clipped == 4 and "4 entries lie far behind the rest (below public" in c.caption
    tri = [d for d in c.dots if d.path]
    assert len(tri) == 4
    for d in tri:
        assert c.left <= d.x <= c.right and c.top <= d.y <= c.bottom
        assert d.x == c.left or d.y == c.bottom                 # on the edge they are off
    assert sum(d.x == c.left for d in tri) == 3
    core = pub[4:]
    xv = axis_value(c.x_ticks)
    # the other entries span most of the width, as they would without the outliers
    assert (core.max() - core.min()) / (xv(c.right) - xv(c.left)) > 0.85
    clean = sc.shakeup_scatter(pub[4:], pri[4:], teams[4:], band_x=bx, band_low=lo, band_high=hi)
    assert clean.clipped == 0 and "far behind" not in clean.caption


@pytest.mark.parametrize("higher", [True, False])
def test_only_the_worse_side_is_cut(higher):
    pub, pri, teams, *_ = board(200, seed=6, higher=higher)
    s = 1 if higher else -1
    pub, pri = pub.copy(), pri.copy()
    pub[0], pri[0] = pub.mean() + s * 0.4, pri.mean() + s * 0.4      # far ahead on both boards
    pub[1], pri[1] = pub.mean() - s * 0.4, pri.mean() - s * 0.4      # a broken submission
    c = sc.shakeup_scatter(pub, pri, teams, band_x=None, band_low=None, band_high=None,
                           higher_is_better=higher)
    assert c.clipped == 1
    ahead = next(d for d in c.dots if d.tooltip.startswith(SCRIPT))
    broken = next(d for d in c.dots if d.tooltip.startswith(AMP))
    assert ahead.path == "" and broken.path != ""
    better_x, worse_x = (c.right, c.left) if higher else (c.left, c.right)
    assert broken.x == worse_x                                   # on the worse edge
    assert abs(ahead.x - better_x) < 0.05 * (c.right - c.left)   # inside the padding of the better


def test_missing_scores_are_left_out_and_counted():
    pub, pri, teams, bx, lo, hi = board(50)
    pub[4], pri[9] = np.nan, np.nan
    c = sc.shakeup_scatter(pub, pri, teams, band_x=None, band_low=None, band_high=None,
                           labelled=[4, 10])
    assert c.shown == 48 and c.missing == 2 and len(c.dots) == 48
    assert "2 entries without both scores are left out" in c.caption
    assert c.band_path == "" and c.centre_path == "" and len(c.labels) == 1   # no NaN label
    assert not any("95% range" in k.label or "noise" in k.label for k in c.key)


def test_band_polygon_is_closed_ordered_and_clamped():
    c, (pub, pri, bx, lo, hi) = scatter()
    d = c.band_path
    assert d.startswith("M") and d.endswith("Z")
    pts = path_points(d)
    half = len(pts) // 2
    lower, upper = pts[:half], pts[half:]
    assert [x for x, _ in lower] == [x for x, _ in upper][::-1]          # same x, back again
    assert np.all(np.diff([x for x, _ in lower]) > 0)                    # left to right
    for (x, y_lo), (_, y_hi) in zip(lower, upper[::-1]):
        assert y_lo >= y_hi                                              # low edge is lower
    for x, y in pts:
        assert c.left - 0.05 <= x <= c.right + 0.05 and c.top - 0.05 <= y <= c.bottom + 0.05
    # against an independent interpolation of the band at each vertex's x
    xv, yv = axis_value(c.x_ticks), axis_value(c.y_ticks)
    y0, y1 = yv(c.bottom), yv(c.top)
    slope = np.abs(np.diff(lo) / np.diff(bx)).max()
    # 0.05 px of rounding in y, and in x times the band's slope, in score units (plus float slack)
    tol = 0.06 * abs(yv(1) - yv(0)) + slope * 0.06 * abs(xv(1) - xv(0))
    for x, y in lower[::17]:
        want = float(np.clip(np.interp(xv(x), bx, lo), y0, y1))
        assert abs(yv(y) - want) <= tol
    # the band is wider than the data near the ends, so somewhere it is clamped at the edges
    assert any(y == c.top for _, y in upper) or any(y == c.bottom for _, y in lower)
    centre = path_points(c.centre_path)
    assert all(c.top <= y <= c.bottom for _, y in centre)


def test_band_outside_the_shown_range_is_not_drawn():
    pub, pri, teams, *_ = board(40)
    c = sc.shakeup_scatter(pub, pri, teams, band_x=[2.0, 3.0], band_low=[1.9, 2.9],
                           band_high=[2.1, 3.1])
    assert c.band_path == "" and c.centre_path == ""


@pytest.mark.parametrize("higher", [True, False])
def test_orientation_arrows_follow_the_metric(higher):
    c, _ = scatter(80, higher=higher)
    assert c.better_x.text == c.better_y.text == ("better \u2192" if higher else "\u2190 better")
    if higher:
        assert c.better_x.x == c.right and c.better_x.anchor == "end"
        assert c.better_y.y == c.top and c.better_y.anchor == "end"
        assert "top right" in c.caption and "below the band" in c.caption
    else:
        assert c.better_x.x == c.left and c.better_x.anchor == "start"
        assert c.better_y.y == c.bottom and c.better_y.anchor == "start"
        assert "bottom left" in c.caption and "above the band" in c.caption
    assert c.better_y.transform.startswith("rotate(-90")
    # raw axes ascend either way: the best entry sits top right or bottom left
    best = max(c.dots, key=lambda d: float(d.tooltip.rsplit("private ", 1)[1]) * (1 if higher
                                                                                else -1))
    mid_y = (c.top + c.bottom) / 2
    assert (best.y < mid_y) == higher


def test_labels_are_short_ringed_and_kept_apart():
    pub = np.r_[np.linspace(0.8, 0.9, 20), 0.85, 0.85, 0.85, 0.9]
    pri = np.r_[np.linspace(0.8, 0.9, 20), 0.85, 0.85, 0.85, 0.9]
    teams = [f"t{i}" for i in range(20)] + ["x" * 40, "b", "c", "edge"]
    c = sc.shakeup_scatter(pub, pri, teams, band_x=None, band_low=None, band_high=None,
                           labelled={20: "private winner", 21: "", 22: "", 23: ""})
    by = {lb.text.split(" \u00b7")[0]: lb for lb in c.labels}
    assert by["x" * 21 + "\u2026"].text == "x" * 21 + "\u2026 \u00b7 private winner"
    stacked = sorted(lb.y for k, lb in by.items() if k != "edge")
    assert np.all(np.diff(stacked) >= sc._GAP - 0.1)        # three labels on one point
    assert sum(bool(lb.leader) for lb in c.labels) >= 2
    assert by["edge"].anchor == "end" and by["edge"].x < by["edge"].ring_x   # flipped at the edge
    dots = {(d.x, d.y) for d in c.dots}
    assert all((lb.ring_x, lb.ring_y) in dots for lb in c.labels)


def test_sorted_spread_is_the_least_squares_placement():
    rng = np.random.default_rng(2)
    for _ in range(6):
        want = np.sort(rng.uniform(0, 60, 6))
        got = np.array(sc._sorted_spread(list(want), 14.0))
        assert np.all(np.diff(got) >= 14 - 1e-9)
        cons = [{"type": "ineq", "fun": lambda y, k=k: y[k + 1] - y[k] - 14} for k in range(5)]
        ref = minimize(lambda y: ((y - want) ** 2).sum(), want, constraints=cons,
                       method="SLSQP", options={"ftol": 1e-12}).x
        assert np.allclose(got, ref, atol=1e-4)
    assert sc._sorted_spread([10.0, 10.0], 14.0) == [3.0, 17.0]
    assert sc._sorted_spread([10.0, 10.0], 14.0, lo=5.0) == [5.0, 19.0]
    assert sc._sorted_spread([1.0, 50.0], 14.0) == [1.0, 50.0]          # no conflict: untouched
    assert sc._sorted_spread([90.0, 95.0], 14.0) == [85.5, 99.5]
    assert sc._sorted_spread([90.0, 95.0], 14.0, hi=98.0) == [84.0, 98.0]


def test_scatter_input_checks():
    pub, pri, teams, bx, lo, hi = board(10)
    band = dict(band_x=bx, band_low=lo, band_high=hi)
    with pytest.raises(ValueError, match="one value per entry"):
        sc.shakeup_scatter(pub, pri[:9], teams, **band)
    with pytest.raises(ValueError, match="together"):
        sc.shakeup_scatter(pub, pri, teams, band_x=bx, band_low=lo, band_high=None)
    with pytest.raises(ValueError, match="ascend"):
        sc.shakeup_scatter(pub, pri, teams, band_x=bx[::-1], band_low=lo, band_high=hi)
    with pytest.raises(ValueError, match="labelled"):
        sc.shakeup_scatter(pub, pri, teams, labelled=[10], **band)
    with pytest.raises(ValueError, match="flagged"):
        sc.shakeup_scatter(pub, pri, teams, flagged=[True], **band)
    with pytest.raises(ValueError, match="both a public and a private"):
        sc.shakeup_scatter(np.full(10, np.nan), pri, teams, **band)


# --- rank changes -----------------------------------------------------------------------------

def ranked(n=300, seed=0, **kw):
    pub, pri, teams, *_ = board(n, seed, **kw)
    return rankdata(-pub, method="min").astype(int), rankdata(-pri, method="min").astype(int), teams


def noise_band(n, seed=1):
    """Quantiles of simulated private ranks by public place from a toy simulation."""
    rng = np.random.default_rng(seed)
    truth = np.sort(rng.normal(0, 1, n))[::-1]
    sims = truth[:, None] + rng.normal(0, 1.5, (n, 400))
    order = np.argsort(-(truth[:, None] + rng.normal(0, 1.5, (n, 400))), axis=0)
    prank = np.argsort(np.argsort(-sims, axis=0), axis=0) + 1
    return np.quantile(np.take_along_axis(prank, order, axis=0), [0.025, 0.5, 0.975], axis=1)


def test_slope_lines_cover_the_union_of_both_tops():
    pr, qr, teams = ranked(300)
    c = rc.rank_change_chart(pr, qr, teams, top=15)
    union = {i for i in range(300) if pr[i] <= 15 or qr[i] <= 15}
    assert c.shown == len(union) == len(c.lines) and c.total == 300
    names = {ln.tooltip.split(": public")[0] for ln in c.lines}
    assert names == {teams[i] for i in union}
    for ln in c.lines:
        p, q = map(int, re.findall(r"rank (\d+)", ln.tooltip))
        assert ln.x1 == c.left and ln.x2 == c.right
        assert ln.colour == (sc.ROSE if q < p else sc.FELL if q > p else sc.SAME)
        assert c.top <= ln.y1 <= c.bottom and c.top <= ln.y2 <= c.bottom
    # one row per rank in the top: rank r sits at the same height on both axes, evenly spaced
    ys = {}
    for ln in c.lines:
        p, q = map(int, re.findall(r"rank (\d+)", ln.tooltip))
        ys.setdefault(p, ln.y1), ys.setdefault(q, ln.y2)
        assert ys[p] == ln.y1 and ys[q] == ln.y2
    rows = [ys[r] for r in sorted(ys) if r <= 15]
    assert np.ptp(np.diff(rows)) <= 0.2 and np.diff(rows).min() > 0
    tail = [ys[r] for r in sorted(ys) if r > 15]
    assert np.all(np.diff(tail) > 0) and min(tail) > max(rows) + 10     # after the break
    assert c.break_path and "log scale" in c.caption


def test_end_labels_follow_each_board_and_never_overlap():
    pr, qr, teams = ranked(300, seed=3)
    qr[qr == 2] = 1                                          # a tie for first on the private board
    c = rc.rank_change_chart(pr, qr, teams, top=10)
    for labels, ranks in ((c.left_labels, pr), (c.right_labels, qr)):
        ys = [lb.y for lb in labels]
        assert np.all(np.diff(ys) >= sc._GAP - 0.1)
        shown = [int(lb.rank.replace(",", "")) for lb in labels]
        assert shown == sorted(shown)
        want = sorted(ranks[i] for i in range(300) if pr[i] <= 10 or qr[i] <= 10)
        assert shown == want
    assert [lb.rank for lb in c.right_labels[:2]] == ["1", "1"]
    assert c.right_labels[0].leader or c.right_labels[1].leader
    assert all(lb.anchor == "end" and lb.name_x < lb.rank_x < c.left for lb in c.left_labels)
    assert all(lb.anchor == "start" and c.right < lb.rank_x < lb.name_x for lb in c.right_labels)


def test_small_boards_get_a_plain_axis():
    c = rc.rank_change_chart([1, 2, 3, 4], [2, 1, 4, 3], ["a", "b", "c", "d"], top=20)
    assert c.break_path == "" and c.ticks == [] and "log" not in c.caption
    assert c.shown == 4 and c.panel is None


def test_noise_panel_matches_a_direct_classification():
    n, top = 120, 12
    pr, qr, teams = ranked(n, seed=5)
    band = noise_band(n)
    c = rc.rank_change_chart(pr, qr, teams, band=band, top=top)
    p = c.panel
    assert len(p.columns) == top and p.top > c.bottom
    order = np.lexsort((np.arange(n), pr))
    for k, col in enumerate(p.columns):
        i = order[k]
        lo, mid, hi = band[:, k]
        want = sc.ROSE if qr[i] < lo else sc.FELL if qr[i] > hi else sc.INK
        assert col.colour == want
        assert col.tooltip.startswith(f"public place {k + 1}: {teams[i]}, private rank {qr[i]}")
        assert col.bar_y <= col.mid_y <= col.bar_y + col.bar_h + 0.1
        assert p.top <= col.bar_y and col.bar_y + col.bar_h <= p.bottom + 0.2
        assert p.top <= col.obs_y <= p.bottom
        assert p.left < col.x < p.right
    assert np.all(np.diff([t.y for t in p.y_labels]) >= 13)       # rank labels never collide
    xs = [col.x for col in p.columns]
    assert np.all(np.diff(xs) > 0)
    assert "grey bar" in c.caption


def test_rank_input_checks():
    with pytest.raises(ValueError, match="shape"):
        rc.rank_change_chart([1, 2], [2, 1], ["a", "b"], band=np.ones((2, 2)))
    with pytest.raises(ValueError, match="low <= median <= high"):
        rc.rank_change_chart([1, 2], [2, 1], ["a", "b"], band=np.array([[2, 1], [1, 1], [1, 1]]))
    with pytest.raises(ValueError, match="whole numbers"):
        rc.rank_change_chart([1, 2.5], [2, 1], ["a", "b"])
    with pytest.raises(ValueError, match="one value per entry"):
        rc.rank_change_chart([1, 2], [2, 1, 3], ["a", "b"])
    with pytest.raises(ValueError, match="top"):
        rc.rank_change_chart([1, 2], [2, 1], ["a", "b"], top=0)
    c = rc.rank_change_chart([1, np.nan, 2, -1], [2, 1, 1, 3], list("abcd"))
    assert c.total == 2 and "2 entries without both ranks" in c.caption


# --- rendering --------------------------------------------------------------------------------

def charts(n=120):
    pr, qr, teams = ranked(n)
    named = [f"team {i}" for i in range(n)]            # the untrusted names lead both boards
    named[int(np.argmin(pr))], named[int(np.argmin(qr + n * (pr == 1)))] = SCRIPT, AMP
    flagged = np.zeros(n, bool)
    flagged[:2] = True
    s, _ = scatter(n, flagged=flagged, labelled={0: "private winner", 1: "riser"})
    return {"scatter": s, "rank_changes": rc.rank_change_chart(pr, qr, named, band=noise_band(n),
                                                               top=10)}


def test_team_names_are_escaped():
    for macro, chart in charts().items():
        svg = render(macro, chart)
        assert "<script" not in svg and "<b>" not in svg, macro
        assert "&lt;script&gt;" in svg and "Tom &amp; Jerry &lt;b&gt;" in svg, macro
        text = "".join(parse(svg).itertext())
        assert "Tom & Jerry <b>" in text, macro                    # shown, as text


def test_rendering_is_byte_for_byte_reproducible_and_rounded():
    first = [render(m, c) for m, c in charts().items()]
    second = [render(m, c) for m, c in charts().items()]
    assert first == second
    for svg in first:
        root = parse(svg)
        assert root.find(f"{SVG}script") is None and "href" not in svg     # self-contained
        noisy = [(k, v) for k, v in re.findall(r'([\w-]+)="([^"]*)"', svg)
                 if re.search(r"\d\.\d\d", v)]
        assert noisy == []


def test_five_thousand_entries_render_fast_and_small():
    n = 5000
    flagged = np.random.default_rng(1).random(n) < 0.02
    t0 = time.perf_counter()
    c, _ = scatter(n, flagged=flagged, labelled=[0, 1, 2])
    svg = render("scatter", c)
    elapsed = time.perf_counter() - t0
    assert elapsed < 1.0, elapsed
    assert len(svg.encode()) < 1.5e6
    root = parse(svg)
    circles = [e for e in root.iter(f"{SVG}circle") if e.get("class") == "sk-dot"]
    assert len(circles) - 2 == n                          # plus the key's two sample dots
    assert all(e.find(f"{SVG}title") is not None for e in circles[2:])
