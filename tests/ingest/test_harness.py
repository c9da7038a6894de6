"""lm-evaluation-harness sample logs as ``--items``: a fixture written from the harness's documented
``--log_samples`` output (OUT/<model>/samples_<task>_<timestamp>.jsonl, one object per document
and filter with doc_id, filter, metrics and one key per metric)."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

from leaderboard.cli import main
from leaderboard.errors import InputError
from leaderboard.ingest.items import read_items

STAMP = "2026-11-20T10-31-07.123456"


def _sample(doc_id: int, acc: float, acc_norm: float, flt: str = "none") -> dict:
    doc = {"question": f"question {doc_id}", "choices": ["a", "b", "c", "d"], "answer": 1}
    return {"doc_id": doc_id, "doc": doc, "target": "1",
            "arguments": [[f"question {doc_id}", f" {c}"] for c in "abcd"],
            "resps": [[[-1.5, False]]] * 4, "filtered_resps": [[-1.5, False]] * 4,
            "filter": flt, "metrics": ["acc", "acc_norm"], "doc_hash": "d" * 64,
            "prompt_hash": "p" * 64, "target_hash": "t" * 64, "acc": acc, "acc_norm": acc_norm}


def _write(out, model, task, samples, stamp=STAMP):
    folder = out / model
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"samples_{task}_{stamp}.jsonl").write_text(
        "".join(json.dumps(s) + "\n" for s in samples), encoding="utf-8")


def _harness(tmp_path, models=("org__model-a", "org__model-b", "org__model-c"),
             tasks=("arc_easy", "hellaswag"), docs=200, seed=0):
    rng = np.random.default_rng(seed)
    out = tmp_path / "out"
    truth = {}
    for k, model in enumerate(models):
        for task in tasks:
            acc = (rng.random(docs) < 0.55 + 0.1 * k).astype(float)
            norm = (rng.random(docs) < 0.6).astype(float)
            _write(out, model, task, [_sample(i, a, b) for i, (a, b) in enumerate(zip(acc, norm))])
            truth.setdefault(model, []).extend(acc)
    return out, {m: float(np.mean(v)) for m, v in truth.items()}


def test_scores_are_the_mean_metric_and_tasks_are_categories(tmp_path):
    out, truth = _harness(tmp_path)
    code = main(["analyze", "--items", str(out), "--quiet", "--replicates", "300",
                 "-o", str(tmp_path / "r.html"), "--json", str(tmp_path / "r.json")])
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert code == 0
    assert {e["team"]: pytest.approx(e["score"]) for e in report["entries"]} == truth
    assert report["categories"]["categories"] == ["arc_easy", "hellaswag"]
    solution, models = read_items(out, value_col="acc_norm", max_bytes=1 << 30)
    assert solution.ids[0] == "arc_easy/0" and len(solution.ids) == 400
    assert models.scored[0].prediction.mean() != pytest.approx(truth["org__model-a"])


def test_newest_run_wins_and_a_missing_task_shrinks_the_common_items(tmp_path):
    out, truth = _harness(tmp_path)
    _write(out, "org__model-a", "arc_easy", [_sample(i, 1.0, 1.0) for i in range(200)],
           stamp="2026-11-21T09-00-00.000001")            # a later run: all correct
    (out / "org__model-c" / f"samples_hellaswag_{STAMP}.jsonl").unlink()
    solution, models = read_items(out, max_bytes=1 << 30)
    by_name = {f.team: f for f in models.files}
    assert by_name["org__model-a"].prediction[:200].mean() == 1.0
    older = f"org__model-a/samples_arc_easy_{STAMP}.jsonl"
    assert by_name[older].status == "skipped" and "older run of arc_easy" in by_name[older].reason
    # issue 40: a model without a task is left out, named, when that keeps more (model, item)
    # cells (2 models x 400 items against 3 x 200); issue 26's way, asked for, keeps it on the
    # items every model has
    assert by_name["org__model-c"].status == "set aside" and len(solution.ids) == 400
    assert "has 200 of the 400 items" in by_name["org__model-c"].reason
    solution, models = read_items(out, items_policy="drop-items", max_bytes=1 << 30)
    assert {f.team: f.status for f in models.files}["org__model-c"] == "ok"
    assert len(solution.ids) == 200 and solution.coverage.shrinkers == (("org__model-c", 200),)
    assert not any(i.startswith("hellaswag/") for i in solution.ids)


def test_several_filters_need_a_choice(tmp_path):
    out = tmp_path / "out"
    for model in ("m1", "m2"):
        samples = [_sample(i, float(i % 2), 0.0, flt) for i in range(50)
                   for flt in ("strict-match", "flexible-extract")]
        _write(out, model, "gsm8k", samples)
    with pytest.raises(InputError, match="several filters.*--harness-filter"):
        read_items(out, max_bytes=1 << 30)
    solution, models = read_items(out, harness_filter="strict-match", max_bytes=1 << 30)
    assert len(solution.ids) == 50 and all(f.ok for f in models.files)
    with pytest.raises(InputError, match="the logs' filters are"):
        read_items(out, harness_filter="nope", max_bytes=1 << 30)


def test_bad_lines_name_file_and_line_and_links_are_not_followed(tmp_path, capsys):
    out, _ = _harness(tmp_path, docs=20)
    path = out / "org__model-b" / f"samples_arc_easy_{STAMP}.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    broken = json.loads(lines[4])
    del broken["acc"]
    path.write_text("\n".join(lines[:4] + [json.dumps(broken)] + lines[5:]) + "\n")
    code = main(["analyze", "--items", str(out), "--quiet", "-o", str(tmp_path / "r.html")])
    err = capsys.readouterr().err
    assert code == 2 and f"{path}:5" in err and "metric acc is missing here" in err
    path.write_text("\n".join(lines) + "\n")
    (out / "linked").symlink_to(out / "org__model-a", target_is_directory=True)
    os.symlink("/etc/passwd", out / "org__model-b" / f"samples_evil_{STAMP}.jsonl")
    (out / "notes.txt").write_text("a file beside the model folders")
    solution, models = read_items(out, max_bytes=1 << 30)
    assert not any(i.startswith("evil/") for i in solution.ids)
    skipped = {f.file: f.reason for f in models.files if f.status == "skipped"}
    assert skipped["linked"] == "a link; not followed"                 # listed, never read
    assert skipped[f"org__model-b/samples_evil_{STAMP}.jsonl"] == "a link; not followed"
    assert "beside the model folders" in skipped["notes.txt"]
    assert {f.team for f in models.scored} == {"org__model-a", "org__model-b", "org__model-c"}
