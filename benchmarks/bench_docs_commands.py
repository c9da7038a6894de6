"""CPU of every command of README.md and docs/ as written (issue 43): what a reader pays.

``python benchmarks/bench_docs_commands.py`` runs each documented command once, in this process,
from a temporary copy of data/ (as tests/test_docs_commands.py does, but without cutting
--draws/--replicates and with the static chart drawings on), and prints its CPU seconds (this
process's; the chart renderer's child process is not counted) and its exit status, slowest first.
The first command also pays the imports and the kernels' loading.
"""
from __future__ import annotations

import contextlib
import io
import os
import resource
import runpy
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from leaderboard.cli import main  # noqa: E402
from tests.docs_commands import extract  # noqa: E402


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run() -> list[tuple[float, int, str]]:
    rows, seen, ran = [], set(), set()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        shutil.copytree(ROOT / "data", root / "data")
        for command in extract():
            if command.kind != "run" or command.text in seen:
                continue
            seen.add(command.text)
            os.chdir(root)
            for line in command.setup:
                words = shlex.split(line)
                if words[0] == "cd":
                    os.chdir(words[1])
                elif (os.getcwd(), line) not in ran:
                    sys.argv = words[1:]
                    with contextlib.redirect_stdout(io.StringIO()):
                        runpy.run_path(words[1], run_name="__main__")
                    ran.add((os.getcwd(), line))
            start = _cpu()
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                status = main(command.argv)
            rows.append((_cpu() - start, status, f"{command.page}:{command.line} {command.text}"))
        os.chdir(ROOT)
    return rows


if __name__ == "__main__":
    rows = run()
    print(f"{len(rows)} commands, {sum(r[0] for r in rows):.1f} s of CPU in all")
    for cpu, status, text in sorted(rows, reverse=True):
        print(f"{cpu:6.2f} s  exit {status}  {text}")
