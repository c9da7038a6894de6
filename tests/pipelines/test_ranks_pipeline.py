"""The ranks stage end to end: --tiers, --prizes and --top-k through the CLI in both modes, the
JSON fields, and a small version of the calibration study (its rates against 1 - alpha)."""
from __future__ import annotations

import json
from html import unescape

import numpy as np
import pytest

from tests.quick_args import quick

from leaderboard.studies.calibration import Design, run_design, true_scores
from leaderboard.api_words import COMMAND_LINE
from leaderboard.cli import main
from leaderboard.tiers.ranking import TIER_METHODS

ENTRY_FIELDS = ("rank_ci_low", "rank_ci_high", "rank_sim_low", "rank_sim_high", "p_best", "p_top",
                "in_best_set")


def _run(tmp_path, *args):
    out_html, out_json = tmp_path / "r.html", tmp_path / "r.json"
    code = main(["analyze", *args, "-o", str(out_html), "--json", str(out_json), "--quiet",
                 *quick(args, draws=400, replicates=400)])
    data = json.loads(out_json.read_text(encoding="utf-8")) if code == 0 else None
    return code, data, out_html


@pytest.fixture(scope="module")
def method_run(tmp_path_factory):
    """``method_run(example, method)``: one run of the example per mode and tier method, with
    prizes and top-k, shared by the two tests below (each reads its own things from it; six
    end-to-end runs instead of twelve). Returns (exit code, JSON, HTML path)."""
    runs = {}

    def run(example, method):
        if (example, method) not in runs:
            runs[example, method] = _run(tmp_path_factory.mktemp(f"{example}-{method}"),
                                         "--example", example, "--tiers", method, "--prizes",
                                         "5", "--top-k", "10,2")
        code, data, html = runs[example, method]
        return code, json.loads(json.dumps(data)), html   # a copy: a test cannot change another's
    return run


@pytest.mark.parametrize("example", ["scores", "submissions"])
@pytest.mark.parametrize("method", list(TIER_METHODS))
def test_every_tier_method_runs_in_both_modes(method_run, example, method):
    code, data, html = method_run(example, method)
    assert code == 0
    ranked = [e for e in data["entries"] if e["rank"] is not None]
    assert data["ranks"]["tier_method"] == method
    for e in ranked:
        assert set(ENTRY_FIELDS) <= set(e)
        # surely better entries score better, so a set always holds the observed rank
        assert 1 <= e["rank_ci_low"] <= e["rank"] <= e["rank_ci_high"] <= len(ranked)
        # the simultaneous set contains the marginal one (a larger family, a larger critical value)
        assert e["rank_sim_low"] <= e["rank_ci_low"] and e["rank_sim_high"] >= e["rank_ci_high"]
        assert sorted(e["p_top"]) == ["10", "2", "5"]
        assert e["p_top"]["2"] <= e["p_top"]["5"] <= e["p_top"]["10"]
    assert sum(e["p_best"] for e in ranked) == pytest.approx(1.0)
    tiers = [e["tier"] for e in ranked]
    assert tiers[0] == 1 and set(tiers) == set(range(1, max(tiers) + 1))
    if method != "rank-sets":   # runs of the order; rank-set tiers are layers and may interleave
        assert all(0 <= b - a <= 1 for a, b in zip(tiers, tiers[1:]))
    # the confidence set for the best holds the observed leader
    best = [e["in_best_set"] for e in ranked]
    assert best[0] and data["ranks"]["best_set_size"] == sum(best)
    curse = data["ranks"]["winners_curse"]
    assert curse["corrected"] <= curse["observed"]  # AUC: selection flatters the leader
    assert curse["bound"] <= curse["observed"] and curse["bound_side"] == "lower"
    page = html.read_text(encoding="utf-8")
    assert 'id="ranks"' in page and "P(top 10)" in page


@pytest.mark.parametrize("example", ["scores", "submissions"])
@pytest.mark.parametrize("method", list(TIER_METHODS))
def test_json_and_html_name_the_method_that_ran(method_run, example, method):
    """Every place that names the tier method reads TIER_METHODS[method]: the JSON's tier_method,
    ranks.tiers and (submissions) resampling.test, and the page's method words; no other
    method's words appear (prizes and top-k shown too, as they can be)."""
    code, data, html = method_run(example, method)
    assert code == 0
    ran = TIER_METHODS[method]
    assert data["tier_method"] == ran.procedure and data["ranks"]["tier_method"] == method
    described = data["ranks"]["tiers"]
    assert (described["key"], described["name"], described["test"]) == (ran.key, ran.label,
                                                                          ran.test)
    assert described["same_family_as_rank_sets"] == (method == "rank-sets")
    assert (described["note"] is None) == (method == "rank-sets")
    if example == "submissions":
        assert data["resampling"]["test"] == ran.test
    page = unescape(html.read_text(encoding="utf-8"))
    assert ran.label in page and ran.test in page
    assert ran.words(0.05)["explanation"] in page
    for other in TIER_METHODS.values():
        if other.key != method:
            assert other.label not in page and other.test not in page, other.key
            assert other.procedure not in json.dumps(data, ensure_ascii=False), other.key
    assert ("Holm" in page) == (method == "holm")
    if method != "rank-sets":   # say that these tiers are another procedure than the map's
        token = COMMAND_LINE.set(True)   # the note in the command line's words, as it ran
        try:
            note = ran.other_family_note
        finally:
            COMMAND_LINE.reset(token)
        assert note in page and "another procedure" in page and "--tiers rank-sets" in note


BOARDS = {
    "example scores": ("--example", "scores"),
    "example submissions": ("--example", "submissions"),
    "insults": ("--solution", "{data}/kaggle_insults/solution.csv", "--submissions",
                "{data}/kaggle_insults/submissions", "--metric", "auc"),
    "sberbank": ("{data}/kaggle_lb_downloads/sberbank-russian-housing-market__publicleaderboard.csv",
                 "--metric", "rmsle", "--n-test", "7662"),
}


@pytest.fixture(scope="module")
def board_run(tmp_path_factory):
    """``board_run(*args)``: the JSON of one default-settings run of ``args``, run once per module
    (the example's scores board is read by the tiers test and by the same-seed test); each
    caller gets its own copy."""
    runs = {}

    def run(*args):
        if args not in runs:
            code, data, _ = _run(tmp_path_factory.mktemp("board"), *args)
            assert code == 0
            runs[args] = json.dumps(data)
        return json.loads(runs[args])
    return run


@pytest.mark.parametrize("board", list(BOARDS))
def test_tiers_rank_sets_and_map_never_disagree(board_run, request, board):
    """Default tiers: tier 1 exactly when the simultaneous rank set starts at 1; no tier above
    that set's lower end; the best set inside tier 1; and the significance map's cells are the
    layers' edges (no cell between two tier-1 entries, each mapped entry's tier one more than its
    highest-tier beater, whose cell is in the map since beaters score higher)."""
    args = BOARDS[board]
    if any("{data}" in a for a in args):
        data_dir = request.getfixturevalue("shared_data")
        args = tuple(a.format(data=data_dir) for a in args)
    data = board_run(*args)
    ranked = [e for e in data["entries"] if e["rank"] is not None]
    tier = np.array([e["tier"] for e in ranked])
    low = np.array([e["rank_sim_low"] for e in ranked])
    best = np.array([e["in_best_set"] for e in ranked])
    np.testing.assert_array_equal(tier == 1, low == 1)
    assert np.all(tier <= low) and np.all(tier[best] == 1)
    sig = np.array(data["ranks"]["significance_map"]["significant"], dtype=bool)
    k = len(sig)
    assert data["ranks"]["significance_map"]["teams"] == [e["team"] for e in ranked[:k]]
    for j in range(k):
        beaters = tier[:k][sig[:, j]]
        assert tier[j] == 1 + (beaters.max() if beaters.size else 0), ranked[j]["team"]
    assert "simultaneous" in data["ranks"]["significance_map"]["family"]


def test_lower_is_better_turns_the_bound_around(tmp_path):
    board = tmp_path / "board.csv"
    rng = np.random.default_rng(3)
    scores = np.sort(rng.uniform(0.30, 0.40, 12))
    board.write_text("team,score\n" + "".join(f"t{i},{s:.5f}\n" for i, s in enumerate(scores)))
    code, data, _ = _run(tmp_path, str(board), "--metric", "logloss", "--n-test", "3000",
                         "--prevalence", "0.3")
    assert code == 0
    curse = data["ranks"]["winners_curse"]
    assert curse["bound_side"] == "upper" and curse["bound"] >= curse["observed"]
    assert curse["corrected"] >= curse["observed"]  # the leader's loss is better than its truth
    assert data["entries"][0]["score"] == pytest.approx(scores[0], abs=1e-5)


@pytest.mark.parametrize("args,message", [
    (["--tiers", "friedman"], "invalid choice"),
    (["--prizes", "0"], "--prizes"),
    (["--top-k", "0,3"], "--top-k"),
    (["--correlation", "-0.2"], "--correlation"),
])
def test_bad_rank_options_are_one_line_errors(tmp_path, capsys, args, message):
    try:
        code, _, _ = _run(tmp_path, "--example", *args)
    except SystemExit as exit_:  # argparse's own errors exit from the parser
        code = exit_.code
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err and "Traceback" not in err


def test_same_seed_same_numbers(tmp_path, board_run):
    """A second run of the example (``--example`` is ``--example scores``) against the module's
    first one: the same numbers."""
    first = board_run("--example", "scores")
    code, again, _ = _run(tmp_path, "--example")
    assert code == 0
    assert first["entries"] == again["entries"] and first["ranks"] == again["ranks"]


# --- the calibration study, small ----------------------------------------------------------------

def test_truth_scenarios_have_the_stated_shape():
    assert (true_scores("ties", 6, 2000, 0.85)[:3] == 0.85).all()
    gaps = -np.diff(true_scores("gaps", 6, 2000, 0.85))
    assert np.allclose(gaps, 3 * np.sqrt(0.85 * 0.15 / 2000))


@pytest.mark.parametrize("mode", ["submissions", "scores"])
def test_calibration_small_version(mode):
    """A cluster of five near-equal entries at the top of 12: every method with a guarantee keeps
    the true best in tier 1, and every interval covers, at >= 1 - alpha within 3 Monte Carlo SEs
    (the rates are means of 0/1 outcomes; the SE is the binomial one at the target rate)."""
    alpha, competitions = 0.05, 60
    # 300 simulated test sets per level in scores mode (the study: 1,000); the floor counts
    # competitions, not draws, and noisier tail quantiles can only lower the score coverage
    design = Design("cluster", 12, mode, competitions, n_test=1000, replicates=300, draws=300)
    out = run_design(design, alpha=alpha, seed=11)
    floor = 1 - alpha - 3 * np.sqrt(alpha * (1 - alpha) / competitions)
    for method in ("holm", "rank-sets"):
        assert out[f"best_in_tier1[{method}]"] >= floor, method
    assert out["tiers_hold[rank-sets]"] >= floor   # every tier claim at once
    assert out["rank_cover_all"] >= floor
    assert out["best_set_cover"] >= floor
    # per-entry rates average 12 entries per competition: at least as precise as the floor above
    assert out["rank_cover"] >= floor
    assert out["score_cover"] >= floor
    # tier 1 is informative: smaller than the board, and the cluster's five are hard to split
    assert 1 <= out["tier1_size[holm]"] < 12
    # the correction removes part of the winner's curse on average
    assert out["leader_corrected_error"] < out["leader_raw_error"]
