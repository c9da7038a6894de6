"""HELM runs as ``--items``: suite folders written here with HELM's documented fields
(run_spec.json's name and adapter_spec.model; per_instance_stats.json's instance_id,
train_trial_index, perturbation and stats; stats.json's aggregated stats)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from leaderboard.errors import InputError
from leaderboard.ingest.helm import read_helm
from leaderboard.ingest.items import read_items


def _stat(name, value, split="test", perturbation=None):
    label = {"name": name, "split": split}
    if perturbation:
        label["perturbation"] = perturbation
    return {"name": label, "count": 1, "sum": value, "sum_squared": value * value,
            "min": value, "max": value, "mean": value, "variance": 0.0, "stddev": 0.0}


def _run(suite, scenario, model, values, trials=1, perturbed=0, published=None, split="test"):
    """One run folder; ``values[i][t]`` is instance i's exact_match on trial t."""
    joint = "," if ":" in scenario else ":"          # HELM: mmlu:subject=x,model=m; boolq:model=m
    run = suite / f"{scenario}{joint}model={model.replace('/', '_')}"
    run.mkdir(parents=True)
    (run / "run_spec.json").write_text(json.dumps(
        {"name": f"{scenario}{joint}model={model}", "scenario_spec": {"class_name": "x"},
         "adapter_spec": {"method": "multiple_choice_joint", "model": model,
                          "model_deployment": model}, "metric_specs": [], "groups": []}),
        encoding="utf-8")
    records = []
    for i, per_trial in enumerate(values):
        for t in range(trials):
            records.append({"instance_id": f"id{100 + i}", "train_trial_index": t,
                            "stats": [_stat("num_references", 4.0),
                                      _stat("exact_match", float(per_trial[t]), split),
                                      _stat("quasi_exact_match", 1.0, split)]})
        for _ in range(perturbed):
            typo = {"name": "typos", "robustness": True, "fairness": False, "prob": 0.1}
            records.append({"instance_id": f"id{100 + i}", "train_trial_index": 0,
                            "perturbation": typo,
                            "stats": [_stat("exact_match", 0.0, split, typo)]})
    (run / "per_instance_stats.json").write_text(json.dumps(records), encoding="utf-8")
    mean = float(np.mean([np.mean(v[:trials]) for v in values]))
    (run / "stats.json").write_text(json.dumps(
        [_stat("exact_match", mean if published is None else published, split)]),
        encoding="utf-8")
    (run / "scenario_state.json").write_text("{}", encoding="utf-8")
    return mean


def test_models_scenarios_trials_and_perturbations(tmp_path):
    suite = tmp_path / "runs" / "v1"
    rng = np.random.default_rng(3)
    truth: dict[str, list[float]] = {}
    for k, model in enumerate(("openai/gpt2", "meta/llama-7b")):
        for scenario in ("mmlu:subject=anatomy,method=multiple_choice_joint",
                         "mmlu:subject=philosophy,method=multiple_choice_joint"):
            values = (rng.random((40, 3)) < 0.3 + 0.3 * k).astype(float)
            _run(suite, scenario, model, values, trials=3, perturbed=1)
            truth.setdefault(model, []).extend(values.mean(axis=1))
    (suite / "groups").mkdir()
    solution, models = read_items(suite, max_bytes=1 << 20)
    assert len(solution.ids) == 80
    assert solution.ids[0] == "mmlu:subject=anatomy,method=multiple_choice_joint/id100"
    assert sorted(set(solution.categories)) == [
        "mmlu:subject=anatomy,method=multiple_choice_joint",
        "mmlu:subject=philosophy,method=multiple_choice_joint"]
    for f in models.scored:
        np.testing.assert_allclose(f.prediction, truth[f.team])
    notes = " ".join(solution.notes)
    assert "40 perturbed instances left out" in notes and "3 train trials per instance" in notes
    assert "stats.json says" not in notes           # the means agree with HELM's own
    skipped = {f.file: f.reason for f in models.files if f.status == "skipped"}
    assert "no per_instance_stats.json" in skipped["groups"]
    assert any(k.endswith("/scenario_state.json") for k in skipped)

    _, models = read_items(suite, value_col="quasi_exact_match", max_bytes=1 << 20)
    assert all(f.prediction.mean() == 1.0 for f in models.scored)


def test_a_published_mean_that_disagrees_is_said(tmp_path):
    suite = tmp_path / "v1"
    values = np.array([[1.0], [0.0], [1.0], [1.0]])
    _run(suite, "boolq", "org/a", values, published=0.5)
    _run(suite, "boolq", "org/b", values)
    _, _, notes = read_helm(suite, max_bytes=1 << 20)
    assert notes == ["boolq (org/a): exact_match here 0.75, its stats.json says 0.5"]


def test_the_test_split_is_read_and_the_other_said(tmp_path):
    suite = tmp_path / "v1"
    _run(suite, "boolq", "org/a", np.ones((5, 1)))
    run = suite / "boolq:model=org_a"
    records = json.loads((run / "per_instance_stats.json").read_text())
    records.append({"instance_id": "id900", "train_trial_index": 0,
                    "stats": [_stat("exact_match", 0.0, "valid")]})
    (run / "per_instance_stats.json").write_text(json.dumps(records))
    frame, _, notes = read_helm(suite, max_bytes=1 << 20)
    assert len(frame) == 5 and "1 instances of the valid split left out" in notes[0]


def test_bad_runs_are_one_line_errors_naming_file_and_entry(tmp_path):
    suite = tmp_path / "v1"
    _run(suite, "boolq", "org/a", np.ones((3, 1)))
    path = suite / "boolq:model=org_a" / "per_instance_stats.json"
    with pytest.raises(InputError, match=r"per_instance_stats\.json: entry 1: instance id100 has "
                                         r"no f1_score stat \(its stats: exact_match, "
                                         r"num_references, quasi_exact_match\)"):
        read_helm(suite, metric="f1_score", max_bytes=1 << 20)
    records = json.loads(path.read_text())
    records[2]["stats"][1]["mean"] = None
    records[2]["stats"][1]["count"] = 0
    path.write_text(json.dumps(records))
    with pytest.raises(InputError, match=r"json: entry 3: exact_match of instance id102 is "
                                         "missing"):
        read_helm(suite, max_bytes=1 << 20)
    path.write_text("[{]")
    with pytest.raises(InputError, match=r"per_instance_stats\.json: not JSON"):
        read_helm(suite, max_bytes=1 << 20)
    (suite / "boolq:model=org_a" / "run_spec.json").write_text('{"adapter_spec": {}}')
    with pytest.raises(InputError, match=r"run_spec\.json: adapter_spec\.model should be a "
                                         r"text, not missing"):
        read_helm(suite, max_bytes=1 << 20)
