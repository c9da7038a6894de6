"""Regenerate tests/slow_tests.txt, the tests outside SLOW_FILES that the fast subset leaves out.

Usage::

    python -m pytest -q -n 2 --durations=0 > durations.log
    python tests/slow_list.py durations.log > tests/slow_tests.txt

A test (all its parameter cases together: setup, call and teardown) is slow when it took at least
THRESHOLD seconds in that run. Measured this way on 2 cores, the rest runs in about a minute.
"""
from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

THRESHOLD = 0.5   # seconds, summed over a test's parameter cases
_LINE = re.compile(r"\s*([\d.]+)s (?:call|setup|teardown)\s+(\S+)")


def slow_tests(log: str, slow_files: frozenset[str], threshold: float = THRESHOLD) -> list[str]:
    """Node ids (without parameters) whose summed durations in ``log`` reach ``threshold``."""
    spent: Counter[str] = Counter()
    for line in log.splitlines():
        found = _LINE.match(line)
        if found and Path(found[2].split("::")[0]).name not in slow_files:
            spent[found[2].split("[")[0]] += float(found[1])
    return sorted(node for node, seconds in spent.items() if seconds >= threshold)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    from conftest import SLOW_FILES

    print("\n".join(slow_tests(Path(sys.argv[1]).read_text(encoding="utf-8"), SLOW_FILES)))
