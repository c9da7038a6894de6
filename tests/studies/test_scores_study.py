"""The noise study and the scores-only calibration, small versions of docs/scores_only.md.

Independent references: each family's exact AUC variance (the U-statistic formula over its
populations) and its true AUC (computed on the populations, ties half); coverage tolerances are
binomial Monte Carlo errors of the share of observed scores."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from leaderboard.cli import main
from leaderboard.noise.universes import UniverseOptions
from leaderboard.schema import SCHEMA_DIR
from leaderboard.studies.noise import auc_population, auc_study
from leaderboard.studies.scores_calibration import BoardDesign, run_board_design, simulate_board

UNIVERSES = {"binormal": UniverseOptions(name="binormal", spread=1.0),
             "spread 2": UniverseOptions(name="binormal", spread=2.0)}


@pytest.mark.parametrize("family", ["binormal", "minority spread", "exponential",
                                    "tree-like ties", "logistic"])
def test_a_family_member_has_the_true_auc_asked_for(family):
    population = auc_population(family, 0.8, 0.1)
    y = np.r_[np.zeros(population.neg.size), np.ones(population.pos.size)]
    exact = roc_auc_score(y, np.r_[population.neg, population.pos])
    assert population.auc == pytest.approx(exact, abs=1e-12)
    assert population.auc == pytest.approx(0.8, abs=2e-3)


def test_equal_sds_understate_a_spread_minority_and_the_default_does_not():
    draws = 400
    rows = auc_study(cells=((3000, 0.1),), aucs=(0.85,), families=("binormal", "minority spread"),
                     universes=UNIVERSES, draws=draws, universe_draws=600)
    by = {(r["family"], r["universe"]): r for r in rows}
    # each universe against its own shape: the same exact variance
    assert by[("binormal", "binormal")]["sd_ratio"] == pytest.approx(1, abs=0.01)
    assert by[("minority spread", "spread 2")]["sd_ratio"] == pytest.approx(1, abs=0.01)
    # equal SDs understate a spread minority class's noise (0.75 measured) ...
    assert by[("minority spread", "binormal")]["sd_ratio"] < 0.8
    # ... and its intervals cover well below 95% there; the default's cover at least 95%
    se = math.sqrt(0.95 * 0.05 / draws)
    assert by[("minority spread", "binormal")]["coverage"] < 0.95 - 3 * se
    for family in ("binormal", "minority spread"):
        assert by[(family, "spread 2")]["coverage"] >= 0.95 - 3 * se


def test_a_board_keeps_each_entrys_family_marginals():
    """The copula shares rows' difficulty between entries, but each entry's scores are its own
    family member's: its AUC on a large test set approaches its true AUC."""
    design = BoardDesign("exponential", 3, 1, n_test=60_000)
    y, preds, truth, _ = simulate_board(design, np.array([0.85, 0.8, 0.7]),
                                        np.random.default_rng(0))
    observed = [roc_auc_score(y, p) for p in preds]
    # SD of an AUC on 60,000 rows at 10% positives is below 0.003
    assert np.allclose(observed, truth, atol=0.01)
    assert np.corrcoef(preds[0], preds[1])[0, 1] > 0.2   # entries share the rows' difficulty


def test_scores_only_boards_keep_their_promise_on_a_spread_family():
    """Known truth: 6 competitions of 10 entries. Coverage of the true AUC at least 95% less 3
    binomial SEs over the 60 entries (it fails when 86.6% or fewer hold the truth);
    the true best in tier 1 in every competition in both modes. 200 simulated test sets per
    level (was 600; the tolerance counts entries, not draws): fewer draws make the intervals'
    tail quantiles noisier, which lowers coverage if anything, so the check is no easier."""
    out = run_board_design(BoardDesign("minority spread", 10, 6, draws=200, replicates=600))
    entries = 6 * 10
    assert out["score_cover"] >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / entries)
    assert out["best_in_tier1"] == 1.0 and out["submissions_best_in_tier1"] == 1.0
    assert out["tier1_size"] >= 1 and out["submissions_tier1_size"] >= 1


def test_calibrate_scores_only_quick_writes_both_tables(tmp_path):
    page = tmp_path / "scores_only.md"
    out = tmp_path / "scores_only.json"
    docs = Path(__file__).resolve().parents[2] / "docs" / "scores_only_regression.md"
    before = docs.read_bytes() if docs.exists() else None
    assert main(["calibrate", "--scores-only", "--quick", "--quiet", "-o", str(page),
                 "--json", str(out)]) == 0
    # the regression page goes beside -o, never over the repository's (the full study's) page
    assert (tmp_path / "scores_only_regression.md").exists()
    assert (docs.read_bytes() if docs.exists() else None) == before
    text = page.read_text(encoding="utf-8")
    assert "## The noise study (AUC)" in text and "minority spread" in text
    assert "## Leaderboards of these families" in text and "| logistic |" in text
    data = json.loads(out.read_text(encoding="utf-8"))   # strict JSON, as the schema describes
    assert data["command"] == "calibrate" and data["study"] == "scores_only" and data["quick"]
    assert len(data["noise_study"]) > 0 and len(data["boards"]) > 0
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((SCHEMA_DIR / "calibrate.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(data)
