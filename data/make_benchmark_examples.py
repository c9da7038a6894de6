"""Generate small made-up examples of the four benchmark layouts ``analyze --items`` reads.

Run ``python data/make_benchmark_examples.py OUT_DIR``. Deterministic (fixed seed); not committed
(the manual's commands on docs/benchmark-formats.md run it first). It writes, in OUT_DIR, the
layouts the tools themselves write, with only the fields the readers use and a few around them:

``evaluation/verified/<date>_<system>/results/results.json`` and ``verified_ids.txt``
    SWE-bench's experiments repository: three systems, each listing the instances it resolved
    (``resolved``, ``no_generation``, ``no_logs``), and the split's 60 instance ids.
``benchmark_output/runs/v1/<scenario>:model=<model>/``
    HELM: one run folder per model and scenario (``run_spec.json``, ``per_instance_stats.json``
    with ``exact_match`` per instance, ``stats.json``), three models on two scenarios.
``logs/<created>_<task>_<model>.json``
    Inspect: one JSON log per model (``eval``'s model, task and created; ``samples`` with a
    ``choice`` scorer's ``C``/``I`` values), three models on one task.
``lm_eval_out/<model>/samples_<task>_<time>.jsonl``
    lm-evaluation-harness (``--log_samples``): one object per document with ``acc`` and
    ``acc_norm``, three models on two tasks.

The models' true accuracies differ by a few points; which is ahead is for the analysis to say.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

SEED = 20261209
MODELS = (("acme/falcon-mini", 0.55), ("acme/falcon-large", 0.68), ("brio/owl-13b", 0.62))
REPOS = ("django__django", "sympy__sympy", "astropy__astropy")


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _swebench(out: Path, rng: np.random.Generator) -> None:
    ids = [f"{repo}-{1000 + n}" for repo in REPOS for n in range(20)]
    _write(out / "verified_ids.txt", "".join(i + "\n" for i in ids))
    for k, (model, p) in enumerate(MODELS):
        system = out / "evaluation" / "verified" / f"2026110{k + 1}_{model.split('/')[1]}"
        solved = [i for i in ids if rng.random() < p - 0.25]
        _write(system / "results" / "results.json", json.dumps(
            {"no_generation": [], "no_logs": [], "resolved": solved}, indent=1))
        _write(system / "metadata.yaml", f"name: {model}\n")


def _stat(name: str, value: float) -> dict:
    return {"name": {"name": name, "split": "test"}, "count": 1, "sum": value,
            "sum_squared": value * value, "min": value, "max": value, "mean": value,
            "variance": 0.0, "stddev": 0.0}


def _helm(out: Path, rng: np.random.Generator) -> None:
    suite = out / "benchmark_output" / "runs" / "v1"
    for scenario in ("boolq", "mmlu:subject=anatomy,method=multiple_choice_joint"):
        joint = "," if ":" in scenario else ":"
        for model, p in MODELS:
            run = suite / f"{scenario}{joint}model={model.replace('/', '_')}"
            values = (rng.random(50) < p).astype(float)
            _write(run / "run_spec.json", json.dumps(
                {"name": f"{scenario}{joint}model={model}", "scenario_spec": {"class_name": "x"},
                 "adapter_spec": {"method": "multiple_choice_joint", "model": model,
                                  "model_deployment": model}, "metric_specs": [], "groups": []}))
            _write(run / "per_instance_stats.json", json.dumps(
                [{"instance_id": f"id{100 + i}", "train_trial_index": 0,
                  "stats": [_stat("exact_match", float(v))]} for i, v in enumerate(values)]))
            _write(run / "stats.json", json.dumps([_stat("exact_match", float(values.mean()))]))


def _inspect(out: Path, rng: np.random.Generator) -> None:
    created = "2026-11-01T10:00:00+00:00"
    for model, p in MODELS:
        samples = [{"id": i + 1, "epoch": 1, "input": f"question {i + 1}", "target": "A",
                    "scores": {"choice": {"value": "C" if rng.random() < p else "I",
                                          "answer": "A"}}} for i in range(80)]
        log = {"version": 2, "status": "success",
               "eval": {"eval_id": f"e-{model}", "run_id": "r1", "created": created,
                        "task": "quiz", "task_version": 0, "model": model,
                        "dataset": {"name": "quiz", "samples": len(samples)},
                        "config": {"epochs": 1}},
               "plan": {"name": "plan", "steps": []}, "results": {}, "stats": {},
               "samples": samples}
        _write(out / "logs" / f"2026-11-01T10-00-00_quiz_{model.split('/')[1]}.json",
               json.dumps(log))


def _harness(out: Path, rng: np.random.Generator) -> None:
    for model, p in MODELS:
        for task in ("arc_easy", "hellaswag"):
            lines = []
            for doc in range(60):
                acc, norm = (float(rng.random() < p) for _ in range(2))
                lines.append(json.dumps(
                    {"doc_id": doc, "doc": {"question": f"question {doc}"}, "target": "1",
                     "filter": "none", "metrics": ["acc", "acc_norm"], "acc": acc,
                     "acc_norm": norm}))
            _write(out / "lm_eval_out" / model.replace("/", "__")
                   / f"samples_{task}_2026-11-20T10-31-07.123456.jsonl", "\n".join(lines) + "\n")


def main(out_dir: str | Path) -> Path:
    """Write the four layouts into ``out_dir``."""
    out = Path(out_dir)
    rng = np.random.default_rng(SEED)
    for write in (_swebench, _helm, _inspect, _harness):
        write(out, rng)
    return out


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python data/make_benchmark_examples.py OUT_DIR")
    print(main(sys.argv[1]))
