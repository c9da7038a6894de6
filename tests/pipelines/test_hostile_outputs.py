"""Issue 29, items 2 and 6: a ``compare`` gate that cannot be fooled, and outputs that never
destroy an input or block on a special file (the chart cache and the Dask engine:
tests/engine/test_hostile_engine.py).

Each case is one command as an attacker or a careless user would type it; the expected outcome
is a one-line error with exit status 2 (inputs untouched), or a correct, flagged result.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from leaderboard.cli import main

jsonschema = pytest.importorskip("jsonschema")


def _schema_errors(data: dict) -> list:
    import leaderboard

    path = Path(leaderboard.__file__).parent / "schema" / "compare.schema.json"
    schema = json.loads(path.read_text(encoding="utf-8"))
    return list(jsonschema.Draft202012Validator(schema).iter_errors(data))


def _one_line_error(capsys, *words: str) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("leaderboard: error: "), err
    assert "Traceback" not in err
    for word in words:
        assert word in err, err
    return err


@pytest.fixture
def board(tmp_path):
    """A solution, a fair baseline (AUC about 0.75) and candidates, in tmp_path."""
    rng = np.random.default_rng(3)
    n = 600
    y = rng.integers(0, 2, n)
    pd.DataFrame({"id": range(n), "target": y}).to_csv(tmp_path / "solution.csv", index=False)
    files = {"base": y * 1.0 + rng.normal(0, 1, n), "good": y * 1.6 + rng.normal(0, 1, n),
             "leak": 0.1 + 0.8 * y,                       # the solution, rank-preserved
             "copy": y.astype(float)}                     # the solution's targets, copied
    for name, pred in files.items():
        pd.DataFrame({"id": range(n), "target": pred}).to_csv(tmp_path / f"{name}.csv",
                                                             index=False)
    return tmp_path


def _compare(folder, baseline, candidate, *extra, json_out=True):
    argv = ["compare", "--solution", str(folder / "solution.csv"), "--metric", "auc",
            "--baseline", str(folder / baseline), "--candidate", str(folder / candidate),
            "--replicates", "300", "--quiet", *extra]
    out = folder / "gate.json"
    if out.exists():
        out.unlink()
    code = main(argv + (["--json", str(out)] if json_out else []))
    return code, (json.loads(out.read_text(encoding="utf-8")) if out.exists() else None)


# --- compare: the gate cannot be fooled --------------------------------------------------------

def test_the_solution_file_as_an_entry_is_refused(board, capsys):
    code, data = _compare(board, "base.csv", "solution.csv")
    assert code == 2 and data is None
    _one_line_error(capsys, "--candidate is the solution file")
    code, _ = _compare(board, "solution.csv", "base.csv")
    assert code == 2
    _one_line_error(capsys, "--baseline is the solution file")
    os.link(board / "solution.csv", board / "renamed.csv")   # the same file under another name
    code, _ = _compare(board, "base.csv", "renamed.csv")
    assert code == 2
    _one_line_error(capsys, "--candidate is the solution file")


@pytest.mark.parametrize("candidate, words", [
    ("copy.csv", "predictions are the solution's targets"),
    ("leak.csv", "scores a perfect ROC AUC (1) while the baseline scores"),
])
def test_a_perfect_candidate_is_flagged_and_does_not_pass(board, candidate, words):
    code, data = _compare(board, "base.csv", candidate, "--markdown", str(board / "pr.md"))
    assert code == 1 and data["better"] is False and data["candidate_score"] == 1.0
    assert data["lower"] > 0                           # the test alone would have passed it
    assert len(data["flags"]) == 1 and words in data["flags"][0]["message"]
    assert not _schema_errors(data)
    page = (board / "pr.md").read_text(encoding="utf-8")
    assert page.startswith("➖ **Not shown better**") and "⚠️ the candidate" in page
    code, data = _compare(board, "base.csv", candidate, "--allow-perfect")
    assert code == 0 and data["better"] is True and data["flags"]   # passes, still flagged


def test_a_perfect_baseline_is_flagged_and_the_terminal_says_so(board, capsys):
    code = main(["compare", "--solution", str(board / "solution.csv"), "--metric", "auc",
                 "--baseline", str(board / "leak.csv"), "--candidate", str(board / "good.csv"),
                 "--replicates", "300"])
    out = capsys.readouterr().out
    assert code == 1 and "flagged: the baseline scores a perfect ROC AUC" in out


def test_an_honest_better_candidate_still_passes_unflagged(board):
    code, data = _compare(board, "base.csv", "good.csv")
    assert code == 0 and data["better"] and data["flags"] == []


def test_items_mode_flags_a_model_correct_on_every_item(tmp_path, capsys):
    rng = np.random.default_rng(5)
    items = 400
    frames = [pd.DataFrame({"model": name, "item": range(items), "value": values})
              for name, values in (("base", (rng.random(items) < 0.7).astype(int)),
                                   ("oracle", np.ones(items, dtype=int)))]
    pd.concat(frames).to_csv(tmp_path / "r.csv", index=False)
    code = main(["compare", "--items", str(tmp_path / "r.csv"), "--baseline", "base",
                 "--candidate", "oracle", "--replicates", "300"])
    out = capsys.readouterr().out
    assert code == 1 and "flagged: the candidate scores a perfect" in out


@pytest.mark.parametrize("mode, extra, option", [
    ("items", ["--group-col", "g"], "--group-col"),
    ("items", ["--split", "public"], "--split"),
    ("items", ["--target-col", "t"], "--target-col"),
    ("solution", ["--cluster-col", "c"], "--cluster-col"),
    ("solution", ["--model-col", "m"], "--model-col"),
])
def test_options_of_the_other_mode_are_refused(board, capsys, mode, extra, option):
    source = (["--items", str(board / "base.csv")] if mode == "items" else
              ["--solution", str(board / "solution.csv"), "--metric", "auc"])
    code = main(["compare", *source, "--baseline", str(board / "base.csv"),
                 "--candidate", str(board / "good.csv"), "--quiet", *extra])
    assert code == 2
    _one_line_error(capsys, f"{option} does not apply with")


# --- outputs never overwrite an input ----------------------------------------------------------

def test_compare_outputs_never_overwrite_an_entry(board, capsys):
    before = (board / "base.csv").read_bytes()
    for option, target in (("--markdown", "base.csv"), ("--json", "good.csv")):
        code = main(["compare", "--solution", str(board / "solution.csv"), "--metric", "auc",
                     "--baseline", str(board / "base.csv"), "--candidate",
                     str(board / "good.csv"), "--quiet", option, str(board / target)])
        assert code == 2
        _one_line_error(capsys, f"{option} {board / target} is an input file")
    os.link(board / "base.csv", board / "hard.md")
    code = main(["compare", "--solution", str(board / "solution.csv"), "--metric", "auc",
                 "--baseline", str(board / "base.csv"), "--candidate", str(board / "good.csv"),
                 "--quiet", "--markdown", str(board / "hard.md")])
    assert code == 2
    _one_line_error(capsys, "is an input file")
    assert (board / "base.csv").read_bytes() == before


def _analyze_board(tmp_path):
    from leaderboard.resources import data_dir
    source = tmp_path / "board.csv"
    source.write_bytes((data_dir() / "example_leaderboard.csv").read_bytes())
    return source


def test_an_output_linked_to_the_input_is_refused(tmp_path, capsys):
    source = _analyze_board(tmp_path)
    before = source.read_bytes()
    os.link(source, tmp_path / "hard.html")
    os.symlink(source, tmp_path / "soft.html")
    for link in ("hard.html", "soft.html"):
        code = main(["analyze", str(source), "--metric", "auc", "--n-test", "3000", "--quiet",
                     "-o", str(tmp_path / link)])
        assert code == 2
        _one_line_error(capsys, "is an input file")
    assert source.read_bytes() == before


def test_an_output_inside_an_input_folder_is_refused(tmp_path, capsys):
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "a.csv").write_text("id,target\n1,0.5\n", encoding="utf-8")
    logs = tmp_path / "logs"
    (logs / "model-a").mkdir(parents=True)
    cases = [(["--solution", str(tmp_path / "solution.csv"), "--submissions", str(subs)],
              subs / "report.html", "-o"),
             (["--solution", str(tmp_path / "solution.csv"), "--submissions", str(subs)],
              subs / "deeper" / ".." / "t.csv", "--csv"),
             (["--items", str(logs)], logs / "model-a" / "r.json", "--json")]
    for inputs, output, option in cases:
        code = main(["analyze", *inputs, "--metric", "auc", "--quiet",
                     *(["-o", str(tmp_path / "r.html")] if option != "-o" else []),
                     option, str(output)])
        assert code == 2
        _one_line_error(capsys, "is inside the input folder")
    assert sorted(p.name for p in subs.iterdir()) == ["a.csv"]


def test_special_files_are_refused_as_outputs(tmp_path, capsys):
    for option in ("--csv", "--json"):
        code = main(["analyze", "--example", "--quiet", "-o", str(tmp_path / "r.html"),
                     option, "/dev/null"])
        assert code == 2
        _one_line_error(capsys, f"cannot write {option} /dev/null: not a regular file (a "
                                "character device)")
    os.symlink(tmp_path / "nowhere" / "x.html", tmp_path / "dangling.html")
    assert main(["analyze", "--example", "--quiet", "-o", str(tmp_path / "dangling.html")]) == 2
    _one_line_error(capsys, "is a link to nothing")
    assert main(["analyze", "--example", "--quiet", "-o", str(tmp_path)]) == 2
    _one_line_error(capsys, "not a regular file (a folder)")


def test_a_fifo_as_output_is_refused_not_waited_on(tmp_path):
    fifo = tmp_path / "out.html"
    os.mkfifo(fifo)
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    done = subprocess.run([sys.executable, "-m", "leaderboard", "analyze", "--example",
                           "--quiet", "-o", str(fifo)], capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "not a regular file (a FIFO)" in done.stderr


def test_an_output_over_a_file_a_manifest_listed_is_refused(board, capsys):
    listed = board / "listed"
    listed.mkdir()
    for name in ("base", "good"):
        (listed / f"{name}.csv").write_bytes((board / f"{name}.csv").read_bytes())
    (listed / "manifest.csv").write_text("team,file\nbase,base.csv\ngood,good.csv\n",
                                         encoding="utf-8")
    before = (listed / "good.csv").read_bytes()
    code = main(["analyze", "--solution", str(board / "solution.csv"), "--submissions",
                 str(listed / "manifest.csv"), "--metric", "auc", "--quiet", "--replicates",
                 "200", "-o", str(board / "r.html"), "--json", str(listed / "good.csv")])
    assert code == 2
    _one_line_error(capsys, "this run read it as an input")
    assert (listed / "good.csv").read_bytes() == before


def test_the_api_refuses_to_save_to_a_fifo_or_a_device(tmp_path):
    import threading

    import leaderboard
    from leaderboard.errors import InputError
    from leaderboard.resources import data_dir

    board = pd.read_csv(data_dir() / "example_leaderboard.csv")
    result = leaderboard.analyze(board, metric="auc", n_public=900, n_private=2100,
                                 prevalence=0.1, draws=200, replicates=200)
    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    errors = []

    def save(path):
        try:
            result.save(path)
        except InputError as err:
            errors.append(str(err))

    for path in (fifo, tmp_path / "dev.md"):
        if path.name == "dev.md":
            path.symlink_to("/dev/null")
        worker = threading.Thread(target=save, args=(path,), daemon=True)
        worker.start()
        worker.join(timeout=60)
        assert not worker.is_alive()                           # refused, not blocked
    assert errors == [f"cannot write {fifo}: not a regular file (a FIFO); give a file path",
                      f"cannot write {tmp_path / 'dev.md'}: not a regular file (a character "
                      "device); give a file path"]
