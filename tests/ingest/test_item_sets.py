"""Per-item results as benchmarks keep them (issue 26 items 2-4), at the reader: ragged item
sets, models listed twice, repeated samples, words for 0/1 and the names of the mean of 0/1.

References: pandas group-bys for every mean and count; a brute-force recount of the common item
set without each model for the shrinkers; for the samples' share of the noise, the analytic
variance of a mean of item means (between + within / n) over T, checked by simulation with known
truth (tolerances from the Monte Carlo error of an SD: 1 / sqrt(2 S) relative, for S draws).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from leaderboard.errors import InputError
from leaderboard.ingest.in_memory import InMemory
from leaderboard.ingest.item_coverage import item_coverage
from leaderboard.ingest.item_sets import SampleSpread
from leaderboard.ingest.items import read_items
from leaderboard.metrics import get_metric, items_metric


def two_snapshots(seed: int = 0) -> pd.DataFrame:
    """A benchmark kept as two snapshots in one file: v1 scored items p0-p299, v2 items
    p100-p399; "both" is in both snapshots with the same rows on the shared items (a
    copy), "clash" is in both with a different value on three items, "short" lacks 40 items of
    v2. Values are written as benchmarks do: true/false."""
    rng = np.random.default_rng(seed)
    rows = []
    snapshots = {"v1": ([f"p{i}" for i in range(300)], ["old0", "old1", "old2", "both", "clash"]),
                 "v2": ([f"p{i}" for i in range(100, 400)], ["new0", "new1", "both", "clash",
                                                            "short"])}
    truth = {}
    for snap, (items, models) in snapshots.items():
        for model in models:
            for item in items:
                if model == "short" and item in {f"p{i}" for i in range(360, 400)}:
                    continue
                key = (model, item)
                if key not in truth:
                    truth[key] = bool(rng.random() < 0.6)
                value = truth[key]
                if model == "clash" and snap == "v2" and item in ("p150", "p151", "p152"):
                    value = not value
                rows.append((model, item, "true" if value else "False", snap))
    return pd.DataFrame(rows, columns=["model", "item", "resolved", "snapshot"])


def _read(frame: pd.DataFrame, **kw):
    return read_items(InMemory.of(frame, "data"), **kw)


def test_two_snapshots_keep_all_but_the_clashing_model_on_the_items_all_of_them_have():
    frame = two_snapshots()
    solution, models = _read(frame, value_col="resolved")
    status = {f.team: f.status for f in models.files}
    assert status == {"old0": "ok", "old1": "ok", "old2": "ok", "both": "ok", "clash": "rejected",
                      "new0": "ok", "new1": "ok", "short": "ok"}
    reason = next(f.reason for f in models.files if f.team == "clash")
    assert "different values on 3 items (p150, p151, p152" in reason
    kept = [m for m, s in status.items() if s == "ok"]
    sets = [set(frame.loc[frame["model"] == m, "item"]) for m in kept]
    common = set.intersection(*sets)
    assert set(solution.ids) == common and len(common) == 200 - 0   # p100-p299
    coverage = solution.coverage
    assert coverage.merged == ("both",) and coverage.items_in_file == 400
    assert coverage.used == tuple(sorted(common, key=lambda s: int(s[1:])))
    # each kept model's values on the common items equal a pandas pivot of the file (true = 1)
    pivot = (frame.drop_duplicates(["model", "item"]).assign(v=lambda f: f["resolved"].str.lower()
             .eq("true").astype(float)).pivot(index="model", columns="item", values="v"))
    for f in models.files:
        if f.status == "ok":
            assert np.array_equal(f.prediction, pivot.loc[f.team, list(solution.ids)].to_numpy())
    # every row accounted for
    assert sum(f.rows for f in models.files) == len(frame)


def test_shrinkers_equal_a_brute_force_recount_without_each_model():
    rng = np.random.default_rng(3)
    present = rng.random((6, 80)) < 0.97
    present[4, :10] = False            # model e lacks ten items nobody else lacks
    models, items = pd.Index(list("abcdef")), pd.Index([f"q{i}" for i in range(80)])
    used, coverage = item_coverage(present, np.arange(6), models, items, "common")
    assert used.tolist() == np.flatnonzero(present.all(axis=0)).tolist()
    gains = {m: int(np.delete(present, k, axis=0).all(axis=0).sum()) - used.size
             for k, m in enumerate(models)}
    best = sorted((g, -k) for k, g in enumerate(gains.values()) if g > 0)[::-1][:3]
    assert coverage.shrinkers == tuple((models[-k], g) for g, k in best)
    assert coverage.shrinkers[0][0] == "e" and coverage.shrinkers[0][1] >= 10
    # two snapshots: no single model's absence adds an item; the sentence names the short ones
    present = np.ones((4, 30), dtype=bool)
    present[2:, :10] = False
    _, coverage = item_coverage(present, np.arange(4), pd.Index(list("abcd")),
                                pd.Index(range(30)), "common")
    assert coverage.shrinkers == () and "the 2 models with the fewest (20 items) are c, d" in \
        coverage.sentences()[0]


def test_no_common_item_is_one_error_naming_the_models_and_the_pairwise_option():
    frame = pd.DataFrame({"model": ["a"] * 20 + ["b"] * 20 + ["c"] * 20,
                          "item": [f"x{i}" for i in range(20)] * 2 + [f"y{i}" for i in range(20)],
                          "value": 1})
    with pytest.raises(InputError) as error:
        _read(frame)
    message = str(error.value)
    assert "no item is shared by all 3 models" in message and "c (+20)" in message
    assert "--items-policy pairwise" in message
    solution, _ = _read(frame, items_policy="pairwise")
    assert len(solution.ids) == 40


def test_pairwise_keeps_every_item_with_nan_where_a_model_has_none():
    frame = two_snapshots()
    solution, models = _read(frame, value_col="resolved", items_policy="pairwise")
    assert len(solution.ids) == 400 and solution.coverage.policy == "pairwise"
    short = next(f for f in models.files if f.team == "short")
    assert np.isnan(short.prediction).sum() == 140   # p0-p99 and p360-p399
    means = (frame.drop_duplicates(["model", "item"]).assign(
        v=lambda f: f["resolved"].str.lower().eq("true")).groupby("model")["v"].mean())
    assert np.nanmean(short.prediction) == pytest.approx(means["short"], abs=1e-15)


@pytest.mark.parametrize("words", [("true", "false"), ("YES", "No"), ("Pass", "FAIL")])
def test_words_for_outcomes_read_as_one_and_zero(words):
    rng = np.random.default_rng(1)
    ones = rng.random(60) < 0.5
    frame = pd.DataFrame({"model": np.repeat(["a", "b"], 30), "item": np.tile(range(30), 2),
                          "value": np.where(ones, words[0], f" {words[1]} ")})
    _, models = _read(frame)
    got = np.concatenate([f.prediction for f in models.files])
    assert np.array_equal(got, ones.astype(float))


def test_words_stay_refused_where_a_prediction_is_scored_against_a_truth():
    frame = pd.DataFrame({"model": ["a"] * 4, "item": range(4), "p": ["true", "0.2", "0.9", "0"],
                          "y": [1, 0, 1, 0]})
    with pytest.raises(InputError, match="not a number"):
        _read(frame, value_col="p", target_col="y")


def test_accuracy_pass1_and_resolved_name_the_mean_of_binary_values_in_items_mode_only():
    for name in ("accuracy", "Pass@1", "pass-rate", "resolved", "RESOLVED_RATE"):
        metric, binary = items_metric(name)
        assert binary and metric.kind == "values" and metric.higher_is_better
    assert items_metric("auc") == (get_metric("auc"), False)
    assert get_metric("accuracy").kind == "labels"      # elsewhere: the classification metric
    frame = pd.DataFrame({"model": ["a"] * 3, "item": range(3), "value": ["1", "0.5", "0"]})
    with pytest.raises(InputError) as error:
        _read(frame, binary="pass@1")
    assert "row 1, column 'value'" in str(error.value) and "--metric pass@1 is the mean of 0/1" in \
        str(error.value)
    _, models = _read(frame)                            # mean: partial credit is fine
    assert models.files[0].prediction.tolist() == [1.0, 0.5, 0.0]


def test_samples_average_within_items_and_repeats_of_a_sample_merge_or_refuse():
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"model": np.repeat(["a", "b"], 200), "item": np.tile(
        np.repeat(range(50), 4), 2), "gen": np.tile(range(4), 100),
        "value": (rng.random(400) < 0.5).astype(int)})
    solution, models = _read(frame, sample_col="gen")
    means = frame.groupby(["model", "item"])["value"].mean()
    for f in models.files:
        assert np.allclose(f.prediction, means[f.team].to_numpy(), rtol=0, atol=1e-15)
    assert solution.coverage.samples.samples_min == 4 == solution.coverage.samples.samples_max
    copy = pd.concat([frame, frame[frame["model"] == "a"].head(8)])    # a's rows given twice
    _, models = _read(copy, sample_col="gen")
    assert [f.status for f in models.files] == ["ok", "ok"]
    flipped = copy.copy()
    flipped.iloc[-1, flipped.columns.get_loc("value")] = 1 - flipped.iloc[-1]["value"]
    _, models = _read(flipped, sample_col="gen")
    assert models.files[0].status == "rejected" and "per model, item and sample" in \
        models.files[0].reason
    with pytest.raises(InputError, match="or sample_col= if these are repeated samples"):
        _read(frame)                                  # samples without --sample-col: refused


def _sampled(rng, items: int, n: int, a: float, b: float, draws: int) -> np.ndarray:
    """Scores of ``draws`` independent benchmarks: item p ~ Beta(a, b), n Bernoulli samples."""
    p = rng.beta(a, b, size=(draws, items))
    return (rng.binomial(n, p) / n).mean(axis=1)


def test_samples_that_halve_the_noise_do_so_in_simulation_with_known_truth():
    """Truth: items p ~ Beta(20, 20) (between = ab / ((a+b)^2 (a+b+1)) = 0.0061), n = 4
    Bernoulli samples (within = E p(1-p) = 0.25 - between = 0.2439). The estimate from one big
    benchmark gives n'; the score's SD with n' samples is half the SD with 4, measured over
    S = 4000 simulated benchmarks (relative MC error of each SD 1.1%: 4 of them on the ratio)."""
    a = b = 20.0
    between = a * b / ((a + b) ** 2 * (a + b + 1))
    within = 0.25 - between
    n, items = 4, 4000
    rng = np.random.default_rng(7)
    p = rng.beta(a, b, size=items)
    k = rng.binomial(n, p)
    sums, squares = k[None, :].astype(float), k[None, :].astype(float)   # 0/1: squares = sums
    spread = SampleSpread.estimate(sums, squares, np.full((1, items), n), np.array([0]))
    total = between + within / n
    se_total = total * math.sqrt(2 / items) * 2      # variance of a variance, with room
    assert spread.total == pytest.approx(total, abs=3 * se_total)
    assert spread.within == pytest.approx(within, abs=0.01)
    exact = within / (total / 4 - between)            # the formula at the true variances
    assert abs(spread.halve_samples - exact) < 0.25 * exact
    assert spread.within_share == pytest.approx(within / n / total, abs=0.05)
    S, T = 4000, 100
    sd_n = _sampled(rng, T, n, a, b, S).std(ddof=1)
    sd_half = _sampled(rng, T, int(math.ceil(exact)), a, b, S).std(ddof=1)
    tolerance = 4 * math.sqrt(2) / math.sqrt(2 * S) * 0.5
    assert abs(sd_half / sd_n - 0.5) < tolerance + 0.01    # 0.01: n' rounded up
    # the items' own spread dominating: no number of samples halves it
    wide = SampleSpread.estimate(np.array([[0.0, 4.0] * 50]), np.array([[0.0, 4.0] * 50]),
                                 np.full((1, 100), 4), np.array([0]))
    assert wide.halve_samples is None and "only more items can" in wide.sentence()
