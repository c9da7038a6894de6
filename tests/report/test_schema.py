"""Every command's JSON validates against its published schema (leaderboard/schema): `analyze` in
every mode, `simulate`, `plan`, `choose`, `compare` and `calibrate` in their variants. The schemas are strict:
a field one does not describe fails, so the JSON cannot drift from what the README links to."""
from __future__ import annotations

import json

import pytest

from tests.quick_args import quick

jsonschema = pytest.importorskip("jsonschema")

from leaderboard.cli import main  # noqa: E402
from leaderboard.schema import SCHEMA_DIR  # noqa: E402

COMMANDS = ("analyze", "simulate", "plan", "choose", "compare", "calibrate")


def _validator(command: str):
    schema = json.loads((SCHEMA_DIR / f"{command}.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


VALIDATOR = _validator("analyze")


def _analyze(tmp_path, *argv) -> dict:
    out = tmp_path / "r.json"
    assert main(["analyze", *argv, "--quiet", *quick(argv),
                 "-o", str(tmp_path / "r.html"), "--json", str(out)]) == 0
    return json.loads(out.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def example_json(example_outputs):
    """The default example's JSON (200 draws and replicates, the session's run:
    tests/conftest.py), for the three tests that validate it (each gets its own copy: one of
    them edits it)."""
    text = example_outputs("scores")["json"].read_text(encoding="utf-8")
    return lambda: json.loads(text)


def _items(tmp_path):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"model": np.repeat(["a", "b", "c"], 300), "item": np.tile(range(300), 3),
                          "value": (rng.random(900) < 0.7) * 1,
                          "subject": np.tile(np.arange(300) % 3, 3)})
    frame.to_csv(tmp_path / "items.csv", index=False)
    return ["--items", str(tmp_path / "items.csv"), "--category-col", "subject"]


@pytest.mark.parametrize("mode", ["scores", "submissions", "items"])
def test_analyze_json_validates(tmp_path, mode, example_json, example_outputs):
    if mode == "scores":
        data = example_json()
    elif mode == "submissions":
        data = json.loads(example_outputs("submissions")["json"].read_text(encoding="utf-8"))
    else:
        data = _analyze(tmp_path, *_items(tmp_path))
    errors = [f"{list(e.path)}: {e.message}" for e in VALIDATOR.iter_errors(data)]
    assert not errors, errors[:5]


def test_several_metrics_hold_one_valid_analysis_each(tmp_path):
    data = _analyze(tmp_path, "--example", "submissions", "--metric", "auc,brier")
    assert data["command"] == "analyze" and data["metrics"] == ["auc", "brier"]
    for analysis in data["analyses"].values():
        VALIDATOR.validate(analysis)


def test_the_schema_refuses_what_it_does_not_describe(example_json):
    data = example_json()
    data["entries"][0]["status"] = "ok"                  # entries carry no status any more
    with pytest.raises(jsonschema.ValidationError):
        VALIDATOR.validate(data)
    data["entries"][0].pop("status")
    data["surprise"] = 1
    with pytest.raises(jsonschema.ValidationError):
        VALIDATOR.validate(data)


# --- the other commands ------------------------------------------------------------------------

def _run(tmp_path, *argv) -> dict:
    out = tmp_path / "out.json"
    out.unlink(missing_ok=True)
    assert main([*argv, "--json", str(out)]) in (0, 1)    # compare: 1 = not shown better
    return json.loads(out.read_text(encoding="utf-8"))


def _errors(command: str, data: dict) -> list[str]:
    return [f"{list(e.path)}: {e.message}" for e in _validator(command).iter_errors(data)]


def _compare_inputs(tmp_path) -> list[list[str]]:
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 600)
    pd.DataFrame({"id": range(600), "target": y}).to_csv(tmp_path / "sol.csv", index=False)
    for name, skill in (("base", 0.5), ("cand", 1.5)):
        pd.DataFrame({"id": range(600), "target": y * skill + rng.normal(0, 1, 600)}).to_csv(
            tmp_path / f"{name}.csv", index=False)
    items = pd.DataFrame({"model": ["a"] * 400 + ["b"] * 400, "item": list(range(400)) * 2,
                          "value": (rng.random(800) < 0.7).astype(int)})
    items.to_csv(tmp_path / "items.csv", index=False)
    return [["--solution", str(tmp_path / "sol.csv"), "--metric", "auc", "--baseline",
             str(tmp_path / "base.csv"), "--candidate", str(tmp_path / "cand.csv")],
            ["--items", str(tmp_path / "items.csv"), "--baseline", "a", "--candidate", "b"]]


RUNS = {
    "simulate": [["--metric", "auc", "--score", "0.75,0.8", "--n-test", "1000", "--prevalence",
                  "0.1", "--draws", "200"],
                 ["--grid", "--score", "0.8", "--n-test", "1000,5000", "--prevalence", "0.05,0.2",
                  "--draws", "200"],
                 ["--metric", "rmse", "--score", "1.0", "--n-test", "500", "--draws", "200"]],
    "plan": [["--metric", "accuracy", "--score", "0.8", "--delta", "0.02"],
             ["--metric", "accuracy", "--score", "0.8", "--n-test", "5000", "--public-fraction",
              "0.3"],
             ["--metric", "accuracy", "--score", "0.8", "--delta", "0.02", "--n-test", "3000",
              "--correlation", "0.5"]],
    "choose": [["--example", "--replicates", "200", "--draws", "2000"]],
    # -o: the study's Markdown table (PAGE, a temporary file), never docs/calibration.md
    "calibrate": [["--entries", "3", "--competitions", "2", "-o", "PAGE"]],
}


@pytest.fixture(scope="module")
def command_json(tmp_path_factory):
    """``command_json(command, variant)``: the JSON of ``RUNS[command][variant]`` (simulate and
    choose also writing their page), each run once for the tests that validate it (issue 27:
    calibrate's run took 3 s and three tests read it); each caller gets its own copy."""
    done: dict[tuple[str, int], dict] = {}

    def get(command: str, variant: int) -> dict:
        if (command, variant) not in done:
            tmp_path = tmp_path_factory.mktemp(f"{command}{variant}")
            argv = [str(tmp_path / "table.md") if a == "PAGE" else a
                    for a in RUNS[command][variant]]
            if command in ("simulate", "choose"):
                argv = [*argv, "-o", str(tmp_path / "page.html")]
            done[command, variant] = _run(tmp_path, command, *argv, "--quiet")
        return json.loads(json.dumps(done[command, variant]))
    return get


@pytest.fixture(scope="module")
def compare_json(tmp_path_factory):
    """compare's JSON for the files inputs (0) and the items inputs (1), each run once, with
    the names it was given (the files' paths, or the models)."""
    tmp_path = tmp_path_factory.mktemp("compare")
    files, items = _compare_inputs(tmp_path)
    return [(_run(tmp_path, "compare", *argv, "--replicates", "200", "--quiet"), names)
            for argv, names in ((files, (files[5], files[7])), (items, ("a", "b")))]


@pytest.mark.parametrize("command,variant", [(c, i) for c, runs in RUNS.items()
                                             for i in range(len(runs))])
def test_every_command_json_validates(command_json, command, variant):
    data = command_json(command, variant)
    assert data["command"] == command and isinstance(data["version"], str)
    errors = _errors(command, data)
    assert not errors, errors[:5]


def test_choose_from_a_table_validates(tmp_path):
    import pandas as pd

    pd.DataFrame({"name": ["a", "b", "c", "d"], "score": [0.81, 0.8, 0.78, 0.7]}).to_csv(
        tmp_path / "subs.csv", index=False)
    data = _run(tmp_path, "choose", "--public-scores", str(tmp_path / "subs.csv"), "--n-public",
                "1000", "--metric", "accuracy", "--draws", "2000", "-o",
                str(tmp_path / "c.html"), "--quiet")
    assert {c["source"] for c in data["candidates"]} == {"table"}
    assert data["correlation"] == {"value": 0.9, "source": "default"}     # said, not hidden
    assert not _errors("choose", data)


def test_compare_json_validates_and_keeps_names_apart_from_scores(compare_json):
    for data, names in compare_json:
        assert not _errors("compare", data)
        assert (data["baseline"], data["candidate"]) == names        # what was compared
        assert isinstance(data["baseline_score"], float)             # and its score, apart


@pytest.mark.parametrize("command", COMMANDS)
def test_every_schema_is_strict(command, example_json, command_json, compare_json):
    """A field the schema does not describe fails, and so does a missing required one."""
    schema = json.loads((SCHEMA_DIR / f"{command}.schema.json").read_text(encoding="utf-8"))
    assert schema["additionalProperties"] is False and {"version", "command"} <= set(
        schema["required"])
    assert schema["properties"]["command"] == {"const": command}
    if command == "compare":
        data = json.loads(json.dumps(compare_json[0][0]))
    elif command == "analyze":
        data = example_json()
    else:
        data = command_json(command, 0)
    validator = _validator(command)
    validator.validate(data)
    with pytest.raises(jsonschema.ValidationError):
        validator.validate({**data, "surprise": 1})
    with pytest.raises(jsonschema.ValidationError):
        validator.validate({k: v for k, v in data.items() if k != "version"})


def test_plan_schema_ties_the_answers_to_the_question(command_json):
    """min_n comes with --delta, mdd with --n-test: a JSON that mixes them up fails."""
    data = command_json("plan", 0)
    assert "min_n" in data and "mdd" not in data and not _errors("plan", data)
    assert _errors("plan", {k: v for k, v in data.items() if k != "min_n"})
    assert _errors("plan", {**data, "mdd": 0.01, "public_n": None, "mdd_public": None})


def test_the_readme_links_every_schema():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    for command in COMMANDS:
        assert f"(leaderboard/schema/{command}.schema.json)" in readme, command
        assert (SCHEMA_DIR / f"{command}.schema.json").is_file()


def test_calibrate_cells_are_measures_with_their_errors(command_json):
    """A tiers-study cell: its design, then every measure with its Monte Carlo SE; a string where
    a measure belongs, or scores-only results in a tiers study, fail."""
    data = command_json("calibrate", 0)    # --entries 3 --competitions 2 -o a temporary page
    assert data["study"] == "tiers" and len(data["cells"]) == 8 and not _errors("calibrate", data)
    cell = data["cells"][0]
    assert {"best_in_tier1[rank-sets]", "se:best_in_tier1[rank-sets]"} <= set(cell)
    bad = {**data, "cells": [{**cell, "score_cover": "high"}, *data["cells"][1:]]}
    assert _errors("calibrate", bad)
    assert _errors("calibrate", {**data, "boards": []})
