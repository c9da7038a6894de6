"""Per-item results as benchmarks keep them, end to end (issue 26 items 2-4): two snapshots of a
benchmark in one file, pairwise comparisons on shared items, repeated samples, 0/1 words and
names, from the command line and the Python API.

References: pandas means over the common / own / shared items; the schema of the JSON; for the
pairwise intervals' simultaneous guarantee, null benchmarks (every model equally good) where the
share with any pair declared different must stay at or below alpha, within its Monte Carlo error.
"""
from __future__ import annotations

import html
import json
import math

import numpy as np
import pandas as pd
import pytest

import leaderboard
from leaderboard.cli import main
from leaderboard.errors import InputError
from leaderboard.pipelines.item_pairs import pairwise_on_shared
from tests.ingest.test_item_sets import two_snapshots

R = 200


def _cli(tmp_path, frame, *extra) -> tuple[int, dict]:
    path = tmp_path / "results.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "r.json"
    code = main(["analyze", "--items", str(path), "--replicates", str(R), "-o",
                 str(tmp_path / "r.html"), "--json", str(out), *extra])
    return code, (json.loads(out.read_text(encoding="utf-8")) if code == 0 else {})


def _schema_errors(report: dict) -> list[str]:
    jsonschema = pytest.importorskip("jsonschema")
    from leaderboard.schema import SCHEMA_DIR

    schema = json.loads((SCHEMA_DIR / "analyze.schema.json").read_text(encoding="utf-8"))
    return [f"{list(e.path)}: {e.message}"
            for e in jsonschema.Draft202012Validator(schema).iter_errors(report)]


def _binary(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.drop_duplicates(["model", "item"]).assign(
        v=frame["resolved"].str.lower().eq("true").astype(float))


def test_two_snapshots_analyse_all_but_the_clashing_model_and_say_which_items(tmp_path, capsys):
    frame = two_snapshots()
    code, report = _cli(tmp_path, frame, "--value-col", "resolved", "--metric", "resolved")
    captured = capsys.readouterr()
    assert code == 0 and not _schema_errors(report)
    entries = {e["team"]: e for e in report["entries"]}
    assert sorted(entries) == sorted({"old0", "old1", "old2", "both", "new0", "new1", "short"})
    used = report["items"]["used"]
    assert report["items"]["items_used"] == len(used) == 200 and report["items"]["policy"] == \
        "common"
    assert set(used) == {f"p{i}" for i in range(100, 300)}
    shared = _binary(frame)
    shared = shared[shared["item"].isin(used)].groupby("model")["v"].mean()
    for name, entry in entries.items():
        assert entry["score"] == pytest.approx(shared[name], abs=1e-12)
    assert report["metric"] == "resolved" and report["items"]["merged_duplicates"] == ["both"]
    clash = next(f for f in report["files"] if f["team"] == "clash")
    assert clash["status"] == "rejected" and "p150, p151, p152" in clash["reason"]
    # said on stderr and on the page, not only in the JSON
    assert "200 of the file's 400 items are shared" in captured.err
    assert "clash: listed twice with different values on 3 items" in captured.err
    page = html.unescape((tmp_path / "r.html").read_text(encoding="utf-8"))
    assert "200 of the file's 400 items are shared" in page


def test_pairwise_scores_each_model_on_its_own_items_and_each_pair_on_shared_ones(tmp_path):
    frame = two_snapshots()
    result = leaderboard.analyze_items(frame, value_col="resolved", metric="pass@1",
                                       items_policy="pairwise", replicates=R)
    values = _binary(frame)
    own = values.groupby("model")["v"].mean()
    table = result.table.set_index("team")
    for name, score in table["score"].items():
        assert score == pytest.approx(own[name], abs=1e-12)
    pairs = result.analysis.item_pairs
    wide = values.pivot(index="model", columns="item", values="v")
    for a, b, n, d in zip(pairs.first, pairs.second, pairs.shared, pairs.difference):
        x, y = wide.loc[pairs.names[a]], wide.loc[pairs.names[b]]
        both = x.notna() & y.notna()
        assert n == both.sum() and d == pytest.approx((x[both] - y[both]).mean(), abs=1e-12)
    verdict = pairs.shown_better()
    for m in range(len(pairs.names)):   # rank sets: 1 + shown better, K - shown worse
        above = ((pairs.second == m) & (verdict > 0)).sum() + ((pairs.first == m) &
                                                              (verdict < 0)).sum()
        below = ((pairs.first == m) & (verdict > 0)).sum() + ((pairs.second == m) &
                                                             (verdict < 0)).sum()
        assert pairs.rank_low[m] == 1 + above and pairs.rank_high[m] == len(pairs.names) - below
    report = json.loads(result.to_json())
    assert not _schema_errors(report)
    assert report["items"]["pairwise"]["pairs"][0]["shared_items"] == int(pairs.shared[0])
    words = " ".join(f.message for f in result.analysis.flags)
    assert "its mean over its own items" in words and "Each pair on the items both have" in words


def test_pairwise_intervals_hold_for_all_pairs_at_once_on_null_benchmarks():
    """Five equally good models on ragged item sets (each lacks a random fifth of 300 items):
    any pair declared different is a family-wise error. 60 benchmarks: the error rate's Monte
    Carlo SE at 0.05 is 0.028; allowed: 0.05 + 3 SE."""
    errors, sims = 0, 60
    for seed in range(sims):
        rng = np.random.default_rng(seed)
        values = (rng.random((5, 300)) < 0.6).astype(float)
        values[rng.random((5, 300)) < 0.2] = np.nan
        table = pairwise_on_shared(values, list("abcde"), replicates=R, seed=seed, alpha=0.05,
                                   higher_is_better=True)
        errors += bool((table.shown_better() != 0).any())
    assert errors / sims <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / sims)


def test_samples_are_averaged_and_their_share_of_the_noise_reported():
    rng = np.random.default_rng(4)
    p = rng.beta(2, 2, size=120)
    frame = pd.DataFrame([(m, i, g, int(rng.random() < min(1, p[i] + 0.1 * k)))
                          for k, m in enumerate(["a", "b", "c"]) for i in range(120)
                          for g in range(5)], columns=["model", "item", "gen", "pass"])
    result = leaderboard.analyze_items(frame, value_col="pass", sample_col="gen",
                                       metric="pass@1", replicates=R)
    report = json.loads(result.to_json())
    assert not _schema_errors(report)
    means = frame.groupby("model")["pass"].mean()
    for e in report["entries"]:
        assert e["score"] == pytest.approx(means[e["team"]], abs=1e-12)
    samples = report["items"]["samples"]
    assert samples["per_item_min"] == samples["per_item_max"] == 5
    assert 0 < samples["within_share"] < 1
    assert any(f["kind"] == "item_samples" and "(5 per model and item)" in f["message"]
               for f in report["flags"])


def test_bad_inputs_are_one_line_errors_naming_the_line(tmp_path, capsys):
    frame = pd.DataFrame({"model": np.repeat(["a", "b"], 20), "item": np.tile(range(20), 2),
                          "value": [1, 0] * 19 + [0.5, 1]})
    code, _ = _cli(tmp_path, frame, "--metric", "accuracy")
    err = capsys.readouterr().err
    assert code == 2 and "results.csv:40: column 'value'" in err and "is the mean of 0/1 values" in err
    assert err.count("\n") == 1
    code, _ = _cli(tmp_path, frame, "--items-policy", "pairwise", "--category-col", "item")
    assert code == 2 and "cannot be combined with --category-col" in capsys.readouterr().err
    few = pd.DataFrame({"model": ["a"] * 50 + ["b"] * 50 + ["c"] * 5,
                        "item": list(range(50)) * 2 + list(range(5)), "value": 1})
    with pytest.raises(InputError, match=r"share only 5 of the file's 50 items; without one "
                       r"model the shared set would grow most for c \(\+45\): only 5 items.*"
                       r"items_policy='drop-models' \(the 2 models that have all 50 items\)"):
        leaderboard.analyze_items(few, replicates=R, items_policy="drop-items")
    # the default keeps the larger complete table: a and b on all 50 items, c left out, said so
    kept = leaderboard.analyze_items(few, replicates=R)
    assert kept.table["team"].tolist() == ["a", "b"] and kept.analysis.items.dropped == "models"
    with pytest.raises(InputError, match="items_policy= must be one of 'common', 'drop-items', "
                       "'drop-models', 'pairwise'"):
        leaderboard.analyze_items(frame, items_policy="union")


def test_pairwise_table_does_not_depend_on_how_pairs_are_chunked(monkeypatch):
    import leaderboard.pipelines.item_pairs as item_pairs

    rng = np.random.default_rng(5)
    values = (rng.random((8, 120)) < 0.6).astype(float)
    values[rng.random(values.shape) < 0.3] = np.nan
    whole = pairwise_on_shared(values, list("abcdefgh"), replicates=R, seed=3, alpha=0.05,
                               higher_is_better=True)
    monkeypatch.setattr(item_pairs, "CHUNK_CELLS", 5 * 120)       # 5 pairs at a time
    chunked = pairwise_on_shared(values, list("abcdefgh"), replicates=R, seed=3, alpha=0.05,
                                 higher_is_better=True)
    for field in ("difference", "low", "high", "shared", "rank_low", "rank_high"):
        assert np.array_equal(getattr(whole, field), getattr(chunked, field), equal_nan=True)
    assert item_pairs.too_many_pairs(151, 10).startswith("it compares up to 150 models")
    assert "more bootstrap work" in item_pairs.too_many_pairs(150, 10_000)


def helm_matrix(models: int = 91, scenarios: int = 10, seed: int = 0) -> pd.DataFrame:
    """A look-alike of a HELM leaderboard matrix (issue 40): models by scenarios, each cell a
    continuous score, one model lacking one scenario."""
    rng = np.random.default_rng(seed)
    skill = rng.normal(0, 1, models)[:, None] + rng.normal(0, 0.5, (1, scenarios))
    score = 1 / (1 + np.exp(-(skill + rng.normal(0, 0.3, (models, scenarios)))))
    frame = pd.DataFrame({"model": np.repeat([f"org/model-{k}" for k in range(models)],
                                             scenarios),
                          "item": np.tile([f"scenario{j}" for j in range(scenarios)], models),
                          "value": score.ravel().round(4)})
    return frame.drop(index=(models - 1) * scenarios + 3)   # the last model lacks scenario3


def test_a_matrix_with_one_gap_keeps_90_of_91_models_on_all_10_items():
    result = leaderboard.analyze_items(helm_matrix(), replicates=R)
    a = result.analysis
    assert len(result.table) == 90 and len(a.items.used) == 10 and a.items.dropped == "models"
    assert a.items.dropped_models == (("org/model-90", 9),)
    gone = next(f for f in a.submissions.files if f.team == "org/model-90")
    # valid rows left out by the policy: set aside, not "rejected" (which means invalid)
    assert gone.status == "set aside" and "has 9 of the 10 items" in gone.reason
    from leaderboard.cli.summary import files_line
    assert files_line(a.submissions, len(result.table)) == (
        "models: 91 found, 90 scored, 0 rejected, 1 set aside")
    assert not [f for f in a.flags if f.kind == "models_rejected"]   # said once, as item_sets
    said = " ".join(f.message for f in a.flags if f.kind == "item_sets")
    assert "90 models x 10 items = 900 cells, against 91 x 9 = 819" in said
    data = result.to_dict()
    assert not _schema_errors(data) and data["items"]["cells_compared"] == {
        "dropping_items": {"models": 91, "items": 9}, "dropping_models": {"models": 90,
                                                                          "items": 10}}
    # every model on the 9 shared items, asked for: refused as too few, offering the other way
    with pytest.raises(InputError, match=r"only 9 items.*items_policy='drop-models' \(the 90 models that have "
                       r"all 10 items\)"):
        leaderboard.analyze_items(helm_matrix(), replicates=R, items_policy="drop-items")


def test_five_competitions_as_clusters_are_refused_with_the_analyses_the_data_can_carry():
    """MathArena's shape (issue 40): 5 competitions as clusters are too few to resample; the
    refusal offers the competitions as categories, or items one by one, each with its cost."""
    frame = pd.DataFrame({"model": np.repeat(["a", "b", "c"], 50),
                          "item": np.tile([f"q{k}" for k in range(50)], 3),
                          "competition": np.tile(np.repeat([f"comp{j}" for j in range(5)], 10), 3),
                          "value": np.tile([1, 0], 75)})
    with pytest.raises(InputError) as error:
        leaderboard.analyze_items(frame, cluster_col="competition", replicates=R)
    message = str(error.value)
    # the Python API's words name keyword arguments (the command line's name its options)
    assert "only 5 clusters" in message and "category_col= competition instead" in message
    assert "drop cluster_col=" in message and "\n" not in message
    assert len(leaderboard.analyze_items(frame, category_col="competition",
                                         replicates=R).table) == 3
