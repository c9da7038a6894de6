"""Benchmark: building the report (the HTML page and the JSON) against the previous way of
drawing its static charts, in this one process (issue 27).

The analyses are run once (not timed): the bundled example and a large real board (by default
the sberbank Kaggle download, 2,000+ entries, from /work/shared/data or ``--board``). Then, each
repeated ``--repeat`` times, alternating, so both share the machine's load:

- **before**: the static charts drawn one after another, each awaited before the page goes on,
  none kept (the code before issue 27's change: ``renderer.svg`` per chart);
- **first page**: this code on a new analysis (nothing kept yet): every drawing started as its
  chart is built, the page built meanwhile, the drawings collected at the end;
- **again**: the same analysis's page once more (a notebook's repeated display, a test that
  renders a page it already rendered): the drawings come from the process's cache.

Every mode must give the same bytes (checked). The renderer's start is timed apart, in fresh
processes (``--no-cold`` skips it): the example's command run with the renderer started before
the statistics (``renderer.warm_up``, as ``leaderboard analyze`` does now) or at the first chart
(before), timing the page alone.

    python benchmarks/bench_report.py [--repeat 3] [--draws 2000] [--board PATH --metric rmsle
                                       --n-test 7662] [--no-cold]
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SBERBANK = Path("/work/shared/data/kaggle_lb_downloads/"
                "sberbank-russian-housing-market__publicleaderboard.csv")

# a fresh process: the example's statistics, then its page timed (argv[1]: "warm" or "cold")
_COLD_CHILD = r"""
import sys, time
from leaderboard.cli import build_parser
from leaderboard.cli.analyze_args import analysis_from_args
from leaderboard.report import render_html
from leaderboard.report.vega import renderer
if sys.argv[1] == "warm":
    renderer.warm_up()
start = time.perf_counter()
analysis = analysis_from_args(build_parser().parse_args(
    ["analyze", "--example", "--quiet", "--draws", sys.argv[2], "--replicates", sys.argv[2]]))
statistics = time.perf_counter() - start
start = time.perf_counter()
render_html(analysis)
print(statistics, time.perf_counter() - start)
"""


def analysis_of(argv: list[str]):
    """The analysis ``leaderboard analyze ARGV`` reports (statistics only, nothing written)."""
    from leaderboard.cli import build_parser
    from leaderboard.cli.analyze_args import analysis_from_args

    return analysis_from_args(build_parser().parse_args(["analyze", *argv, "--quiet"]))


def build(analysis) -> tuple[str, str, float, float]:
    """The page and the JSON text, and the seconds each took."""
    from leaderboard.report import render_html
    from leaderboard.report.json_out import json_text

    start = time.perf_counter()
    page = render_html(analysis)
    middle = time.perf_counter()
    text = json_text(analysis)
    return page, text, middle - start, time.perf_counter() - middle


def before_mode():
    """A context in which each static drawing is made anew and awaited before the page goes on
    (the previous code path), restored on exit."""
    from contextlib import contextmanager

    from leaderboard.report.vega import renderer

    @contextmanager
    def sequential():
        original = renderer.svg_later

        def drawn_now(spec, vl_version):
            renderer._CACHE.clear()
            future = original(spec, vl_version)
            future.result()
            return future

        renderer.svg_later = drawn_now
        try:
            yield
        finally:
            renderer.svg_later = original
    return sequential()


def time_board(name: str, analysis, repeat: int) -> None:
    from leaderboard.report.vega import renderer

    times: dict[str, list[tuple[float, float]]] = {"before": [], "first page": [], "again": []}
    outputs = set()
    for _ in range(repeat):
        with before_mode():
            page, text, html_s, json_s = build(analysis)
        times["before"].append((html_s, json_s))
        outputs.add((page, text))
        renderer._CACHE.clear()
        page, text, html_s, json_s = build(analysis)
        times["first page"].append((html_s, json_s))
        outputs.add((page, text))
        page, text, html_s, json_s = build(analysis)
        times["again"].append((html_s, json_s))
        outputs.add((page, text))
    assert len(outputs) == 1, "the modes gave different pages or JSON"
    entries = len(analysis.table)
    print(f"\n{name} ({entries:,} entries; page {len(page) / 1e6:.2f} MB, JSON "
          f"{len(text) / 1e6:.2f} MB; medians of {repeat})")
    base = statistics.median(h + j for h, j in times["before"])
    for mode, runs in times.items():
        html_s = statistics.median(h for h, _ in runs)
        json_s = statistics.median(j for _, j in runs)
        total = statistics.median(h + j for h, j in runs)
        print(f"  {mode:<11} HTML {html_s:6.3f} s  JSON {json_s:6.3f} s  both {total:6.3f} s"
              f"  speed-up x{base / total:5.2f}")


def time_cold(draws: int, repeat: int) -> None:
    runs: dict[str, list[tuple[float, float]]] = {"cold": [], "warm": []}
    for _ in range(repeat):
        for mode in ("cold", "warm"):
            done = subprocess.run([sys.executable, "-c", _COLD_CHILD, mode, str(draws)],
                                  cwd=ROOT, capture_output=True, text=True, check=True)
            stats_s, page_s = map(float, done.stdout.split())
            runs[mode].append((stats_s, page_s))
    print(f"\nA fresh process's first page (the example at {draws} draws; medians of {repeat})")
    base = statistics.median(p for _, p in runs["cold"])
    base_total = statistics.median(s + p for s, p in runs["cold"])
    for mode, label in (("cold", "renderer started at the page's first chart"),
                        ("warm", "renderer started before the statistics (now)")):
        stats_s = statistics.median(s for s, _ in runs[mode])
        page_s = statistics.median(p for _, p in runs[mode])
        total = statistics.median(s + p for s, p in runs[mode])
        print(f"  {label:<45} statistics {stats_s:6.2f} s  page {page_s:6.2f} s  both "
              f"{total:6.2f} s  speed-up: page x{base / page_s:5.2f}, both "
              f"x{base_total / total:5.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--draws", type=int, default=2000, help="draws and replicates")
    parser.add_argument("--board", type=Path, default=SBERBANK)
    parser.add_argument("--metric", default="rmsle")
    parser.add_argument("--n-test", default="7662")
    parser.add_argument("--no-cold", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from leaderboard.report.vega import renderer

    renderer.warm_up()
    few = ["--draws", str(args.draws), "--replicates", str(args.draws)]
    boards = {"the example": analysis_of(["--example", *few])}
    if args.board.exists():
        boards[args.board.name] = analysis_of([str(args.board), "--metric", args.metric,
                                               "--n-test", args.n_test, *few])
    else:
        print(f"(no large board: {args.board} is missing)")
    build(boards["the example"])   # every module imported, the bundle read, the engine warm
    for name, analysis in boards.items():
        time_board(name, analysis, args.repeat)
    if not args.no_cold:
        time_cold(args.draws, args.repeat)


if __name__ == "__main__":
    main()
