"""Benchmark: the page's table data streamed a block of rows at a time against the whole
payload held (issue 41).

One scores board (``bench_scale_scores.board``) is analysed once; then, alternating in this
process, the page is written as it was before (``tier_table.payload`` of every row in the
template's context: the old builder, kept verbatim in ``tests/report/test_page_stream.py``) and
as ``write_html`` writes it now, and the two files are compared byte for byte. Printed per
way: CPU seconds (best of ``--repeats``; the page's charts are drawn in both) and the traced
Python peak (``tracemalloc``, in a separate call)::

    python benchmarks/bench_page_stream.py [--entries 20000] [--replicates 100] [--repeats 3]
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_json_stream import analysis_of, arguments, compare  # noqa: E402


def _old(analysis, path: Path) -> None:
    from tests.report.test_page_stream import old_page

    path.write_bytes(old_page(analysis).encode("utf-8"))


def _new(analysis, path: Path) -> None:
    from leaderboard.report.html import write_html

    write_html(analysis, path)


def main() -> None:
    args = arguments(__doc__.splitlines()[0])
    compare(analysis_of(args), _old, _new, "page", args)


if __name__ == "__main__":
    main()
