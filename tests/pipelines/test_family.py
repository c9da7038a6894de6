"""Which tests the simultaneous family reads, its self-check on the page and in the JSON, the
sentence and mark for a tier that skips a rank, and compare on undeclared groups (issue 39).

References: the schema of the JSON; boards built so that the answer is known (a noisy model below
a precise one; clusters that carry all of a difference); numpy for the flips' point scores.
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd

import leaderboard
from leaderboard.report.html import render_html
from tests.pipelines.test_items_ragged import _schema_errors

R = 200


def _long(x: np.ndarray, names, **extra) -> pd.DataFrame:
    e, n = x.shape
    frame = pd.DataFrame({"model": np.repeat(list(names), n), "item": np.tile(np.arange(n), e),
                          "value": x.ravel()})
    for column, values in extra.items():
        frame[column] = np.tile(values, e)
    return frame


def _skip_board() -> pd.DataFrame:
    """Ranks 1-4 precise, rank 5 very noisy: the leader is shown better than rank 4 but not
    than rank 5, so tier 1 holds ranks 1, 2 and 5."""
    rng = np.random.default_rng(3)
    base = rng.normal(0, 1, 120)
    mus, sds = [0.60, 0.59, 0.58, 0.50, 0.45, 0.3], [0.05, 0.05, 0.05, 0.05, 0.9, 0.05]
    x = np.array([m + 0.1 * base + s * rng.standard_normal(120) for m, s in zip(mus, sds)])
    return _long(x.round(4), [f"sys-{c}" for c in "ABCDEF"])


def test_items_read_sign_flips_check_them_and_say_so_and_explain_a_skipped_rank():
    result = leaderboard.analyze_items(_skip_board(), replicates=R)
    a = result.analysis
    report = json.loads(result.to_json())
    assert not _schema_errors(report)
    assert report["ranks"]["family"]["key"] == "sign-flip"
    assert "exactly, for any number of items" in report["ranks"]["family"]["guarantee"]
    check = report["guarantee_check"]
    assert check["method"] == "sign-flip" and check["boards"] == 200
    assert check["shape"] == {"models": 6, "units": 120, "unit": "item"}
    assert check["measured_error"] <= 0.05 + 3 * check["mc_se"] and not check["falls_short"]
    tiers = [(e["rank"], e["tier"]) for e in report["entries"]]
    assert tiers == [(1, 1), (2, 1), (3, 2), (4, 3), (5, 1), (6, 4)]
    page = render_html(a)
    assert "Checked at this board\u2019s shape (6 models \u00d7 120 items)" in page
    assert ("sys-E (rank 5) is in tier 1 although sys-D (rank 4) is in tier 3" in page
            and "interval is too wide" in page)
    assert "critical value from sign flips" in page                  # the method box's words
    from leaderboard.report.vega.analyze import entry_rows
    assert entry_rows(a.table)["moved"].tolist() == [0, 0, 0, 0, 1, 0]
    # a check that finds the promise broken: the page gives the measured figure instead
    from dataclasses import replace
    from leaderboard.tiers.guarantee_check import GuaranteeCheck

    short = GuaranteeCheck("sign-flip", 6, 120, "item", 200, 100, 24, 0.05)
    page = render_html(replace(a, ranking=replace(a.ranking, guarantee_check=short)))
    assert "the guarantee falls short here" in page
    assert "family-wise error measured at 12.0% \u00b1 2.3% at this board" in page


def test_a_metric_that_is_not_a_row_mean_keeps_the_bootstrap_and_its_own_check():
    rng = np.random.default_rng(6)
    y = rng.integers(0, 2, 300)
    solution = pd.DataFrame({"id": np.arange(300), "y": y})
    subs = {f"t{k}": pd.DataFrame({"id": np.arange(300),
                                   "y": y * (1 + 0.2 * k) + rng.normal(0, 1, 300)})
            for k in range(5)}
    result = leaderboard.analyze_submissions(solution, subs, metric="auc", replicates=R)
    report = json.loads(result.to_json())
    assert not _schema_errors(report)
    assert report["ranks"]["family"]["key"] == "bootstrap"
    check = report["guarantee_check"]
    assert check["method"] == "bootstrap" and check["boards"] >= 40 and check["reason"] is None


def _grouped_pair() -> pd.DataFrame:
    """20 repositories of 10 items: the candidate is better on every item of 6 repositories and
    worse on every item of 3. Item by item that is shown (z about 3); repository by repository
    it is not (z about 1.1)."""
    repo = np.repeat(np.arange(20), 10)
    base = np.zeros(200)
    cand = np.where(repo < 6, 1.0, np.where(repo < 9, -1.0, 0.0))
    return _long(np.stack([base, cand]), ["base", "cand"], repo=[f"r{g}" for g in repo])


def test_compare_holds_a_gate_that_only_passes_with_related_items_resampled_alone():
    frame = _grouped_pair()
    plain = leaderboard.compare("base", "cand", items=frame.drop(columns="repo"),
                                metric="mean", replicates=R)
    assert plain.better and not plain.held
    gate = leaderboard.compare("base", "cand", items=frame, metric="mean", replicates=R)
    assert not gate.better and gate.held
    kinds = [kind for kind, _ in gate.gate_flags]
    assert kinds == ["undeclared_groups_held"] and "cluster_col='repo'" in gate.gate_flags[0][1]
    declared = leaderboard.compare("base", "cand", items=frame, metric="mean", replicates=R,
                                   cluster_col="repo")
    assert not declared.better and not declared.held
