"""The Dask engine (issue 16, item 4): the same numbers as the in-process engine, bit for bit, on a
local cluster of two worker processes and through a scheduler's address; one-line errors for bad
options; the default path never imports Dask. Skipped when dask.distributed is not installed."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from leaderboard.cli import main

distributed = pytest.importorskip("distributed")


def _analyze(tmp_path, name, *args):
    out = tmp_path / f"{name}.json"
    code = main(["analyze", *args, "--json", str(out), "-o", str(tmp_path / f"{name}.html"),
                 "--quiet"])
    assert code == 0
    # the example's temporary folder differs from run to run, and the card's provenance names
    # the command (--workers, --scheduler, other output paths): nothing else may
    text = re.sub(r"leaderboard-example-[A-Za-z0-9_]+", "X", out.read_text(encoding="utf-8"))
    return re.sub(r'"command": "leaderboard (?:[^"\\]|\\.)*"', '"command": "X"', text)


def test_two_local_workers_give_the_same_json_as_this_process(tmp_path):
    common = ["--example", "submissions", "--replicates", "300"]
    alone = _analyze(tmp_path, "alone", *common)
    spread = _analyze(tmp_path, "dask", *common, "--workers", "2")
    assert spread == alone
    data = json.loads(spread)
    assert len(data["entries"]) > 30 and data["shakeup"] is not None


def _competition(folder, n=400, teams=9, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    pd.DataFrame({"id": range(n), "target": y,
                  "Usage": np.where(rng.random(n) < 0.4, "Public", "Private")}).to_csv(
        folder / "solution.csv", index=False)
    subs = folder / "subs"
    subs.mkdir()
    for k in range(teams):
        p = (y * k / teams + rng.random(n)) / 2           # probabilities, better with k
        frame = pd.DataFrame({"id": range(n), "target": np.round(p, 5)})
        if k % 3 == 0:
            frame.to_parquet(subs / f"team{k}.parquet", index=False)
        else:
            frame.to_csv(subs / f"team{k}.csv", index=False)
    (subs / "broken.csv").write_text("id,target\n1,0.5\n")
    return ["--solution", str(folder / "solution.csv"), "--submissions", str(subs)]


def test_a_running_scheduler_gives_the_same_numbers(tmp_path):
    pytest.importorskip("pyarrow")
    args = _competition(tmp_path) + ["--metric", "logloss", "--replicates", "200",
                                     "--resample", "stratified"]
    alone = _analyze(tmp_path, "alone", *args)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        spread = _analyze(tmp_path, "scheduler", *args, "--scheduler",
                          cluster.scheduler_address)
    assert spread == alone
    data = json.loads(spread)
    files = {f["team"]: f["status"] for f in data["files"]}
    assert files == {**{f"team{k}": "ok" for k in range(9)}, "broken": "rejected"}
    assert data["shakeup"] is not None


@pytest.mark.parametrize("args,words", [
    (["--workers", "0"], "--workers must be at least 1"),
    (["--workers", "two"], "--workers"),
    (["--workers", "2", "--scheduler", "tcp://127.0.0.1:1"], "not allowed with"),
    (["--scheduler", "nonsense"], "--scheduler nonsense: cannot connect"),
])
def test_bad_engine_options_are_one_line_errors(tmp_path, capsys, args, words):
    code = main(["analyze", *_competition(tmp_path), "--metric", "auc", *args, "--quiet",
                 "-o", str(tmp_path / "r.html")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and words in err and len(err.splitlines()) == 1, err


def test_an_unreachable_scheduler_is_one_line(tmp_path, capsys):
    import socket

    with socket.socket() as sock:       # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    code = main(["analyze", *_competition(tmp_path), "--metric", "auc", "--quiet",
                 "--scheduler", f"tcp://127.0.0.1:{port}", "-o", str(tmp_path / "r.html")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
    assert f"--scheduler tcp://127.0.0.1:{port}: cannot connect" in err


def test_engine_options_only_in_submissions_mode(capsys):
    code = main(["analyze", "--example", "--workers", "2", "--quiet"])
    assert code == 2
    assert "run submissions mode" in capsys.readouterr().err


def test_without_dask_the_options_say_what_to_install(monkeypatch):
    from leaderboard.cli.common import engine_from_args
    from leaderboard.errors import InputError

    monkeypatch.setitem(sys.modules, "distributed", None)   # import distributed fails
    args = type("Args", (), {"workers": 2, "scheduler": None})()
    with pytest.raises(InputError, match=r"need Dask: pip install"):
        engine_from_args(args)


def test_the_default_path_never_imports_dask(tmp_path):
    code = (
        "import sys, leaderboard\n"
        "r = leaderboard.analyze_submissions(sys.argv[1], sys.argv[2], metric='auc',"
        " replicates=100)\n"
        "assert len(r.table) == 9, r.table\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))\n")
    args = _competition(tmp_path)
    out = subprocess.run([sys.executable, "-c", code, args[1], args[3]], capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_batches_are_sized_from_the_workers_memory():
    """A quarter of the smallest worker's memory limit per batch, and about two batches per
    worker; no limit known: the in-process budget."""
    from leaderboard.engine.dask import DaskEngine
    from leaderboard.engine.work import BATCH_BYTES

    class Client:
        def __init__(self, limits):
            self.limits = limits

        def scheduler_info(self):
            return {"workers": {f"w{k}": {"memory_limit": m} for k, m in enumerate(self.limits)}}

    engine = DaskEngine.__new__(DaskEngine)
    engine._client = Client([16 * 2**30, 8 * 2**30, 8 * 2**30])
    assert engine.budget() == 2 * 2**30 and engine.workers() == 3 and engine.spread(100) == 17
    engine._client = Client([0, 0])
    assert engine.budget() == BATCH_BYTES and engine.spread(1) == 1
