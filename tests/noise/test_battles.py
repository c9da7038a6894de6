"""Battles mode (issue 26): the Bradley-Terry fit against an independent reference, the sandwich
against the bootstrap, known-truth arenas (coverage of the rank sets, the true best in tier 1),
disconnected and unbounded arenas, the reader's accounting and errors, the page, the JSON and
its schema, and the command line."""
from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit
from scipy.stats import binom

import leaderboard
from leaderboard.cli import main
from leaderboard.errors import InputError
from leaderboard.noise.bradley_terry import (SCALE, PairCounts, bootstrap_fits, fit,
                                             sandwich_covariance)
from leaderboard.schema import SCHEMA_DIR

WINNER = np.array(["model_a", "model_b", "tie"])


def arena(rng, theta, popularity, n, tie_share):
    """Battles of models with log-strengths ``theta``: model a drawn by popularity, b uniformly
    among the others (uneven pairings); ties independent of strength."""
    m = theta.size
    a = rng.choice(m, size=n, p=popularity / popularity.sum())
    b = rng.integers(0, m - 1, size=n)
    b = np.where(b >= a, b + 1, b)
    outcome = np.where(rng.random(n) < tie_share, 2,
                       np.where(rng.random(n) < expit(theta[a] - theta[b]), 0, 1))
    return a, b, outcome


def frame(a, b, outcome, names=None):
    names = np.array([f"m{k:02d}" for k in range(max(a.max(), b.max()) + 1)]) \
        if names is None else names
    return pd.DataFrame({"model_a": names[a], "model_b": names[b], "winner": WINNER[outcome]})


def test_ratings_equal_an_independent_logistic_regression():
    """scikit-learn's unpenalised logistic regression on one row per battle (a tie: a win and a
    loss of weight 1/2 each), model 0's column dropped to pin the level: the same plain fit
    (``rating_mle``) to 1e-6."""
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(7)
    theta = rng.normal(0, 0.8, 9)
    a, b, outcome = arena(rng, theta, rng.uniform(0.3, 3, 9), 6000, 0.2)
    ours = leaderboard.analyze_battles(frame(a, b, outcome), replicates=100).table
    x = np.zeros((a.size, 9))
    x[np.arange(a.size), a] = 1.0
    x[np.arange(a.size), b] = -1.0
    tie = outcome == 2
    design = np.vstack([x, x[tie]])[:, 1:]
    y = np.r_[(outcome == 0) | tie, np.zeros(tie.sum(), bool)].astype(int)
    w = np.r_[np.where(tie, 0.5, 1.0), np.full(tie.sum(), 0.5)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = LogisticRegression(fit_intercept=False, C=np.inf, solver="newton-cholesky",
                                   tol=1e-14, max_iter=1000).fit(design, y, sample_weight=w)
    coef = np.r_[0.0, model.coef_[0]]
    reference = 1000 + SCALE * (coef - coef.mean())
    by_name = dict(zip(ours["model"], ours["rating_mle"]))
    mine = np.array([by_name[f"m{k:02d}"] for k in range(9)])
    assert np.abs(mine - reference).max() < 1e-6


def test_sandwich_agrees_with_the_bootstrap():
    """Both estimate the same standard error; they differ by the bootstrap's Monte Carlo error
    (relative SD of an SD from R draws: 1/sqrt(2(R-1))), allowed 5 of those."""
    rng = np.random.default_rng(11)
    theta = np.linspace(1, -1, 10)
    a, b, outcome = arena(rng, theta, np.linspace(1, 3, 10), 20000, 0.15)
    pc = PairCounts.from_battles(a, b, outcome, 10)
    fitted = fit(pc)
    replicates = 2000
    sandwich = np.sqrt(np.diag(sandwich_covariance(pc, fitted)))
    boot = bootstrap_fits(pc, fitted, replicates, seed=3)
    assert np.isfinite(boot).all()
    ratio = boot.std(axis=1, ddof=1) / sandwich
    assert np.abs(ratio - 1).max() < 5 / np.sqrt(2 * (replicates - 1))


def test_known_truth_arenas_cover_the_true_ranks_and_keep_the_best_in_tier_one():
    """A small run of the known-truth study (leaderboard.studies.battles_coverage; the full one
    is benchmarks/study_battles_coverage.py, docs/battles.md): 10 arenas of each design (uneven
    pairings, sparse pairings with strength-dependent ties, few battles, crowded strengths;
    10-25% ties; the top two 0.01 logits apart). The truly best models are in tier 1 and every true rank is inside
    its simultaneous rank set in at least 95% of arenas, up to Monte Carlo error (failures no
    more than a one-sided binomial test at 1% allows); the 95% rating intervals (the basic
    bootstrap shown, and the sandwich) cover the true ratings within 3 Monte Carlo SEs of 95%
    (per-arena shares, so arenas, not models, are the independent units)."""
    from leaderboard.studies.battles_coverage import run_study

    study = run_study(arenas=10, replicates=250, seed=2026)
    failures = int((~study["joint"]).sum())
    assert binom.sf(failures - 1, len(study), 0.05) >= 0.01, failures
    for interval in ("shown", "sandwich"):
        share = study[interval]
        # floor: the SD a share of 12 independent 95% events would have, should a small sample
        # show no spread at all
        se = max(share.std(ddof=1), np.sqrt(0.05 * 0.95 / 12)) / np.sqrt(len(share))
        assert abs(share.mean() - 0.95) <= 3 * se, (interval, share.mean(), se)


def test_bootstrap_is_paired_and_reproducible():
    rng = np.random.default_rng(5)
    a, b, outcome = arena(rng, np.array([0.5, 0.0, -0.5]), np.ones(3), 900, 0.1)
    pc = PairCounts.from_battles(a, b, outcome, 3)
    theta = fit(pc)
    first = bootstrap_fits(pc, theta, 200, seed=9)
    assert np.array_equal(first, bootstrap_fits(pc, theta, 200, seed=9))
    assert np.array_equal(first[:, :64], bootstrap_fits(pc, theta, 64, seed=9))   # a prefix
    assert np.allclose(first.sum(axis=0), 0)          # every model refitted on each redraw
    one = leaderboard.analyze_battles(frame(a, b, outcome), replicates=150, seed=4).table
    two = leaderboard.analyze_battles(frame(a, b, outcome), replicates=150, seed=4).table
    pd.testing.assert_frame_equal(one, two)


def test_split_arenas_rate_every_group_largest_by_battles_first():
    """Two groups that never met (issue 40): by default each is rated in its own table, the one
    with more battles first although it has fewer models; 'largest' rates that one and names the
    other; 'error' refuses naming both."""
    rng = np.random.default_rng(1)
    a, b, outcome = arena(rng, np.array([0.3, 0.0, -0.3]), np.ones(3), 600, 0.1)
    df = pd.concat([frame(a, b, outcome),
                    pd.DataFrame({"model_a": ["x", "y", "z", "w", "x"] * 4,
                                  "model_b": ["y", "z", "w", "x", "z"] * 4,
                                  "winner": ["model_a", "model_b", "tie", "model_a",
                                             "model_b"] * 4})])
    result = leaderboard.analyze_battles(df, replicates=100)
    groups = result.analysis.groups
    assert [sorted(g.table["model"]) for g in groups] == [["m00", "m01", "m02"],
                                                           ["w", "x", "y", "z"]]
    assert [g.battles for g in groups] == [600, 20] and result.not_comparable == ()
    assert "2 groups that never met" in result.notes[0] and "4 models rated from 20" in \
        result.notes[0]
    document = result.to_dict()
    assert [len(g["models"]) for g in document["groups"]] == [3, 4]
    assert document["models"] == document["groups"][0]["models"]
    assert "3 models rated from 600 battles; 4 models rated from 20 battles" in \
        result.to_html().replace("\n", " ")
    largest = leaderboard.analyze_battles(df, replicates=100, disconnected="largest")
    assert len(largest.analysis.groups) == 1
    assert largest.not_comparable == (("w", "x", "y", "z"),)
    assert "never met the rated models" in largest.notes[0]
    with pytest.raises(InputError, match=r"2 groups that never met.*m00, m01 and m02; w, x"):
        leaderboard.analyze_battles(df, replicates=100, disconnected="error")


def test_a_model_that_never_lost_is_rated_finite_and_named():
    """The plain fit of a model that never lost is infinite (it used to be refused); the
    bias-reduced fit rates it, rating_mle is empty and the notes name it."""
    df = pd.DataFrame({"model_a": ["champ", "champ", "b", "c", "b"] * 3,
                       "model_b": ["b", "c", "c", "b", "c"] * 3,
                       "winner": ["model_a", "model_a", "model_a", "model_a", "tie"] * 3})
    result = leaderboard.analyze_battles(df, replicates=100)
    table = result.table.set_index("model")
    assert np.isfinite(table["rating"]).all() and np.isnan(table.loc["champ", "rating_mle"])
    assert table.loc["champ", "ci_high"] < table.loc["champ", "rating"] + 2000
    assert any("champ never lost a battle" in note for note in result.notes)
    assert result.to_dict()["groups"][0]["unbounded_mle"] == [{"model": "champ",
                                                               "why": "never lost"}]


def test_anchor_model_is_fixed_and_has_no_interval():
    rng = np.random.default_rng(2)
    a, b, outcome = arena(rng, np.array([0.4, 0.0, -0.4]), np.ones(3), 1500, 0.1)
    table = leaderboard.analyze_battles(frame(a, b, outcome), replicates=100, anchor="m01",
                                        anchor_rating=1114).table.set_index("model")
    assert table.loc["m01", "rating"] == pytest.approx(1114)
    assert np.isnan(table.loc["m01", ["ci_low", "ci_high", "se_sandwich"]].astype(float)).all()
    assert table.loc["m00", "ci_low"] < table.loc["m00", "rating"] < table.loc["m00", "ci_high"]
    with pytest.raises(InputError, match="anchor nobody is not among the rated models"):
        leaderboard.analyze_battles(frame(a, b, outcome), replicates=100, anchor="nobody")


def test_reader_accounts_for_every_row_and_names_bad_lines(tmp_path):
    path = tmp_path / "arena.csv"
    path.write_text("model_a,model_b,winner,judge\nx,y,model_a,u1\ny,x,Tie (bothbad),u2\n"
                    "x,x,tie,u3\nx,y,,u4\ny,x,model_b,u5\nx,y,model_b,u6\n", encoding="utf-8")
    result = leaderboard.analyze_battles(path, replicates=100)
    b = result.battles
    assert b.rows_read == 6 and b.n_battles == 4 and int(b.both_bad.sum()) == 1
    assert [(d.reason, d.count, d.lines) for d in b.dropped] == [
        ("a model against itself", 1, (4,)), ("no winner recorded", 1, (5,))]
    assert b.columns["judge"] == "judge"
    bad = tmp_path / "bad.csv"
    bad.write_text("model_a,model_b,winner\nx,y,model_a\nx,y,draw\n", encoding="utf-8")
    with pytest.raises(InputError) as error:
        leaderboard.analyze_battles(bad)
    assert str(error.value).startswith(f"{bad}:3: column 'winner': 1 winner value(s) not "
                                       "understood (draw)")
    blank = tmp_path / "blank.csv"
    blank.write_text("model_a,model_b,winner\nx,y,model_a\n ,y,model_a\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"blank.csv:3: column 'model_a'"):
        leaderboard.analyze_battles(blank)


def test_json_lines_and_parquet_read_the_same(tmp_path):
    rng = np.random.default_rng(8)
    a, b, outcome = arena(rng, np.array([0.4, 0.0, -0.4]), np.ones(3), 500, 0.1)
    df = frame(a, b, outcome)
    df.to_json(tmp_path / "a.jsonl", orient="records", lines=True)
    df.to_parquet(tmp_path / "a.parquet")
    expected = leaderboard.analyze_battles(df, replicates=100).table
    for name in ("a.jsonl", "a.parquet"):
        pd.testing.assert_frame_equal(
            leaderboard.analyze_battles(tmp_path / name, replicates=100).table, expected)
    (tmp_path / "broken.jsonl").write_text('{"model_a": "x"}\n{oops\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"broken.jsonl:2: not a JSON object"):
        leaderboard.analyze_battles(tmp_path / "broken.jsonl")


@pytest.mark.parametrize("bad, message", [
    ({"alpha": 1.5}, "alpha= must be strictly between 0 and 1"),
    ({"replicates": 10}, "replicates= must be at least 100"),
    ({"replicates": 200.0}, "replicates= must be a whole number"),
    ({"tiers": "best"}, "tiers= must be one of"),
    ({"disconnected": "ignore"}, "disconnected= must be one of 'all', 'largest', 'error'"),
    ({"seed": -1}, "seed= must be at least 0"),
    ({"anchor": 3}, "anchor= must be a string"),
    ({"top_k": ()}, "top_k= must name at least one line")])
def test_bad_parameters_are_one_line_errors(bad, message):
    df = pd.DataFrame({"model_a": ["x", "y"], "model_b": ["y", "x"],
                       "winner": ["model_a", "model_a"]})
    with pytest.raises(InputError, match=message):
        leaderboard.analyze_battles(df, **bad)


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    """The bundled example, through the command line: page, JSON."""
    from leaderboard.resources import data_dir

    folder = tmp_path_factory.mktemp("battles")
    status = main(["analyze", "--battles", str(data_dir() / "example_battles.csv"), "--quiet",
                   "--replicates", "400", "-o", str(folder / "b.html"),
                   "--json", str(folder / "b.json")])
    assert status == 0
    return (folder / "b.html").read_text(encoding="utf-8"), \
        json.loads((folder / "b.json").read_text(encoding="utf-8"))


def test_example_json_validates_against_its_schema(example):
    import jsonschema

    _, document = example
    schema = json.loads((SCHEMA_DIR / "battles.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(document, schema)
    assert document["mode"] == document["format"] == "battles"
    assert document["not_comparable"] == []
    assert [g["n_models"] for g in document["groups"]] == [14, 2]
    assert sorted(m["model"] for m in document["groups"][1]["models"]) == ["island-a",
                                                                           "island-b"]
    broken = dict(document, models=[dict(document["models"][0], tier="1")])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)


def test_example_page_speaks_of_models_and_battles_and_escapes_names(example):
    page, document = example
    import re

    # the shared CSS's comments are not words of the page
    words = re.sub(r"<style>.*?</style>", "", page, flags=re.S).lower()
    for word in ("team", "submission", "test rows", "test row", "entries", "entry"):
        assert word not in words, word
    assert "find a model" in words and "battles" in words
    assert "sable &lt;beta&gt; &amp; co" in page and "<beta>" not in page
    assert document["models"][0]["model"] in page
    # the example's two models that never met the others are rated in their own table
    assert re.search(r"Group 2 of 2: 2 models rated from 3 battles", page)
    assert page.index("Group 1 of 2") < page.index("Group 2 of 2")
    assert "<td>island-a</td>" in page[page.index('id="group-2"'):]


def test_csv_neutralises_formulas_in_model_names(tmp_path):
    bad = "=HYPERLINK(1)"
    df = pd.DataFrame({"model_a": [bad, "b"] * 20, "model_b": ["b", bad] * 20,
                       "winner": ["model_a", "model_a", "tie", "model_b"] * 10})
    result = leaderboard.analyze_battles(df, replicates=100)
    text = result.save(tmp_path / "t.csv").read_text(encoding="utf-8")
    assert "'=HYPERLINK(1)" in text and "\n=HYPERLINK" not in text.replace("\r\n", "\n")
    assert pd.read_csv(tmp_path / "t.csv")["model"].str.startswith("'=").any()


def test_command_line_refuses_mixed_inputs_in_one_line(tmp_path, capsys):
    status = main(["analyze", "--battles", "x.csv", "--metric", "auc", "-o",
                   str(tmp_path / "r.html")])
    assert status == 2
    err = capsys.readouterr().err
    assert err.startswith("leaderboard: error: --metric does not apply to --battles") and \
        err.count("\n") == 1
    status = main(["analyze", "--battles", str(tmp_path / "missing.csv"), "-o",
                   str(tmp_path / "r.html")])
    assert status == 2 and "file not found" in capsys.readouterr().err


def test_all_ties_give_equal_ratings_placed_together_with_an_interval():
    """Every battle a tie: equal ratings, all in tier 1 and placed (nothing sets one apart);
    the smoothed redraws give each an interval around them (they used to give none: no redraw
    of ties alone moves a rating)."""
    df = pd.DataFrame({"model_a": ["A", "A", "B"] * 20, "model_b": ["B", "C", "C"] * 20,
                       "winner": ["tie", "tie (bothbad)", "tie"] * 20})
    result = leaderboard.analyze_battles(df, replicates=100)
    table = result.table
    assert np.allclose(table["rating"], 1000) and (table["tier"] == 1).all()
    assert table["placed"].all()
    assert ((table["ci_low"] < 1000) & (table["ci_high"] > 1000)).all()


def test_markdown_names_models_inertly_and_the_ones_not_comparable(tmp_path):
    """--markdown as in the other modes: one row per rated model in rating order, names that
    would be markup or a mention shown as text, the group that never met the others in its own
    table below."""
    rng = np.random.default_rng(1)
    a, b, outcome = arena(rng, np.array([0.3, 0.0, -0.3]), np.ones(3), 600, 0.1)
    names = np.array(["**bold** | x", "@org/team", "plain"])
    df = pd.concat([frame(a, b, outcome, names),
                    pd.DataFrame({"model_a": ["island", "isle"], "model_b": ["isle", "island"],
                                  "winner": ["model_a", "model_b"]})])
    path = tmp_path / "battles.csv"
    df.to_csv(path, index=False)
    status = main(["analyze", "--battles", str(path), "--quiet", "--replicates", "100",
                   "-o", str(tmp_path / "b.html"), "--markdown", str(tmp_path / "b.md")])
    assert status == 0
    text = (tmp_path / "b.md").read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line]
    assert len(rows) == 2 * 1 + 3 + 2 and all(line.count(" | ") == 7 for line in rows)
    assert "**bold**" not in text and "\\*\\*bold\\*\\* \\| x" in text and "\n@org" not in text
    assert "Group 2 of 2: 2 models, 2 battles" in text
    ratings = [float(line.split(" | ")[2].replace(",", "")) for line in rows[1:4]]
    assert ratings == sorted(ratings, reverse=True)
