"""Every real board in ../shared/data, run with the metric its manifest names: no entry with a
finite score gets a zero-width interval or a zero SD, every interval holds its own score, and the
JSON names every entry left out of a statistic. Skipped when the shared data is absent.

Test-set sizes and prevalences are not published with most boards; the ones below are stated
assumptions of the right order (the README's examples use the same)."""
from __future__ import annotations

import json
import math

import pytest

from leaderboard.cli import main

PP = "kaggle_public_private"
LB = "kaggle_lb_downloads"
# The checks here are structural (every entry has a positive-width interval holding its own score,
# or is named; the post-mortem names the winner): fewer draws can only make a zero-width interval
# or a zero SD likelier, never hide one, so the smallest --draws the CLI takes (100) serves
FAST = ["--draws", "100", "--replicates", "200", "--quiet"]
BOARDS = {
    "dsb2017": (PP, "data-science-bowl-2017__public_private.csv", "--metric", "logloss",
                "--prevalence", "0.26", "--two-stage", "--n-public", "198", "--n-private", "506"),
    "mlsp": (PP, "mlsp-2014-mri__public_private.csv", "--metric", "auc", "--n-public", "30",
             "--n-private", "90", "--prevalence", "0.5"),
    "ultrasound": (PP, "ultrasound-nerve-segmentation__public_private.csv", "--metric", "dice",
                   "--n-test", "5508", "--public-fraction", "0.2"),
    "siim-acr": (PP, "siim-acr-pneumothorax-segmentation__public_private.csv", "--metric",
                 "dice", "--two-stage", "--n-public", "1377", "--n-private", "3205"),
    "prostate2021": (PP, "2021-prostate__public_private.csv", "--metric", "qwk", "--classes",
                     "6", "--n-test", "1000", "--public-fraction", "0.5"),
    "rsna-ich": (PP, "2021-rsna-intracranial__public_private.csv", "--metric", "logloss",
                 "--prevalence", "0.14", "--two-stage", "--n-public", "78545", "--n-private",
                 "121232"),
    "rsna-pneumonia": (PP, "2021-rsna-pneumonia__public_private.csv", "--metric", "map",
                       "--two-stage", "--n-public", "1000", "--n-private", "3000"),
    "siim-covid": (PP, "2021-siim-covid19__public_private.csv", "--metric", "map", "--n-test",
                   "1263", "--public-fraction", "0.5"),
    "vinbigdata": (PP, "2021-vinbigdata-chest__private_only.csv", "--metric", "map", "--n-test",
                   "3000"),
    "mlcontest": (PP, "mlcontest__public_private.csv", "--metric", "accuracy", "--n-test", "54",
                  "--public-fraction", "0.5"),
    "prostate-cancer": (PP, "prostate-cancer__public_private.csv", "--metric", "auc",
                        "--n-test", "200", "--public-fraction", "0.3", "--prevalence", "0.5"),
    "trabit": (PP, "trabit2019-imaging-biomarkers__public_private.csv", "--metric", "mae",
               "--n-test", "300", "--public-fraction", "0.5"),
    "uninadmc": (PP, "uninadmc-bls-2__public_private.csv", "--metric", "f1", "--n-test", "500",
                 "--public-fraction", "0.5", "--prevalence", "0.5"),
    "nlp": (LB, "nlp-getting-started__publicleaderboard.csv", "--metric", "f1", "--n-test",
            "3263", "--prevalence", "0.43"),
    "sberbank": (LB, "sberbank-russian-housing-market__publicleaderboard.csv", "--metric",
                 "rmsle", "--n-test", "7662"),
    # issue 25: F1 scores 0.00001-0.00024 below one hit's 2 / (n + 1) at 5,000 rows
    "herbarium2022": ("mle_dojo_leaderboards", "herbarium-2022-fgvc9__private_leaderboard.csv",
                      "--team-col", "rank", "--metric", "f1", "--n-test", "5000",
                      "--prevalence", "0.1"),
}


@pytest.fixture(scope="module")
def analysed(shared_data, tmp_path_factory):
    """``analysed(name)``: the JSON of one run of board ``name``, run once per module and shared
    by the tests that read it (dsb2017 and herbarium2022 are read twice); each caller gets its own
    copy."""
    runs = {}

    def run(name):
        if name not in runs:
            folder, file, *args = BOARDS[name]
            tmp = tmp_path_factory.mktemp(name)
            out = tmp / f"{name}.json"
            code = main(["analyze", str(shared_data / folder / file), *args, *FAST,
                         "-o", str(tmp / f"{name}.html"), "--json", str(out)])
            assert code == 0
            runs[name] = out.read_text(encoding="utf-8")
        return json.loads(runs[name])
    return run


@pytest.mark.parametrize("name", list(BOARDS))
def test_every_entry_has_honest_noise_or_is_named(analysed, name):
    result = analysed(name)
    scored = [e for e in result["entries"] if e["score"] is not None and math.isfinite(e["score"])]
    named = {team for group in result["left_out"] for team in group["teams"]}
    for e in scored:
        if e["ci_low"] is None:
            # no interval: the whole board has no noise model (a note says why) or it is named
            assert result["d95"] is None or e["team"] in named, e
            continue
        assert e["ci_low"] < e["ci_high"], e                 # never a zero-width interval
        assert e["sd"] > 0 and e["d95"] > 0, e               # never a zero SD or d95
        assert e["ci_low"] <= e["score"] <= e["ci_high"], e  # the interval holds its own score
    if result["d95"] is not None:
        assert result["d95"] > 0
    shakeup = result["shakeup"]
    if shakeup is not None:
        # the observed statistics cover every entry with both scores; any entry left out of the
        # noise comparisons is named
        both = [e for e in scored if e.get("public_score") is not None]
        assert shakeup["n_entries"] + shakeup["n_excluded"] >= len(both)
        assert len(shakeup["left_out_entries"]) == shakeup["n_entries"] - shakeup["n_compared"]


def test_dsb2017_post_mortem_names_the_real_private_winner(analysed):
    """Data Science Bowl 2017: most private log losses are worse than predicting the prevalence;
    they are modelled (over-confident models), so the post-mortem covers all 394 entries and
    names the board's own winner."""
    result = analysed("dsb2017")
    shakeup = result["shakeup"]
    assert shakeup["n_entries"] == 394 and shakeup["winner"]["team"] == "grt123"
    assert result["entries"][0]["team"] == "grt123"
    kinds = {f["kind"] for f in result["flags"]}
    assert {"worse_than_no_skill", "far_out", "perfect"} <= kinds   # perfect: stage-1 labels


def test_herbarium_scores_impossible_at_5000_rows_are_named_without_interval(analysed):
    """issue 25 item 6: ranks 97-103 score F1 0.00001-0.00024, below the smallest non-zero F1
    on 5,000 rows (2 / 5,001): no interval, a flag naming each, and the reason in left_out."""
    result = analysed("herbarium2022")
    floor = 2 / 5001
    below = {e["team"] for e in result["entries"] if 0 < e["score"] < floor}
    assert {"97", "98", "99", "100", "101", "102", "103"} <= below
    flagged = {t for f in result["flags"] if f["kind"] == "impossible_score" for t in f["teams"]}
    assert flagged == below
    for e in result["entries"]:
        if e["team"] in below:
            assert e["ci_low"] is None and e["tier"] in (0, None), e
    reasons = [g["reason"] for g in result["left_out"] if set(g["teams"]) & below]
    assert reasons and all("smallest non-zero" in r for r in reasons)
