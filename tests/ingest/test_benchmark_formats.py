"""``--items-format``: which reader a path needs (auto-detection, explicit choices, refusals),
declared once in leaderboard.params and reached from the API."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import leaderboard
from leaderboard.errors import InputError
from leaderboard.ingest.benchmarks import FORMATS, detect
from leaderboard.ingest.items import read_items
from leaderboard.params import check
from tests.ingest.test_helm import _run
from tests.ingest.test_inspect_logs import _json_log
from tests.ingest.test_swebench import _details


def test_each_layout_is_recognised_and_a_mixed_folder_must_be_named(tmp_path):
    _details(tmp_path / "swe", "sys-a", {"a__b-1": True})
    _run(tmp_path / "helm", "boolq", "org/a", np.ones((2, 1)))
    log = _json_log(tmp_path / "inspect", "m/one", "quiz", [["C"]])
    (tmp_path / "harness" / "org__m").mkdir(parents=True)
    (tmp_path / "harness" / "org__m" / "samples_arc_2026-01-01T00-00-00.1.jsonl").write_text("")
    assert [detect(tmp_path / f) for f in ("swe", "helm", "inspect", "harness")] == \
        ["swebench", "helm", "inspect", "harness"]
    assert detect(log) == "inspect" and detect(tmp_path / "results.csv") == "table"
    _run(tmp_path / "swe", "boolq", "org/a", np.ones((2, 1)))        # a HELM run among systems
    with pytest.raises(InputError, match=r"several formats \(helm, swebench\); choose one with "
                                         "--items-format"):
        detect(tmp_path / "swe")
    frame = read_items(tmp_path / "swe", items_format="swebench", max_bytes=1 << 20)[1]
    assert [f.team for f in frame.scored] == ["sys-a"]
    skipped = {f.file: f.reason for f in frame.files if f.status == "skipped"}
    assert "not a SWE-bench system folder" in skipped["boolq:model=org_a"]
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="a folder of none of the formats --items reads"):
        detect(tmp_path / "empty")


def test_options_that_belong_to_another_format_are_refused(tmp_path):
    log = _json_log(tmp_path, "m/one", "quiz", [["C"], ["I"]])
    with pytest.raises(InputError, match="--instances is for SWE-bench results; "
                                         "--items-format is inspect"):
        read_items(log, instances=str(log), max_bytes=1 << 20)
    with pytest.raises(InputError, match="--missing-instances is for SWE-bench results"):
        read_items(log, missing_instances="missing", max_bytes=1 << 20)
    with pytest.raises(InputError, match="--items-format helm reads a folder"):
        read_items(log, items_format="helm", max_bytes=1 << 20)
    _details(tmp_path / "swe", "sys-a", {"a__b-1": True})
    with pytest.raises(InputError, match="SWE-bench results hold one value, resolved"):
        read_items(tmp_path / "swe", value_col="cost", max_bytes=1 << 20)


def test_the_api_reads_a_benchmark_and_checks_the_choice(tmp_path):
    logs = tmp_path / "logs"
    rng = np.random.default_rng(2)
    for k, model in enumerate(("a/strong", "b/weak")):
        _json_log(logs, model, "quiz", [["C" if h else "I"] for h in
                                        rng.random(300) < (0.85, 0.55)[k]])
    result = leaderboard.analyze_items(logs, items_format="inspect", replicates=200)
    assert result.table[["team", "tier"]].values.tolist() == [["a/strong", 1], ["b/weak", 2]]
    with pytest.raises(InputError, match=r"items_format= must be one of 'auto', 'table', "):
        leaderboard.analyze_items(logs, items_format="lm-eval")
    with pytest.raises(InputError, match="a DataFrame is a table, not swebench files"):
        leaderboard.analyze_items(pd.DataFrame({"model": ["a"], "item": [1], "value": [1]}),
                                  items_format="swebench")
    assert check("items_format", "helm") == "helm" and FORMATS[0] == "auto"
    assert json.loads(result.to_json())["notes"] == []


@pytest.mark.parametrize("text,words", [
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('{"a__b-1": {"resolved": ' + "9" * 5000 + "}}", "not JSON"),
    ('{"a__b-1": {"resolved": true}}\x00garbage', "not JSON"),
])
def test_hostile_json_is_a_one_line_error_naming_the_file(tmp_path, text, words):
    _details(tmp_path / "swe", "sys-a", {})
    path = tmp_path / "swe" / "sys-a" / "per_instance_details.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_items(tmp_path / "swe", max_bytes=1 << 20)
    message = str(err.value)
    assert message.startswith(str(path)) and words in message and "\n" not in message
