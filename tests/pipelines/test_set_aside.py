"""Rows that are not entries, baselines called baselines, and --exclude-flagged in every mode
(issue 39 item 6, issue 43). Fixtures are small generated look-alikes of the real matrices."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import leaderboard
from leaderboard.cli import main
from leaderboard.set_aside import not_entries

ASSAYS = 30


def _proteingym_like(seed: int = 0) -> pd.DataFrame:
    """A ProteinGym-shaped matrix in long form: ten protein models' Spearman correlations on 30
    assays (sharing each assay's ease), two weak baselines, and the published matrix's last
    line, "Number of Mutants" (each assay's size, 63 to 536,962)."""
    rng = np.random.default_rng(seed)
    ease = rng.normal(0, 0.12, ASSAYS)
    rows = {f"PLM-{k}": np.clip(0.35 + 0.02 * k / 10 + ease + rng.normal(0, 0.06, ASSAYS), -1, 1)
            for k in range(10)}
    rows["Logistic regression"] = np.clip(0.10 + 0.6 * ease + rng.normal(0, 0.05, ASSAYS), -1, 1)
    rows["Random encoder"] = rng.normal(0, 0.04, ASSAYS)
    sizes = np.round(np.exp(rng.uniform(np.log(63), np.log(536962), ASSAYS)))
    sizes[:2] = 63, 536962
    rows["Number of Mutants"] = sizes
    return pd.DataFrame([(m, f"A{i:02d}", float(v)) for m, vals in rows.items()
                         for i, v in enumerate(vals)], columns=["model", "item", "value"])


@pytest.fixture(scope="module")
def protein():
    return leaderboard.analyze_items(_proteingym_like(), replicates=200)


def _schema_errors(data: dict) -> list[str]:
    jsonschema = pytest.importorskip("jsonschema")
    from leaderboard.schema import SCHEMA_DIR

    schema = json.loads((SCHEMA_DIR / "analyze.schema.json").read_text(encoding="utf-8"))
    return [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(data)]


def test_a_metadata_row_is_set_aside_out_of_the_ranking_and_the_best_set(protein):
    """Before issue 39 "Number of Mutants" was ranked first and could be the best (exit 0)."""
    a = protein.analysis
    assert "Number of Mutants" not in a.table["team"].tolist()
    assert a.table["team"].iloc[0].startswith("PLM-") and a.table["in_best_set"].iloc[0]
    flag = next(f for f in a.flags if f.kind == "not_an_entry")
    assert flag.teams == ("Number of Mutants",)
    assert "'Number of Mutants' (63 to 536,962)" in flag.message and "metadata" in flag.message
    data = json.loads(protein.to_json())
    assert _schema_errors(data) == []
    aside = [f for f in data["files"] if f["status"] == "set aside"]
    assert [f["team"] for f in aside] == ["Number of Mutants"] and "metadata" in aside[0]["reason"]
    assert "Number of Mutants" in protein.to_html()


def test_weak_baselines_are_named_baselines_from_their_per_item_values(protein):
    far = next(f for f in protein.analysis.flags if f.kind == "far_out")
    assert set(far.teams) == {"Logistic regression", "Random encoder"}
    words = far.message
    assert "'Random encoder' has values that do not follow the other models'" in words
    assert "'Logistic regression' has values that follow the other models'" in words
    assert "a weaker model or a baseline, not a failed run" in words
    assert "broken runs" not in words and "most likely" not in words


def test_a_constant_answer_is_named_and_a_clean_board_has_no_row_set_aside():
    rng = np.random.default_rng(1)
    difficulty = rng.random(60)
    values = {f"m{k}": (rng.random(60) < 0.5 + 0.4 * difficulty).astype(float) for k in range(8)}
    values["always wrong"] = np.zeros(60)
    frame = pd.DataFrame([(m, f"q{i}", v) for m, vals in values.items()
                          for i, v in enumerate(vals)], columns=["model", "item", "value"])
    a = leaderboard.analyze_items(frame, replicates=200).analysis
    far = next(f for f in a.flags if f.kind == "far_out")
    assert "'always wrong' has the same value on every item (a constant baseline" in far.message
    assert "not_an_entry" not in {f.kind for f in a.flags}   # 0/1 values: nothing far out
    assert a.submissions.counts["set aside"] == 0


def test_a_metadata_row_on_a_board_of_scores_is_dropped_with_its_reason(tmp_path, capsys):
    long = _proteingym_like()
    board = long.groupby("model", sort=False)["value"].mean().reset_index()
    path = tmp_path / "summary.csv"
    board.to_csv(path, index=False)
    assert main(["analyze", str(path), "--team-col", "model", "--score-col", "value",
                 "--metric", "mean", "--quiet", "-o", str(tmp_path / "r.html"),
                 "--json", str(tmp_path / "r.json")]) == 0
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert "Number of Mutants" not in [e["team"] for e in data["entries"]]
    assert [f["kind"] for f in data["flags"]][0] == "not_an_entry"
    assert "not an entry" in json.dumps(data["source"])   # the rows dropped, with the reason
    assert "Number of Mutants" in (tmp_path / "r.html").read_text(encoding="utf-8")


def test_no_real_board_of_scores_has_a_row_set_aside(shared_data):
    """Every board of scores in the shared data (Kaggle, MLE-Dojo: 444 score columns), judged on
    its better side: none is taken for a metadata row."""
    index = pd.read_csv(shared_data / "mle_dojo_leaderboards" / "_index.csv")
    higher = dict(zip(index["competition"], index["higher_is_better"]))
    lower = {"data-science-bowl-2017", "2021-rsna-intracranial", "trabit2019"}
    boards = []
    for path in sorted((shared_data / "mle_dojo_leaderboards").glob("*__*_leaderboard.csv")):
        boards.append((pd.read_csv(path)["score"], bool(higher.get(path.name.split("__")[0],
                                                                        True))))
    for path in sorted((shared_data / "kaggle_public_private").glob("*.csv")):
        frame = pd.read_csv(path)
        for column in ("public_score", "private_score"):
            if column in frame:
                boards.append((frame[column], path.name.split("__")[0] not in lower))
    for name, better in [("sberbank-russian-housing-market__publicleaderboard.csv", False),
                         ("nlp-getting-started__publicleaderboard.csv", True)]:
        boards.append((pd.read_csv(shared_data / "kaggle_lb_downloads" / name)["Score"], better))
    assert len(boards) > 400
    for scores, better in boards:
        s = scores.to_numpy(dtype=float)
        mask, flag = not_entries([str(i) for i in range(s.size)], s[:, None], better)
        assert flag is None and not mask.any()


def test_exclude_flagged_sets_aside_in_items_mode(tmp_path, capsys):
    """issue 43: --exclude-flagged was ignored with per-item results (the perfect model stayed
    first); now the perfect model is set aside and listed, from the API and the command line."""
    rng = np.random.default_rng(2)
    values = {f"m{k}": (rng.random(50) < 0.6 + 0.02 * k).astype(float) for k in range(6)}
    values["leaky"] = np.ones(50)
    frame = pd.DataFrame([(m, f"q{i}", v) for m, vals in values.items()
                          for i, v in enumerate(vals)], columns=["model", "item", "value"])
    kept = leaderboard.analyze_items(frame, metric="accuracy", replicates=200).analysis
    assert kept.table["team"].iloc[0] == "leaky"
    a = leaderboard.analyze_items(frame, metric="accuracy", replicates=200,
                                  exclude_flagged=("perfect",)).analysis
    assert "leaky" not in a.table["team"].tolist()
    leaky = next(f for f in a.submissions.files if f.team == "leaky")
    assert leaky.status == "set aside" and "exclude_flagged='perfect'" in leaky.reason
    path = tmp_path / "items.csv"
    frame.to_csv(path, index=False)
    assert main(["analyze", "--items", str(path), "--metric", "accuracy",
                 "--exclude-flagged", "perfect", "--quiet",
                 "--replicates", "200", "-o", str(tmp_path / "r.html"),
                 "--json", str(tmp_path / "r.json")]) == 0
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert data["entries"][0]["team"] != "leaky" and _schema_errors(data) == []


def test_exclude_flagged_and_the_constant_baseline_in_submissions_mode():
    """A constant "everyone died" prediction scores the majority class's share: named a
    baseline; --exclude-flagged junk sets it aside (it was ignored in submissions mode)."""
    rng = np.random.default_rng(3)
    y = (rng.random(1000) < 0.38).astype(int)
    solution = pd.DataFrame({"id": range(1000), "survived": y})
    teams = {f"t{k}": np.where(rng.random(1000) < 0.8, y, 1 - y) for k in range(12)}
    teams["everyone died"] = np.zeros(1000, dtype=int)
    a = leaderboard.analyze_submissions(solution, teams, metric="accuracy",
                                        replicates=200).analysis
    far = next(f for f in a.flags if f.kind == "far_out")
    assert ("'everyone died' scores what predicting the majority class for every row scores "
            "(a baseline)") in far.message
    assert "broken or junk" not in far.message
    b = leaderboard.analyze_submissions(solution, teams, metric="accuracy", replicates=200,
                                        exclude_flagged=("junk",)).analysis
    assert "everyone died" not in b.table["team"].tolist()
    assert b.submissions.counts["set aside"] == 1


def test_exclude_flagged_is_refused_with_battles(tmp_path, capsys):
    """An option that does not apply is refused, never ignored: battles have no sanity flags."""
    from leaderboard.resources import data_dir

    code = main(["analyze", "--battles", str(data_dir() / "example_battles.csv"),
                 "--exclude-flagged", "junk", "--quiet", "-o", str(tmp_path / "b.html")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "--exclude-flagged does not apply to --battles" in err
    assert len(err.splitlines()) == 1


def test_titanics_everyone_died_file_is_a_baseline_and_insults_gain_no_flag(shared_data):
    """Real files: Titanic's constant "everyone died" submission (accuracy 0.622, the share who
    died) is named a baseline, not "broken or junk, most likely"; the insults submissions keep
    the one flag they had (three far-out files), worded by what the scores show."""
    titanic = shared_data / "kaggle_titanic"
    a = leaderboard.analyze_submissions(titanic / "solution.csv", titanic / "submissions",
                                        metric="accuracy", replicates=100).analysis
    far = next(f for f in a.flags if f.kind == "far_out")
    assert ("'NK2696__titanic_Hypothesis_submission' scores what predicting the majority class "
            "for every row scores (a baseline)") in far.message
    assert {f.kind for f in a.flags} == {"far_out", "shared_score"}
    insults = shared_data / "kaggle_insults"
    b = leaderboard.analyze_submissions(insults / "solution.csv", insults / "submissions",
                                        metric="auc", replicates=100).analysis
    assert [f.kind for f in b.flags] == ["far_out"]
    assert "junk" not in b.flags[0].message.replace("exclude_flagged='junk'", "")


def test_a_metadata_row_among_four_rows_is_named_with_the_range_it_was_judged_by():
    # three entries and a count row: once it is set aside, fewer rows remain than a typical
    # range needs; the flag quotes the range the rows were judged by (this crashed before)
    mask, flag = not_entries(["a", "b", "c", "Number of Mutants"],
                             np.array([[0.1], [0.2], [0.3], [14250.0]]), True)
    assert mask.tolist() == [False, False, False, True]
    assert flag is not None and flag.teams == ("Number of Mutants",)
    assert "'Number of Mutants' (14,250) lies far outside the typical rows' scores (0.2 to 0.3)" \
        in flag.message
