"""SWE-bench results as ``--items``: fixtures written here in the three layouts the SWE-bench
experiments repository and harness publish (per_instance_details.json, results/results.json,
logs/<instance>/report.json), with made-up instance ids of the real form owner__repo-number."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

from leaderboard.cli import main
from leaderboard.errors import InputError
from leaderboard.ingest.items import read_items
from leaderboard.ingest.swebench import read_swebench

IDS = [f"{repo}-{n}" for repo in ("django__django", "sympy__sympy", "astropy__astropy")
       for n in range(1000, 1040)]          # 120 instances in 3 repositories


def _results(root, system, resolved, no_generation=(), no_logs=()):
    folder = root / system / "results"
    folder.mkdir(parents=True)
    (folder / "results.json").write_text(json.dumps(
        {"no_generation": list(no_generation), "no_logs": list(no_logs),
         "resolved": list(resolved)}), encoding="utf-8")
    (root / system / "metadata.yaml").write_text("name: x\n", encoding="utf-8")
    (root / system / "results" / "resolved_by_repo.json").write_text("{}", encoding="utf-8")


def _details(root, system, flags):
    (root / system).mkdir(parents=True)
    (root / system / "per_instance_details.json").write_text(json.dumps(
        {i: {"cost": 0.5, "api_calls": 30, "resolved": bool(v)} for i, v in flags.items()}),
        encoding="utf-8")


def _reports(root, system, flags, keyed=True):
    for i, v in flags.items():
        folder = root / system / "logs" / i
        folder.mkdir(parents=True)
        inner = {"patch_is_None": False, "patch_exists": True, "resolved": bool(v),
                 "tests_status": {"FAIL_TO_PASS": {"success": [], "failure": []}}}
        (folder / "report.json").write_text(json.dumps({i: inner} if keyed else inner),
                                            encoding="utf-8")
        (folder / "patch.diff").write_text("diff --git a b\n", encoding="utf-8")


def _instances(tmp_path, ids=IDS):
    path = tmp_path / "verified_ids.txt"
    path.write_text("".join(i + "\n" for i in ids), encoding="utf-8")
    return str(path)


def test_resolved_lists_count_against_the_whole_split(tmp_path):
    root = tmp_path / "verified"
    rng = np.random.default_rng(1)
    truth = {}
    for k, system in enumerate(("20250101_agent-a", "20250202_agent-b", "20250303_agent-c")):
        hit = rng.random(len(IDS)) < 0.3 + 0.2 * k
        resolved = [i for i, h in zip(IDS, hit) if h]
        misses = [i for i, h in zip(IDS, hit) if not h]
        _results(root, system, resolved, no_generation=misses[:3], no_logs=misses[3:4])
        truth[system] = hit.sum() / len(IDS)
    ids = _instances(tmp_path)
    solution, models = read_items(root, instances=ids, max_bytes=1 << 20)
    assert len(solution.ids) == len(IDS)
    assert {f.team: f.prediction.mean() for f in models.scored} == pytest.approx(truth)
    assert solution.grouping_columns == (("repo", 3),)    # the repository: related instances
    note = [n for n in solution.notes if n.startswith("20250101_agent-a")][0]
    assert "count as unresolved, 3 of them with no patch generated, 1 of them with no " \
           "evaluation log" in note
    skipped = {f.file: f.reason for f in models.files if f.status == "skipped"}
    assert "20250101_agent-a/metadata.yaml" in skipped
    assert "20250101_agent-a/results/resolved_by_repo.json" in skipped

    # the explicit other choice: an instance with no evaluation log is not a measured failure,
    # left without a value (items mode then treats the hole as any missing item); an instance
    # with no patch generated stays a 0
    frame, _, notes = read_swebench(root, instances=ids, missing="missing", max_bytes=1 << 20)
    mine = frame[frame["model"] == "20250101_agent-a"].set_index("item")["value"]
    misses = [i for i in IDS if i not in set(mine[mine == "1"].index)]
    assert len(mine) == len(IDS) - 1 and misses[3] not in mine.index
    assert (mine[misses[:3]] == "0").all()
    assert "those with no evaluation log are left without a value" in notes[0]


def test_a_resolved_list_without_the_instance_list_is_refused(tmp_path):
    root = tmp_path / "lite"
    _results(root, "20240402_sweagent_gpt4", IDS[:10])
    with pytest.raises(InputError, match="--instances FILE"):
        read_items(root, max_bytes=1 << 20)


def test_results_of_another_split_are_an_error_naming_the_file(tmp_path):
    root = tmp_path / "verified"
    _results(root, "sys", IDS[:5] + ["pallets__flask-4045"])
    with pytest.raises(InputError, match=r"results\.json.*1 instance not in the instance list "
                                         r"\(first: pallets__flask-4045\); are these results "
                                         "of another split"):
        read_items(root, instances=_instances(tmp_path), max_bytes=1 << 20)


def test_per_instance_maps_and_reports_with_an_absent_instance(tmp_path):
    root = tmp_path / "bash-only"
    flags_a = {i: n % 3 == 0 for n, i in enumerate(IDS)}
    flags_b = {i: n % 2 == 0 for n, i in enumerate(IDS) if n != 7}      # one never attempted
    _details(root, "20260217_mini-v2_model-a", flags_a)
    _reports(root, "20251118_mini-v1_model-b", flags_b, keyed=True)
    _reports(root, "20251118_mini-v1_model-c", flags_a, keyed=False)
    solution, models = read_items(root, max_bytes=1 << 20)      # the ids found: 120
    scores = {f.team: f.prediction.sum() for f in models.scored}
    assert scores == {"20260217_mini-v2_model-a": 40, "20251118_mini-v1_model-b": 60,
                      "20251118_mini-v1_model-c": 40}
    assert any("20251118_mini-v1_model-b: 60 of 120 instances resolved; 1 with no result "
               "count as unresolved" in n for n in solution.notes)
    assert any("no instance list given" in n for n in solution.notes)
    skipped = {f.file: f.reason for f in models.files if f.status == "skipped"}
    assert "120 other files in the instance folders" in skipped["20251118_mini-v1_model-c/logs/*/"]

    frame, _, notes = read_swebench(root, missing="missing", max_bytes=1 << 20)
    model_b = frame[frame["model"] == "20251118_mini-v1_model-b"]
    assert len(model_b) == 119 and "django__django-1007" not in set(model_b["item"])
    assert "1 with no result are left without a value" in " ".join(notes)


def test_untrusted_folders_links_and_bad_values(tmp_path):
    root = tmp_path / "verified"
    _details(root, "sys-a", {i: True for i in IDS[:4]})
    outside = tmp_path / "elsewhere"
    _details(outside, "sys-x", {i: True for i in IDS[:4]})
    os.symlink(outside / "sys-x", root / "linked-system")
    _details(root, "sys-b", {})
    os.remove(root / "sys-b" / "per_instance_details.json")
    os.symlink(outside / "sys-x" / "per_instance_details.json",
               root / "sys-b" / "per_instance_details.json")
    (root / ".cache").mkdir()
    frame, skipped, _ = read_swebench(root, max_bytes=1 << 20)
    assert set(frame["model"]) == {"sys-a"}
    why = dict(skipped)
    assert why["linked-system"] == "a link; not followed"
    assert why[".cache"] == "hidden; not read"
    assert "not a SWE-bench system folder" in why["sys-b"]

    _details(root, "sys-c", {IDS[0]: True})
    (root / "sys-c" / "per_instance_details.json").write_text(
        json.dumps({IDS[0]: {"resolved": "yes"}}), encoding="utf-8")
    with pytest.raises(InputError, match=r"sys-c/per_instance_details\.json: instance "
                                         r"django__django-1000's 'resolved' should be true or "
                                         r"false, not the text yes"):
        read_swebench(root, max_bytes=1 << 20)
    (root / "sys-c" / "per_instance_details.json").write_text("{", encoding="utf-8")
    with pytest.raises(InputError, match=r"sys-c/per_instance_details\.json: not JSON"):
        read_swebench(root, max_bytes=1 << 20)
    (root / "sys-c" / "per_instance_details.json").write_text("{}" + " " * 2000,
                                                              encoding="utf-8")
    with pytest.raises(InputError, match=r"per_instance_details\.json"):
        read_swebench(root, max_bytes=1024)


def test_cli_scores_are_the_resolved_rates_and_a_bad_file_exits_2(tmp_path, capsys):
    root = tmp_path / "verified"
    _results(root, "sys-a", IDS[:90])
    _results(root, "sys-b", IDS[:30])
    ids = _instances(tmp_path)
    out = tmp_path / "r.json"
    code = main(["analyze", "--items", str(root), "--items-format", "swebench", "--instances",
                 ids, "--replicates", "200", "--json", str(out),
                 "-o", str(tmp_path / "r.html")])
    report = json.loads(out.read_text(encoding="utf-8"))
    assert code == 0
    # two systems are two models found; their metadata.yaml files are not models (the summary
    # said "6 found, 2 scored" on main)
    assert "models: 2 found, 2 scored, 0 rejected; 4 other files skipped" in capsys.readouterr().out
    assert {e["team"]: e["score"] for e in report["entries"]} == pytest.approx(
        {"sys-a": 0.75, "sys-b": 0.25})
    assert any("sys-b: 30 of 120 instances resolved" in n for n in report["notes"])
    (root / "sys-b" / "results" / "results.json").write_text('{"resolved": 3}',
                                                             encoding="utf-8")
    capsys.readouterr()
    code = main(["analyze", "--items", str(root), "--instances", ids, "--quiet",
                 "--json", str(out)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
    assert "sys-b/results/results.json" in err and "'resolved' should be a list" in err


def test_run_reports_of_the_evaluation_harness(tmp_path):
    """``<model>.<run_id>.json`` as swebench.harness.reporting.make_run_report writes it: every
    dataset instance in one list; errors and missing predictions have no result."""
    root = tmp_path / "reports"
    root.mkdir()

    def report(name, resolved, unresolved, empty, errors, incomplete):
        lists = dict(resolved_ids=resolved, unresolved_ids=unresolved, empty_patch_ids=empty,
                     error_ids=errors, incomplete_ids=incomplete)
        body = {"total_instances": sum(map(len, lists.values())), "submitted_instances": 0,
                "completed_instances": len(resolved) + len(unresolved),
                "resolved_instances": len(resolved), **lists, "schema_version": 2}
        (root / name).write_text(json.dumps(body, indent=4), encoding="utf-8")

    report("org__model-a.run1.json", IDS[:60], IDS[60:110], IDS[110:115], IDS[115:118],
           IDS[118:])
    report("org__model-b.run1.json", IDS[:30], IDS[30:], [], [], [])
    (root / "notes.txt").write_text("x", encoding="utf-8")
    frame, skipped, notes = read_swebench(root, max_bytes=1 << 20)
    scores = frame.assign(v=frame["value"].astype(int)).groupby("model")["v"].mean().to_dict()
    assert scores == {"org__model-a.run1": 0.5, "org__model-b.run1": 0.25}
    assert notes[0] == ("org__model-a.run1: 60 of 120 instances resolved; 5 with no result "
                        "(evaluation errors or no prediction) count as unresolved")
    assert "not a run report" in dict(skipped)["notes.txt"]
    frame, _, _ = read_swebench(root, missing="missing", max_bytes=1 << 20)
    assert (frame["model"] == "org__model-a.run1").sum() == 115     # the 5 are left out
    body = json.loads((root / "org__model-b.run1.json").read_text())
    body["total_instances"] = 500
    (root / "org__model-b.run1.json").write_text(json.dumps(body, indent=4))
    with pytest.raises(InputError, match=r"model-b\.run1\.json: total_instances is 500 but its "
                                         r"id lists hold 120 instances"):
        read_swebench(root, max_bytes=1 << 20)
