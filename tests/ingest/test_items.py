"""``--items``: per-item results of many models on the same items (benchmark and LLM boards).

References: pandas' group-by mean for the scores, the cluster-robust variance of a mean for the
grouped bootstrap's SE (exact for equal clusters: the bootstrap variance of a sum of G cluster
totals drawn with replacement is the sum of their squared deviations, CR0), and the plain
variance of a mean without clusters. Tolerance: an SD estimated from R replicates has a relative
Monte Carlo SE of about 1 / sqrt(2 (R - 1)); a test allows 3 of them.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from leaderboard.cli import main
from leaderboard.errors import InputError
from leaderboard.ingest.items import read_items
from tests.page_words import check_first_screen

R = 2000


def _results(models=12, items=600, per_cluster=6, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    skill = np.linspace(1.2, 0.2, models)
    hard = np.repeat(rng.normal(0, 1, items // per_cluster), per_cluster)  # clusters share it
    p = 1 / (1 + np.exp(-(skill[:, None] - hard[None, :])))
    correct = (rng.random(p.shape) < p).astype(int)
    return pd.DataFrame({"model": np.repeat([f"m{k}" for k in range(models)], items),
                         "item": np.tile([f"q{i}" for i in range(items)], models),
                         "correct": correct.ravel(),
                         "passage": np.tile(np.arange(items) // per_cluster, models)})


def _run(tmp_path, frame, *extra) -> tuple[int, dict]:
    path = tmp_path / "results.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "r.json"
    code = main(["analyze", "--items", str(path), "--value-col", "correct", "--replicates",
                 str(R), "--quiet", "-o", str(tmp_path / "r.html"), "--json", str(out), *extra])
    return code, (json.loads(out.read_text(encoding="utf-8")) if code == 0 else {})


def test_scores_equal_a_group_by_and_grouped_ses_equal_the_cluster_robust_formula(tmp_path):
    frame = _results()
    code, report = _run(tmp_path, frame, "--cluster-col", "passage")
    assert code == 0
    means = frame.groupby("model")["correct"].mean()
    entries = {e["team"]: e for e in report["entries"]}
    for name, mean in means.items():
        assert entries[name]["score"] == pytest.approx(mean, abs=1e-12)
    n = frame["item"].nunique()
    tolerance = 3 / math.sqrt(2 * (R - 1))
    ratios = []
    for name, rows in frame.groupby("model"):
        totals = rows.groupby("passage")["correct"].sum().to_numpy(dtype=float)
        cr0 = math.sqrt(((totals - totals.mean()) ** 2).sum()) / n
        ratios.append(entries[name]["sd"] / cr0)
    assert all(abs(r - 1) < tolerance for r in ratios), ratios
    # ignoring the clusters would understate the noise: items of a passage move together
    code, plain = _run(tmp_path, frame)
    sd_plain = np.array([e["sd"] for e in plain["entries"]])
    sd_grouped = np.array([entries[e["team"]]["sd"] for e in plain["entries"]])
    assert (sd_grouped > sd_plain).mean() > 0.8


def test_plain_bootstrap_se_is_the_se_of_a_mean(tmp_path):
    frame = _results(models=6, items=900, per_cluster=1, seed=2)
    code, report = _run(tmp_path, frame)
    tolerance = 3 / math.sqrt(2 * (R - 1))
    for e in report["entries"]:
        values = frame.loc[frame["model"] == e["team"], "correct"].to_numpy(dtype=float)
        se = values.std(ddof=0) / math.sqrt(values.size)
        assert abs(e["sd"] / se - 1) < tolerance


def test_missing_items_shrink_the_common_set_and_disagreeing_repeats_reject_that_model(
        tmp_path):
    """Issue 26: a model missing an item is analysed on the items every model has; a pair given
    twice with another value rejects that model only, naming the item."""
    frame = _results(models=5, items=120)
    frame = frame.drop(index=frame.index[(frame["model"] == "m1") & (frame["item"] == "q7")])
    twice = frame[(frame["model"] == "m3") & (frame["item"] == "q2")]
    frame = pd.concat([frame, twice.assign(correct=1 - twice["correct"])])
    code, report = _run(tmp_path, frame)
    assert code == 0
    files = {f["team"]: f for f in report["files"]}
    assert files["m1"]["status"] == "ok"
    assert files["m3"]["status"] == "rejected" and "different values on 1 item (q2:" in \
        files["m3"]["reason"]
    scored = sorted(e["team"] for e in report["entries"] if e["score"] is not None)
    assert scored == ["m0", "m1", "m2", "m4"]
    assert report["items"]["items_used"] == 119 and "q7" not in report["items"]["used"]
    assert report["items"]["shrinkers"] == [{"model": "m1", "items_gained": 1}]
    assert sum(f["rows"] for f in report["files"]) == len(frame)   # every row accounted for


@pytest.mark.parametrize("edit,words", [
    (lambda f: f.assign(correct=f["correct"].astype(object).where(f.index != 9, "maybe")),
     "column 'correct': 1 row is not a number (line 11)"),
    (lambda f: f.assign(passage=f["passage"].where(f.index != 130, 99)),
     "item q10 is in cluster 99 here and 1 on its first line"),
    (lambda f: f.rename(columns={"item": "question"}), "column 'item' (--item-col) not found"),
])
def test_bad_tables_are_one_line_naming_line_and_column(tmp_path, capsys, edit, words):
    code, _ = _run(tmp_path, edit(_results(models=2, items=120)), "--cluster-col", "passage")
    err = capsys.readouterr().err
    assert code == 2 and words in err and err.count("\n") == 1 and "Traceback" not in err


def test_items_take_the_mean_metric_only(tmp_path, capsys):
    code, _ = _run(tmp_path, _results(models=2, items=60), "--metric", "auc")
    assert code == 2 and "--metric mean" in capsys.readouterr().err


def test_parquet_reads_like_csv(tmp_path):
    pytest.importorskip("pyarrow")
    frame = _results(models=4, items=60)
    frame.to_parquet(tmp_path / "r.parquet")
    solution, models = read_items(tmp_path / "r.parquet", value_col="correct")
    frame.to_csv(tmp_path / "r.csv", index=False)
    solution_csv, models_csv = read_items(tmp_path / "r.csv", value_col="correct")
    assert list(solution.ids) == list(solution_csv.ids)
    for a, b in zip(models.scored, models_csv.scored):
        np.testing.assert_array_equal(a.prediction, b.prediction)


def test_a_damaged_parquet_is_one_line(tmp_path):
    (tmp_path / "r.parquet").write_bytes(b"PAR1 not really")
    with pytest.raises(InputError, match="r.parquet"):
        read_items(tmp_path / "r.parquet")


# --- categories ------------------------------------------------------------------------------------

def _with_subjects(frame: pd.DataFrame, subjects: int = 4) -> pd.DataFrame:
    item = frame["item"].str[1:].astype(int)
    return frame.assign(subject="s" + ((item // 6) % subjects).astype(str))   # clusters nested


def test_category_scores_are_group_by_means_and_the_macro_mean_their_mean(tmp_path):
    frame = _with_subjects(_results())
    code, report = _run(tmp_path, frame, "--cluster-col", "passage", "--category-col", "subject")
    assert code == 0
    cats = report["categories"]
    assert cats["per_category_alpha"] == pytest.approx(0.05 / 4)
    means = frame.groupby(["subject", "model"])["correct"].mean()
    for row in cats["per_category"]:
        assert row["score"] == pytest.approx(means[(row["category"], row["team"])], abs=1e-12)
        assert row["ci_low"] <= row["score"] <= row["ci_high"]
    macro = means.groupby("model").mean()
    for row in cats["macro_mean"]:
        assert row["score"] == pytest.approx(macro[row["team"]], abs=1e-12)
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert 'id="categories"' in html and "98.8% interval" in html
    check_first_screen(html, "items with categories")   # issue 43: at most 75 words first


def test_category_intervals_option_chooses_what_the_page_shows(tmp_path, capsys):
    """--category-intervals (issue 25 item 5): the page's per-category intervals and its words
    follow the choice, the JSON says which and holds both; without --category-col it is refused."""
    frame = _with_subjects(_results(models=4, items=240))
    import re

    for choice in ("marginal", "simultaneous"):
        code, report = _run(tmp_path, frame, "--category-col", "subject",
                            "--category-intervals", choice)
        assert code == 0 and report["categories"]["shown_intervals"] == choice
        html = (tmp_path / "r.html").read_text(encoding="utf-8")
        lead = report["categories"]["per_category"][0]
        assert lead["ci_sim_low"] < lead["ci_low"] and lead["ci_high"] < lead["ci_sim_high"]
        low, high = (("ci_sim_low", "ci_sim_high") if choice == "simultaneous"
                     else ("ci_low", "ci_high"))
        table = html[html.index('<table class="cats">'):]
        first = re.search(r"<td>([-\d.]+) \u2013 ([-\d.]+)</td>", table)   # the first category's
        assert float(first[1]) == pytest.approx(lead[low], abs=1e-5)
        assert float(first[2]) == pytest.approx(lead[high], abs=1e-5)
        said = {"marginal": "they do not all hold together",
                "simultaneous": "hold together with probability at least 95%"}[choice]
        assert f"The intervals shown are {choice}" in html and said in html
        head = {"marginal": "98.8% interval (each)", "simultaneous": "95% interval (all at once)"}
        assert f"<th>{head[choice]}</th>" in html
    code, _ = _run(tmp_path, frame, "--category-intervals", "simultaneous")
    err = capsys.readouterr().err
    assert code == 2 and "needs --category-col" in err and err.count("\n") == 1


def test_equal_models_are_not_split_in_any_category_beyond_alpha():
    """Familywise: with every model equally good in every category, the chance that some
    category's tiers separate them is at most alpha (+ 3 binomial SEs over the boards)."""
    from leaderboard.pipelines.categories import category_results
    from leaderboard.metrics import get_metric

    rng = np.random.default_rng(7)
    boards, models, items, alpha = 120, 4, 500, 0.05
    categories = np.repeat([f"c{k}" for k in range(5)], items // 5)
    split = 0
    for b in range(boards):
        values = (rng.random((models, items)) < 0.7).astype(float)
        result = category_results(get_metric("mean"), values, [f"m{k}" for k in range(models)],
                                  categories, alpha=alpha, replicates=400, seed=b)
        split += bool((result.table["tier"] > 1).any())
    assert split / boards <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / boards)


def test_an_item_in_two_categories_is_one_line(tmp_path, capsys):
    frame = _with_subjects(_results(models=2, items=120))
    bad = frame.assign(subject=frame["subject"].where(frame.index != 125, "s3"))
    code, _ = _run(tmp_path, bad, "--category-col", "subject")
    err = capsys.readouterr().err
    assert code == 2 and "is in category s3 here" in err and err.count("\n") == 1


# --- predictions with a target per item ---------------------------------------------------------

def test_predictions_with_a_target_are_scored_by_the_metric(tmp_path, capsys):
    from sklearn.metrics import log_loss, roc_auc_score

    rng = np.random.default_rng(3)
    items = 400
    y = rng.integers(0, 2, items)
    rows = []
    for k, skill in enumerate((1.5, 1.0, 0.3)):
        p = 1 / (1 + np.exp(-(skill * (2 * y - 1) + rng.normal(0, 1, items))))
        rows.append(pd.DataFrame({"model": f"m{k}", "item": [f"q{i}" for i in range(items)],
                                  "truth": y, "prob": p}))
    frame = pd.concat(rows)
    path = tmp_path / "preds.csv"
    frame.to_csv(path, index=False)
    for metric, reference in (("auc", roc_auc_score), ("logloss", log_loss)):
        out = tmp_path / f"{metric}.json"
        assert main(["analyze", "--items", str(path), "--target-col", "truth", "--value-col",
                     "prob", "--metric", metric, "--replicates", "300", "--quiet",
                     "-o", str(tmp_path / "r.html"), "--json", str(out)]) == 0
        entries = json.loads(out.read_text(encoding="utf-8"))["entries"]
        for e in entries:
            part = frame[frame["model"] == e["team"]]
            assert e["score"] == pytest.approx(reference(part["truth"], part["prob"]), abs=1e-12)
    bad = frame.reset_index(drop=True)
    bad.loc[items + 5, "truth"] = 1 - bad.loc[items + 5, "truth"]   # m1 disagrees on q5
    bad.to_csv(path, index=False)
    code = main(["analyze", "--items", str(path), "--target-col", "truth", "--value-col", "prob",
                 "--metric", "auc", "--quiet", "-o", str(tmp_path / "r.html")])
    err = capsys.readouterr().err
    assert code == 2 and "is in target" in err and "belongs to one target" in err


def test_win_rate_interval_holds_the_true_win_rate_for_every_model_at_once():
    """Known truth: per-category accuracies, two models tied in one category. Over 100 boards
    the true win rates (ties one half) lie in their intervals for every model at once in at
    least 1 - alpha - 3 binomial SEs of boards (the projection is conservative), and the
    observed win rate always lies in its own interval."""
    from leaderboard.metrics import get_metric
    from leaderboard.pipelines.categories import category_results

    rng = np.random.default_rng(12)
    truth = np.array([[0.80, 0.70, 0.60, 0.75], [0.78, 0.72, 0.65, 0.70],
                      [0.70, 0.70, 0.50, 0.60], [0.60, 0.66, 0.62, 0.64]])   # (models, cats)
    per_cat, boards, alpha = 300, 100, 0.05
    categories = np.repeat([f"c{k}" for k in range(4)], per_cat)
    p = np.repeat(truth, per_cat, axis=1)
    t = truth.T                                                              # (cats, models)
    wins = (t[:, :, None] > t[:, None, :]).sum(axis=(0, 2))
    ties = (t[:, :, None] == t[:, None, :]).sum(axis=(0, 2)) - 4
    true_rate = dict(zip(["m0", "m1", "m2", "m3"], (wins + 0.5 * ties) / 12))
    held = 0
    for b in range(boards):
        values = (rng.random(p.shape) < p).astype(float)
        rate = category_results(get_metric("mean"), values, list(true_rate), categories,
                                alpha=alpha, replicates=300, seed=b).aggregates["win_rate"]
        assert ((rate["ci_low"] <= rate["score"]) & (rate["score"] <= rate["ci_high"])).all()
        held += all(r.ci_low <= true_rate[r.team] <= r.ci_high for r in rate.itertuples())
    assert held / boards >= 1 - alpha - 3 * math.sqrt(alpha * (1 - alpha) / boards)
