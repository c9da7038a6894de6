"""One result protocol (issue 42): the eight public analyses return objects with ``to_dict``,
``to_json``, ``save`` and, where the command writes a page, ``to_html``; ``save`` writes what
they give, chosen by the suffix, and refuses another suffix in one line. Tiny inputs, the
fewest draws and replicates the options allow: the outputs' equality needs no precise numbers."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import leaderboard
from leaderboard.cli import main
from leaderboard.result_protocol import AnalysisResult

NO_PAGE = {"compare"}   # the gate's outputs are the JSON and a pull-request comment


def _items(rng) -> pd.DataFrame:
    return pd.DataFrame({"model": np.repeat(["a", "b", "c"], 60),
                         "item": np.tile(np.arange(60), 3),
                         "value": (rng.random(180) < np.repeat([0.8, 0.6, 0.5], 60)) * 1})


def _battles(rng, n: int = 300) -> pd.DataFrame:
    a, b = rng.integers(0, 3, n), rng.integers(1, 3, n)
    b = (a + b) % 3
    won = rng.random(n) < 1 / (1 + np.exp(b - a))
    names = np.array(["x", "y", "z"])
    return pd.DataFrame({"model_a": names[a], "model_b": names[b],
                         "winner": np.where(won, "model_a", "model_b")})


@pytest.fixture(scope="module")
def results() -> dict:
    """One result of each of the eight analyses, on tiny inputs."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 120)
    solution = pd.DataFrame({"id": range(120), "target": y})
    teams = {name: np.clip(y * skill + rng.random(120), 0, 2) / 2
             for name, skill in (("good", 0.8), ("weak", 0.1))}
    board = pd.DataFrame({"team": ["a", "b", "c"], "score": [0.9, 0.85, 0.6]})
    return {
        "analyze": leaderboard.analyze(board, metric="auc", n_test=500, prevalence=0.3,
                                       draws=100, replicates=100),
        "analyze_submissions": leaderboard.analyze_submissions(solution, teams, metric="auc",
                                                               replicates=100),
        "analyze_items": leaderboard.analyze_items(_items(rng), replicates=100),
        "analyze_battles": leaderboard.analyze_battles(_battles(rng), replicates=100),
        "choose_finals": leaderboard.choose_finals(
            pd.DataFrame({"name": ["s1", "s2", "s3"], "score": [0.80, 0.81, 0.79]}),
            metric="accuracy", n_public=500, draws=1000, replicates=100),
        "compare": leaderboard.compare("b", "a", items=_items(rng), replicates=100),
        "plan": leaderboard.plan(metric="accuracy", score=0.8, delta=0.05, correlation=0,
                                 draws=100),
        "simulate": leaderboard.simulate(metric="accuracy", scores=0.8, n_tests=200,
                                         draws=100),
    }


def test_the_eight_analyses_follow_one_protocol(results, tmp_path):
    assert len(results) == 8
    for name, result in results.items():
        assert isinstance(result, AnalysisResult), name
        assert hasattr(result, "to_html") == (name not in NO_PAGE), name
        text = result.to_json()
        assert text.endswith("}\n") and json.loads(text) == json.loads(
            json.dumps(result.to_dict())), name
        saved = result.save(tmp_path / f"{name}.JSON")      # the suffix in any case
        assert saved.read_bytes() == text.encode("utf-8"), name
        with pytest.raises(leaderboard.InputError,
                           match=rf"^save: give a path ending in \.\S+.* not '{name}\.txt'$"):
            result.save(tmp_path / f"{name}.txt")
        assert not (tmp_path / f"{name}.txt").exists()


def test_save_writes_the_page_and_the_comment(results, tmp_path):
    for name in results.keys() - NO_PAGE:
        result = results[name]
        page = result.save(tmp_path / f"{name}.html").read_text(encoding="utf-8")
        assert page == result.to_html() and page.lstrip().lower().startswith("<!doctype html")
    gate = results["compare"]
    assert gate.save(tmp_path / "gate.md").read_text(encoding="utf-8") == gate.to_markdown()
    assert "# " in gate.to_markdown() or "|" in gate.to_markdown()
    with pytest.raises(leaderboard.InputError, match=r"\.json or \.md, not 'gate\.html'"):
        gate.save(tmp_path / "gate.html")


def test_plan_from_follows_it_too(results, tmp_path):
    planned = leaderboard.plan_from(results["analyze_items"], boards=20, replicates=100)
    assert isinstance(planned, AnalysisResult) and planned.current == 60
    assert planned.save(tmp_path / "p.json").read_text(encoding="utf-8") == planned.to_json()
    assert json.loads(planned.to_json())["command"] == "plan"
    assert planned.save(tmp_path / "p.html").read_text(encoding="utf-8") == planned.to_html()


def test_the_results_keep_their_pipelines_fields_and_classes(results):
    """The API's classes add outputs to the pipelines' answers: every field and property is
    there, and the report's writers take them as they are."""
    from leaderboard.pipelines.choose import ChooseResult
    from leaderboard.pipelines.compare import Gate
    from leaderboard.pipelines.plan import Plan
    from leaderboard.pipelines.simulate import Experiment

    for name, kind in (("choose_finals", ChooseResult), ("compare", Gate), ("plan", Plan),
                       ("simulate", Experiment)):
        assert isinstance(results[name], kind) and type(results[name]) is not kind, name
    assert results["compare"].better == results["compare"].comparison.better
    assert results["plan"].min_n > 0 and results["simulate"].universe
    assert type(results["plan"]) is leaderboard.Plan and type(results["compare"]) is leaderboard.Gate


def test_battles_json_is_the_command_lines(results, tmp_path):
    rng = np.random.default_rng(7)
    frame = _battles(rng)
    path = tmp_path / "battles.csv"
    frame.to_csv(path, index=False)
    assert main(["analyze", "--battles", str(path), "--replicates", "100", "--quiet",
                 "-o", str(tmp_path / "b.html"), "--json", str(tmp_path / "b.json")]) == 0
    cli = json.loads((tmp_path / "b.json").read_text(encoding="utf-8"))
    api = json.loads(leaderboard.analyze_battles(frame, replicates=100).to_json())

    def numbers(d: dict) -> dict:   # where the battles came from (a path, or the DataFrame)
        out = {k: v for k, v in d.items() if k not in ("source", "command")}
        out["card"] = {k: v for k, v in out["card"].items() if k != "provenance"}
        return out

    assert numbers(api) == numbers(cli) and api["models"]
