"""Every `analyze` JSON validates against the published schema (leaderboard/schema), in every
mode, and the schema is strict: a field it does not describe fails, so the JSON cannot drift."""
from __future__ import annotations

import json

import pytest

jsonschema = pytest.importorskip("jsonschema")

from leaderboard.cli import main  # noqa: E402
from leaderboard.schema import SCHEMA_DIR  # noqa: E402

SCHEMA = json.loads((SCHEMA_DIR / "analyze.schema.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def _analyze(tmp_path, *argv) -> dict:
    out = tmp_path / "r.json"
    assert main(["analyze", *argv, "--quiet", "--draws", "200", "--replicates", "200",
                 "-o", str(tmp_path / "r.html"), "--json", str(out)]) == 0
    return json.loads(out.read_text(encoding="utf-8"))


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
def test_analyze_json_validates(tmp_path, mode):
    argv = {"scores": ["--example"], "submissions": ["--example", "submissions"],
            "items": None}[mode] or _items(tmp_path)
    data = _analyze(tmp_path, *argv)
    errors = [f"{list(e.path)}: {e.message}" for e in VALIDATOR.iter_errors(data)]
    assert not errors, errors[:5]


def test_several_metrics_hold_one_valid_analysis_each(tmp_path):
    data = _analyze(tmp_path, "--example", "submissions", "--metric", "auc,brier")
    assert data["command"] == "analyze" and data["metrics"] == ["auc", "brier"]
    for analysis in data["analyses"].values():
        VALIDATOR.validate(analysis)


def test_the_schema_refuses_what_it_does_not_describe(tmp_path):
    data = _analyze(tmp_path, "--example")
    data["entries"][0]["status"] = "ok"                  # entries carry no status any more
    with pytest.raises(jsonschema.ValidationError):
        VALIDATOR.validate(data)
    data["entries"][0].pop("status")
    data["surprise"] = 1
    with pytest.raises(jsonschema.ValidationError):
        VALIDATOR.validate(data)
