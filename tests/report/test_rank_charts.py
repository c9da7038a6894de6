"""The rank-uncertainty charts (leaderboard/report/vega/ranks.py): the data each chart carries,
what its marks encode, and that every specification is valid Vega-Lite and renders."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from leaderboard.report.vega import ranks as rk
from leaderboard.report.vega.common import LOG_LABELS, PALETTE, share_text
from leaderboard.report.vega.embed import block, static_drawings, static_svg
from chart_helpers import mark_type, static_root, svg_text, units

SCRIPT = "<script>alert(1)</script>"
AMP = "Tom & Jerry <b>"


def interval_rows(n=12, seed=0):
    rng = np.random.default_rng(seed)
    ranks = np.arange(1, n + 1)
    low = np.maximum(1, ranks - rng.integers(0, 4, n))
    high = np.minimum(n, ranks + rng.integers(0, 6, n))
    p = rng.dirichlet(np.ones(n))
    return pd.DataFrame({"rank": ranks, "team": [SCRIPT, AMP] + [f"team {i}" for i in range(2, n)],
                         "score": np.linspace(1, 0, n), "tier": np.repeat(np.arange(1, n + 1), 3)[:n],
                         "rlo": low, "rhi": high, "slo": np.maximum(1, low - 2),
                         "shi": np.minimum(n, high + 3), "pbest": p,
                         "ptext": [share_text(x) for x in p]})


def blob_inputs(top=8, seed=0):
    rng = np.random.default_rng(seed)
    counts = np.stack([rng.multinomial(1000, np.roll(np.r_[0.6, 0.25, 0.1, 0.05, np.zeros(top - 4)]
                                                      if top >= 4 else np.ones(top) / top, i))
                       for i in range(top)])
    teams = [SCRIPT, AMP] + [f"team {i}" for i in range(2, top)]
    return teams[:top], counts, np.arange(1, top + 1), np.arange(1, top + 1)


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


def by_mark(spec: dict, kind: str) -> list[dict]:
    return [u for u in units(spec) if mark_type(u) == kind]


def tone_of(tier: int) -> str:
    """The colour the charts' tone expression and scale give a tier (mirrors analyze.tone)."""
    return PALETTE[(tier - 1) % len(PALETTE)]


# --- rank intervals ---------------------------------------------------------------------------

def test_interval_marks_encode_the_rank_sets_and_the_observed_rank():
    rows = interval_rows()
    spec = rk.rank_interval_chart(rows, level="95%").to_dict(validate=True)
    data = spec["datasets"]["entries"]
    assert [d["rank"] for d in data] == list(range(1, 13))          # best at the top, in order
    bar, = by_mark(spec, "bar")
    assert (bar["encoding"]["x"]["field"], bar["encoding"]["x2"]["field"]) == ("rlo", "rhi")
    sim = [u for u in by_mark(spec, "rule") if u["encoding"]["x"]["field"] == "slo"]
    assert sim and sim[0]["encoding"]["x2"]["field"] == "shi"        # the simultaneous line
    dot, = by_mark(spec, "point")
    assert dot["encoding"]["x"]["field"] == "rank"
    for d in data:   # the observed rank sits in its interval, the marginal set inside the other
        assert d["slo"] <= d["rlo"] <= d["rank"] <= d["rhi"] <= d["shi"]
    # tiers colour the marks: the tone expression and its scale give tier k palette colour k
    colour = bar["encoding"]["color"]["scale"]
    assert colour["range"][:len(PALETTE)] == list(PALETTE)
    assert {"calculate": f"datum.tier > 0 ? (datum.tier - 1) % {len(PALETTE)} : {len(PALETTE)}",
            "as": "tone"} in bar["transform"]
    assert [tone_of(d["tier"]) for d in data][:4] == [PALETTE[0]] * 3 + [PALETTE[1]]
    assert bar["encoding"]["y"]["sort"] == {"field": "rank", "order": "ascending"}


def test_interval_tooltip_and_p_best_wording():
    p = [0.14, 0.86, 0.0]
    rows = pd.DataFrame({"rank": [1, 2, 3], "team": ["A", "B", "C"], "score": [3, 2, 1],
                         "tier": [1, 1, 2], "rlo": [1, 1, 2], "rhi": [7, 3, 3], "slo": [1, 1, 1],
                         "shi": [12, 3, 3], "pbest": p, "ptext": [share_text(x) for x in p]})
    spec = rk.rank_interval_chart(rows, level="95%").to_dict(validate=True)
    assert [d["ptext"] for d in spec["datasets"]["entries"]] == ["14%", "86%", "<0.1%"]
    text, = [u for u in by_mark(spec, "text") if u["encoding"]["text"]["field"] == "ptext"]
    assert text["encoding"]["opacity"]["condition"]["test"] == "datum.pbest < 0.001"  # muted
    bar, = by_mark(spec, "bar")
    tips = [(t["field"], t["title"]) for t in bar["encoding"]["tooltip"]]
    assert tips[:4] == [("rank", "observed rank"), ("team", "entry"),   # "entry" on every page
                        ("rlo", "95% rank interval from"), ("rhi", "to")]
    assert ("ptext", "P(best)") in tips and ("slo", "all at once from") in tips
    assert spec["datasets"]["head"] == [{"text": "P(best)"}]
    assert "<0.1%" in svg_text(static_svg(spec, "t"))


@pytest.mark.parametrize("p, text", [(0.0, "<0.1%"), (0.00099, "<0.1%"), (0.001, "0.1%"),
                                     (0.0949, "9.5%"), (0.5, "50%"), (0.9049, "90.5%"),
                                     (0.9991, ">99.9%"), (1.0, ">99.9%")])
def test_share_text(p, text):
    assert share_text(p) == text


def test_interval_axis_reaches_thousands_with_readable_ticks():
    n = 5000
    ranks = np.arange(1, n + 1)
    low, high = np.maximum(1, ranks // 3), np.minimum(n, ranks * 40 + 10)
    rows = pd.DataFrame({"rank": ranks, "team": [f"t{i}" for i in range(n)], "score": -ranks,
                         "tier": np.ones(n, int), "rlo": low, "rhi": high, "slo": low,
                         "shi": high, "pbest": np.full(n, 1 / n), "ptext": "<0.1%"})
    spec = rk.rank_interval_chart(rows, level="95%", top=60).to_dict(validate=True)
    assert len(spec["datasets"]["entries"]) == 60                    # the top of the board
    rule = [u for u in by_mark(spec, "rule") if u["encoding"]["x"]["field"] == "slo"][0]
    x = rule["encoding"]["x"]
    assert x["scale"]["type"] == "log" and "log scale" in x["title"]  # reaches rank 2,410
    assert x["axis"]["labelExpr"] == LOG_LABELS
    root = static_root(static_svg(spec, "t"))
    labels = [el.text for g in root.iter() if "role-axis-label" in (g.get("class") or "")
              for el in g.iter() if el.text]
    shown = [x for x in labels if x and ". " not in x]             # the rank axis, not names
    assert {"1", "2", "1,000"} <= set(shown) and len(shown) <= 12
    assert all(x.replace(",", "").lstrip("125").strip("0") == "" for x in shown)
    linear = rk.rank_interval_chart(rows, level="95%", top=60, log=False).to_dict()
    rule = [u for u in by_mark(linear, "rule") if u["encoding"]["x"]["field"] == "slo"][0]
    assert "type" not in rule["encoding"]["x"]["scale"] and "log" not in rule["encoding"]["x"]["title"]
    assert rk.log_ranks(np.array([5, 2410]), 60) and not rk.log_ranks(np.array([5, 250]), 60)


def test_interval_input_checks():
    rows = interval_rows(4)
    with pytest.raises(ValueError, match="columns"):
        rk.rank_interval_chart(rows.drop(columns=["shi"]), level="95%")
    bad = rows.assign(rlo=rows["rhi"] + 1)
    with pytest.raises(ValueError, match="low <= high"):
        rk.rank_interval_chart(bad, level="95%")
    with pytest.raises(ValueError, match="probability"):
        rk.rank_interval_chart(rows.assign(pbest=np.nan), level="95%")


# --- tau histogram ----------------------------------------------------------------------------

def test_tau_histogram_bars_and_median():
    rng = np.random.default_rng(1)
    taus = np.clip(rng.normal(0.9, 0.03, 2000), -1, 1)
    spec = rk.tau_chart(taus).to_dict(validate=True)
    bins = spec["datasets"]["bins"]
    assert sum(b["count"] for b in bins) == taus.size
    assert abs(sum(b["share"] for b in bins) - 1) < 1e-4
    assert all(b["x0"] < b["x1"] for b in bins) and bins[-1]["x1"] <= 1 + 1e-9
    median, = spec["datasets"]["marks"]
    assert median["text"] == f"median tau {np.median(taus):.2f}"
    assert abs(median["x"] - np.median(taus)) < 1e-6 and spec["datasets"]["note"] == []


@pytest.mark.parametrize("taus", [np.ones(500), np.full(3, 0.2), np.array([np.nan, np.nan]),
                                  np.array([])])
def test_tau_histogram_degenerate(taus):
    spec = rk.tau_chart(taus).to_dict(validate=True)
    text = svg_text(static_svg(spec, "t"))                       # renders
    if taus.size and np.isfinite(taus).any():
        assert len(spec["datasets"]["bins"]) == 1
        assert spec["datasets"]["note"][0]["text"].startswith("every replicate")
        assert "every replicate" in text
    else:
        assert spec["datasets"]["bins"] == [] and spec["datasets"]["marks"] == []
        assert "not defined" in text


# --- how often each entry took each rank ------------------------------------------------------

def test_blob_areas_are_proportional_to_shares():
    teams, counts, ranks, tiers = blob_inputs(8)
    spec = rk.frequency_chart(teams, counts, ranks, tiers).to_dict(validate=True)
    share = counts / counts.sum(axis=1, keepdims=True)
    cells = spec["datasets"]["cells"]
    assert len(cells) == np.count_nonzero(share)          # every visible share has its circle
    for c in cells:
        assert abs(c["share"] - share[c["col"] - 1, c["rank"] - 1]) < 1e-4
        assert c["team"] == teams[c["col"] - 1]
    circle, = by_mark(spec, "circle")
    size = circle["encoding"]["size"]
    # a linear size scale from 0: a circle's AREA is proportional to the share
    assert size["field"] == "share" and size["scale"]["domain"] == [0, 1]
    assert size["scale"]["range"][0] == 0 and "type" not in size["scale"]
    y = circle["encoding"]["y"]
    assert y["scale"]["domain"] == list(range(1, 10))              # rank 1 first ... and >8
    assert ">8" in y["axis"]["labelExpr"]


def test_ranks_beyond_the_top_get_their_own_row():
    counts = np.array([[6, 2, 2], [2, 5, 3]])       # the last column: ranks beyond the top 2
    spec = rk.frequency_chart(["a", "b"], counts, [1, 2], [1, 1]).to_dict()
    beyond = [c for c in spec["datasets"]["cells"] if c["rank"] == 3]
    assert [(c["team"], c["share"]) for c in beyond] == [("a", 0.2), ("b", 0.3)]
    assert ">2" in svg_text(static_svg(spec, "t"))


def test_blob_range_matches_brute_force_quantiles():
    teams, counts, ranks, tiers = blob_inputs(10, seed=3)
    spec = rk.frequency_chart(teams, counts, ranks, tiers, level=0.95).to_dict()
    for i, col in enumerate(spec["datasets"]["columns"]):
        sample = np.repeat(np.arange(1, 11), counts[i])        # every replicate's rank
        lo, hi = np.percentile(sample, [2.5, 97.5], method="inverted_cdf")
        assert (col["lo"], col["hi"]) == (lo, hi) and col["obs"] == ranks[i]
    rule, = by_mark(spec, "rule")
    assert [t["title"] for t in rule["encoding"]["tooltip"]][2] == "middle 95% of ranks from"


@pytest.mark.parametrize("top", [1, 2, 5, 20])
def test_blob_sizes(top):
    teams, counts, ranks, tiers = blob_inputs(top)
    spec = rk.frequency_chart(teams, counts, ranks, tiers).to_dict(validate=True)
    assert spec["width"] <= 1000 and spec["height"] == spec["width"] // top * (top + 1)
    static_root(static_svg(spec, "t"))


def test_blob_input_checks():
    with pytest.raises(ValueError, match="top"):
        rk.frequency_chart(["a", "b"], np.ones((2, 4)), [1, 2], [1, 1])
    with pytest.raises(ValueError, match="positive sum"):
        rk.frequency_chart(["a", "b"], np.array([[1, 0], [0, 0]]), [1, 2], [1, 1])


# --- significance map -------------------------------------------------------------------------

def test_significant_cells_only_above_the_diagonal():
    teams, sig, t = sig_inputs(7)
    spec = rk.significance_chart(teams, sig, t, critical=CRITICAL).to_dict(validate=True)
    kinds = {(c["i"] - 1, c["j"] - 1): c["kind"] for c in spec["datasets"]["cells"]}
    assert all(i < j for (i, j), kind in kinds.items() if kind == "better")
    assert {(i, j) for (i, j), k in kinds.items() if k == "better"} == set(zip(*np.nonzero(sig)))
    assert {(j, i) for (i, j), k in kinds.items() if k == "worse"} == set(zip(*np.nonzero(sig)))
    assert kinds[(0, 3)] == kinds[(3, 0)] == "untested"
    assert all(i != j for i, j in kinds)                                  # blank diagonal
    colour = units(spec)[0]["encoding"]["color"]["scale"]
    fills = dict(zip(colour["domain"], colour["range"]))
    assert fills["better"] == PALETTE[0] and len(set(fills.values())) == len(fills)
    i, j = map(int, np.argwhere(sig)[0])
    tip = next(c["tip"] for c in spec["datasets"]["cells"] if (c["i"] - 1, c["j"] - 1) == (i, j))
    assert f"{teams[j]}: t = " in tip
    upper = rk.significance_chart(teams, sig, t, critical=CRITICAL, mirror=False).to_dict()
    assert all(c["i"] < c["j"] for c in upper["datasets"]["cells"])


def test_significance_tooltip_wording():
    t = np.array([[np.nan, 4.213, 1.2], [np.nan, np.nan, np.inf], [np.nan] * 3])
    sig = np.array([[False, True, False], [False, False, True], [False] * 3])
    spec = rk.significance_chart(["A", "B", "C"], sig, t, critical=3.456).to_dict()
    tips = sorted({c["tip"] for c in spec["datasets"]["cells"]})
    assert tips == ["A vs B: t = 4.21 > 3.46, A shown better (all pairs at once)",
                    "A vs C: t = 1.20, not shown apart at 3.46 (all pairs at once)",
                    "B vs C: t = \u221e > 3.46, B shown better (all pairs at once)"]
    assert "row shown better than column (all pairs at once)" in svg_text(static_svg(spec, "t"))


def test_significance_input_checks():
    with pytest.raises(ValueError, match="only for i < j"):
        rk.significance_chart(["a", "b"], [[False, False], [True, False]], np.zeros((2, 2)),
                              critical=2.0)
    with pytest.raises(ValueError, match="tested statistic"):
        rk.significance_chart(["a", "b"], [[False, True], [False, False]], np.full((2, 2), np.nan),
                              critical=2.0)


# --- on the page ------------------------------------------------------------------------------

def all_charts(n=12):
    teams, counts, ranks, tiers = blob_inputs(min(n, 8))
    return {"rank_intervals": rk.rank_interval_chart(interval_rows(n), level="95%"),
            "tau_histogram": rk.tau_chart(np.linspace(0.7, 1.0, 50)),
            "blob_plot": rk.frequency_chart(teams, counts, ranks, tiers),
            "significance_map": rk.significance_chart(*sig_inputs(min(n, 6)), critical=CRITICAL)}


def test_team_names_are_data_escaped_in_every_chart():
    for name, chart in all_charts().items():
        with static_drawings():
            b = block(chart, f"chart-{name}", name)
        assert "<" not in str(b.spec) and "&" not in str(b.spec), name   # \u003c, \u0026
        text = svg_text(b.svg)
        if name != "tau_histogram":
            assert SCRIPT[:20] in text and "Tom & Jerry" in text, name     # shown, as text
            assert "&lt;script&gt;" in str(b.svg) and "Tom &amp; Jerry &lt;b&gt;" in str(b.svg)
            assert SCRIPT in str(b.data["datasets"]), name


def test_single_entry_edge_cases_render():
    one = {"rank_intervals": rk.rank_interval_chart(pd.DataFrame(
               {"rank": [1], "team": ["solo"], "score": [1.0], "tier": [1], "rlo": [1],
                "rhi": [1], "slo": [1], "shi": [1], "pbest": [1.0], "ptext": [">99.9%"]}),
               level="95%"),
           "tau_histogram": rk.tau_chart(np.array([np.nan])),
           "blob_plot": rk.frequency_chart(["solo"], np.array([[5]]), [1], [1]),
           "significance_map": rk.significance_chart(["solo"], np.zeros((1, 1), bool),
                                                     np.full((1, 1), np.nan), critical=2.0)}
    for name, chart in one.items():
        static_root(static_svg(chart.to_dict(validate=True), name))
    assert one["significance_map"].datasets["cells"] == []


def test_output_is_byte_for_byte_reproducible():
    from leaderboard.report.vega import renderer

    with static_drawings():
        first = [block(c, f"c{i}", "t") for i, c in enumerate(all_charts(40).values())]
        renderer.forget_drawings()   # drawn anew, not taken from the process's cache
        second = [block(c, f"c{i}", "t") for i, c in enumerate(all_charts(40).values())]
    assert [(b.spec, b.svg) for b in first] == [(b.spec, b.svg) for b in second]
