"""The shake-up charts (leaderboard/report/vega/shakeup.py and shakeup_ranks.py): the data each
chart carries, what its marks encode, its caption, and that it renders."""
from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.stats import rankdata

from leaderboard.report.vega import placing
from leaderboard.report.vega import shakeup as sc
from leaderboard.report.vega import shakeup_ranks as sr
from leaderboard.report.vega.embed import block, static_drawings, static_svg
from chart_helpers import mark_type, static_root, svg_text, units

SCRIPT = "<script>alert(1)</script>"
AMP = "Tom & Jerry <b>"


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


def scatter(n=300, seed=0, higher=True, band=True, **kw):
    pub, pri, teams, bx, lo, hi = board(n, seed, higher)
    args = dict(band=(bx, lo, hi) if band else None, flagged=None, labelled={},
                higher_is_better=higher, fmt="{:.4f}".format, decimals=4)
    args.update(kw)
    spec, caption = sc.scatter_chart(pub, pri, teams, **args)
    return spec.to_dict(validate=True), caption, (pub, pri, bx, lo, hi)


def by_mark(spec, kind):
    return [u for u in units(spec) if mark_type(u) == kind]


def entries_layer(spec):
    return next(u for u in by_mark(spec, "point") if u["data"] == {"name": "entries"}
                and "color" in u["encoding"])


# --- scatter ----------------------------------------------------------------------------------

def test_scatter_dots_are_the_entries_scores():
    spec, caption, (pub, pri, *_) = scatter()
    rows = spec["datasets"]["entries"]
    assert len(rows) == pub.size and "far behind" not in caption
    names = [SCRIPT, AMP] + [f"team {i}" for i in range(2, pub.size)]
    for i in (0, 1, 7, 150, 299):            # nothing flagged or missing: in input order
        assert rows[i]["team"] == names[i]
        assert rows[i]["pub"] == pytest.approx(pub[i]) and rows[i]["pri"] == pytest.approx(pri[i])
        assert rows[i]["shape"] == "circle"
    dots = entries_layer(spec)["encoding"]
    assert (dots["x"]["field"], dots["y"]["field"]) == ("pub", "pri")
    assert [t["field"] for t in dots["tooltip"]] == ["team", "pub", "pri"]
    for axis in ("x", "y"):   # the axes ascend; off-range entries are clamped to the edge
        assert "reverse" not in dots[axis]["scale"] and dots[axis]["scale"]["clamp"] is True
        lo, hi = dots[axis]["scale"]["domain"]
        values = pub if axis == "x" else pri
        assert lo < values.min() and values.max() < hi


def test_flagged_dots_are_coloured_and_drawn_last():
    n = 300
    flagged = np.zeros(n, bool)
    flagged[[3, 50, 51]] = True
    spec, *_ = scatter(n, flagged=flagged)
    rows = spec["datasets"]["entries"]
    assert [r["flag"] for r in rows][-3:] == [1, 1, 1] and sum(r["flag"] for r in rows) == 3
    colour = entries_layer(spec)["encoding"]["color"]["scale"]
    assert colour["range"] == [sc.DOT, sc.FLAG]
    assert colour["domain"][1] == "public beats private by more than noise (3)"


def test_outliers_are_clipped_to_the_edge_and_do_not_squash_the_rest():
    pub, pri, teams, bx, lo, hi = board(200, seed=4)
    pub, pri = pub.copy(), pri.copy()
    pub[:3], pri[:3] = 0.5, [0.5, 0.86, 0.87]              # three broken submissions
    pri[3] = 0.2                                            # one scored 0.2 privately only
    args = dict(band=(bx, lo, hi), flagged=None, labelled={}, higher_is_better=True,
                fmt="{:.4f}".format, decimals=4)
    spec, caption = sc.scatter_chart(pub, pri, teams, **args)
    assert "4 entries lie far behind the rest (below public" in caption
    rows = spec.to_dict()["datasets"]["entries"]
    shapes = [r["shape"] for r in rows]
    assert shapes[:4] == ["triangle-left"] * 3 + ["triangle-down"]   # the edge they are off
    assert set(shapes[4:]) == {"circle"}
    x0, x1 = entries_layer(spec.to_dict())["encoding"]["x"]["scale"]["domain"]
    core = pub[4:]
    # the other entries span most of the width, as they would without the outliers
    assert (core.max() - core.min()) / (x1 - x0) > 0.85
    _, clean = sc.scatter_chart(pub[4:], pri[4:], teams[4:], **args)
    assert "far behind" not in clean


@pytest.mark.parametrize("higher", [True, False])
def test_only_the_worse_side_is_cut(higher):
    pub, pri, teams, *_ = board(200, seed=6, higher=higher)
    s = 1 if higher else -1
    pub, pri = pub.copy(), pri.copy()
    pub[0], pri[0] = pub.mean() + s * 0.4, pri.mean() + s * 0.4      # far ahead on both boards
    pub[1], pri[1] = pub.mean() - s * 0.4, pri.mean() - s * 0.4      # a broken submission
    spec, caption = sc.scatter_chart(pub, pri, teams, band=None, flagged=None, labelled={},
                                     higher_is_better=higher, fmt="{:.3f}".format, decimals=3)
    rows = {r["team"]: r for r in spec.to_dict()["datasets"]["entries"]}
    assert rows[SCRIPT]["shape"] == "circle"                          # ahead: never cut
    assert rows[AMP]["shape"] == ("triangle-left" if higher else "triangle-right")
    x0, x1 = entries_layer(spec.to_dict())["encoding"]["x"]["scale"]["domain"]
    assert (x0 < pub[0] < x1) and "1 entry lies far behind" in caption


def test_missing_scores_are_left_out_and_counted():
    pub, pri, teams, *_ = board(50)
    pub[4], pri[9] = np.nan, np.nan
    spec, caption = sc.scatter_chart(pub, pri, teams, band=None, flagged=None,
                                     labelled={4: "x", 10: ""}, higher_is_better=True,
                                     fmt="{:.3f}".format, decimals=3)
    d = spec.to_dict(validate=True)
    assert len(d["datasets"]["entries"]) == 48
    assert "2 entries without both scores are left out" in caption
    assert "band" not in d["datasets"] and not by_mark(d, "area")      # no band, no key for it
    assert [r["note"] for r in d["datasets"]["entries"] if r["note"]] == ["team 10"]


def test_band_is_the_noise_range_drawn_inside_the_plot():
    spec, caption, (pub, pri, bx, lo, hi) = scatter()
    band = spec["datasets"]["band"]
    assert [b["x"] for b in band] == pytest.approx(list(bx))            # ascending public scores
    assert all(b["lo"] <= b["mid"] <= b["hi"] for b in band)
    assert [b["mid"] for b in band] == pytest.approx(list((lo + hi) / 2))
    area, = by_mark(spec, "area")
    assert (area["encoding"]["y"]["field"], area["encoding"]["y2"]["field"]) == ("lo", "hi")
    assert area["mark"]["clip"] is True       # a band reaching past the axes is cut at them
    assert "shaded band is where 95% of private scores" in caption
    root = static_root(static_svg(spec, "t"))
    clipped = [g for g in root.iter() if "role-mark" in (g.get("class") or "")
               and "area" in (g.get("class") or "")]
    assert clipped and clipped[0].get("clip-path")


@pytest.mark.parametrize("higher", [True, False])
def test_orientation_follows_the_metric(higher):
    spec, caption, _ = scatter(80, higher=higher)
    enc = entries_layer(spec)["encoding"]
    arrow = "better \u2192" if higher else "\u2190 better"
    assert enc["x"]["title"] == f"public score ({arrow})" and enc["y"]["title"].endswith(
        f"({arrow})")
    if higher:
        assert "top right" in caption and "below the band" in caption
    else:
        assert "bottom left" in caption and "above the band" in caption


def test_labels_are_short_ringed_and_kept_apart():
    pub = np.r_[np.linspace(0.8, 0.9, 20), 0.85, 0.85, 0.85, 0.9]
    pri = np.r_[np.linspace(0.8, 0.9, 20), 0.85, 0.85, 0.85, 0.9]
    teams = [f"t{i}" for i in range(20)] + ["x" * 40, "b", "c", "edge"]
    spec, _ = sc.scatter_chart(pub, pri, teams, band=None, flagged=None,
                               labelled={20: "private winner", 21: "", 22: "", 23: ""},
                               higher_is_better=True, fmt="{:.3f}".format, decimals=3)
    rows = {r["team"]: r for r in spec.to_dict()["datasets"]["entries"]}
    assert rows["x" * 40]["note"] == "x" * 21 + "\u2026 \u00b7 private winner"   # cut, and says so
    # three labels on one point: on either side or moved up or down, none over another, at the
    # desktop's and at a phone's width, as the chart's flip rule draws them (report/vega/placing)
    scales = [u["encoding"] for u in spec.to_dict()["layer"] if "domain" in
              u.get("encoding", {}).get("x", {}).get("scale", {})][0]
    (x0, x1), (y0, y1) = (scales[c]["scale"]["domain"] for c in ("x", "y"))
    for width in placing.WIDTHS:
        boxes = []
        for t in ("x" * 40, "b", "c", "edge"):
            r, length = rows[t], placing.CHAR * len(rows[t]["note"])
            at = (r["pub"] - x0) / (x1 - x0) * width
            y = sc.HEIGHT * (1 - (r["pri"] - y0) / (y1 - y0)) + r["dy"]
            boxes.append(placing._box(at, y, length,
                                      placing._side(at, length, width, bool(r["right"]))))
        assert not any(placing._overlaps(a, b) for i, a in enumerate(boxes)
                       for b in boxes[i + 1:]), (width, boxes)
    assert rows["t0"]["note"] == "" and rows["t0"]["dy"] == 0.0
    text = [u for u in by_mark(spec.to_dict(), "text")][0]
    assert any("datum.note != ''" in t.get("filter", "") for t in text["transform"])  # named
    assert text["mark"]["dy"] == {"expr": "datum.dy"}


def test_sorted_spread_is_the_least_squares_placement():
    rng = np.random.default_rng(2)
    for _ in range(6):
        want = np.sort(rng.uniform(0, 60, 6))
        got = np.array(sc.sorted_spread(list(want), 14.0))
        assert np.all(np.diff(got) >= 14 - 1e-9)
        cons = [{"type": "ineq", "fun": lambda y, k=k: y[k + 1] - y[k] - 14} for k in range(5)]
        ref = minimize(lambda y: ((y - want) ** 2).sum(), want, constraints=cons,
                       method="SLSQP", options={"ftol": 1e-12}).x
        assert np.allclose(got, ref, atol=1e-4)
    assert sc.sorted_spread([10.0, 10.0], 14.0) == [3.0, 17.0]
    assert sc.sorted_spread([10.0, 10.0], 14.0, lo=5.0) == [5.0, 19.0]
    assert sc.sorted_spread([1.0, 50.0], 14.0) == [1.0, 50.0]          # no conflict: untouched
    assert sc.sorted_spread([90.0, 95.0], 14.0) == [85.5, 99.5]
    assert sc.sorted_spread([90.0, 95.0], 14.0, hi=98.0) == [84.0, 98.0]


def test_scatter_input_checks():
    pub, pri, teams, bx, lo, hi = board(10)
    base = dict(flagged=None, labelled={}, higher_is_better=True, fmt=str, decimals=3)
    with pytest.raises(ValueError, match="one value per entry"):
        sc.scatter_chart(pub, pri[:9], teams, band=(bx, lo, hi), **base)
    with pytest.raises(ValueError, match="ascend"):
        sc.scatter_chart(pub, pri, teams, band=(bx[::-1], lo, hi), **base)
    with pytest.raises(ValueError, match="labelled"):
        sc.scatter_chart(pub, pri, teams, band=None, **{**base, "labelled": {10: ""}})
    with pytest.raises(ValueError, match="flagged"):
        sc.scatter_chart(pub, pri, teams, band=None, **{**base, "flagged": np.array([True])})
    with pytest.raises(ValueError, match="both a public and a private"):
        sc.scatter_chart(np.full(10, np.nan), pri, teams, band=None, **base)


def test_large_boards_are_binned_with_the_leaders_as_dots():
    n = 5000
    flagged = np.random.default_rng(1).random(n) < 0.02
    spec, caption, (pub, pri, *_) = scatter(n, flagged=flagged, labelled={0: "private winner"})
    rows = spec["datasets"]["entries"]
    lead = set(np.argsort(-pub)[:50]) | set(np.argsort(-pri)[:50])
    assert len(rows) == len(lead | set(np.flatnonzero(flagged)) | {0})
    assert sum(b["count"] for b in spec["datasets"]["bins"]) == n      # every entry counted
    assert "5,000 entries are counted in grey cells" in caption
    assert len(json.dumps(spec)) < 400_000


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
    spec, facts = sr.rank_change_chart(pr, qr, teams, top=15)
    ends = spec.to_dict(validate=True)["datasets"]["ends"]
    union = {i for i in range(300) if pr[i] <= 15 or qr[i] <= 15}
    assert facts["shown"] == len(union) == len(ends) // 2 and facts["total"] == 300
    assert {e["team"] for e in ends} == {teams[i] for i in union}
    ys = {}
    for e in ends:
        i = teams.index(e["team"])
        rank = pr[i] if e["side"] == "public" else qr[i]
        d = pr[i] - qr[i]
        assert e["change"] == ("rose" if d > 0 else "fell" if d < 0 else "same")
        ys.setdefault(rank, e["y"])
        assert ys[rank] == e["y"]          # rank r sits at the same height on both axes
    rows = [ys[r] for r in sorted(ys) if r <= 15]
    assert np.ptp(np.diff(rows)) <= 0.2 and np.diff(rows).min() > 0   # one row per rank
    tail = [ys[r] for r in sorted(ys) if r > 15]
    assert np.all(np.diff(tail) > 0) and min(tail) > max(rows) + 10     # after the gap
    assert facts["broken"] and len(spec.datasets["axes"]) == 4          # two pieces per axis
    line, = by_mark(spec.to_dict(), "line")
    assert line["encoding"]["detail"]["field"] == "team"
    assert line["encoding"]["color"]["scale"]["range"] == [sc.ROSE, sc.FELL, sc.SAME]


def test_end_labels_follow_each_board_and_never_overlap():
    pr, qr, teams = ranked(300, seed=3)
    qr[qr == 2] = 1                                          # a tie for first on the private board
    spec, _ = sr.rank_change_chart(pr, qr, teams, top=10)
    labels = spec.to_dict()["datasets"]["labels"]
    sel = [i for i in range(300) if pr[i] <= 10 or qr[i] <= 10]
    for side, ranks in (("public", pr), ("private", qr)):
        mine = [lb for lb in labels if lb["side"] == side]
        assert np.all(np.diff([lb["y"] for lb in mine]) >= sc.LABEL_GAP - 0.1)
        shown = [int(lb["text"].split()[-1 if side == "public" else 0].replace(",", ""))
                 for lb in mine]
        assert shown == sorted(ranks[i] for i in sel)
    right = [lb["text"] for lb in labels if lb["side"] == "private"]
    assert right[0].startswith("1  ") and right[1].startswith("1  ")


def test_small_boards_get_a_plain_axis():
    spec, facts = sr.rank_change_chart([1, 2, 3, 4], [2, 1, 4, 3], ["a", "b", "c", "d"], top=20)
    assert not facts["broken"] and facts["shown"] == 4
    assert len(spec.datasets["axes"]) == 2


def test_noise_panel_matches_a_direct_classification():
    n, top = 120, 12
    pr, qr, teams = ranked(n, seed=5)
    band = noise_band(n)
    spec = sr.noise_panel_chart(pr, qr, teams, band, top=top).to_dict(validate=True)
    places = spec["datasets"]["places"]
    assert len(places) == top
    order = np.lexsort((np.arange(n), pr))
    for k, p in enumerate(places):
        i = order[k]
        lo, mid, hi = band[:, k]
        assert p["kind"] == ("rose" if qr[i] < lo else "fell" if qr[i] > hi else "within")
        assert (p["team"], p["obs"], p["place"]) == (teams[i], qr[i], k + 1)
        assert p["lo"] <= p["mid"] <= p["hi"]
    y = [u for u in units(spec) if mark_type(u) == "bar"][0]["encoding"]["y"]
    assert y["scale"]["type"] == "log" and y["scale"]["reverse"] is True   # rank 1 at the top


def test_rank_input_checks():
    with pytest.raises(ValueError, match="shape"):
        sr.noise_panel_chart([1, 2], [2, 1], ["a", "b"], np.ones((2, 2)))
    with pytest.raises(ValueError, match="low <= median <= high"):
        sr.noise_panel_chart([1, 2], [2, 1], ["a", "b"], np.array([[2, 1], [1, 1], [1, 1]]))
    with pytest.raises(ValueError, match="whole numbers"):
        sr.rank_change_chart([1, 2.5], [2, 1], ["a", "b"])
    with pytest.raises(ValueError, match="one value per entry"):
        sr.rank_change_chart([1, 2], [2, 1, 3], ["a", "b"])
    with pytest.raises(ValueError, match="top"):
        sr.rank_change_chart([1, 2], [2, 1], ["a", "b"], top=0)
    _, facts = sr.rank_change_chart([1, np.nan, 2, -1], [2, 1, 1, 3], list("abcd"))
    assert facts["total"] == 2 and facts["missing"] == 2


# --- on the page ------------------------------------------------------------------------------

def charts(n=120):
    pr, qr, teams = ranked(n)
    named = [f"team {i}" for i in range(n)]            # the untrusted names lead both boards
    named[int(np.argmin(pr))], named[int(np.argmin(qr + n * (pr == 1)))] = SCRIPT, AMP
    flagged = np.zeros(n, bool)
    flagged[:2] = True
    pub, pri, teams2, bx, lo, hi = board(n)
    scatter_spec, _ = sc.scatter_chart(pub, pri, teams2, band=(bx, lo, hi), flagged=flagged,
                                       labelled={0: "private winner", 1: "riser"},
                                       higher_is_better=True, fmt=str, decimals=4)
    return {"scatter": scatter_spec, "rank_changes": sr.rank_change_chart(pr, qr, named, top=10)[0],
            "noise": sr.noise_panel_chart(pr, qr, named, noise_band(n), top=10)}


def test_team_names_are_data_escaped():
    for name, chart in charts().items():
        with static_drawings():
            b = block(chart, f"chart-{name}", name)
        assert "<" not in str(b.spec) and "&" not in str(b.spec), name
        assert SCRIPT in json.dumps(b.data["datasets"], ensure_ascii=False), name
        if name != "noise":
            assert "Tom & Jerry <b>" in svg_text(b.svg), name            # shown, as text
            assert "&lt;script&gt;" in str(b.svg) and "<script" not in str(b.svg)


def test_output_is_byte_for_byte_reproducible():
    with static_drawings():
        first = [block(c, f"c{i}", "t") for i, c in enumerate(charts().values())]
        second = [block(c, f"c{i}", "t") for i, c in enumerate(charts().values())]
    assert [(b.spec, b.svg) for b in first] == [(b.spec, b.svg) for b in second]
