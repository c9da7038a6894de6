"""Geometry and rendering of the rank-uncertainty charts (leaderboard/report/rank_charts.py)."""
from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from leaderboard.report import rank_charts as rc
from leaderboard.report import rank_maps as rm
from leaderboard.report.charts import PALETTE
from leaderboard.report.render import environment

SCRIPT = "<script>alert(1)</script>"
AMP = "Tom & Jerry <b>"


def render(macro: str, chart) -> str:
    page = '{% import "ranks.html.j2" as ranks %}{{ ranks.' + macro + '(c) }}'
    return environment().from_string(page).render(c=chart)


def parse(svg: str) -> ET.Element:
    """The macro's output must be one well-formed SVG element (nothing unescaped breaks it)."""
    root = ET.fromstring(svg)
    assert root.tag == "svg" and root.find("title") is not None
    return root


def interval_inputs(n=12, seed=0):
    rng = np.random.default_rng(seed)
    ranks = np.arange(1, n + 1)
    low = np.maximum(1, ranks - rng.integers(0, 4, n))
    high = np.minimum(n, ranks + rng.integers(0, 6, n))
    sim_low, sim_high = np.maximum(1, low - 2), np.minimum(n, high + 3)
    tiers = np.repeat(np.arange(1, n + 1), 3)[:n]
    p = rng.dirichlet(np.ones(n))
    teams = [SCRIPT, AMP] + [f"team {i}" for i in range(2, n)]
    return teams, ranks, low, high, sim_low, sim_high, tiers, p


def blob_inputs(top=8, seed=0):
    rng = np.random.default_rng(seed)
    counts = np.stack([rng.multinomial(1000, np.roll(np.r_[0.6, 0.25, 0.1, 0.05, np.zeros(top - 4)]
                                                      if top >= 4 else np.ones(top) / top, i))
                       for i in range(top)])
    teams = [SCRIPT, AMP] + [f"team {i}" for i in range(2, top)]
    return teams[:top], counts, np.arange(1, top + 1)


CRITICAL = 3.0


def sig_inputs(k=6, seed=0):
    """Teams, verdicts and studentised gaps (the verdict: t above CRITICAL)."""
    rng = np.random.default_rng(seed)
    t = np.full((k, k), np.nan)
    iu = np.triu_indices(k, 1)
    t[iu] = rng.uniform(0, 6, iu[0].size)
    sig = np.zeros((k, k), bool)
    sig[iu] = t[iu] > CRITICAL
    if k > 3:
        t[0, 3], sig[0, 3] = np.nan, False     # one untested pair
    teams = [SCRIPT, AMP] + [f"team {i}" for i in range(2, k)]
    return teams[:k], sig, t


# --- rank intervals ---------------------------------------------------------------------------

def test_interval_rows_sit_inside_the_plot_with_rank_one_at_the_left():
    c = rc.rank_interval_chart(*interval_inputs())
    assert c.ticks[0].label == "1" and c.ticks[0].pos == min(t.pos for t in c.ticks)
    assert [t.pos for t in c.ticks] == sorted(t.pos for t in c.ticks)
    for row in c.rows:
        assert c.left <= row.bar_x and row.bar_x + row.bar_w <= c.right + 0.2
        assert row.bar_x - 0.2 <= row.x <= row.bar_x + row.bar_w + 0.2   # observed rank in bar
        assert c.left <= row.sim_x1 <= row.bar_x + 0.1 and row.sim_x2 >= row.bar_x + row.bar_w - 0.1
        assert c.top < row.y < c.bottom
    assert [r.y for r in c.rows] == sorted(r.y for r in c.rows)
    # one rank more is further right, by the same amount everywhere on a linear axis
    xs = {int(r.rank): r.x for r in c.rows}
    steps = np.diff([xs[k] for k in sorted(xs)])
    assert np.all(steps > 0) and np.ptp(steps) <= 0.2 + 1e-9
    assert c.rows[0].colour == PALETTE[0] and c.rows[3].colour == PALETTE[1]


def test_interval_tooltip_and_p_best_wording():
    teams, ranks, *_ = interval_inputs(3)
    c = rc.rank_interval_chart(["A", "B", "C"], [1, 2, 3], [1, 1, 2], [7, 3, 3], [1, 1, 1],
                               [12, 3, 3], [1, 1, 2], [0.14, 0.86, 0.0])
    assert c.rows[0].tooltip == "#1 A: rank 1 to 7 (simultaneous 1 to 12), P(best) 14%"
    assert [r.p_text for r in c.rows] == ["14%", "86%", "<0.1%"]
    assert [r.p_muted for r in c.rows] == [False, False, True]
    no_sim = rc.rank_interval_chart(["A"], [1], [1], [1], None, None, [0], [1.0])
    assert no_sim.rows[0].tooltip == "#1 A: rank 1 to 1, P(best) >99.9%"
    assert no_sim.rows[0].sim_x1 is None and no_sim.rows[0].bar_w >= 6   # still visible
    assert [k.label for k in no_sim.key if "simultaneous" in k.label] == []
    assert not any("\u2014" in r.p_text for r in c.rows)


@pytest.mark.parametrize("p, text", [(0.0, "<0.1%"), (0.00099, "<0.1%"), (0.001, "0.1%"),
                                     (0.0949, "9.5%"), (0.5, "50%"), (0.9049, "90.5%"),
                                     (0.9991, ">99.9%"), (1.0, ">99.9%")])
def test_share_text(p, text):
    assert rc.share_text(p) == text


def test_interval_axis_reaches_thousands_with_readable_ticks():
    n = 5000
    ranks = np.arange(1, n + 1)
    low, high = np.maximum(1, ranks // 3), np.minimum(n, ranks * 40 + 10)
    args = ([f"t{i}" for i in range(n)], ranks, low, high, None, None, np.ones(n, int),
            np.full(n, 1 / n))
    c = rc.rank_interval_chart(*args, max_rows=60)
    assert c.shown == 60 and c.total == n and len(c.rows) == 60
    assert "log scale" in c.x_label                    # auto: the shown intervals reach rank 2,410
    labels = [t.label for t in c.ticks]
    assert labels[:3] == ["1", "2", "5"] and "1,000" in labels and len(labels) <= 12
    for row in c.rows:
        assert c.left <= row.bar_x and row.bar_x + row.bar_w <= c.right + 0.2
    linear = rc.rank_interval_chart(*args, max_rows=60, log_scale=False)
    gaps = np.diff([t.pos for t in linear.ticks])
    assert linear.ticks[0].label == "1" and "log" not in linear.x_label
    assert all(t.label.replace(",", "").isdigit() for t in linear.ticks) and gaps.min() > 30


def test_interval_input_checks():
    teams, ranks, low, high, sl, sh, tiers, p = interval_inputs(4)
    with pytest.raises(ValueError, match="both sim_low and sim_high"):
        rc.rank_interval_chart(teams, ranks, low, high, sl, None, tiers, p)
    with pytest.raises(ValueError, match="low <= high"):
        rc.rank_interval_chart(teams, ranks, high + 1, high, None, None, tiers, p)
    with pytest.raises(ValueError, match="probability"):
        rc.rank_interval_chart(teams, ranks, low, high, None, None, tiers, np.full(4, np.nan))
    with pytest.raises(ValueError, match="one value per entry"):
        rc.rank_interval_chart(teams, ranks, low[:3], high, None, None, tiers, p)


# --- tau histogram ----------------------------------------------------------------------------

def test_tau_histogram_bars_and_median():
    rng = np.random.default_rng(1)
    taus = np.clip(rng.normal(0.9, 0.03, 2000), -1, 1)
    h = rc.tau_histogram(taus)
    f = h.frame
    heights = np.array([b.h for b in h.bars])
    assert heights.max() <= f.bottom - f.top and all(f.left <= b.x <= f.right for b in h.bars)
    assert h.median.label == f"median tau {np.median(taus):.2f}"
    xs = rc.Scale(float(f.x_ticks[0].label), float(f.x_ticks[-1].label), f.x_ticks[0].pos,
                  f.x_ticks[-1].pos)
    assert abs(h.median.x - xs(np.median(taus))) < 0.3
    assert all(float(t.label) <= 1 for t in f.x_ticks)
    assert h.note is None


@pytest.mark.parametrize("taus", [np.ones(500), np.full(3, 0.2), np.array([np.nan, np.nan]),
                                  np.array([])])
def test_tau_histogram_degenerate(taus):
    h = rc.tau_histogram(taus)
    svg = render("tau_histogram", h)
    parse(svg)
    if taus.size and np.isfinite(taus).any():
        assert len(h.bars) == 1 and h.note.startswith("every replicate")
        assert all(float(t.label) <= 1 for t in h.frame.x_ticks)
    else:
        assert h.bars == [] and h.median is None and "not defined" in svg


# --- blob plot --------------------------------------------------------------------------------

def test_blob_areas_are_proportional_to_shares():
    teams, counts, ranks = blob_inputs(8)
    b = rm.blob_plot(teams, counts, ranks)
    share = counts / counts.sum(axis=1, keepdims=True)
    r_max = 0.46 * b.cell
    n_blobs = 0
    for i, col in enumerate(b.columns):
        for blob in col.blobs:
            r = round((blob.cy - b.top) / b.cell + 0.5)      # rank from the y coordinate
            s = share[i, r - 1]
            assert abs(math.pi * blob.r ** 2 - math.pi * r_max ** 2 * s) <= 2 * math.pi * r_max * 0.06
            assert blob.cx == col.x
            n_blobs += 1
    assert n_blobs == np.count_nonzero(share)          # every visible share has its circle
    ys = [b.columns[0].blobs[0].cy]
    assert ys[0] == min(bl.cy for col in b.columns for bl in col.blobs)   # rank 1 at the top
    assert all(b.left < c.x < b.right for c in b.columns)


def test_blob_range_matches_brute_force_quantiles():
    teams, counts, ranks = blob_inputs(10, seed=3)
    b = rm.blob_plot(teams, counts, ranks, level=0.95)
    for i, col in enumerate(b.columns):
        sample = np.repeat(np.arange(1, 11), counts[i])        # every replicate's rank
        lo, hi = np.percentile(sample, [2.5, 97.5], method="inverted_cdf")
        y = lambda r: round(b.top + b.cell * (r - 0.5), 1)     # noqa: E731
        assert (col.line_y1, col.line_y2) == (y(lo), y(hi))
        assert col.obs_y == y(ranks[i])
    assert "middle 95% of replicates rank it" in b.columns[0].tooltip


@pytest.mark.parametrize("top", [1, 2, 5, 30])
def test_blob_sizes(top):
    teams, counts, ranks = blob_inputs(top)
    b = rm.blob_plot(teams, counts, ranks, tiers=np.arange(1, top + 1))
    assert b.width <= 1120 and b.bottom < b.height
    assert len(b.y_labels) == top
    parse(render("blob_plot", b))


def test_blob_input_checks():
    with pytest.raises(ValueError, match="top"):
        rm.blob_plot(["a", "b"], np.ones((2, 4)), [1, 2])
    with pytest.raises(ValueError, match="positive sum"):
        rm.blob_plot(["a", "b"], np.array([[1, 0], [0, 0]]), [1, 2])


# --- significance map -------------------------------------------------------------------------

def test_significant_cells_only_above_the_diagonal():
    teams, sig, t = sig_inputs(7)
    c = rm.significance_chart(teams, sig, t, critical=CRITICAL)
    def index(cell):
        return round((cell.y - c.top) / c.cell), round((cell.x - c.left) / c.cell)
    kinds = {index(cell): cell.kind for cell in c.cells}
    assert all(i < j for (i, j), kind in kinds.items() if kind == "better")
    assert {(i, j) for (i, j), k in kinds.items() if k == "better"} == set(zip(*np.nonzero(sig)))
    assert {(j, i) for (i, j), k in kinds.items() if k == "worse"} == set(zip(*np.nonzero(sig)))
    assert kinds[(0, 3)] == kinds[(3, 0)] == "untested"
    assert all(i != j for i, j in kinds)                                  # blank diagonal
    fills = {cell.kind: cell.fill for cell in c.cells}
    assert fills["better"] == PALETTE[0] and len(set(fills.values())) == len(fills)
    i, j = map(int, np.argwhere(sig)[0])
    assert f"{teams[j]}: t = " in next(x.tooltip for x in c.cells if index(x) == (i, j))
    upper = rm.significance_chart(teams, sig, t, critical=CRITICAL, mirror=False)
    assert all(index(x)[0] < index(x)[1] for x in upper.cells)


def test_significance_tooltip_wording():
    t = np.array([[np.nan, 4.213, 1.2], [np.nan, np.nan, np.inf], [np.nan] * 3])
    sig = np.array([[False, True, False], [False, False, True], [False] * 3])
    c = rm.significance_chart(["A", "B", "C"], sig, t, critical=3.456)
    tips = sorted({x.tooltip for x in c.cells})
    assert tips == ["A vs B: t = 4.21 > 3.46, A shown better (all pairs at once)",
                    "A vs C: t = 1.20, not shown apart at 3.46 (all pairs at once)",
                    "B vs C: t = \u221e > 3.46, B shown better (all pairs at once)"]
    assert "all pairs at once" in c.title or "all pairs" in c.title


def test_significance_input_checks():
    with pytest.raises(ValueError, match="only for i < j"):
        rm.significance_chart(["a", "b"], [[False, False], [True, False]], np.zeros((2, 2)),
                              critical=2.0)
    with pytest.raises(ValueError, match="tested statistic"):
        rm.significance_chart(["a", "b"], [[False, True], [False, False]], np.full((2, 2), np.nan),
                              critical=2.0)


# --- rendering --------------------------------------------------------------------------------

def all_charts(n=12):
    return {"rank_intervals": rc.rank_interval_chart(*interval_inputs(n)),
            "tau_histogram": rc.tau_histogram(np.linspace(0.7, 1.0, 50)),
            "blob_plot": rm.blob_plot(*blob_inputs(min(n, 8))),
            "significance_map": rm.significance_chart(*sig_inputs(min(n, 6)), critical=CRITICAL)}


def test_team_names_are_escaped_in_every_chart():
    for macro, chart in all_charts().items():
        svg = render(macro, chart)
        assert "<script" not in svg and "<b>" not in svg, macro
        root = parse(svg)
        text = "".join(root.itertext())
        if macro != "tau_histogram":
            assert SCRIPT[:20] in text and "Tom & Jerry" in text, macro     # shown, as text
            assert "&lt;script&gt;" in svg and "Tom &amp; Jerry &lt;b&gt;" in svg, macro


def test_single_entry_edge_cases_render():
    one = {"rank_intervals": rc.rank_interval_chart(["solo"], [1], [1], [1], [1], [1], [1], [1.0]),
           "tau_histogram": rc.tau_histogram(np.array([np.nan])),
           "blob_plot": rm.blob_plot(["solo"], np.array([[5]]), [1]),
           "significance_map": rm.significance_chart(["solo"], np.zeros((1, 1), bool),
                                                    np.full((1, 1), np.nan), critical=2.0)}
    for macro, chart in one.items():
        parse(render(macro, chart))
    assert one["significance_map"].cells == []
    assert [t.label for t in one["rank_intervals"].ticks] == ["1"]


def test_rendering_is_byte_for_byte_reproducible():
    first = [render(m, c) for m, c in all_charts(40).items()]
    second = [render(m, c) for m, c in all_charts(40).items()]
    assert first == second
    for svg in first:   # coordinates are rounded to 0.1 px: no float noise in the output
        noisy = [(k, v) for k, v in re.findall(r'([\w-]+)="([^"]*)"', svg)
                 if re.search(r"\d\.\d\d", v)]
        assert noisy == []
