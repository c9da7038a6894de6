"""Which command-line options do the Python API's words still name? (not a test; a tool)

    python tests/interface_scan.py

Runs every run of tests/same_outputs.py (the examples, the real boards of ../shared/data, the
per-item and battles fixtures) through the command line with its interface flag held False
(:data:`leaderboard.api_words.COMMAND_LINE`), so every output is made in the Python API's words,
and lists each written file (page without scripts and styles, JSON, CSV, Markdown) that still
names an option, with the words around it; the command line each run records (its card's
command) is left out. Prints nothing when every text names keyword arguments.
"""
from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(HERE), str(HERE / "tests")]
os.environ.setdefault("PYTHONPATH", str(HERE))

import leaderboard.cli  # noqa: E402
import tests.same_outputs as same  # noqa: E402
from interface_words import options_in, page_text  # noqa: E402

_COMMAND = re.compile(r"leaderboard (analyze|choose|compare|plan|simulate)\b[^\"<\n]*")


class _Python:
    """The interface flag, held at the Python API's value whatever the command line sets."""

    def set(self, value):
        return None

    def reset(self, token) -> None:
        pass

    def get(self) -> bool:
        return False


def main() -> int:
    leaderboard.cli.COMMAND_LINE = _Python()
    work = Path(tempfile.mkdtemp(prefix="interface-scan-"))
    found = 0
    try:
        for name, argv in same._examples() + same._real_runs(work) + same._generated_runs(work):
            folder = work / "out" / name
            folder.mkdir(parents=True)
            same._run_main(argv + same._outputs(name, argv, folder))
            for path in sorted(p for p in folder.rglob("*") if p.is_file()):
                text = path.read_text(encoding="utf-8", errors="replace")
                text = _COMMAND.sub("", page_text(text) if path.suffix == ".html" else text)
                for option in options_in(text):
                    found += 1
                    at = text.index(option)
                    print(f"{name}/{path.name}: {option}: ..."
                          f"{' '.join(text[max(0, at - 100):at + 40].split())}...")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
