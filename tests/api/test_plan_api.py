"""``leaderboard.plan`` and ``leaderboard.simulate``: the command line's ``plan`` and ``simulate``
with explicit parameters, the same numbers."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import leaderboard
from leaderboard.cli import main
from leaderboard.errors import InputError
from leaderboard.report.plan_report import write_json
from leaderboard.report.simulate_report import write_json as simulate_json


def test_the_signature_lists_every_parameter():
    for function in (leaderboard.plan, leaderboard.simulate):
        kinds = {p.kind for p in inspect.signature(function).parameters.values()}
        assert inspect.Parameter.VAR_KEYWORD not in kinds, function.__name__


def test_numpy_scalars_give_the_command_lines_numbers(tmp_path):
    cli_json = tmp_path / "cli.json"
    assert main(["plan", "--metric", "auc", "--score", "0.8", "--prevalence", "0.1", "--delta",
                 "0.02", "--n-test", "5000", "--public-fraction", "0.3", "--draws", "100",
                 "--seed", "4", "--quiet", "--json", str(cli_json)]) == 0
    api = leaderboard.plan(metric="auc", score=np.float64(0.8), prevalence=np.float64(0.1),
                           delta=np.float64(0.02), n_test=np.int64(5000),
                           public_fraction=np.float64(0.3), draws=np.int64(100), seed=4)
    # the result's JSON is the command's, byte for byte (issue 42's one result protocol)
    assert api.to_json() == cli_json.read_text(encoding="utf-8")
    write_json(api, tmp_path / "api.json")
    assert (tmp_path / "api.json").read_text(encoding="utf-8") == api.to_json()
    # the defaults are the command line's: correlation 0.5, so the independent answers differ
    assert api.settings.correlation == 0.5 and api.min_n_independent > api.min_n


@pytest.mark.parametrize("options, words", [
    (dict(score=0.8), "give delta= "),
    (dict(score=0.8, delta=-0.1), "delta= must be positive, got -0.1"),
    (dict(score=0.8, delta=0.02, power=1.0), "power= must be strictly between 0 and 1, got 1.0"),
    (dict(score="0.8", delta=0.02), "score= must be a number"),
    (dict(score=0.8, n_test=10**4, alpha=np.float64(1.5)), "alpha= must be strictly between 0 and 1, got 1.5"),
])
def test_bad_values_are_one_input_error_naming_the_parameter(options, words):
    with pytest.raises(InputError, match=words):
        leaderboard.plan(metric="accuracy", **options)


def test_simulate_gives_the_command_lines_numbers(tmp_path):
    cli_json = tmp_path / "cli.json"
    assert main(["simulate", "--metric", "auc", "--score", "0.8,0.81", "--n-test", "1000",
                 "--prevalence", "5%", "--draws", "500", "--seed", "2", "--quiet",
                 "-o", str(tmp_path / "s.html"), "--json", str(cli_json)]) == 0
    api = leaderboard.simulate(metric="auc", scores=np.array([0.8, 0.81]), n_tests=np.int64(1000),
                               prevalences=np.float64(0.05), draws=500, seed=2)
    assert api.to_json() == cli_json.read_text(encoding="utf-8")
    simulate_json(api, tmp_path / "api.json")
    assert (tmp_path / "api.json").read_text(encoding="utf-8") == api.to_json()
    assert [c.score for c in api.cases] == [0.8, 0.81] and len(api.ahead) == 1


def test_simulate_grid_takes_the_seeds_lists_and_names_bad_ones():
    grid = leaderboard.simulate(metric="accuracy", scores=0.8, n_tests=[100, 400], grid=True,
                                draws=100)
    assert grid.draws == 100 and grid.partial is not None and len(grid.cases) == 2
    with pytest.raises(InputError, match="n_tests= must be at least 2"):
        leaderboard.simulate(metric="accuracy", scores=0.8, n_tests=[1])
    with pytest.raises(InputError, match=r"scores= is required \(or grid=True"):
        leaderboard.simulate(metric="accuracy", n_tests=100)
