"""Inspect evaluation logs as ``--items``: logs written here in Inspect's two formats (a .json
document; a .eval zip of header.json and samples/<id>_epoch_<n>.json), with its fields (eval's
model, task and created; status; results; samples' id, epoch and scores)."""
from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest

from leaderboard.errors import InputError
from leaderboard.ingest.benchmarks import detect
from leaderboard.ingest.inspect_logs import read_inspect
from leaderboard.ingest.items import read_items


def _samples(values, epochs=1, scorer="choice"):
    return [{"id": i + 1, "epoch": e + 1, "input": f"question {i}", "target": "A",
             "messages": [], "output": {"model": "m", "choices": []},
             "scores": {scorer: {"value": v[e], "answer": "A", "explanation": "ANSWER: A"}},
             "metadata": {}, "store": {}, "events": []}
            for i, v in enumerate(values) for e in range(epochs)]


def _header(model, task, created, status="success", accuracy=None):
    results = {"total_samples": 0, "completed_samples": 0, "scores": [
        {"name": "choice", "scorer": "choice", "params": {},
         "metrics": {"accuracy": {"name": "accuracy", "value": accuracy, "params": {}}}}]}
    return {"version": 2, "status": status,
            "eval": {"eval_id": "e1", "run_id": "r1", "created": created, "task": task,
                     "task_version": 0, "dataset": {"name": task, "samples": 3},
                     "model": model, "config": {"epochs": 1, "epochs_reducer": ["mean"]}},
            "plan": {"name": "plan", "steps": []}, "results": results, "stats": {}}


def _json_log(folder, model, task, values, created="2026-11-01T10:00:00+00:00", **kw):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{created[:19].replace(':', '-')}_{task}_{model.split('/')[-1]}.json"
    path.write_text(json.dumps({**_header(model, task, created, **kw),
                                "samples": _samples(values)}), encoding="utf-8")
    return path


def _eval_log(folder, model, task, values, epochs=1, created="2026-11-01T10:00:00+00:00"):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{created[:19].replace(':', '-')}_{task}_{model.split('/')[-1]}.eval"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        header = _header(model, task, created)
        z.writestr("_journal/start.json", json.dumps({"version": 2, "eval": header["eval"],
                                                      "plan": header["plan"]}))
        for sample in _samples(values, epochs):
            z.writestr(f"samples/{sample['id']}_epoch_{sample['epoch']}.json",
                       json.dumps(sample))
        z.writestr("summaries.json", "[]")
        z.writestr("reductions.json", "[]")
        z.writestr("header.json", json.dumps(header))
    return path


def test_json_and_eval_logs_of_several_models(tmp_path):
    logs = tmp_path / "logs"
    rng = np.random.default_rng(5)
    letters = np.array(["I", "C"])
    truth = {}
    for k, model in enumerate(("openai/gpt-4o", "anthropic/claude", "ollama/llama")):
        for task in ("mmlu_0_shot", "gpqa_diamond"):
            hits = rng.random((60, 2)) < 0.4 + 0.2 * k
            values = [list(letters[h.astype(int)]) for h in hits]
            if model == "ollama/llama":
                _json_log(logs, model, task, values)
                truth.setdefault(model, []).extend(hits[:, 0].astype(float))
            else:
                _eval_log(logs, model, task, values, epochs=2)
                truth.setdefault(model, []).extend(hits.mean(axis=1))
    _json_log(logs, "ollama/llama", "gpqa_diamond", [["C"]] * 60,
              created="2026-10-01T10:00:00+00:00")          # an older run: not read
    (logs / "logs.json").write_text("{}", encoding="utf-8")
    assert detect(logs) == "inspect"
    solution, models = read_items(logs, max_bytes=1 << 22)
    assert len(solution.ids) == 120 and solution.ids[0] == "gpqa_diamond/1"
    assert sorted(set(solution.categories)) == ["gpqa_diamond", "mmlu_0_shot"]
    for f in models.scored:       # gpqa first: the logs in (model, task) order
        order = np.r_[np.arange(60, 120), np.arange(60)]
        np.testing.assert_allclose(f.prediction, np.asarray(truth[f.team])[order])
    skipped = {f.file: f.reason for f in models.files if f.status == "skipped"}
    assert "an older log of gpqa_diamond by ollama/llama" in \
        skipped["2026-10-01T10-00-00_gpqa_diamond_llama.json"]
    assert skipped["logs.json"] == "not an Inspect log (.json or .eval)"
    assert any("2 epochs per sample, averaged" in n for n in solution.notes)


def test_values_as_inspect_reads_them(tmp_path):
    values = [["C"], ["P"], ["I"], ["N"], [True], [0.25], ["yes"], ["False"], ["0.75"]]
    path = _json_log(tmp_path, "m/one", "quiz", values)
    frame, _, _ = read_inspect(path, max_bytes=1 << 20)
    assert frame["value"].astype(float).tolist() == [1, 0.5, 0, 0, 1, 0.25, 1, 0, 0.75]

    log = json.loads(path.read_text())
    log["samples"][1]["scores"]["choice"]["value"] = {"correct": 1, "tokens": 9}
    path.write_text(json.dumps(log))
    with pytest.raises(InputError, match=r"sample 2 \(epoch 1\)'s score is a dictionary "
                                         r"\(correct, tokens\): name one as --value-col "
                                         r"scorer/key"):
        read_inspect(path, max_bytes=1 << 20)
    frame, _, _ = read_inspect(path, metric="choice/correct", max_bytes=1 << 20)
    assert frame["value"].iloc[1] == "1.0"
    log["samples"][2]["scores"]["choice"]["value"] = "maybe"
    path.write_text(json.dumps(log))
    with pytest.raises(InputError, match=r"quiz_one\.json: sample 3 \(epoch 1\)'s score value "
                                         r"maybe is not a number, C/I/P/N or yes/no"):
        read_inspect(path, metric="choice/correct", max_bytes=1 << 20)


def test_errors_unfinished_runs_and_unscored_samples(tmp_path):
    path = _json_log(tmp_path, "m/one", "quiz", [["C"], ["I"], ["C"]], status="cancelled")
    log = json.loads(path.read_text())
    log["samples"][2]["scores"] = None
    log["samples"][2]["error"] = {"message": "timeout"}
    path.write_text(json.dumps(log))
    frame, _, notes = read_inspect(path, max_bytes=1 << 20)
    assert len(frame) == 2
    assert notes == ["quiz (m/one): the log's status is cancelled; 2 samples read",
                     "quiz (m/one): 1 samples without a choice score (errors) have no value"]
    with pytest.raises(InputError, match=r"sample 1 \(epoch 1\) has no match score \(its "
                                         r"scorers: choice\); choose one with --value-col"):
        read_inspect(path, metric="match", max_bytes=1 << 20)
    path.write_text('{"version": 2, "samples": []}')
    with pytest.raises(InputError, match="no 'eval' object: not an Inspect log"):
        read_inspect(path, max_bytes=1 << 20)


def test_damaged_and_oversized_eval_zips(tmp_path):
    path = _eval_log(tmp_path, "m/one", "quiz", [["C"]] * 5)
    frame, _, _ = read_inspect(path, max_bytes=1 << 20)
    assert len(frame) == 5
    bomb = tmp_path / "bomb.eval"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("header.json", json.dumps(_header("m/x", "quiz", "2026")))
        z.writestr("samples/1_epoch_1.json", " " * 5_000_000)    # compresses to a few KB
    with pytest.raises(InputError, match=r"bomb\.eval:samples/1_epoch_1\.json: .*over"):
        read_inspect(bomb, max_bytes=1 << 20)
    broken = tmp_path / "broken.eval"
    broken.write_bytes(path.read_bytes()[:100])
    with pytest.raises(InputError, match=r"broken\.eval: not a readable \.eval \(zip\) log"):
        read_inspect(broken, max_bytes=1 << 20)
    with zipfile.ZipFile(bomb, "w") as z:
        z.writestr("samples/1_epoch_1.json", "{}")
    with pytest.raises(InputError, match="no header.json or _journal/start.json"):
        read_inspect(bomb, max_bytes=1 << 20)


def test_hostile_names_are_escaped_in_every_output(tmp_path, capsys):
    from leaderboard.cli import main

    logs = tmp_path / "logs"
    evil = "evil\x1b[2J<script>alert(1)</script>"
    rng = np.random.default_rng(9)
    for model in (evil, "plain/model"):
        _json_log(logs, model, "quiz<b>", [["C" if h else "I"] for h in rng.random(80) < 0.6],
                  status="cancelled")
    out = tmp_path / "out"
    code = main(["analyze", "--items", str(logs), "--replicates", "200", "--quiet",
                 "-o", str(out) + ".html", "--json", str(out) + ".json",
                 "--markdown", str(out) + ".md"])
    assert code == 0
    page = (tmp_path / "out.html").read_text(encoding="utf-8")
    assert "<script>alert(1)" not in page and "\x1b" not in page
    assert "&lt;script&gt;alert(1)" in page or "\\u003cscript" in page
    assert "the log" in page and "status is" in page          # the reader's notes are shown
    report = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert {e["team"] for e in report["entries"]} == {evil, "plain/model"}
    assert "\x1b" not in (tmp_path / "out.md").read_text(encoding="utf-8")
    assert "\x1b" not in capsys.readouterr().err


def _zstd_zip(path, members: dict[str, bytes]) -> None:
    """A zip whose members are compressed with Zstandard (method 93), as recent Inspect versions
    write .eval logs; built by hand because Python's zipfile writes that method only from 3.14."""
    import struct
    import zlib

    zstandard = pytest.importorskip("zstandard")   # the test extra installs it
    local, central = b"", b""
    for name, raw in members.items():
        packed = zstandard.ZstdCompressor().compress(raw)
        crc, offset, encoded = zlib.crc32(raw), len(local), name.encode()
        fields = struct.pack("<HHHHHIII", 63, 0, 93, 0, 0, crc, len(packed), len(raw))
        local += b"PK\x03\x04" + fields + struct.pack("<HH", len(encoded), 0) + encoded + packed
        central += (b"PK\x01\x02" + struct.pack("<H", 63) + fields
                    + struct.pack("<HHHHHII", len(encoded), 0, 0, 0, 0, 0, offset) + encoded)
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, len(members), len(members),
                      len(central), len(local), 0)
    path.write_bytes(local + central + end)


def test_zstandard_eval_logs_as_recent_inspect_writes_them(tmp_path):
    header = _header("mockllm/strong", "quiz", "2026-11-27T22:05:39+00:00")
    samples = _samples([["C"], ["I"], ["C"], ["C"]])
    members = {"_journal/start.json": json.dumps({"version": 2, "eval": header["eval"]}).encode(),
               **{f"samples/{s['id']}_epoch_1.json": json.dumps(s).encode() for s in samples},
               "header.json": json.dumps(header).encode()}
    log = tmp_path / "2026-11-27T22-05-39_quiz.eval"
    _zstd_zip(log, members)
    frame, _, _ = read_inspect(log, max_bytes=1 << 20)
    assert frame["value"].tolist() == ["1.0", "0.0", "1.0", "1.0"]
    bomb = tmp_path / "bomb.eval"                           # 2 MB of one sample in a few KB
    _zstd_zip(bomb, {**members, "samples/9_epoch_1.json": b" " * 2_000_000 + b"{}"})
    assert bomb.stat().st_size < 10_000
    with pytest.raises(InputError, match=r"bomb\.eval:samples/9_epoch_1\.json: .*over"):
        read_inspect(bomb, max_bytes=100_000)              # the decompressed size is capped
    damaged = bytearray(log.read_bytes())
    start = zipfile.ZipFile(log).getinfo("samples/2_epoch_1.json").header_offset + 30 + 22
    damaged[start + 8:start + 16] = b"\xff" * 8              # inside that member's frame
    log.write_bytes(bytes(damaged))
    with pytest.raises(InputError, match=r"quiz\.eval:samples/2_epoch_1\.json: cannot be read "
                                         r"from the zip"):
        read_inspect(log, max_bytes=1 << 20)
