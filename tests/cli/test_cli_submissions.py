"""Submissions mode end to end: `leaderboard analyze --solution S --submissions P`."""
from __future__ import annotations

import json
import zipfile

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import log_loss, roc_auc_score

from leaderboard.cli import main
from tests.conftest import fewest_null_boards


def _run(tmp_path, *args, replicates: int = 100):
    """The command line in-process. 100 replicates (the fewest allowed) where a test checks files,
    point scores, determinism or options; more where it checks the tiers."""
    out_html, out_json = tmp_path / "r.html", tmp_path / "r.json"
    code = main(["analyze", *args, "-o", str(out_html), "--json", str(out_json), "--quiet",
                 "--replicates", str(replicates)])
    data = json.loads(out_json.read_text(encoding="utf-8")) if code == 0 else None
    return code, data, out_html


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("example")
    code, data, html = _run(tmp, "--example", "submissions")
    assert code == 0
    return data, html.read_text(encoding="utf-8")


def test_example_accounts_for_every_file(example):
    data, _ = example
    assert data["mode"] == "submissions"
    files = data["files"]
    assert len(files) == 45                                   # 44 CSVs and a README
    status = pd.Series([f["status"] for f in files]).value_counts().to_dict()
    assert status == {"ok": 40, "rejected": 4, "skipped": 1}
    ranked = data["entries"]                     # entries: the scored ones; files: every file
    assert len(ranked) == 40 and all(e["rank"] is not None for e in ranked)
    scored = {f["file"] for f in files if f["status"] == "ok"}
    assert all(e["file"].endswith(".csv") and e["file"] in scored for e in ranked)
    reasons = {f["file"]: f["reason"] for f in files if f["status"] != "ok"}
    assert len(reasons) == 5 and all(reasons.values())
    assert "duplicate id 10100 on lines 101 and 102" in reasons["submissions/copy-paste error.csv"]
    assert "missing 1 id" in reasons["submissions/late night fix.csv"]
    assert "line 43" in reasons["submissions/uncalibrated_boost.csv"]
    assert "target" in reasons["submissions/wrong header.csv"]
    assert data["resampling"]["replicates"] == 100 and data["n_test"] == 2100


def test_example_scores_match_sklearn_on_each_split(tmp_path):
    """Point scores against an independent reference: scikit-learn on the split's rows."""
    from leaderboard.cli.analyze import _make_submissions_example

    preset = _make_submissions_example()
    code, data, _ = _run(tmp_path, "--solution", preset["solution"], "--submissions",
                         preset["submissions"], "--metric", "auc")
    assert code == 0
    solution = pd.read_csv(preset["solution"])
    with zipfile.ZipFile(preset["submissions"]) as zf:
        for entry in [e for e in data["entries"] if e["rank"] is not None][:6]:
            sub = pd.read_csv(zf.open(entry["file"])).set_index("id").loc[solution["id"]]
            for split, usage in (("public", "Public"), ("private", "Private")):
                rows = (solution["Usage"] == usage).to_numpy()
                want = roc_auc_score(solution["target"][rows], sub["target"].to_numpy()[rows])
                assert abs(entry[f"{split}_score"] - want) < 1e-9


def test_report_escapes_names_and_lists_rejections(example):
    _, html = example
    assert "R&amp;D &lt;lab&gt;" in html and "R&D <lab>" not in html
    assert "Every submission file" in html and "duplicate id 10100" in html
    assert "paired bootstrap" in html


def test_same_seed_same_numbers(example, tmp_path):
    """A second run of the example, with the same (default) seed, against the module's first
    run: the same numbers (two runs, one of them shared with the other tests)."""
    again = _run(tmp_path, "--example", "submissions")[1]
    assert example[0]["entries"] == again["entries"]


def _write_solution(path, y, usage, extra=None):
    frame = pd.DataFrame({"id": np.arange(len(y)), "target": y, "Usage": usage, **(extra or {})})
    frame.to_csv(path, index=False)


def test_multiclass_log_loss_from_class_columns(tmp_path):
    rng = np.random.default_rng(0)
    n = 300
    y = rng.integers(0, 3, n)
    usage = np.where(rng.random(n) < 0.3, "Public", "Private")
    _write_solution(tmp_path / "solution.csv", y, usage)
    folder = tmp_path / "subs"
    folder.mkdir()
    truth = np.eye(3)[y]
    for team, skill in (("good", 2.0), ("fair", 1.0), ("weak", 0.3)):
        logits = skill * truth + rng.normal(size=(n, 3))
        p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
        pd.DataFrame({"id": np.arange(n), "0": p[:, 0], "1": p[:, 1], "2": p[:, 2]}).to_csv(
            folder / f"{team}.csv", index=False)
    code, data, _ = _run(tmp_path, "--solution", str(tmp_path / "solution.csv"),
                         "--submissions", str(folder), "--metric", "mlogloss")
    assert code == 0
    good = next(e for e in data["entries"] if e["team"] == "good")
    sub = pd.read_csv(folder / "good.csv")
    private = usage == "Private"
    want = log_loss(y[private], sub[["0", "1", "2"]].to_numpy()[private], labels=[0, 1, 2])
    assert abs(good["private_score"] - want) < 1e-9
    assert [e["team"] for e in data["entries"]] == ["good", "fair", "weak"]  # lower is better


def test_grouped_and_stratified_resampling_run(tmp_path):
    rng = np.random.default_rng(1)
    n = 400
    y = rng.integers(0, 2, n)
    groups = np.repeat(np.arange(100), 4)
    _write_solution(tmp_path / "solution.csv", y, np.full(n, "Private"), {"patient": groups})
    folder = tmp_path / "subs"
    folder.mkdir()
    for team in ("a", "b"):
        pd.DataFrame({"id": np.arange(n), "target": y + rng.normal(size=n)}).to_csv(
            folder / f"{team}.csv", index=False)
    common = ["--solution", str(tmp_path / "solution.csv"), "--submissions", str(folder),
              "--metric", "auc", "--group-col", "patient"]
    code, grouped, _ = _run(tmp_path, *common, "--resample", "grouped")
    assert code == 0 and grouped["resampling"]["units"] == 100
    code, strat, _ = _run(tmp_path, *common, "--resample", "stratified")
    assert code == 0 and strat["resampling"]["resample"] == "stratified"


def _one_line_error(capsys, argv):
    code = main(argv)
    err = capsys.readouterr().err
    return code, err


@pytest.mark.parametrize("problem", ["no valid file", "duplicate solution id", "grouped without "
                                     "groups", "metric without an implementation", "no private rows"])
def test_user_mistakes_exit_2_with_one_line(tmp_path, capsys, problem):
    y = np.array([0, 1, 0, 1, 1, 0])
    usage = np.full(6, "Private")
    solution, folder = tmp_path / "solution.csv", tmp_path / "subs"
    folder.mkdir()
    _write_solution(solution, y, usage)
    pd.DataFrame({"id": np.arange(6), "target": np.linspace(0, 1, 6)}).to_csv(folder / "ok.csv",
                                                                            index=False)
    args = ["analyze", "--solution", str(solution), "--submissions", str(folder), "--metric",
            "auc", "-o", str(tmp_path / "r.html"), "--quiet"]
    if problem == "no valid file":
        (folder / "ok.csv").write_text("id,target\n0,0.5\n", encoding="utf-8")
        expect = "ok.csv"
    elif problem == "duplicate solution id":
        solution.write_text("id,target,Usage\n1,0,Private\n1,1,Private\n", encoding="utf-8")
        expect = "solution.csv:3: column 'id'"
    elif problem == "grouped without groups":
        args += ["--resample", "grouped"]
        expect = "--group-col"
    elif problem == "metric without an implementation":
        args[args.index("auc")] = "dice"
        expect = "not supported"
    else:
        _write_solution(solution, y, np.full(6, "Public"))
        expect = "--split public"
    code, err = _one_line_error(capsys, args)
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err and expect in err


@pytest.mark.usefixtures("shared_data")
def test_insults_submissions_against_sklearn(shared_data, tmp_path, monkeypatch):
    fewest_null_boards(monkeypatch)   # the scores and tiers are under test, not the self-check
    folder = shared_data / "kaggle_insults"
    code, data, _ = _run(tmp_path, "--solution", str(folder / "solution.csv"), "--submissions",
                         str(folder / "submissions"), "--metric", "auc", replicates=300)
    assert code == 0
    assert len(data["entries"]) == 27 and all(f["status"] == "ok" for f in data["files"])
    assert data["n_test"] == 1985
    solution = pd.read_csv(folder / "solution.csv")
    for entry in data["entries"]:                       # every file, both splits, vs scikit-learn
        sub = pd.read_csv(folder / "submissions" / entry["file"].split("/")[-1])
        for split, usage in (("public", "PublicTest"), ("private", "PrivateTest")):
            rows = (solution["Usage"] == usage).to_numpy()
            want = roc_auc_score(solution["Insult"][rows], sub["Insult"][rows])
            assert abs(entry[f"{split}_score"] - want) < 1e-9
    assert 1 <= data["tier1_size"] < 27


@pytest.mark.usefixtures("shared_data")
def test_insults_identical_files_share_a_tier_with_zero_difference(shared_data, monkeypatch):
    fewest_null_boards(monkeypatch)   # the identical pair is under test, not the self-check
    from leaderboard.options import RankOptions
    from leaderboard.pipelines.scores import Settings
    from leaderboard.pipelines.submissions import analyze_submissions
    from leaderboard.metrics import get_metric
    from leaderboard.ingest.submissions import read_solution, read_submissions

    folder = shared_data / "kaggle_insults"
    solution = read_solution(folder / "solution.csv", kind="scores")
    subs = read_submissions(folder / "submissions", solution, kind="scores")
    result = analyze_submissions(solution, subs, Settings(get_metric("auc"),
                                                          ranks=RankOptions(replicates=500)))
    table, reps = result.table, result.bootstrap.replicates
    copies = table.index[table["identical_to"].notna()]
    assert len(copies) >= 3                          # the folder holds byte-identical files
    for i in copies:
        j = table.index[table["team"] == table.at[i, "identical_to"]][0]
        assert table.at[i, "tier"] == table.at[j, "tier"]
        assert np.all(reps[i] - reps[j] == 0)
    assert any("Identical predictions" in note for note in result.notes)


def test_metric_options_from_the_command_line(tmp_path, capsys):
    rng = np.random.default_rng(3)
    n = 200
    y = rng.integers(0, 2, n)
    _write_solution(tmp_path / "solution.csv", y, np.full(n, "Private"))
    folder = tmp_path / "subs"
    folder.mkdir()
    pred = np.where(rng.random(n) < 0.8, y, 1 - y)
    pd.DataFrame({"id": np.arange(n), "target": pred}).to_csv(folder / "a.csv", index=False)
    common = ["--solution", str(tmp_path / "solution.csv"), "--submissions", str(folder)]
    code, data, _ = _run(tmp_path, *common, "--metric", "expected_cost", "--costs", "0,1;5,0")
    assert code == 0
    want = np.mean(np.where((y == 1) & (pred == 0), 5.0, np.where(y != pred, 1.0, 0.0)))
    assert abs(data["entries"][0]["score"] - want) < 1e-12
    code, data, _ = _run(tmp_path, *common, "--metric", "fbeta", "--beta", "2")
    from sklearn.metrics import fbeta_score
    assert abs(data["entries"][0]["score"] - fbeta_score(y, pred, beta=2)) < 1e-12
    for bad in (["--metric", "auc", "--beta", "2"], ["--metric", "expected_cost", "--costs", "a"]):
        assert main(["analyze", *common, *bad, "--quiet", "-o", str(tmp_path / "x.html")]) == 2
        assert capsys.readouterr().err.count("\n") == 1


def test_help_counts_the_example_files_it_makes(example, capsys):
    import re

    data, _ = example
    assert main(["analyze", "--help"]) == 0
    said = re.search(r"a solution and (\d+)\s+submission\s+files", capsys.readouterr().out)
    assert said and int(said.group(1)) == len(data["files"])
