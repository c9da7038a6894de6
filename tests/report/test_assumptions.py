"""Every number names its assumptions (issue 25 item 1): each analysis's JSON lists what the
noise model takes as given, checked where the input can check it; a correlation that cannot be
checked is shown across its plausible range; the page shows them beside the tier table."""
from __future__ import annotations

import html
import json

import numpy as np
import pandas as pd
import pytest

from tests.quick_args import quick
from leaderboard.cli import main
from leaderboard.pipelines.assumptions import (REAL_BOARD_CORRELATIONS, VERDICTS,
                                               correlation_sweep)

FAST = ["--quiet", "--draws", "200", "--replicates", "200"]


def _analyze(tmp_path, *argv, whole: bool = False) -> tuple[dict, str]:
    out = tmp_path / "r.json"
    assert main(["analyze", *argv, "--quiet", *quick(argv, 200, 200), "-o", str(tmp_path / "r.html"), "--json",
                 str(out)]) == 0
    page = html.unescape((tmp_path / "r.html").read_text(encoding="utf-8"))
    data = json.loads(out.read_text(encoding="utf-8"))
    found = {a["name"]: a for a in data["assumptions"]}
    return (found, page, data) if whole else (found, page)


def _well_formed(found: dict, page: str) -> None:
    for a in found.values():
        assert a["verdict"] in VERDICTS and a["affects"] and a["what_to_do"]
        assert (a["checked"] is None) == (not a["checkable"])
        assert a["statement"] in page                       # shown in plain words
    assert 'id="assumptions"' in page and "These intervals rest on" in page


def test_scores_only_without_pairs_sweeps_the_correlation(tmp_path):
    found, page, data = _analyze(tmp_path, "data/example_leaderboard.csv", "--metric", "auc",
                                 "--n-test", "2000", "--prevalence", "0.3", whole=True)
    _well_formed(found, page)
    assert set(found) == {"universe_shape", "independent_rows", "correlation_between_entries",
                          "test_size"}
    corr = found["correlation_between_entries"]
    assert corr["verdict"] == "not checkable" and not corr["checkable"]
    sweep = corr["measured"]
    assert sweep["correlation"] == [0.0, 0.5, 0.8, 0.95]
    # more correlated errors make differences less noisy: never more entries tied
    assert sweep["best_set"] == sorted(sweep["best_set"], reverse=True)
    assert sweep["tier_1"] == sorted(sweep["tier_1"], reverse=True)
    assert sweep["real_boards"] == REAL_BOARD_CORRELATIONS
    # at the correlation the board was analysed with, the page's own numbers, not a rerun
    assert sweep["best_set"][0] == sum(e["in_best_set"] for e in data["entries"])
    assert sweep["tier_1"][0] == data["tier1_size"]
    assert "Could be the best" in page                        # the sweep's table
    # elsewhere, draws at the run's --replicates (200 here, below the sweep's cap) and seed
    scores, sd = (np.array([e[k] for e in data["entries"]]) for k in ("score", "sd"))
    rerun = correlation_sweep(scores, sd, True, alpha=0.05, tier_method="rank-sets",
                              correlations=(0.5, 0.8), replicates=200, seed=0)
    assert sweep["best_set"][1:3] == rerun["best_set"]
    assert sweep["tier_1"][1:3] == rerun["tier_1"]


def _example(example_outputs, kind: str) -> tuple[dict, str]:
    """_analyze's answer for ``--example [kind]`` with FAST, from the session's run of it
    (tests/conftest.py)."""
    files = example_outputs(kind)
    data = json.loads(files["json"].read_text(encoding="utf-8"))
    page = html.unescape(files["html"].read_text(encoding="utf-8"))
    return {a["name"]: a for a in data["assumptions"]}, page


def test_public_and_private_scores_check_the_correlation(example_outputs):
    found, page = _example(example_outputs, "scores")
    _well_formed(found, page)
    corr = found["correlation_between_entries"]
    assert corr["checkable"] and corr["verdict"] == "holds"
    assert corr["measured"]["low"] <= corr["measured"]["value"] <= corr["measured"]["high"]


def test_predictions_measure_the_correlation_and_read_the_size(example_outputs):
    found, page = _example(example_outputs, "submissions")
    _well_formed(found, page)
    corr = found["correlation_between_entries"]
    assert corr["verdict"] == "holds" and -1 <= corr["measured"]["median_correlation"] <= 1
    assert found["test_size"]["verdict"] == "holds"
    assert found["independent_rows"]["verdict"] == "not checkable"


def test_items_check_their_independence_from_the_columns(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"model": np.repeat(["a", "b"], 90), "item": np.tile(range(90), 2),
                          "value": (rng.random(180) < 0.6) * 1})
    frame.to_csv(tmp_path / "plain.csv", index=False)
    found, page = _analyze(tmp_path, "--items", str(tmp_path / "plain.csv"))
    _well_formed(found, page)
    assert found["independent_items"]["verdict"] == "holds"
    frame.assign(passage=frame["item"] // 10).to_csv(tmp_path / "grouped.csv", index=False)
    found, _ = _analyze(tmp_path, "--items", str(tmp_path / "grouped.csv"))
    assert found["independent_items"]["verdict"] == "doubtful"
    found, _ = _analyze(tmp_path, "--items", str(tmp_path / "grouped.csv"), "--cluster-col",
                        "passage")
    assert found["independent_clusters"]["verdict"] == "doubtful"      # 9 clusters: few
    assert found["independent_clusters"]["measured"] == {"clusters": 9}


def test_the_sweep_counts_are_those_of_the_tiers_at_each_correlation():
    """At a correlation the sweep contains, its tier-1 size is the tiers' own (same seed)."""
    from leaderboard.tiers import RankReplicates
    from leaderboard.tiers.ranking import rank_board

    scores, sd = np.linspace(0.9, 0.8, 15), np.full(15, 0.02)
    sweep = correlation_sweep(scores, sd, True, alpha=0.05, tier_method="rank-sets",
                              correlations=(0.5,), replicates=400)
    reps = RankReplicates.normal(scores, sd, 0.5, True, replicates=400, seed=0)
    ranking = rank_board(reps, method="rank-sets", alpha=0.05)
    assert sweep["tier_1"] == [int((ranking.tiers.tier == 1).sum())]
    assert sweep["best_set"] == [int(ranking.in_best_set.sum())]


@pytest.mark.parametrize("board, bound", [("prostate-cancer", "high"), ("mlcontest", "low")])
def test_the_real_board_range_is_what_the_boards_give(shared_data, tmp_path, board, bound):
    """The two ends of REAL_BOARD_CORRELATIONS, re-measured on the boards that set them."""
    from tests.pipelines.test_real_boards import BOARDS

    folder, file, *args = BOARDS[board]
    out = tmp_path / "r.json"
    assert main(["analyze", str(shared_data / folder / file), *args, *FAST, "-o",
                 str(tmp_path / "r.html"), "--json", str(out)]) == 0
    value = json.loads(out.read_text(encoding="utf-8"))["correlation"]["value"]
    assert value == pytest.approx(REAL_BOARD_CORRELATIONS[bound], abs=0.005)
