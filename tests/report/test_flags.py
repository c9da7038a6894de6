"""Sanity flags: the sentences a reader needs before the numbers."""
from __future__ import annotations

import math

import numpy as np
import pytest

from leaderboard.flags import board_flags, class_count_flags, no_skill_score
from leaderboard.metrics import get_metric


def _kinds(flags):
    return [f.kind for f in flags]


def test_perfect_scores_are_flagged_with_their_teams():
    flags = board_flags(["a", "b", "c", "d"], [1.0, 1.0, 0.8, 0.7], get_metric("f1"), True)
    perfect = next(f for f in flags if f.kind == "perfect")
    assert perfect.teams == ("a", "b") and "leaked" in perfect.message
    assert "tie_at_top" not in _kinds(flags)   # the perfect flag already says it


def test_lower_is_better_perfect_is_zero():
    flags = board_flags(["a", "b"], [0.0, 0.3], get_metric("rmse"), False)
    assert _kinds(flags) == ["perfect"]


def test_ties_at_the_top_and_shared_constant_scores():
    scores = [0.41, 0.41, 0.5] + [math.log(2)] * 6 + list(np.linspace(0.45, 0.6, 20))
    teams = [f"t{i}" for i in range(len(scores))]
    flags = board_flags(teams, scores, get_metric("logloss"), False, prevalence=0.26)
    assert _kinds(flags)[0] == "tie_at_top" and "shared_score" in _kinds(flags)
    shared = next(f for f in flags if f.kind == "shared_score")
    assert len(shared.teams) == 6 and "predicting 0.5 for every row" in shared.message


def test_far_out_and_worse_than_no_skill():
    scores = np.r_[np.linspace(0.40, 0.56, 40), 0.60, 4.5, 18.6]
    teams = [f"t{i}" for i in range(scores.size)]
    flags = {f.kind: f for f in board_flags(teams, scores, get_metric("logloss"), False,
                                            prevalence=0.26)}
    assert set(flags["far_out"].teams) == {"t41", "t42"}
    assert set(flags["worse_than_no_skill"].teams) == {"t40", "t41", "t42"}
    assert "0.573057" in flags["worse_than_no_skill"].message


def test_a_clean_board_has_no_flags():
    scores = np.linspace(0.7, 0.9, 30)
    assert board_flags([str(i) for i in range(30)], scores, get_metric("auc"), True) == []


@pytest.mark.parametrize("n_test, prevalence, flagged", [(1000, 0.005, True), (1000, 0.05, False)])
def test_few_positives(n_test, prevalence, flagged):
    flags = class_count_flags(n_test, prevalence)
    assert bool(flags) == flagged
    if flagged:
        assert "only 5 positives" in flags[0].message


def test_no_skill_scores_match_scikit_learn():
    from sklearn.metrics import brier_score_loss, log_loss
    y = np.r_[np.ones(26), np.zeros(74)]
    p = np.full(100, 0.26)
    assert no_skill_score(get_metric("logloss"), 0.26) == pytest.approx(log_loss(y, p))
    assert no_skill_score(get_metric("brier"), 0.26) == pytest.approx(brier_score_loss(y, p))


def test_real_boards_are_flagged(shared_data):
    """nlp-getting-started: 247 leaked perfect F1 scores; Data Science Bowl 2017: most private log
    losses are worse than predicting the prevalence, some are junk, and its stage-1 (public)
    board holds perfect scores from released labels."""
    import pandas as pd
    from leaderboard.ingest.leaderboards import read_leaderboard
    nlp = read_leaderboard(shared_data / "kaggle_lb_downloads" /
                           "nlp-getting-started__publicleaderboard.csv", higher_is_better=True)
    flags = {f.kind: f for f in board_flags(nlp.entries["team"], nlp.entries["score"],
                                            get_metric("f1"), True)}
    assert len(flags["perfect"].teams) == 247
    dsb = pd.read_csv(shared_data / "kaggle_public_private" /
                      "data-science-bowl-2017__public_private.csv")
    flags = {f.kind: f for f in board_flags(dsb["team_name"], dsb["private_score"],
                                            get_metric("logloss"), False, prevalence=0.26)}
    worse = int((dsb["private_score"] > no_skill_score(get_metric("logloss"), 0.26)).sum())
    assert len(flags["worse_than_no_skill"].teams) == worse > 300
    assert "far_out" in flags
    public = board_flags(dsb["team_name"], dsb["public_score"], get_metric("logloss"), False)
    assert "perfect" in _kinds(public)


def test_a_board_no_universe_reaches_is_ranked_with_every_entry_named():
    """issue 25 item 6, found on mle_dojo's detecting-insults public board (every AUC 0.0): no
    score the binormal universe can be calibrated to. Not a refusal of the whole board: ranked,
    no interval anywhere, every entry named in the flags and left_out, the reason in the notes."""
    import pandas as pd

    import leaderboard

    board = pd.DataFrame({"team": [f"t{i}" for i in range(6)], "score": [0.0] * 6})
    result = leaderboard.analyze(board, metric="auc", n_test=1000, prevalence=0.3, draws=100,
                                 replicates=100)
    assert result.table["ci_low"].isna().all() and (result.table["tier"] == 0).all()
    named = {t for f in result.flags if f.kind == "no_interval" for t in f.teams}
    assert named == set(board["team"])
    assert any("cannot be calibrated to any of them" in n for n in result.notes)
