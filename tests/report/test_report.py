"""The HTML and JSON reports, on hand-made analyses (no dependence on the noise simulation)."""
from __future__ import annotations

import json
import math
import re
from html import unescape

import numpy as np
import pandas as pd
import pytest

import leaderboard
from leaderboard.options import NoiseOptions, RankOptions
from leaderboard.pipelines.scores import Analysis, Settings, join_ranking, rank_entries
from leaderboard.slices import SliceSizes
from leaderboard.ingest.leaderboards import Leaderboard
from leaderboard.ingest.records import DroppedRows
from leaderboard.metrics import get_metric
from leaderboard.noise import NoiseModel, ScoreDistribution
from leaderboard.report import json_text, render_html, to_json_dict, write_html, write_json
from leaderboard.report.html import Numbers
from leaderboard.report.tier_table import static_rows
from leaderboard.report.vega.analyze import bin_edges, entry_rows, scores_chart
from leaderboard.report.vega.common import PALETTE
from leaderboard.resources import templates_dir
from chart_helpers import (assert_offline, page_charts, specs, static_root, svg_text, units,
                           validate, without_static)
from leaderboard.tiers.holm import paired_p_values
from leaderboard.tiers import RankReplicates
from leaderboard.tiers.ranking import rank_board

SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(1)>'
N_TEST, PREVALENCE = 2000, 0.3


def _auc_sd(auc, n_pos, n_neg):
    """Hanley and McNeil's standard deviation of an observed AUC."""
    q1, q2 = auc / (2 - auc), 2 * auc ** 2 / (1 + auc)
    var = (auc * (1 - auc) + (n_pos - 1) * (q1 - auc ** 2) + (n_neg - 1) * (q2 - auc ** 2))
    return np.sqrt(var / (n_pos * n_neg))


def _noise_model(leader_score, draws=2000, seed=0, alpha=0.05):
    n_pos = int(N_TEST * PREVALENCE)
    levels = np.linspace(0.5, 0.999, 200)
    sd = _auc_sd(levels, n_pos, N_TEST - n_pos)
    rng = np.random.default_rng(seed)
    lead_sd = float(_auc_sd(leader_score, n_pos, N_TEST - n_pos))
    sims = np.sort(np.clip(rng.normal(leader_score, lead_sd, draws), 0, 1))
    i, j = rng.integers(0, draws, size=(2, 20000))
    diffs = np.sort(np.abs(sims[i] - sims[j]))
    frac = np.arange(1, diffs.size + 1) / diffs.size
    lead = ScoreDistribution(true_score=float(leader_score), draws=sims, sd=float(sims.std()),
                             exact_sd=lead_sd, d95=float(np.quantile(diffs, 0.95)),
                             pair_ecdf=(diffs, frac))
    return NoiseModel(metric="auc", universe="test-normal", method="Hand-made normal grid for tests.",
                      assumptions="Observed AUC is normal around the true AUC with Hanley and "
                                  "McNeil's standard deviation.",
                      n_test=N_TEST, prevalence=PREVALENCE, draws=draws, seed=seed, alpha=alpha,
                      levels=levels, lower=levels - 1.96 * sd, upper=levels + 1.96 * sd, sd=sd,
                      d95=2.772 * sd, leader=lead)


def make_leaderboard(n, *, seed=1, hostile=False, split=False, low=False, spread=0.12):
    rng = np.random.default_rng(seed)
    if low:  # log loss: lower is better
        score = np.round(0.25 + 0.2 * np.sqrt(np.arange(n) / n) + rng.normal(0, 0.004, n), 5)
    else:
        true = 0.93 - spread * np.sqrt(np.arange(n) / max(n, 1))
        score = np.round(np.clip(true + rng.normal(0, 0.006, n), 0.5, 0.999), 5)
    teams = [f"team_{k:04d}" for k in range(n)]
    teams[min(1, n - 1)] = "R&D \u00c9quipe \u00absuper\u00bb"
    if hostile:
        teams[min(2, n - 1)], teams[min(4, n - 1)] = SCRIPT, IMG
    order = rng.permutation(n)
    df = pd.DataFrame({"team": np.array(teams, dtype=object)[order], "score": score[order],
                       "line": order + 2})
    if split:
        df["private_score"] = df["score"]
        df["public_score"] = np.round(df["score"] + rng.normal(0, 0.01, n), 5)
    dropped = (DroppedRows("duplicate submission of a team (best kept)", 57, tuple(range(3, 23))),
               DroppedRows("score is not a number", 2, (17, 41)))
    return Leaderboard(entries=df, source="data/example-comp/leaderboard.csv",
                       format="kaggle-download" if split else "table",
                       score_column="PrivateScore" if split else "Score",
                       split="private" if split else None, rows_read=n + 59, dropped=dropped)


def make_analysis(n=40, method="holm", wide=(), replicates=500, **kw) -> Analysis:
    """What analyze() returns for an AUC leaderboard, with a hand-made noise model; entries at the
    positions ``wide`` get ten times the noise (rank-set tiers then interleave); ``replicates``
    normal draws rank them."""
    lb = make_leaderboard(n, **kw)
    settings = Settings(get_metric("auc"), NoiseOptions(prevalence=PREVALENCE, draws=2000, seed=0),
                        RankOptions(method=method), SliceSizes(N_TEST, None, None))
    table = rank_entries(lb.entries, True)
    scores = table["score"].to_numpy(dtype=float)
    noise = _noise_model(scores[0])
    table["ci_low"], table["ci_high"] = noise.interval(scores)
    table["sd"], table["d95"] = noise.sd_at(scores), noise.d95_at(scores)
    sd = table["sd"].to_numpy().copy()
    sd[list(wide)] *= 10
    reps = RankReplicates.normal(scores, sd, 0.0, True, replicates=replicates)
    ranking = rank_board(reps, method=method, alpha=settings.alpha)  # default: Holm's p vs anchor
    table = join_ranking(table, ranking)
    notes = ("Comparisons assume each entry's score moves independently; tiers are conservative.",)
    return Analysis(leaderboard=lb, settings=settings, table=table, noise=noise,
                    tiers=ranking.tiers, d95=noise.leader.d95, notes=notes, ranking=ranking)


def make_plain_analysis(n=25, **kw) -> Analysis:
    """A log-loss leaderboard: no noise model, so ranking only."""
    lb = make_leaderboard(n, low=True, **kw)
    settings = Settings(get_metric("logloss"), sizes=SliceSizes(N_TEST, None, None))
    table = rank_entries(lb.entries, False)
    for column in ("ci_low", "ci_high", "sd", "d95", "p_vs_anchor"):
        table[column] = np.nan
    table["tier"] = 0
    note = ("Intervals and tiers are not available for log loss yet: the project has no noise "
            "model for it, so entries are ranked but not compared.")
    return Analysis(leaderboard=lb, settings=settings, table=table, noise=None, tiers=None,
                    d95=None, notes=(note,))


@pytest.fixture(scope="module")
def noisy():
    return make_analysis(40, hostile=True, split=True)


@pytest.fixture(scope="module")
def plain():
    return make_plain_analysis(25, hostile=True)


@pytest.fixture(scope="module")
def rendered(noisy, plain):
    """Each module analysis's page, rendered once for the tests that read it (issue 27: a render
    draws every chart's static SVG, half a second); test_html_is_byte_identical_on_rerender
    renders again and compares."""
    return {id(noisy): render_html(noisy), id(plain): render_html(plain)}


@pytest.fixture(scope="module")
def drawn(noisy, plain):
    """The same pages with their top charts drawn as static SVG (``static_charts=True``)."""
    return {id(a): render_html(a, static_charts=True) for a in (noisy, plain)}


def test_static_charts_add_the_drawings_and_change_nothing_else(noisy, plain, rendered, drawn):
    """``static_charts=True``: the top charts drawn as SVG; the only difference from the default
    page is each drawing in place of the note for readers without JavaScript."""
    for analysis in (noisy, plain):
        with_them, without = drawn[id(analysis)], rendered[id(analysis)]
        drawings = 4 if analysis is noisy else 2   # the scores chart and the board's histogram,
        assert with_them.count('class="lb-static"') == drawings   # and the noise's two charts
        assert ' has-static"' in with_them
        assert 'class="lb-static"' not in without and ' has-static"' not in without
        assert without_static(with_them) == without


def _strict_loads(text):
    def reject(token):
        raise ValueError(f"non-standard JSON token {token}")
    return json.loads(text, parse_constant=reject)


# --- JSON ---------------------------------------------------------------------------------------

def test_json_has_required_keys_and_python_types(noisy):
    out = to_json_dict(noisy)
    for key in ("metric", "higher_is_better", "n_test", "prevalence", "alpha", "d95", "entries",
                "metric_label", "draws", "seed", "correlation", "source", "noise", "tier_method",
                "notes", "version"):
        assert key in out, key
    assert out["metric"] == "auc" and out["higher_is_better"] is True and out["n_test"] == N_TEST
    assert out["version"] == leaderboard.__version__
    assert type(out["d95"]) is float and out["d95"] == pytest.approx(noisy.d95)
    assert out["source"]["dropped"][0] == {"reason": "duplicate submission of a team (best kept)",
                                          "count": 57, "lines": list(range(3, 23))}
    assert out["source"]["split"] == "private" and out["source"]["rows_read"] == 99
    assert set(out["noise"]["quantiles"]) == {"2.5", "50", "97.5"}
    assert out["noise"]["quantiles"]["2.5"] < out["noise"]["leader_score"] < out["noise"]["quantiles"]["97.5"]
    entry = out["entries"][0]
    for key in ("team", "score", "rank", "ci_low", "ci_high", "tier", "sd", "d95", "p_vs_anchor",
                "public_score", "private_score"):
        assert key in entry, key
    for e in out["entries"]:
        assert type(e["rank"]) is int and type(e["tier"]) is int and type(e["score"]) is float
        assert type(e["ci_low"]) is float and e["ci_low"] <= e["score"] <= e["ci_high"]


def test_json_entries_in_rank_order_with_tier_one_on_top(noisy):
    entries = to_json_dict(noisy)["entries"]
    assert [e["rank"] for e in entries] == sorted(e["rank"] for e in entries)
    assert [e["team"] for e in entries] == noisy.table["team"].tolist()
    assert entries[0]["tier"] == 1 and entries[0]["is_anchor"] and entries[0]["p_vs_anchor"] is None
    tiers = [e["tier"] for e in entries]
    assert tiers == sorted(tiers) and tiers[-1] > 1
    for prev, e in zip(entries, entries[1:]):  # each tier's first entry is its anchor
        assert e["is_anchor"] == (e["tier"] != prev["tier"])
        assert (e["p_vs_anchor"] is None) == e["is_anchor"]


def test_json_is_strict_and_round_trips(noisy, tmp_path, monkeypatch):
    monkeypatch.setattr("leaderboard.safe_write.CHARS_PER_WRITE", 7)  # many writes
    path = tmp_path / "report.json"
    write_json(noisy, path)
    assert _strict_loads(path.read_text(encoding="utf-8")) == _strict_loads(json.dumps(to_json_dict(noisy)))
    assert path.read_bytes() == json_text(noisy).encode("utf-8")  # streamed in batches, same bytes


def test_json_no_noise_model_gives_nulls(plain, tmp_path):
    path = tmp_path / "plain.json"
    write_json(plain, path)
    text = path.read_text(encoding="utf-8")
    assert "NaN" not in text and "Infinity" not in text
    out = _strict_loads(text)
    assert out["d95"] is None and out["noise"] is None and out["tier_method"] is None
    assert out["prevalence"] is None and out["higher_is_better"] is False
    assert out["notes"] == list(plain.notes)
    for e in out["entries"]:
        assert e["tier"] is None and e["ci_low"] is None and e["ci_high"] is None
        assert e["p_vs_anchor"] is None and type(e["score"]) is float
    assert out["entries"][0]["score"] == min(e["score"] for e in out["entries"])


# --- HTML ---------------------------------------------------------------------------------------

def test_html_is_self_contained(noisy, plain, rendered):
    """Nothing is loaded: no src or href to the network, no <link>; the scripts are the Vega
    libraries (inlined once), the charts' init script and the charts' JSON data."""
    for analysis in (noisy, plain):
        html = rendered[id(analysis)]
        assert html.startswith("<!DOCTYPE html>")
        assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", html, re.I)
        assert "<link" not in html and "@import" not in html
        # the only scripts are inline: the table's data (JSON, not run) and the page script,
        # templates/table.js verbatim, then the charts' specifications (JSON), the Vega
        # libraries and the charts' script (modules); nothing fetched, no src
        tags = re.findall(r"<script[^>]*>", html)
        assert tags[:2] == ['<script type="application/json" id="lb-data">', "<script>"], tags
        assert set(tags[2:]) == {'<script type="application/json" class="lb-spec">',
                                 '<script type="module">'}
        script = html.split("<script>\n", 1)[1].split("</script>", 1)[0]
        assert script == (templates_dir() / "table.js").read_text(encoding="utf-8")
        assert "<style>" in html and ".c0{background:" + PALETTE[0] + "}" in html
        assert_offline(html)
        assert html.count(' type="module"') == 2 and html.count("window.vegaEmbed=") == 1


def test_html_answer_and_d95_sentence(noisy, rendered):
    html = unescape(rendered[id(noisy)])
    k, b = int((noisy.table["tier"] == 1).sum()), int(noisy.table["in_best_set"].sum())
    assert 1 < b < 40   # the headline leads with the confidence set of the best, then tier 1
    assert f"{b} of 40 entries could be the best: " in html
    assert (f"Tier 1 holds {k} entries by leader-anchored one-sided tests with Holm's correction, "
            "another procedure than the best set") in html
    sentence = (f"On this test set (2,000 rows, 30% positives), two equally good models differ by "
                f"more than {noisy.d95:.4f} ({100 * noisy.d95:.2f} percentage points) one time in "
                "twenty (d95).")
    assert sentence in html   # below the first table, the facts (issue 43), before the chart
    assert html.index('<table class="facts">') < html.index(sentence) < html.index('id="chart"')


def test_html_sections_in_order(noisy, rendered):
    html = rendered[id(noisy)]
    # top-down: the answer, what was analysed, the tiers, the noise, the ranks, then the details
    marks = ['id="answer"', "What was analysed", 'id="chart"', "Tier table",
             "What chance alone does", 'id="ranks"', 'id="details"', 'id="method"',
             "How to read this report", "<footer>"]
    positions = [html.index(m) for m in marks]
    assert positions == sorted(positions)
    for text in ("Kaggle leaderboard download", "ROC AUC (higher is better)", "PrivateScore",
                 "private leaderboard", "score is not a number: 2 rows (lines 17, 41)",
                 "57 rows (lines 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, \u2026)", "test-normal",
                 "Leader-anchored one-sided tests with Holm", '<th data-key="public">Public</th>',
                 '<th data-key="private">Private</th>',
                 "Rank interval", "P(top 3)", "Winner&#39;s curse", "Kendall&#39;s tau"):
        assert text in html, text


def test_html_escapes_hostile_team_names(noisy, plain, rendered, drawn):
    for analysis in (noisy, plain):
        html = rendered[id(analysis)]
        page = re.sub(r'<script type="module">.*?</script>', "", html, flags=re.S)  # the JS
        assert SCRIPT not in html and IMG not in html and "<img" not in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
        # the table script's JSON holds every name exactly, escaped so no name ends the element
        assert html.count("</script") == html.count("<script") and "<!--" not in html
        data = json.loads(html.split('id="lb-data">', 1)[1].split("</script>", 1)[0])
        assert SCRIPT in [row[1] for row in data["rows"]] and IMG in [row[1] for row in data["rows"]]
        assert "&#34;&gt;&lt;img src=x onerror=alert(1)&gt;" in html
        assert "R&amp;D \u00c9quipe" in html and "R&D" not in html
        # in the charts: JSON string data (no "<" at all) and escaped text of the static drawing
        charts = page_charts(html)
        scores = charts["chart-scores"]
        drawing = page_charts(drawn[id(analysis)])["chart-scores"]["svg"]
        assert "<script>alert(1)</script>" in svg_text(drawing)
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in drawing and scores["svg"] is None
        assert SCRIPT not in drawn[id(analysis)] and IMG not in drawn[id(analysis)]
        teams = [r["team"] for r in scores["spec"]["datasets"]["entries"]]
        assert SCRIPT in teams and IMG in teams and "R&D \u00c9quipe \u00absuper\u00bb" in teams
        block = html[html.index('id="chart-scores"'):]
        json_text = block[block.index('class="lb-spec">'):block.index("</script>")]
        assert "\\u003cscript\\u003ealert(1)\\u003c/script\\u003e" in json_text
        assert "R\\u0026D" in json_text


def test_html_without_noise_model_shows_note_and_ranking(plain, rendered):
    html = rendered[id(plain)]
    assert "Ranking only: intervals and tiers are not available" in html
    assert "Intervals and tiers are not available for log loss yet" in html
    assert "log loss (lower is better)" in html and "On this test set" not in html
    best = plain.table.iloc[0]
    assert (f"<td>1</td><td class=\"team\">{best['team']}</td><td>{best['score']:.5f}</td>"
            in html)  # as given
    assert "Not available: without a noise model" in html


def test_html_is_byte_identical_on_rerender(noisy, tmp_path, rendered):
    write_html(noisy, tmp_path / "a.html")
    write_html(make_analysis(40, hostile=True, split=True), tmp_path / "b.html")
    assert (tmp_path / "a.html").read_bytes() == (tmp_path / "b.html").read_bytes()
    assert render_html(noisy) == rendered[id(noisy)]          # rendered again, the same text


def test_html_5000_entries_stays_small():
    analysis = make_analysis(5000, replicates=100)   # the page's size and rows: no noise read
    html = render_html(analysis)
    # The charts are fixed-size (the top 50 entries, binned histograms, 240-point curves) plus
    # the Vega libraries (0.9 MB, once); the table prints its first 100 rows as HTML and holds
    # every row as compact JSON for its script (about 120 bytes a row here), which the charts
    # read too (the selected team's row). 400 bytes per entry plus 1.3 MB keeps a 5000-entry
    # page near 3.3 MB, which any browser opens instantly.
    assert len(html.encode()) < 1_300_000 + 400 * 5000
    assert "Showing the top 50 of 5,000 entries" in html
    page = re.sub(r'<script type="module">.*?</script>', "", html, flags=re.S)
    tier_table = page[page.index('<table id="lb-table"'):]
    tier_table = tier_table[:tier_table.index("</table>")]
    assert tier_table.count("<tr") == 101 and "The first 100 of 5,000 entries." in html
    entries = specs(html)["chart-scores"]["datasets"]["entries"]
    assert [e["rank"] for e in entries] == analysis.table["rank"].head(50).tolist()
    data = json.loads(html.split('id="lb-data">', 1)[1].split("</script>", 1)[0])
    assert len(data["rows"]) == 5000 and data["fields"][:3] == ["rank", "team", "score"]
    assert [row[1] for row in data["rows"]] == analysis.table["team"].tolist()


def test_tier_colours_match_between_chart_and_table(noisy, drawn):
    html = drawn[id(noisy)]
    tiers = noisy.table["tier"].to_numpy()
    chart = page_charts(html)["chart-scores"]
    scale = [u["encoding"]["color"]["scale"] for u in units(chart["spec"])
             if "color" in u.get("encoding", {})]
    assert scale and all(sc["range"][:len(PALETTE)] == list(PALETTE) for sc in scale)
    assert f'fill="{PALETTE[0]}"' in chart["svg"] and '<i class="c0"></i>1<' in html
    if tiers.max() >= 2:
        assert f'fill="{PALETTE[1]}"' in chart["svg"] and '<i class="c1"></i>2<' in html


def test_interleaved_rank_set_tiers_read_clearly():
    """Default tiers are layers of "shown better": an entry with wide noise can stay in tier 1
    below a tier-2 entry. The page says so (headline, table mark and caption), the chart's bands
    follow the rows, and anchors are each tier's first entry."""
    a = make_analysis(40, method="rank-sets", wide=(6, 9))
    tier = a.table["tier"].to_numpy()
    moved = np.flatnonzero(tier < np.r_[0, np.maximum.accumulate(tier)[:-1]])
    assert moved.size   # the wide entries sit in a better tier than an entry above them
    np.testing.assert_array_equal(tier == 1, a.table["rank_sim_low"].to_numpy() == 1)
    html = unescape(render_html(a))
    b, k = int(a.table["in_best_set"].sum()), int((tier == 1).sum())
    head = html[html.index('class="headline'):html.index('class="d95"')]
    assert head.index("could be the best: ") < head.index(
        f"tier 1, the entries none is shown to beat, holds {k}.") and b <= k
    assert f"Tier 1 ({k} entries) asks more than the confidence set of the best" in html
    assert html.count('class="moved"') == moved.size and "tiers can interleave" in html
    names = [str(x) for x in a.table["team"].iloc[moved]]
    if len(names) <= 3:
        assert ", ".join(names) in head
    rows = specs(html)["chart-scores"]["datasets"]["entries"]
    runs = 1 + int((np.diff(tier[:len(rows)]) != 0).sum())
    assert sum(r["starts"] for r in rows) == runs   # one label per run of a tier
    chart = scores_chart(entry_rows(a.table), decimals=4, x_title="AUC", interval="95%",
                         leader=0.9).to_dict(validate=True)
    shade = units(chart)[0]   # runs of a tier are shaded by its parity: all its runs alike
    assert {"calculate": "datum.tier % 2", "as": "odd"} in shade["transform"]
    assert shade["encoding"]["opacity"]["condition"]["test"] == "datum.odd == 1"
    first = {int(t): int(np.flatnonzero(tier == t)[0]) for t in np.unique(tier)}
    out = to_json_dict(a)
    assert [i for i, e in enumerate(out["entries"]) if e["is_anchor"]] == sorted(first.values())
    assert out["ranks"]["tiers"]["key"] == "rank-sets" and out["entries"][0]["tier"] == 1


# --- formatting and geometry --------------------------------------------------------------------

def test_numbers_suit_the_metric():
    auc = Numbers(get_metric("auc"), np.array([0.9123, 0.9]), 0.0123)
    assert auc.score(0.912345) == "0.9123" and auc.score(math.nan) == "\u2014"
    kaggle = Numbers(get_metric("auc"), np.array([0.91234, 0.9]), 0.0123)  # shown as given
    assert kaggle.score(0.91234) == "0.91234" and kaggle.d95(0.0123) == "0.0123 (1.23 percentage points)"
    junk = Numbers(get_metric("rmsle"), np.array([0.29755, 0.30069, 0.31, 35.09]), None)
    assert junk.score(0.29755) == "0.29755"  # one junk submission does not cost precision
    assert auc.d95(0.0123) == "0.0123 (1.23 percentage points)"
    rmse = Numbers(get_metric("rmse"), np.array([1234.0, 1300.0]), 12.3)  # ~4 significant figures
    assert rmse.score(1234.6) == "1235" and rmse.d95(12.3) == "12"
    assert Numbers(get_metric("rmse"), np.array([1234.5, 1300.0]), 12.3).score(1234.5) == "1234.5"
    loss = Numbers(get_metric("logloss"), np.array([0.2512, 0.3]), 0.0041)
    assert loss.score(0.25123) == "0.2512" and loss.d95(0.0041) == "0.0041"
    tiny = Numbers(get_metric("accuracy"), np.array([0.99]), 0.00042)
    assert tiny.d95(0.00042) == "0.00042 (0.042 percentage points)"


def test_ticks_are_round_and_inside_the_plot(noisy, rendered, drawn):
    """Vega picks the ticks: round numbers, evenly spaced, inside the scores' range."""
    chart = page_charts(drawn[id(noisy)])["chart-scores"]
    root = static_root(chart["svg"])
    labels = [el.text for g in root.iter() if "role-axis-label" in (g.get("class") or "")
              for el in g.iter() if el.text]
    numbers = [x for x in labels if x.replace(".", "").isdigit()]    # the x axis (not names)
    values = np.array([float(x) for x in numbers])
    steps = np.diff(values)
    assert values.size >= 4 and np.allclose(steps, steps[0])            # evenly spaced
    assert all(len(x.rstrip("0").split(".")[-1]) <= 3 for x in numbers)  # round numbers
    t = noisy.table
    lo, hi = np.nanmin(t["ci_low"].head(50)), np.nanmax(t["ci_high"].head(50))
    assert lo - 0.01 <= values.min() and values.max() <= hi + 0.01
    hist = page_charts(rendered[id(noisy)])["chart-noise-hist"]["spec"]
    y = [u["encoding"]["y"] for u in units(hist) if "y" in u.get("encoding", {})
         and u["encoding"]["y"].get("field") == "share"]
    assert y[0]["axis"]["format"] == "%"                                 # shares as percents


def test_histogram_bins_follow_a_lattice():
    draws = np.random.default_rng(0).binomial(500, 0.8, 3000) / 500  # accuracy on 500 rows
    edges = bin_edges(draws)
    counts, _ = np.histogram(draws, bins=edges)
    assert counts.sum() == draws.size
    per_bin = np.diff(np.floor(edges * 500 + 1e-6))
    assert len(set(per_bin.tolist())) == 1  # every bin holds the same number of lattice points


def test_scores_chart_caps_rows_and_orders_best_first(noisy):
    leader = float(noisy.table["score"].iloc[0])
    spec = scores_chart(entry_rows(noisy.table), decimals=4, x_title="AUC", interval="95%",
                        leader=leader, top=10).to_dict(validate=True)
    rows = spec["datasets"]["entries"]
    assert len(rows) == 10 and [r["rank"] for r in rows] == list(range(1, 11))   # the top 10
    assert [r["team"] for r in rows] == [str(x) for x in noisy.table["team"].head(10)]
    assert spec["datasets"]["leader"] == [{"leader": leader}]     # the dashed line at the leader
    assert all(r["lo"] <= r["score"] <= r["hi"] for r in rows)
    top_filter = {"filter": "datum.rank <= 10 || datum.team === selected_team"}
    assert all(u["transform"][0] == top_filter for u in units(spec) if u["data"] == {
        "name": "entries"})
    y = units(spec)[0]["encoding"]["y"]
    assert y["sort"] == {"field": "rank", "order": "ascending"}        # best at the top
    assert spec["usermeta"] == {"lb_rows": "entries", "lb_top": 10, "lb_fit": True}


def test_every_chart_is_valid_vega_lite_with_a_static_drawing(noisy, plain, rendered):
    # noisy: scores, the noise histogram and ECDF, the board, four rank charts; plain: two
    for analysis, count in ((noisy, 8), (plain, 2)):
        charts = page_charts(rendered[id(analysis)])
        assert len(charts) == count, sorted(charts)
        for chart_id, chart in charts.items():
            validate(chart["spec"])
            assert {"name": "selected_team", "value": ""} in chart["spec"]["params"]
            if chart["svg"] is not None:
                root = static_root(chart["svg"])
                ids = [e.get("id") for e in root.iter() if e.get("id")]
                assert all(i.startswith(chart_id + "-") for i in ids)   # unique on the page


def test_many_tiers_reuse_the_palette_and_say_so():
    analysis = make_analysis(300, spread=0.4)
    assert analysis.table["tier"].max() > len(PALETTE)
    html = render_html(analysis)
    assert f"colours repeat every {len(PALETTE)} tiers" in html and "below the chart" in html
    # the table script colours tier t with class c((t - 1) % palette), as the plain rows do
    data = json.loads(html.split('id="lb-data">', 1)[1].split("</script>", 1)[0])
    assert data["meta"]["palette"] == len(PALETTE)
    assert len(PALETTE) + 1 in {row[data["fields"].index("tier")] for row in data["rows"]}
    rows = static_rows(analysis, str, None)
    assert {r.chip for r in rows if r.tier == str(len(PALETTE) + 1)} == {"c0"}


def scores_only_p_values(scores, sd, correlation, higher_is_better):
    """Closed-form paired p-values for a scores-only board (the production path)."""
    reps = RankReplicates.normal(np.asarray(scores, dtype=float), np.asarray(sd, dtype=float),
                                 correlation, higher_is_better, replicates=32)
    return paired_p_values(reps)
