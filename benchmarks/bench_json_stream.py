"""Benchmark: the JSON writer streaming its entries against the whole document held (issue 41).

One scores board (``bench_scale_scores.board``) is analysed once; then, alternating in this
process, the JSON is written as it was before the rows were streamed (``to_json_dict`` encoded by
``json.JSONEncoder.iterencode``) and as ``write_json`` writes it now, and the two files are
compared byte for byte. Printed per way: CPU seconds (best of ``--repeats``) and the traced
Python peak (``tracemalloc``, in a separate call: tracing slows the writer)::

    python benchmarks/bench_json_stream.py [--entries 20000] [--replicates 100] [--repeats 3]
"""
from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_scale_scores import board  # noqa: E402


def _old(analysis, path: Path) -> None:
    from leaderboard.report.json_out import _JSON_OPTIONS, to_json_dict

    pieces = json.JSONEncoder(**_JSON_OPTIONS).iterencode(to_json_dict(analysis))
    with open(path, "wb") as raw, io.TextIOWrapper(raw, encoding="utf-8", newline="\n") as out:
        for piece in pieces:
            out.write(piece)
        out.write("\n")


def _new(analysis, path: Path) -> None:
    from leaderboard.report.json_out import write_json

    write_json(analysis, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=20000)
    parser.add_argument("--replicates", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    import leaderboard

    analysis = leaderboard.analyze(board(args.entries, False), metric="auc", n_test=10000,
                                   prevalence=0.1, replicates=args.replicates).analysis
    with tempfile.TemporaryDirectory() as tmp:
        paths = {"held (before)": Path(tmp) / "old.json", "streamed (now)": Path(tmp) / "new.json"}
        ways = {"held (before)": _old, "streamed (now)": _new}
        cpu = {name: float("inf") for name in ways}
        for _ in range(args.repeats):
            for name, write in ways.items():
                start = time.process_time()
                write(analysis, paths[name])
                cpu[name] = min(cpu[name], time.process_time() - start)
        peak = {}
        for name, write in ways.items():
            tracemalloc.start()
            write(analysis, paths[name])
            peak[name] = tracemalloc.get_traced_memory()[1] / 2 ** 20
            tracemalloc.stop()
        same = paths["held (before)"].read_bytes() == paths["streamed (now)"].read_bytes()
        size = paths["streamed (now)"].stat().st_size / 2 ** 20
    print(f"{args.entries:,} entries x {args.replicates} replicates: JSON {size:,.1f} MB, "
          f"byte-identical: {same}")
    for name in ways:
        print(f"  {name:15s} {cpu[name]:6.2f} s CPU  traced peak {peak[name]:8,.1f} MB")
    print(f"  ratio (now / before): CPU {cpu['streamed (now)'] / cpu['held (before)']:.2f}, "
          f"peak {peak['streamed (now)'] / peak['held (before)']:.3f}")


if __name__ == "__main__":
    main()
