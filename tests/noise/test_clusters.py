"""Groups of items found, not assumed away (issue 25 item 3): an undeclared grouping column is
named on stderr, in the JSON's flags and assumptions and on the page, in `analyze` and in
`compare`; with few declared clusters the t(G-1) correction keeps the gate's level at alpha
(simulated null boards, Monte Carlo tolerance); clusters that cross categories are analysed."""
from __future__ import annotations

import html
import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from leaderboard.cli import main
from leaderboard.metrics import get_metric
from leaderboard.noise.clusters import ClusterCount, cluster_count
from leaderboard.pipelines.compare import compare_pair
from leaderboard.ingest.items import read_items


def _results(models=3, repos=12, per_repo=20, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    items = repos * per_repo
    rows = []
    for m in range(models):
        p = 0.5 + 0.05 * m
        for i in range(items):
            rows.append({"model": f"m{m}", "item": f"q{i}", "value": int(rng.random() < p),
                         "repo": f"r{i // per_repo}", "note": f"n{i}", "run": f"s{rng.integers(3)}"})
    return pd.DataFrame(rows)


def test_a_grouping_column_is_found_and_others_are_not(tmp_path):
    path = tmp_path / "r.csv"
    _results().to_csv(path, index=False)
    solution, _ = read_items(path)
    # 'note' is one per item (groups nothing), 'run' changes within an item: neither is a group
    assert solution.grouping_columns == (("repo", 12),)
    declared, _ = read_items(path, cluster_col="repo")
    assert declared.grouping_columns == ()


def test_analyze_names_the_grouping_column_everywhere(tmp_path, capsys):
    path = tmp_path / "r.csv"
    _results().to_csv(path, index=False)
    out = tmp_path / "r.json"
    assert main(["analyze", "--items", str(path), "--replicates", "200", "-o",
                 str(tmp_path / "r.html"), "--json", str(out)]) == 0
    words = "column 'repo' groups the items into 12 groups"
    assert words in capsys.readouterr().err
    data = json.loads(out.read_text(encoding="utf-8"))
    assert any(f["kind"] == "undeclared_groups" and words in f["message"]
               for f in data["flags"])
    items = {a["name"]: a for a in data["assumptions"]}["independent_items"]
    assert items["verdict"] == "doubtful" and "--cluster-col repo" in items["what_to_do"]
    assert words in html.unescape((tmp_path / "r.html").read_text(encoding="utf-8"))


def test_compare_names_it_and_declared_few_clusters_are_said(tmp_path, capsys):
    path = tmp_path / "r.csv"
    _results().to_csv(path, index=False)
    out = tmp_path / "c.json"
    main(["compare", "--items", str(path), "--baseline", "m0", "--candidate", "m2",
          "--replicates", "200", "--json", str(out), "--markdown", str(tmp_path / "c.md")])
    assert "column 'repo' groups the items into 12 groups" in capsys.readouterr().err
    data = json.loads(out.read_text(encoding="utf-8"))
    assert [f["kind"] for f in data["flags"]] == ["undeclared_groups"]
    markdown = (tmp_path / "c.md").read_text(encoding="utf-8").replace("\\", "")  # escapes
    assert "--cluster-col repo" in markdown
    main(["compare", "--items", str(path), "--baseline", "m0", "--candidate", "m2",
          "--cluster-col", "repo", "--replicates", "200", "--json", str(out)])
    data = json.loads(out.read_text(encoding="utf-8"))
    assert [f["kind"] for f in data["flags"]] == ["few_clusters"]
    assert data["assumptions"][0]["name"] == "independent_clusters"


def test_the_correction_stretches_by_the_t_ratio_and_vanishes_with_many_clusters():
    c = ClusterCount(12, 500, 0.46)
    assert c.factor(0.05, sides=1) == pytest.approx(
        math.sqrt(12 / 11) * 1.7958848187 / norm.ppf(0.95), rel=1e-6)     # t(11) 0.95 quantile
    assert cluster_count(np.repeat(np.arange(40), 5)).factor(0.05) == 1.0
    assert cluster_count(np.repeat(np.arange(40), 5)).few is False
    assert cluster_count(np.r_[np.zeros(100), np.arange(40).repeat(5)]).few   # one holds a third


def _null_board(rng, sizes, spread=0.5):
    """Two equally good models; each model's skill moves with the cluster (a repository it
    happens to know), so items of a cluster are related."""
    g = np.repeat(np.arange(len(sizes)), sizes)
    difficulty = rng.normal(0, 1, g.size)
    values = [(rng.random(g.size) < norm.cdf(0.3 + rng.normal(0, spread, len(sizes))[g]
                                              + difficulty)).astype(float) for _ in range(2)]
    return g.astype(str), values


@pytest.mark.parametrize("sizes", [[60] * 6, [230] + [25] * 11], ids=["6 equal", "12, one 46%"])
def test_few_clusters_keep_the_gates_level(sizes):
    """Null boards: the gate passes in at most alpha + 3 Monte Carlo SEs of them. Without the
    correction the same boards gave 10.3% (6 clusters) and 8.0% (12, one holding 46%) in the
    study behind leaderboard/noise/clusters.py."""
    rng = np.random.default_rng(1)
    boards, alpha = 300, 0.05
    passed = 0
    for k in range(boards):
        g, (a, b) = _null_board(rng, sizes)
        passed += compare_pair(get_metric("mean"), np.zeros(g.size), a, b, alpha=alpha,
                               replicates=400, seed=k, resample="grouped", groups=g).better
    assert passed / boards <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / boards)


def test_clusters_across_categories_are_analysed(tmp_path):
    frame = _results(models=2, repos=6, per_repo=20)
    frame["subject"] = "s" + (frame["item"].str[1:].astype(int) % 3).astype(str)  # crosses repos
    path = tmp_path / "r.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "r.json"
    assert main(["analyze", "--items", str(path), "--cluster-col", "repo", "--category-col",
                 "subject", "--replicates", "200", "--quiet", "-o", str(tmp_path / "r.html"),
                 "--json", str(out)]) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    means = frame.groupby(["subject", "model"])["value"].mean()
    for row in data["categories"]["per_category"]:
        assert row["score"] == pytest.approx(means[(row["category"], row["team"])], abs=1e-12)
        assert row["ci_low"] < row["score"] < row["ci_high"]


def test_a_hostile_column_name_is_escaped_everywhere(tmp_path, capsys):
    rng = np.random.default_rng(0)
    name = "<b>re\x1bpo"
    frame = pd.DataFrame({"model": np.repeat(["a", "b"], 40), "item": np.tile(range(40), 2),
                          "value": (rng.random(80) < 0.6) * 1, name: np.tile(np.arange(40) // 4, 2)})
    frame.to_csv(tmp_path / "r.csv", index=False)
    assert main(["analyze", "--items", str(tmp_path / "r.csv"), "--replicates", "200", "-o",
                 str(tmp_path / "r.html"), "--json", str(tmp_path / "r.json")]) == 0
    assert "\x1b" not in capsys.readouterr().err
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "<b>re" not in page and "&lt;b&gt;re" in page
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    items = {a["name"]: a for a in data["assumptions"]}["independent_items"]
    assert "\x1b" not in items["what_to_do"] + items["checked"]


def test_clusters_across_categories_keep_each_categorys_coverage():
    """Known truth: values mu_c + u_gc + e, each of 40 clusters holding items of all three
    categories (its effect u_gc drawn per category, so categories are independent and the
    boards' 3 coverages are 3 independent trials). Each category's interval, at alpha / 3 =
    5%, should hold mu_c in about 95% of trials (the percentile cluster bootstrap with 40
    clusters is about 1% short: its spread is the plug-in (G-1)/G one): at least 95% less 3
    binomial SEs. Resampling items alone (no clusters) should not.

    100 boards (150 until issue 27), so 300 trials: the floor, 95% less 3 binomial SEs of 300
    trials, is 91.2% (91.9% at 450). Measured at 100 boards: 92.7% grouped (92.9% at 150), and
    80.0% when the items are resampled alone (81.8% at 150), 8.7 SEs below the floor: a
    bootstrap that ignores the clusters fails the first assertion (checked by passing no groups
    to both), and one whose coverage is 88% or less fails it with probability above 95%."""
    from leaderboard.pipelines.categories import category_results

    rng = np.random.default_rng(5)
    boards, alpha, clusters, per = 100, 0.15, 40, 6
    g = np.repeat(np.arange(clusters), per)
    cats = np.tile(np.array(["x", "y", "z"]), clusters * per // 3)
    code = np.searchsorted(["x", "y", "z"], cats)
    mu = {"x": 0.0, "y": 0.5, "z": 1.0}
    held = {True: 0, False: 0}
    for b in range(boards):
        values = (np.vectorize(mu.get)(cats) + rng.normal(0, 1, (clusters, 3))[g, code]
                  + rng.normal(0, 0.5, g.size))[None, :]
        for grouped in (True, False):
            t = category_results(get_metric("mean"), values, ["m"], cats,
                                 groups=g.astype(str) if grouped else None, alpha=alpha,
                                 replicates=400, seed=b).table
            truth = t["category"].map(mu)
            held[grouped] += int(((t["ci_low"] <= truth) & (truth <= t["ci_high"])).sum())
    trials, target = 3 * boards, 1 - alpha / 3
    tolerance = 3 * math.sqrt(target * (1 - target) / trials)
    assert held[True] / trials >= target - tolerance, held
    assert held[False] / trials < target - tolerance, held
