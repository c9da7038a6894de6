"""issue 25 item 6 on every real board: no interval excludes its own score unless the entry is named.

Each case of tests/real_board_cases.py (every board and solution in ../shared/data: the Kaggle
boards on their public and private columns, the 404 mle_dojo boards, the leaderboard downloads,
CHAMPS, and Titanic's 48 and insults' 27 real submissions in submissions mode) runs through the
Python API. An entry whose interval does not hold its own observed score must be named in the
flags with a reason; an entry with no interval is not checked here (test_real_boards checks that
those are named). The property is about an interval against its own score, not about coverage, so
the fewest draws and replicates the API allows (100) do. Skipped when the shared data is absent;
slow (tests/conftest.py's SLOW_FILES).

All 438 cases are a few hundred whole analyses (20 minutes and more on two cores: 2021-prostate's
QWK universe alone takes about a minute), beyond the suite's budget, so by default the test runs
:data:`DEFAULT`: the submissions, the Kaggle boards' public columns (their private columns run in
test_real_boards.py, which checks the same property) but for the three slowest, and the mle_dojo
boards where each way of going wrong was found (scores no universe reaches, scores below one
hit's F1, a Gini board). 18 cases: 216 s of the 21 before three were dropped (DSB 2017's public
column 54 s, mercedes-benz's 3,823 R2 scores 50 s) on the shared, loaded machine.
``LEADERBOARD_REAL_BOARDS=all`` runs every case.
"""
from __future__ import annotations

import math
import os

import pytest

import leaderboard
from tests.conftest import SHARED_DATA
from tests.real_board_cases import Case, cases

DEFAULT = frozenset({
    "titanic/submissions", "insults/submissions/private", "insults/submissions/public",
    *(f"kaggle/{name}/public" for name in (
        "mlsp-2014-mri", "ultrasound-nerve-segmentation",
        "siim-acr-pneumothorax-segmentation", "2021-rsna-pneumonia", "2021-siim-covid19",
        "mlcontest", "prostate-cancer", "trabit2019-imaging-biomarkers", "uninadmc-bls-2")),
    "champs/by-type/private",
    "dojo/herbarium-2022-fgvc9/private", "dojo/detecting-insults-in-social-commentary/public",
    "dojo/freesound-audio-tagging-2019/public",
    "dojo/jigsaw-unintended-bias-in-toxicity-classification/public", "dojo/DontGetKicked/public",
})
EVERY = os.environ.get("LEADERBOARD_REAL_BOARDS") == "all"
CASES = [case for case in cases(SHARED_DATA) if EVERY or case.name in DEFAULT]
FEW = 100   # draws and replicates: the API's minimum


def _run(case: Case) -> leaderboard.Result:
    if case.mode == "submissions":
        return leaderboard.analyze_submissions(case.path, case.submissions, replicates=FEW,
                                               **case.kwargs)
    return leaderboard.analyze(case.data(), draws=FEW, replicates=FEW, **case.kwargs)


def excluding_own_score(result: leaderboard.Result) -> list[tuple[str, float, float, float]]:
    """(team, score, low, high) of every entry whose interval does not hold its score (a score
    printed to a few digits may sit a rounding away from an edge: the slack of
    leaderboard.noise.possible, 1e-9 of the score and 5e-6 of the width)."""
    out = []
    table = result.table
    for team, s, lo, hi in zip(table["team"], table["score"], table["ci_low"], table["ci_high"]):
        if not all(math.isfinite(x) for x in (s, lo, hi)):
            continue
        slack = 1e-9 * max(1.0, abs(s)) + 0.5e-5 * (hi - lo)
        if not lo - slack <= s <= hi + slack:
            out.append((str(team), float(s), float(lo), float(hi)))
    return out


@pytest.mark.parametrize("case", CASES or [None], ids=[c.name for c in CASES] or ["absent"])
def test_no_interval_excludes_its_own_score_unnamed(shared_data, case):
    result = _run(case)
    why = {}
    for flag in result.flags:
        for team in flag.teams:
            why.setdefault(str(team), []).append(flag.message)
    for team, score, low, high in excluding_own_score(result):
        assert any(message.strip() for message in why.get(team, ())), (
            f"{case.name}: {team}'s interval {low:.6g} to {high:.6g} excludes its score "
            f"{score:.6g}, and no flag names it")
