"""Benchmark: the page's table data streamed a block of rows at a time against the whole
payload held (issue 41).

One scores board (``bench_scale_scores.board``) is analysed once; then, alternating in this
process, the page is written as it was before (``tier_table.payload`` of every row in the
template's context: the old builder, kept verbatim in ``tests/report/test_page_stream.py``) and
as ``write_html`` writes it now, and the two files are compared byte for byte. Printed per
way: CPU seconds (best of ``--repeats``; the page's charts are drawn in both) and the traced
Python peak (``tracemalloc``, in a separate call)::

    python benchmarks/bench_page_stream.py [--entries 20000] [--replicates 100] [--repeats 3]

With ``--tile N`` the analysed board's table is repeated to ``N`` rows (a large board's page
without analysing one: the same columns, the analysis of ``--entries``), and each way writes
the page in its own child process, alternating, ``--repeats`` times: printed are its CPU
seconds and the rise of its resident set during the write (the kernel's high-water mark, reset
just before it: ``/proc/self/clear_refs``; Linux only)::

    python benchmarks/bench_page_stream.py --entries 2000 --tile 1000000 --repeats 2
"""
from __future__ import annotations

import dataclasses
import gc
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_json_stream import analysis_of, compare, options  # noqa: E402


def _old(analysis, path: Path) -> None:
    from tests.report.test_page_stream import old_page

    path.write_bytes(old_page(analysis).encode("utf-8"))


def _new(analysis, path: Path) -> None:
    from leaderboard.report.html import write_html

    write_html(analysis, path)


def _status(field: str) -> float:
    """A ``/proc/self/status`` memory field in MB."""
    with open("/proc/self/status") as f:
        line = next(line for line in f if line.startswith(field + ":"))
    return int(line.split()[1]) / 1024


def _one_way(args) -> None:
    analysis = analysis_of(args)
    import pandas as pd

    table = pd.concat([analysis.table] * -(-args.tile // len(analysis.table)),
                      ignore_index=True).iloc[:args.tile]
    analysis = dataclasses.replace(analysis, table=table)
    write = {"old": _old, "new": _new}[args.way]
    gc.collect()
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")   # resets VmHWM to the current resident set
    before = _status("VmRSS")
    start = time.process_time()
    write(analysis, Path(args.out))
    cpu = time.process_time() - start
    print(f"{args.way} {cpu:.2f} {before:.0f} {_status('VmHWM'):.0f}")


def main() -> None:
    parser = options(__doc__.splitlines()[0])
    parser.add_argument("--tile", type=int, default=0)
    parser.add_argument("--way", choices=["old", "new"])
    parser.add_argument("--out")
    args = parser.parse_args()
    if args.way:
        _one_way(args)
        return
    if not args.tile:
        compare(analysis_of(args), _old, _new, "page", args)
        return
    with tempfile.TemporaryDirectory() as tmp:
        pages = {way: Path(tmp) / f"{way}.html" for way in ("old", "new")}
        print(f"{args.tile:,} rows (the table of {args.entries:,} entries x {args.replicates} "
              "replicates, repeated): way, CPU s of the write, RSS before -> peak (rise)")
        for _ in range(args.repeats):
            for way, page in pages.items():
                out = subprocess.run(
                    [sys.executable, __file__, "--entries", str(args.entries), "--replicates",
                     str(args.replicates), "--tile", str(args.tile), "--way", way, "--out",
                     str(page)], check=True, capture_output=True, text=True).stdout.split()
                _, cpu, before, peak = out[-4:]
                print(f"  {way}: {cpu} s, {before} -> {peak} MB (+{int(peak) - int(before)})")
        same = pages["old"].read_bytes() == pages["new"].read_bytes()
        print(f"  page {pages['new'].stat().st_size / 2 ** 20:,.1f} MB, byte-identical: {same}")


if __name__ == "__main__":
    main()
