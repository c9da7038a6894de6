"""The hostile-input catalogue, part three, continued (issue 43): benchmark reports (lm-eval
harness logs, SWE-bench results, HELM runs, Inspect logs) that crashed a reader, contradict
themselves about an instance, or were refused though legal. Gathered by
:func:`tests.hostile_more.all_cases`; the rest of part three is tests/hostile_readers.py.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from tests.hostile_cases import Case, write
from tests.hostile_readers import _eval_zip, _inspect_folder, _inspect_log, _sample, items_args


# --- benchmark reports: crashes, contradictions, legal files refused -----------------------------

STAMP = "2026-11-20T10-31-07.123456"


def _harness(folder: Path, bad: list[bytes | str] | None = None) -> Path:
    """lm-eval logs of two good models, and model ``c`` with the lines ``bad``."""
    out = folder / "out"
    for k, model in enumerate(("a", "b")):
        write(out / model / f"samples_arc_{STAMP}.jsonl", "".join(
            json.dumps({"doc_id": i, "filter": "none", "metrics": ["acc"],
                        "acc": float((i + k) % 2)}) + "\n" for i in range(12)))
    if bad is not None:
        write(out / "c" / f"samples_arc_{STAMP}.jsonl", b"".join(
            (line if isinstance(line, bytes) else line.encode("utf-8")) + b"\n" for line in bad))
    return out


def _doc(i: int, acc: float = 1.0, **extra) -> str:
    return json.dumps({"doc_id": i, "filter": "none", "metrics": ["acc"], "acc": acc, **extra},
                      ensure_ascii=False)


def _swebench(folder: Path, details: dict[str, object] | None = None) -> Path:
    """Two systems' per_instance_details.json over 12 instances; ``details`` adds files (a
    path under the split folder -> its JSON text, or bytes)."""
    split = folder / "split"
    for k, system in enumerate(("sysA", "sysB")):
        write(split / system / "per_instance_details.json", json.dumps({
            f"o__r-{i}": {"resolved": (i + k) % 3 == 0, "cost": 0.1 * i} for i in range(12)}))
    for name, text in (details or {}).items():
        write(split / name, text if isinstance(text, (str, bytes)) else json.dumps(text))
    return split


IDS = "".join(f"o__r-{i}\n" for i in range(12))


def _helm(folder: Path, records_c: str | None = None, model_c: str = "org/c") -> Path:
    suite = folder / "suite"

    def run(model: str, records: str) -> None:
        name = f"quiz:model={model[-1] if model.isascii() else 'x'}"
        write(suite / name / "run_spec.json", json.dumps(
            {"name": name, "adapter_spec": {"model": model}}))
        write(suite / name / "per_instance_stats.json", records)

    def stats(k: int) -> str:
        return json.dumps([{"instance_id": f"id{i}", "train_trial_index": 0, "stats": [
            {"name": {"name": "exact_match", "split": "test"}, "count": 1,
             "mean": float((i + k) % 2)}]} for i in range(12)])
    run("org/a", stats(0))
    run("org/b", stats(1))
    if records_c is not None:
        run(model_c, records_c)
    return suite


def _escaped_in_json(*names: str):
    def check(folder: Path, out: str, err: str) -> None:
        text = (folder / "r.json").read_text(encoding="utf-8")
        for name in names:
            assert json.dumps(name)[1:-1] in text, name
        (folder / "r.html").read_text(encoding="utf-8")   # written, and UTF-8
    return check


def benchmark_cases() -> list[Case]:
    def items(name: str, make, code: int = 2, where: tuple[str, ...] = (), extra=(),
              check=None) -> Case:
        def build(folder: Path) -> list[str]:
            return items_args(folder, make(folder), *extra)
        return Case(name, "benchmarks", build, code, where, check=check)

    def with_ids(name: str, make, ids: bytes, code: int = 0, where=(), extra=()) -> Case:
        def build(folder: Path) -> list[str]:
            path = make(folder)
            ids_file = write(folder / ("ids.json" if ids.lstrip(b"\xef\xbb\xbf").startswith(
                b"[") else "ids.txt"), ids)
            return items_args(folder, path, "--instances", str(ids_file), *extra)
        return Case(name, "benchmarks", build, code, where)

    def inspect_plus(file: str, data: bytes | str):
        def make(folder: Path) -> Path:
            logs = _inspect_folder(folder)
            write(logs / file, data)
            return logs
        return make

    deep = "[" * 100_000 + "]" * 100_000
    big = "9" * 5000
    results = {"resolved": ["o__r-0", "o__r-3"], "no_generation": ["o__r-5"], "no_logs": []}

    def report(resolved: bool, failed: list[str]) -> dict:
        return {"o__r-1": {"resolved": resolved, "tests_status": {
            "FAIL_TO_PASS": {"success": [] if failed else ["t1"], "failure": failed},
            "PASS_TO_PASS": {"success": ["t0"], "failure": []}}}}

    def run_report(**lists) -> str:
        base_lists = {"resolved_ids": [f"o__r-{i}" for i in range(0, 12, 2)],
                      "unresolved_ids": [f"o__r-{i}" for i in range(1, 12, 2)],
                      "empty_patch_ids": [], "error_ids": [], "incomplete_ids": []}
        return json.dumps({k: base_lists[k] + lists.get(k, []) for k in base_lists})

    return [
        # crashes (exit 70 before): nesting, huge integers, lone surrogates
        items("Inspect .json nested 100,000 deep", inspect_plus("c.json", json.dumps(
            _inspect_log("org/c", ["C"] * 12))[:-1] + ', "x": ' + deep + "}"),
            where=("c.json", "nested too deeply")),
        items("Inspect .json with a 5,000-digit integer", inspect_plus(
            "c.json", json.dumps(_inspect_log("org/c", ["C"] * 12))[:-1] + f', "n": {big}}}'),
            where=("c.json", "4300 digits")),
        items("SWE-bench details with a 5,000-digit integer", lambda f: _swebench(
            f, {"sysC/per_instance_details.json": '{"o__r-1": {"resolved": true, "cost": '
                + big + "}}"}), where=("sysC/per_instance_details.json", "4300 digits")),
        items("HELM stats nested 100,000 deep", lambda f: _helm(f, deep),
              where=("per_instance_stats.json", "nested too deeply")),
        with_ids("an instance list of a 5,000-digit integer", _swebench,
                 f'["o__r-1", {big}]'.encode(), 2, ("ids.json", "4300 digits")),
        items("a lone surrogate in an Inspect model name", inspect_plus(
            "c.json", json.dumps(_inspect_log("org/c\ud800", ["C"] * 12))), 0,
            check=_escaped_in_json("org/c\\ud800")),
        items("a lone surrogate in a SWE-bench instance and system folder", lambda f: _swebench(
            f, {os.fsdecode(b"sys\xff/per_instance_details.json"): json.dumps(
                {f"o__r-{i}": {"resolved": i % 2 == 0} for i in range(12)}),
                "sysA/per_instance_details.json": json.dumps({
                    f"o__r-{i}" if i else "o__r-\ud800": {"resolved": i % 3 == 0}
                    for i in range(12)})}), 0, check=_escaped_in_json("sys\\xff")),
        items("a lone surrogate in a HELM model", lambda f: _helm(f, json.dumps([
            {"instance_id": f"id{i}", "train_trial_index": 0, "stats": [
                {"name": {"name": "exact_match", "split": "test"}, "count": 1, "mean": 1.0}]}
            for i in range(12)]), "org/c\ud800"), 0, check=_escaped_in_json("org/c\\ud800")),
        # reports that contradict themselves, or list an instance twice with two verdicts
        items("SWE-bench details giving an instance twice", lambda f: _swebench(
            f, {"sysC/per_instance_details.json": '{"o__r-1": {"resolved": true}, '
                '"o__r-1": {"resolved": false}}'}), where=("sysC", "o__r-1", "twice")),
        with_ids("SWE-bench results.json resolved and no_generation", lambda f: _swebench(
            f, {"sysC/results/results.json": dict(results, no_generation=["o__r-3"])}),
            IDS.encode(), 2, ("results.json", "o__r-3", "'no_generation'")),
        with_ids("SWE-bench results.json resolved and no_logs", lambda f: _swebench(
            f, {"sysC/results/results.json": dict(results, no_logs=["o__r-0"])}),
            IDS.encode(), 2, ("results.json", "o__r-0", "'no_logs'")),
        items("a run report resolving and not resolving an instance", lambda f: _swebench(
            f, {"m.run1.json": run_report(unresolved_ids=["o__r-0"])}),
            where=("m.run1.json", "o__r-0", "'unresolved_ids'")),
        items("a run report resolving an instance that errored", lambda f: _swebench(
            f, {"m.run1.json": run_report(error_ids=["o__r-2"])}),
            where=("m.run1.json", "o__r-2", "'error_ids'")),
        items("a report.json resolved while its tests failed", lambda f: _reports(
            f, report(True, ["t2"])), where=("report.json", "o__r-1", "tests failed")),
        items("a report.json giving its instance twice", lambda f: _reports(
            f, '{"o__r-1": {"resolved": true}, "o__r-1": {"resolved": false}}'),
            where=("report.json", "o__r-1", "twice")),
        items("an Inspect sample given twice in one epoch", inspect_plus("c.json", json.dumps(
            _inspect_log("org/c", ["C"] * 11 + ["I"], epochs=[1] * 12)).replace(
                '"id": 11', '"id": 3')), where=("c.json", "sample 3 (epoch 1)", "twice")),
        items("an Inspect .eval sample given twice", inspect_plus("c.eval", _eval_zip(
            {f"samples/{i}_epoch_1.json": _sample(i) for i in range(12)}
            | {"samples/3b_epoch_1.json": _sample(3, "I")})),
            where=("c.eval", "sample 3 (epoch 1)", "twice")),
        items("a HELM instance giving its stat twice with two values", lambda f: _helm(
            f, json.dumps([{"instance_id": f"id{i}", "train_trial_index": 0, "stats": [
                {"name": {"name": "exact_match", "split": "test"}, "count": 1, "mean": v}
                for v in (1.0, float(i > 0))]} for i in range(12)])),
            where=("per_instance_stats.json", "id0", "exact_match", "ambiguous")),
        # an option of one benchmark's reader, given with a plain table: refused, not ignored
        items("--harness-filter on a table of per-item results", lambda f: write(
            f / "r.csv", _table()), where=("--harness-filter", "table"),
            extra=("--harness-filter", "none")),
        items("--resample stratified on per-item results without a truth", lambda f: write(
            f / "r.csv", _table()), where=("--resample stratified", "--target-col"),
            extra=("--resample", "stratified")),
        items("--missing-instances on a table of per-item results", lambda f: write(
            f / "r.csv", _table()), where=("--missing-instances", "table"),
            extra=("--missing-instances", "missing")),
        with_ids("--instances on a table of per-item results", lambda f: write(
            f / "r.csv", _table()), IDS.encode(), 2, ("--instances", "table")),
        items("per-item model ids differing only in case", lambda f: write(
            f / "r.csv", _table().replace("a,", "GPT-4,").replace("b,", "gpt-4,")), 0,
            check=_look_alike("GPT-4", "gpt-4")),
        items("a HELM instance given twice", lambda f: _helm(f, json.dumps([
            {"instance_id": f"id{i % 11}", "train_trial_index": 0, "stats": [
                {"name": {"name": "exact_match", "split": "test"}, "count": 1,
                 "mean": float(i == 11)}]} for i in range(12)])),
            where=("per_instance_stats.json", "id0", "twice")),
        items("undecodable bytes in a harness log", lambda f: _harness(
            f, [_doc(i) for i in range(5)] + [_doc(5)[:-1].encode() + b', "r": "\xff\xfe"}']),
            where=("samples_arc", ":6", "UTF-8")),
        items("a harness log with a stray latin-1 byte in a model output", lambda f: _harness(
            f, [_doc(0, resps="caf\xe9").encode("latin-1")]), where=(":1", "byte 0xe9")),
        # legal files once refused
        with_ids("an instance list saved with a BOM", _swebench,
                 b"\xef\xbb\xbf" + IDS.replace("\n", "\r\n").encode()),
        with_ids("a JSON instance list saved with a BOM", _swebench,
                 b"\xef\xbb\xbf" + json.dumps(IDS.split()).encode()),
        items("an Inspect .json log saved with a BOM", inspect_plus(
            "c.json", b"\xef\xbb\xbf" + json.dumps(_inspect_log("org/c", ["C"] * 12)).encode()),
            0),
        items("JSON lines with a BOM and legal Unicode inside strings", lambda f: _harness(f, [
            "\ufeff" + _doc(0)] + [_doc(i, resps="a\u2028b\u2029c\x85d\U0001f600\ufeff\u200be")
                                   for i in range(1, 12)]), 0),
        items("--cost-col on SWE-bench's per-instance details", _swebench, 0,
              extra=("--cost-col", "cost"), check=_has_costs),
        items("--cost-col on Inspect logs", _inspect_folder,
              where=("--cost-col", "Inspect logs hold none"), extra=("--cost-col", "cost")),
        with_ids("--cost-col on SWE-bench results.json", lambda f: _swebench(
            f, {"sysC/results/results.json": results}), IDS.encode(), 2,
            ("results.json", "--cost-col", "per_instance_details.json"),
            extra=("--cost-col", "cost")),
    ]


def _look_alike(*names: str):
    def check(folder: Path, out: str, err: str) -> None:
        flags = json.loads((folder / "r.json").read_text(encoding="utf-8"))["flags"]
        assert [f["teams"] for f in flags if f["kind"] == "look_alike"] == [list(names)], flags
    return check


def _table() -> str:
    return "model,item,value\n" + "".join(f"{m},q{i},{(i + k) % 2}\n"
                                          for k, m in enumerate("abc") for i in range(12))


def _reports(folder: Path, report: dict | str) -> Path:
    """A system of logs/<instance>/report.json beside two good ones; instance o__r-1's report
    is ``report``."""
    split = _swebench(folder)
    for i in range(12):
        data = report if i == 1 else {f"o__r-{i}": {"resolved": i % 2 == 0}}
        write(split / "sysC" / "logs" / f"o__r-{i}" / "report.json",
              data if isinstance(data, str) else json.dumps(data))
    return split


def _has_costs(folder: Path, out: str, err: str) -> None:
    costs = json.loads((folder / "r.json").read_text(encoding="utf-8")).get("costs")
    assert costs, "no costs in the JSON"
