"""The page's first screen (issues 28 and 43): the answer box in at most 75 words, the spread of N
equal entries next to d95 below it, and the command line's small things (did you mean, option words, every file written,
Markdown capped, --exclude-flagged, plan --quiet, simulate's one default)."""
from __future__ import annotations

from functools import cache

import json
import math
import re

import numpy as np
import pandas as pd
import pytest

import leaderboard
from leaderboard.cli import main
from leaderboard.errors import InputError
from leaderboard.metrics import get_metric
from leaderboard.noise.spread import normal_range_quantile, spread_of_equals
from leaderboard.report.headline import ANSWER_WORDS, name_list, spreads, words
from leaderboard.report import render_summary
from leaderboard.report.html import build_context
from page_words import check_answers   # noqa: E402 (tests/ is on the path under pytest)


# --- the spread of N equals -----------------------------------------------------------------

@pytest.mark.parametrize("n", [3, 10, 40, 400])
def test_range_quantile_matches_a_simulation(n):
    """The exact range quantile against 40,000 simulated normal samples: the quantile's Monte Carlo
    SE is sqrt(q (1 - q) / R) / f(r95), about 0.2-0.4% of r here (density from the same draws);
    allow four SEs."""
    rng = np.random.default_rng(7)
    reps = 40_000
    x = rng.standard_normal((reps, n))
    ranges = x.max(axis=1) - x.min(axis=1)
    r95 = np.quantile(ranges, 0.95)
    h = 0.05
    density = np.mean(np.abs(ranges - r95) < h) / (2 * h)
    se = math.sqrt(0.95 * 0.05 / reps) / density
    assert normal_range_quantile(n) == pytest.approx(r95, abs=4 * se)


def test_two_entries_spread_d95_and_correlation_shrinks_by_sqrt_one_minus_rho():
    assert spread_of_equals(0.04, 2) == pytest.approx(0.04)
    assert normal_range_quantile(2) == pytest.approx(1.959964 * math.sqrt(2), rel=1e-5)
    for rho in (0.3, 0.6):
        assert spread_of_equals(0.04, 50, rho) == pytest.approx(
            spread_of_equals(0.04, 50) * math.sqrt(1 - rho))
    assert spread_of_equals(0.04, 1000) > spread_of_equals(0.04, 100) > spread_of_equals(0.04, 3)


def test_names_with_commas_are_quoted():
    text = name_list(["Data, Drinks & Dreams", "B", "C", "D", "E"])
    assert text == "\u201cData, Drinks & Dreams\u201d, \u201cB\u201d, \u201cC\u201d and 2 more"
    assert name_list(["A", "B", "C"]) == "A, B and C"


# --- the headline -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def board():
    rng = np.random.default_rng(3)
    teams = [f"team {i}" for i in range(30)]
    teams[1] = "Data, Drinks & Dreams"
    return pd.DataFrame({"team": teams, "score": np.sort(rng.uniform(0.78, 0.86, 30))[::-1]})


@pytest.fixture(scope="module")
def result(board):
    return leaderboard.analyze(board, metric="auc", n_test=2000, prevalence=0.2, draws=300,
                               replicates=300)



def test_the_answer_box_says_the_best_set_the_spread_and_the_leader_in_75_words(result):
    """issue 43: the box holds who could be the best, how far chance spreads this many equals
    (at the correlation the tiers use) and the leader with tier 1, in at most 75 words; the
    spread with d95 for one pair and what it assumes follow the box."""
    a = result.analysis
    context = build_context(a)
    told = context["answer"]
    assert len(told) == 3 and context["caveats"] == [] and words(told) <= ANSWER_WORDS
    best = int(a.table["in_best_set"].sum())
    assert told[0].startswith(f"{best:,} of 30 entries could be the best") or best in (1, 30)
    s = spreads(a)
    assert s["n"] == 30 and s["kind"] == "typical"   # no pairs: the independent spread is used
    assert f"{s['independent']:.4f}" in told[1]
    assert told[2].startswith(f"The leader, {a.table['team'].iloc[0]}, scored")
    assert f"holds {int((a.table['tier'] == 1).sum())}." in told[2]
    # below the box: the spread with d95 for one pair, then independence assumed, with a number
    spread, assumption = context["said"][:2]
    assert f"{s['independent']:.4f}" in spread and f"{a.d95:.4f}" in spread
    assert "own test set" in assumption and f"{s['correlated']:.4f}" in assumption
    assert s["correlated"] == pytest.approx(s["independent"] * math.sqrt(0.5))
    # jargon is below the box or in "How to read"
    assert not re.search(r"universe|simultaneous|d95|correlation", " ".join(told))
    assert any(f.label == "Tier 1 and the best set" for f in context["how"])
    assert any(f.label == "Spread of equals" for f in context["how"])
    # the notebook's summary opens with the same box
    assert check_answers(render_summary(a), "notebook") == [" ".join(told)]


def test_the_json_carries_the_spread_the_page_states(result):
    """issue 25 item 1: the spread of N equals is in the JSON as on the page (the schema test
    validates its shape), and null where the page has none."""
    import json

    a = result.analysis
    data = json.loads(result.to_json())["spread_of_equals"]
    s = spreads(a)
    assert data["entries"] == s["n"] == 30 and data["correlation_source"] == s["kind"]
    assert data["independent"] == pytest.approx(spread_of_equals(a.d95, 30))
    assert data["at_correlation"] == pytest.approx(
        data["independent"] * math.sqrt(1 - data["correlation"]))
    assert f"{data['independent']:.4f}" in build_context(a)["said"][0]
    bare = leaderboard.analyze(pd.DataFrame({"team": ["a", "b"], "score": [0.9, 0.8]}),
                               metric="auc")                  # no --n-test: no d95, no spread
    assert json.loads(bare.to_json())["spread_of_equals"] is None


def test_reach_sentence_reconciles_d95_with_tier_one(result):
    a = result.analysis
    reach = build_context(a)["reach"]
    tier1 = a.table[a.table["tier"] == 1]["score"]
    gap = float(np.max(np.abs(tier1 - a.table["score"].iloc[0])))
    assert f"{gap:.4f}" in reach and f"{spreads(a)['independent']:.4f}" in reach


def test_measured_correlation_changes_the_third_sentence(board):
    paired = board.assign(public_score=board["score"] + 0.001, private_score=board["score"])
    paired = paired.drop(columns="score")
    a = leaderboard.analyze(paired, metric="auc", n_public=600, n_private=1400, prevalence=0.2,
                            correlation=0.4, draws=100, replicates=100).analysis
    context = build_context(a)
    spread, third = context["said"][:2]
    assert "correlation of 0.4" in third and "as stated" in third
    # the box's spread, at the stated correlation, in the box's words; independent ones after
    box = (f"On this test set, chance alone can spread 30 equally good entries "
           f"{spread_of_equals(a.d95, 30, 0.4):.4f} apart")
    assert spread.startswith(box) and all(box in x for x in context["answer"][1:2]
                                          if x.startswith("On this"))
    assert f"independent entries would spread up to {spread_of_equals(a.d95, 30):.4f}" in third


# --- small things on the command line -----------------------------------------------------------

def test_unknown_metric_suggests_the_close_one():
    with pytest.raises(InputError, match=r"did you mean logloss\?"):
        get_metric("loglos")
    with pytest.raises(InputError, match="known metrics"):
        get_metric("zzzz")


def test_missing_score_column_names_the_option(tmp_path, capsys):
    path = tmp_path / "b.csv"
    pd.DataFrame({"team": ["a", "b"], "points": [1, 2]}).to_csv(path, index=False)
    assert main(["analyze", str(path), "--metric", "auc", "--quiet"]) == 2
    err = capsys.readouterr().err.split("b.csv:", 1)[1]   # the path holds the test's name
    assert "--score-col" in err and "score_col" not in err


def test_a_tsv_is_not_blamed_on_commas(tmp_path, capsys):
    path = tmp_path / "b.csv"
    path.write_text("team\tscore\na\t0.8\nSmith, Jones\t0.7\n", encoding="utf-8")
    assert main(["analyze", str(path), "--metric", "auc", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "tab" in err and "quote any field that contains a comma" not in err


def test_last_line_names_every_file_written(tmp_path, capsys, board, result):
    path = tmp_path / "b.csv"
    board.to_csv(path, index=False)
    out = {ext: str(tmp_path / f"r.{ext}") for ext in ("html", "json", "csv", "md")}
    assert main(["analyze", str(path), "--metric", "auc", "--n-test", "2000", "--prevalence",
                 "0.2", "--draws", "200", "--replicates", "200", "-o", out["html"], "--json",
                 out["json"], "--csv", out["csv"], "--markdown", out["md"]]) == 0
    printed = capsys.readouterr().out
    last = printed.strip().splitlines()[-1]
    assert last.startswith("wrote ") and all(p in last for p in out.values())
    # names with a comma stay one name in the terminal's list
    assert "\u201cData, Drinks & Dreams\u201d" in printed
    header = pd.read_csv(out["csv"]).columns.tolist()
    api = result.table.columns   # the same board and options through the API (300 draws)
    assert set(header) - {"in_best_set"} <= set(api)   # CSV names are the API's
    assert {"rank_ci_low", "rank_sim_high"} <= set(header)


def test_markdown_of_a_big_board_is_capped(monkeypatch):
    """A sberbank-sized board's Markdown holds the top 50 rows. The tier table is what it
    prints: the scores-only correlation sweep (in the JSON and the page, not the Markdown) takes
    the analysis's 200 normal draws here instead of its own 1,000 (issue 27: most of the time)."""
    from functools import partial

    from leaderboard.pipelines import assumptions, scores

    monkeypatch.setattr(scores, "correlation_sweep",
                        partial(assumptions.correlation_sweep, replicates=200))
    rng = np.random.default_rng(0)
    n = 3265
    big = pd.DataFrame({"team": [f"team number {i}" for i in range(n)],
                        "score": np.sort(rng.normal(0.31, 0.01, n))})
    result = leaderboard.analyze(big, metric="rmsle", n_test=7662, draws=200, replicates=200)
    text = result.to_markdown()
    assert len(text) < 65_000
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    assert len(rows) == 50 + 1
    assert f"{n - 50:,} more entries not shown" in text and "to_csv()" in text


@pytest.fixture(scope="module")
def flagged(tmp_path_factory):
    """A board with six perfect scores, analysed by the command line with --exclude-flagged
    perfect, once for the two tests that read it: (board, csv path, JSON path, page path)."""
    tmp_path = tmp_path_factory.mktemp("flagged")
    scores = [1.0] * 6 + list(np.linspace(0.80, 0.70, 20))
    board = pd.DataFrame({"team": [f"t{i}" for i in range(26)], "score": scores})
    path = tmp_path / "b.csv"
    board.to_csv(path, index=False)
    js = tmp_path / "r.json"
    assert main(["analyze", str(path), "--metric", "f1", "--n-test", "3000", "--prevalence",
                 "0.4", "--draws", "200", "--replicates", "200", "--exclude-flagged", "perfect",
                 "-o", str(tmp_path / "r.html"), "--json", str(js), "--quiet"]) == 0
    return board, path, js, tmp_path / "r.html"


def test_exclude_flagged_sets_perfect_scores_aside_and_says_how_many(flagged, capsys):
    _, path, js, page = flagged
    result = json.loads(js.read_text())
    assert len(result["entries"]) == 20 and result["entries"][0]["score"] == pytest.approx(0.8)
    html = page.read_text(encoding="utf-8")
    assert "set aside (--exclude-flagged perfect)" in html and "6 rows" in html
    assert main(["analyze", str(path), "--metric", "f1", "--exclude-flagged", "leaks"]) == 2
    assert "give perfect, junk or shared" in capsys.readouterr().err


def test_plan_quiet_without_output_still_answers(capsys):
    assert main(["plan", "--metric", "accuracy", "--score", "0.8", "--delta", "0.02",
                 "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "rows" in out and "shared test set" in out and "Independent entries" in out


def test_simulate_uses_one_universe_with_and_without_grid(tmp_path, capsys):
    assert main(["simulate", "--metric", "auc", "--score", "0.8", "--n-test", "1000",
                 "--prevalence", "0.01", "--draws", "500", "-o", str(tmp_path / "a.html")]) == 0
    one = capsys.readouterr().out
    assert main(["simulate", "--grid", "--score", "0.8", "--n-test", "1000", "--prevalence",
                 "0.01", "--draws", "500", "-o", str(tmp_path / "b.html")]) == 0
    grid = capsys.readouterr().out
    assert "universe binormal" in one and "universe binormal" in grid
    # same universe, seed and draws: the same case gives the same d95
    d95 = [re.search(r"d95 ([0-9.]+)", text)[1] for text in (one, grid)]
    assert d95[0] == d95[1]


@pytest.mark.parametrize("gap", [0.0, 0.035, 0.1])
def test_compare_markdown_shows_the_interval_its_verdict_tests(tmp_path, gap):
    """Text and interval agree: the only interval is the one-sided bound the gate tests, so
    "Shown better" always stands next to an interval that excludes zero, and never otherwise."""
    rng = np.random.default_rng(5)
    items = 1500
    rows = [pd.DataFrame({"model": name, "item": range(items),
                          "value": (rng.random(items) < p).astype(int)})
            for name, p in (("base", 0.6), ("cand", 0.6 + gap))]
    pd.concat(rows).to_csv(tmp_path / "r.csv", index=False)
    md = tmp_path / "c.md"
    code = main(["compare", "--items", str(tmp_path / "r.csv"), "--baseline", "base",
                 "--candidate", "cand", "--quiet", "--markdown", str(md)])
    text = md.read_text(encoding="utf-8")
    assert "two-sided" not in text
    bound = float(re.search(r"one-sided 95% interval \(what the gate tests\) \| ([-+0-9.e]+) "
                            r"and above", text)[1])
    assert (bound > 0) == text.startswith("✅ **Shown better**") == (code == 0)


def test_choose_says_top_two_when_the_gain_is_within_noise_and_names_the_order():
    import dataclasses

    from leaderboard.ingest.leaderboards import leaderboard_from_frame
    from leaderboard.options import NoiseOptions, RankOptions, SliceOptions
    from leaderboard.pipelines.choose import ChooseSettings, choose, table_candidates
    from leaderboard.report.choose_report import answer, ladder_sentence

    metric = get_metric("accuracy")
    settings = ChooseSettings(metric, NoiseOptions(higher_is_better=True, draws=2000),
                              RankOptions(replicates=200), SliceOptions(n_public=500, n_private=1500))
    board = leaderboard_from_frame(pd.DataFrame({"name": ["s1", "s2", "s3", "s4"],
                                                 "score": [0.80, 0.81, 0.79, 0.812]}),
                                   higher_is_better=True, team_col="name", score_col="score")
    r = choose(table_candidates(board, settings), settings)
    c = r.choice
    others = tuple(i for i in range(4) if i not in c.top_two_public)[:1] + c.top_two_public[:1]
    # a pair other than the top two, ahead by less than two Monte Carlo SEs
    within = dataclasses.replace(c, recommended=others, gain_over_top_two=0.00015,
                                 gain_se=0.0001)
    head, _ = answer(dataclasses.replace(r, choice=within))
    top = [r.candidates.names[i] for i in c.top_two_public]
    assert head.startswith(f"Select the top two, {top[0]} and {top[1]}: they are as good as any "
                           "pair")
    beyond = dataclasses.replace(c, recommended=others, gain_over_top_two=0.01, gain_se=0.0001)
    head, _ = answer(dataclasses.replace(r, choice=beyond))
    assert head.startswith("Select ") and "top two" not in head
    if r.ladder.climb > 0:
        assert "the order of the table's rows (s1, s2, s3, \u2026)" in ladder_sentence(r)


def test_the_api_sets_flagged_entries_aside_as_the_command_line_does(flagged):
    """leaderboard.analyze(exclude_flagged=...) gives the command line's numbers; an unknown
    flag name is an InputError naming the parameter."""
    import leaderboard
    from leaderboard.errors import InputError

    board, _, js, _ = flagged                      # the command line's run (the fixture)
    result = leaderboard.analyze(board, metric="f1", n_test=3000, prevalence=0.4, draws=200,
                                 replicates=200, exclude_flagged=["perfect"])
    api, cli = result.to_dict(), json.loads(js.read_text())
    assert len(api["entries"]) == 20
    assert [e["score"] for e in api["entries"]] == [e["score"] for e in cli["entries"]]
    assert [e["ci_low"] for e in api["entries"]] == [e["ci_low"] for e in cli["entries"]]
    with pytest.raises(InputError, match="exclude_flagged="):
        leaderboard.analyze(board, metric="f1", n_test=3000, prevalence=0.4,
                            exclude_flagged="leaks")


@cache
def _perfect_leader_result():
    """12 models x 10 binary items, the leader 10 of 10."""
    rng = np.random.default_rng(7)
    x = (rng.random((12, 10)) < np.linspace(0.9, 0.3, 12)[:, None]).astype(int)
    x[0] = 1
    data = pd.DataFrame({"model": np.repeat([f"m{j}" for j in range(12)], 10),
                         "item": np.tile(np.arange(10), 12), "value": x.ravel()})
    return leaderboard.analyze_items(data, replicates=200)


def test_a_perfect_leader_gets_no_zero_width_interval():
    """A score no resample moves had the interval [1, 1] (h-verify39): a certainty 10 items do
    not give. It is missing in the table and the JSON, the notes say why, the answer box says
    the leader has no interval instead of "— to —"; the other entries keep theirs."""
    result = _perfect_leader_result()
    table = result.analysis.table
    assert table["ci_low"].isna().tolist() == [True] + [False] * 11
    assert (table["ci_high"] - table["ci_low"]).iloc[1:].gt(0).all()
    entry = json.loads(result.to_json())["entries"][0]
    assert entry["ci_low"] is None and entry["ci_high"] is None
    assert any(n.startswith("No interval for m0: every resampled score equals")
               for n in result.analysis.notes)
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", result.to_html()))
    assert "scored 1.0000 (no interval: the notes below say why)" in text
    tier_one, best = int((table["tier"] == 1).sum()), int(table["in_best_set"].sum())
    assert tier_one != best   # the sentence beside them counts both, as they are
    assert f"Tier 1 holds {tier_one} entries, the best set {best}:" in text
    assert "— to —" not in text


def test_a_perfect_leader_on_few_items_gets_no_spread_of_zero():
    """Issue 39 (h-verify39): 90 x 10 binary items whose leader scored 10 of 10 gave d95 0 (its
    bootstrap never moves) and the page said chance spreads 90 equals "0.0000 apart" and two
    equals differ by more than 0.0000 one time in twenty: false claims. The spread is not said,
    d95 is said to be unknown, and the page's JSON carries no spread of equals."""
    result = _perfect_leader_result()
    assert result.d95 == 0
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", result.to_html()))
    assert "0.0000 apart" not in text and "up to 0.0000" not in text
    assert "more than 0.0000 one time in twenty" not in text
    assert "d95 is not known" in text
    assert spreads(result.analysis) is None
