"""``leaderboard compare``: exit 0 when the candidate is shown better, 1 when not, 2 on bad input.

References: DeLong's paired variance for the SD of an AUC difference; simulations with known
truth for the gate's level (two equally good models) and power (a clearly better one). A rate
over B simulated test sets may exceed its target by 3 binomial SEs before a test fails; an SD
from R replicates may differ by 3 of its Monte Carlo SEs, sd sqrt((kurtosis - 1) / (4 R)).
"""
from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

import leaderboard
from leaderboard.cli import main
from leaderboard.pipelines.compare import compare_pair
from leaderboard.metrics import get_metric
from leaderboard.noise.bootstrap import paired_bootstrap
from oracles.delong import delong, delong_paired_test


def _files(tmp_path, n=800, skills=(0.6, 1.4), seed=0, name="cand"):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    pd.DataFrame({"id": range(n), "target": y}).to_csv(tmp_path / "solution.csv", index=False)
    paths = []
    for label, skill in zip(("base", name), skills):
        path = tmp_path / f"{label}.csv"
        pd.DataFrame({"id": range(n), "target": y * skill + rng.normal(0, 1, n)}).to_csv(
            path, index=False)
        paths.append(str(path))
    return paths


def _compare(tmp_path, base, cand, *extra):
    out = tmp_path / "c.json"
    code = main(["compare", "--solution", str(tmp_path / "solution.csv"), "--metric", "auc",
                 "--baseline", base, "--candidate", cand, "--quiet", "--json", str(out),
                 "--replicates", "1000", *extra])
    return code, (json.loads(out.read_text(encoding="utf-8")) if out.exists() else None)


def test_known_answers_exit_zero_one_and_two(tmp_path, capsys):
    base, cand = _files(tmp_path)
    code, data = _compare(tmp_path, base, cand)
    assert code == 0 and data["better"] and data["lower"] > 0 and data["difference"] > 0.1
    (tmp_path / "c.json").unlink()
    code, data = _compare(tmp_path, cand, base)          # reversed: worse, not shown better
    assert code == 1 and not data["better"] and data["difference"] < 0
    code, data = _compare(tmp_path, base, base)          # identical predictions
    assert code == 1 and data["identical"] and data["sd"] == 0
    code, _ = _compare(tmp_path, base, str(tmp_path / "missing.csv"))
    err = capsys.readouterr().err
    assert code == 2 and "missing.csv" in err and err.count("\n") == 1


def test_lower_is_better_metrics_orient_the_difference(tmp_path):
    base, cand = _files(tmp_path)
    for path in (base, cand):   # probabilities for log loss: the better model is less wrong
        frame = pd.read_csv(path)
        frame["target"] = 1 / (1 + np.exp(-frame["target"]))
        frame.to_csv(path, index=False)
    out = tmp_path / "l.json"
    code = main(["compare", "--solution", str(tmp_path / "solution.csv"), "--metric", "logloss",
                 "--baseline", base, "--candidate", cand, "--quiet", "--json", str(out)])
    data = json.loads(out.read_text(encoding="utf-8"))
    assert code == 0 and data["candidate_score"] < data["baseline_score"] and data["difference"] > 0
    assert (data["baseline"], data["candidate"]) == (base, cand)   # names apart from scores


def test_bootstrap_sd_of_an_auc_difference_matches_delong():
    """Measured over 40 seeds of 2000 replicates on this data: mean ratio to DeLong 1.003, its
    spread 1.57% (theory for independent replicates: 1.58%); one seed of 16000 here."""
    rng = np.random.default_rng(4)
    n, replicates = 1500, 16000
    y = rng.integers(0, 2, n)
    shared = rng.normal(0, 1, n)
    a = y * 1.0 + shared + rng.normal(0, 0.8, n)
    b = y * 1.1 + shared + rng.normal(0, 0.8, n)
    result = compare_pair(get_metric("auc"), y, a, b, replicates=replicates, seed=0)
    exact = delong_paired_test(delong(y, np.vstack([a, b])), 0, 1, "greater")
    assert result.difference == pytest.approx(float(exact.difference), abs=1e-12)
    # The Monte Carlo SE of an SD from R replicates, sd * sqrt((kurtosis - 1) / (4 R)), with the
    # kurtosis of these very replicates (the differences are not quite normal).
    boot = paired_bootstrap(get_metric("auc").impl, y, [a, b], replicates=replicates, seed=0)
    diffs = boot.replicates[1] - boot.replicates[0]
    assert result.sd == pytest.approx(diffs.std(ddof=1), rel=1e-12)
    z = (diffs - diffs.mean()) / diffs.std()
    mc_se = result.sd * math.sqrt(((z ** 4).mean() - 1) / (4 * replicates))
    assert abs(result.sd - float(exact.se)) < 3 * mc_se


def test_gate_level_and_power_by_simulation():
    """Equal models pass in at most alpha + 3 SEs of test sets; a clearly better one nearly
    always (accuracy, 500 rows, both models 80% right vs 80% and 88%)."""
    metric, trials, alpha = get_metric("accuracy"), 300, 0.05
    rng = np.random.default_rng(9)
    passed_equal = passed_better = 0
    for k in range(trials):
        y = rng.integers(0, 2, 500)
        a = np.where(rng.random(500) < 0.80, y, 1 - y)
        b = np.where(rng.random(500) < 0.80, y, 1 - y)
        c = np.where(rng.random(500) < 0.88, y, 1 - y)
        passed_equal += compare_pair(metric, y, a, b, replicates=400, seed=k).better
        passed_better += compare_pair(metric, y, a, c, replicates=400, seed=k).better
    assert passed_equal / trials <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / trials)
    assert passed_better / trials >= 0.9


def test_items_and_markdown_escape_names(tmp_path):
    rng = np.random.default_rng(1)
    items = 1500
    rows = []
    for name, p in (("base|<b>", 0.6), ("cand [x](y)", 0.7)):
        rows.append(pd.DataFrame({"model": name, "item": range(items),
                                  "value": (rng.random(items) < p).astype(int)}))
    pd.concat(rows).to_csv(tmp_path / "r.csv", index=False)
    code = main(["compare", "--items", str(tmp_path / "r.csv"), "--baseline", "base|<b>",
                 "--candidate", "cand [x](y)", "--quiet", "--markdown", str(tmp_path / "c.md")])
    text = (tmp_path / "c.md").read_text(encoding="utf-8")
    assert code == 0 and text.startswith("✅ **Shown better**")
    assert "<b>" not in text and "[x](y)" not in text and "base\\|\\<b\\>" in text
    code = main(["compare", "--items", str(tmp_path / "r.csv"), "--baseline", "nobody",
                 "--candidate", "cand [x](y)", "--quiet"])
    assert code == 2


def test_items_on_different_item_sets_compare_the_pair_on_the_items_both_have(tmp_path):
    """Issue 26: a third model on other items neither shrinks the pair's items nor is needed;
    the pair's difference is the mean over the items both have (pandas)."""
    rng = np.random.default_rng(2)
    frame = pd.concat([pd.DataFrame({"model": "a", "item": range(0, 600),
                                     "value": (rng.random(600) < 0.6).astype(int)}),
                       pd.DataFrame({"model": "b", "item": range(100, 700),
                                     "value": (rng.random(600) < 0.6).astype(int)}),
                       pd.DataFrame({"model": "c", "item": range(650, 900), "value": 1})])
    frame.to_csv(tmp_path / "r.csv", index=False)
    assert main(["compare", "--items", str(tmp_path / "r.csv"), "--baseline", "a",
                 "--candidate", "b", "--quiet", "--replicates", "200", "--metric", "pass@1",
                 "--json",
                 str(tmp_path / "c.json")]) in (0, 1)
    data = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
    shared = frame[frame["item"].between(100, 599)].groupby("model")["value"].mean()
    assert data["candidate_score"] == pytest.approx(shared["b"], abs=1e-12)
    assert data["baseline_score"] == pytest.approx(shared["a"], abs=1e-12)


def test_items_give_the_pairs_own_resolution(tmp_path, capsys):
    """Issue 40: compare --items says how much pairing sharpens this pair (the SD of the paired
    difference against the SD were the two scored independently), the items on which they
    differ and the items that would separate them at this gap; in the JSON (schema) and on the
    terminal. References: the replicates' own SDs and a pandas count."""
    rng = np.random.default_rng(5)
    n = 400
    easy = rng.random(n)
    frame = pd.concat([pd.DataFrame({"model": m, "item": range(n),
                                     "value": (0.7 * easy + 0.3 * rng.random(n) > t) * 1})
                       for m, t in (("base", 0.42), ("cand", 0.38))], ignore_index=True)
    frame.to_csv(tmp_path / "r.csv", index=False)
    out = tmp_path / "g.json"
    main(["compare", "--items", str(tmp_path / "r.csv"), "--baseline", "base", "--candidate",
          "cand", "--replicates", "400", "--json", str(out)])
    assert "resolution: SD of the paired difference" in capsys.readouterr().out
    data = json.loads(out.read_text(encoding="utf-8"))
    res = data["resolution"]
    wide = frame.pivot(index="item", columns="model", values="value")
    assert res["n_eff"] == int((wide["base"] != wide["cand"]).sum())
    assert res["models"] == ["candidate", "baseline"] and res["current"] == n
    assert res["ratio"] < 0.8 and res["correlation"] > 0.4   # shared difficulty: sharper
    gate = leaderboard.compare(baseline="base", candidate="cand", items=frame, replicates=400)
    pair = gate.comparison.resolution
    assert pair.sd_diff == pytest.approx(gate.comparison.sd, rel=1e-9)
    jsonschema = pytest.importorskip("jsonschema")
    from leaderboard.schema import SCHEMA_DIR

    schema = json.loads((SCHEMA_DIR / "compare.schema.json").read_text(encoding="utf-8"))
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(data)) == []
