"""The Python API's decisions, ``leaderboard.choose_finals`` and ``leaderboard.compare``: the
command line's pipeline with explicit parameters, DataFrames read in memory, the same numbers."""
from __future__ import annotations

import inspect
import json

import numpy as np
import pandas as pd
import pytest

import leaderboard
from interface_words import in_python_words
from leaderboard.cli import main
from leaderboard.report.choose_report import to_json_dict
from leaderboard.report.compare_report import gate_json

TABLE = pd.DataFrame({"name": ["s1", "s2", "s3", "s4", "s5"],
                      "score": [0.80, 0.81, 0.79, 0.812, 0.805]})


def _cli(tmp_path, argv: list[str], expect: int = 0) -> dict:
    out = tmp_path / "cli.json"
    assert main([*argv, "--quiet", "--json", str(out)]) == expect
    return json.loads(out.read_text(encoding="utf-8"))


def _without_inputs(report: dict) -> dict:
    return {k: v for k, v in report.items() if k not in ("inputs", "version")}


def test_the_signatures_list_every_parameter():
    for function in (leaderboard.choose_finals, leaderboard.compare):
        kinds = {p.kind for p in inspect.signature(function).parameters.values()}
        assert inspect.Parameter.VAR_KEYWORD not in kinds, function.__name__


def test_choose_finals_on_a_dataframe_gives_the_command_lines_numbers(tmp_path):
    TABLE.to_csv(tmp_path / "table.csv", index=False)
    options = dict(metric="accuracy", n_public=500, n_private=1500, draws=2000, seed=3)
    api = leaderboard.choose_finals(TABLE, **{**options, "n_public": np.int64(500)})
    cli = _cli(tmp_path / "", ["choose", "--public-scores", str(tmp_path / "table.csv"),
                               "--metric", "accuracy", "--n-public", "500", "--n-private",
                               "1500", "--draws", "2000", "--seed", "3", "-o",
                               str(tmp_path / "c.html")])
    cli = in_python_words(cli)   # its notes in the API's words: (correlation=), not (--...)
    assert _without_inputs(json.loads(json.dumps(to_json_dict(api)))) == _without_inputs(cli)
    assert _without_inputs(json.loads(api.to_json())) == _without_inputs(cli)
    assert api.inputs == ("DataFrame 'public_scores'",)


def test_choose_finals_reads_predictions_in_memory(tmp_path):
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 300)
    solution = pd.DataFrame({"id": range(300), "target": y,
                             "Usage": np.where(np.arange(300) < 120, "Public", "Private")})
    teams = {f"c{k}": np.clip(y * 0.3 + rng.random(300) * (1 + k / 5), 0, 2) / 2
             for k in range(4)}
    solution.to_csv(tmp_path / "solution.csv", index=False)
    (tmp_path / "subs").mkdir()
    for name, prediction in teams.items():
        pd.DataFrame({"id": range(300), "target": prediction}).to_csv(
            tmp_path / "subs" / f"{name}.csv", index=False)
    api = leaderboard.choose_finals(solution=solution, submissions=teams, metric="auc",
                                    replicates=200, draws=2000)
    cli = _cli(tmp_path, ["choose", "--solution", str(tmp_path / "solution.csv"),
                          "--submissions", str(tmp_path / "subs"), "--metric", "auc",
                          "--replicates", "200", "--draws", "2000", "-o",
                          str(tmp_path / "c.html")])
    assert _without_inputs(json.loads(json.dumps(to_json_dict(api)))) == _without_inputs(cli)


def _items(rng) -> pd.DataFrame:
    return pd.DataFrame({"model": np.repeat(["old", "new"], 200),
                         "item": np.tile(np.arange(200), 2),
                         "passage": np.tile(np.arange(200) // 10, 2),
                         "value": (rng.random(400) < np.repeat([0.6, 0.7], 200)) * 1})


def test_compare_on_a_dataframe_gives_the_command_lines_gate(tmp_path):
    items = _items(np.random.default_rng(2))
    items.to_csv(tmp_path / "items.csv", index=False)
    gate = leaderboard.compare("old", "new", items=items, cluster_col="passage",
                               replicates=np.int32(300), seed=4)
    argv = ["compare", "--items", str(tmp_path / "items.csv"), "--baseline", "old",
            "--candidate", "new", "--cluster-col", "passage", "--replicates", "300", "--seed",
            "4"]
    cli = _cli(tmp_path, argv, expect=0 if gate.better else 1)
    assert _without_inputs(gate_json(gate, "x")) == _without_inputs(cli)
    assert json.loads(gate.to_json()) == cli   # the same version: the command's JSON, whole


def test_compare_reads_submission_dataframes(tmp_path):
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 200)
    solution = pd.DataFrame({"id": range(200), "target": y})
    a = pd.DataFrame({"id": range(200), "target": np.where(rng.random(200) < 0.7, y, 1 - y)})
    b = pd.DataFrame({"id": range(200), "target": np.where(rng.random(200) < 0.8, y, 1 - y)})
    for name, frame in (("solution", solution), ("a", a), ("b", b)):
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    gate = leaderboard.compare(a, b, solution=solution, metric="accuracy", replicates=300)
    assert (gate.baseline, gate.candidate) == ("DataFrame 'baseline'", "DataFrame 'candidate'")
    cli = _cli(tmp_path, ["compare", "--solution", str(tmp_path / "solution.csv"),
                          "--baseline", str(tmp_path / "a.csv"), "--candidate",
                          str(tmp_path / "b.csv"), "--metric", "accuracy", "--replicates",
                          "300"], expect=0 if gate.better else 1)
    numbers = ("baseline_score", "candidate_score", "difference", "lower", "p_value", "better")
    assert {k: gate_json(gate, "x")[k] for k in numbers} == {k: cli[k] for k in numbers}


def test_compare_refuses_the_other_modes_options_and_bad_values():
    items = _items(np.random.default_rng(0))
    with pytest.raises(leaderboard.InputError, match="group_col= does not apply with items="):
        leaderboard.compare("old", "new", items=items, group_col="passage")
    with pytest.raises(leaderboard.InputError, match="alpha= must be strictly between 0 and 1"):
        leaderboard.compare("old", "new", items=items, alpha=1.5)
    with pytest.raises(leaderboard.InputError, match="one of them"):
        leaderboard.compare("old", "new")
