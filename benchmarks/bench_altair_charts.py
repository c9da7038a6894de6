"""Benchmark: ``Result.charts()``, the page's charts as Altair objects for Jupyter (issue 27).

Each chart is built from the page's own Vega-Lite specification by
:func:`leaderboard.report.vega.embed.altair_chart`. Altair's defaults validate the whole
specification against the Vega-Lite schema and then, in its debug mode (on by default), every one
of the hundreds of schema objects built from it. Neither is done now: the page's specifications
are not validated when a page is built either, the tests validate them (tests/api/test_api.py
validates these charts with ``to_dict(validate=True)``). The baseline is the former call
(Altair's default), run in this process on the same specifications after checking that both give
equal objects and equal ``to_dict()``.

    python benchmarks/bench_altair_charts.py [--repeat 3]
"""
from __future__ import annotations

import argparse
import time

import altair as alt

import leaderboard
from leaderboard.confidence import confidence_label
from leaderboard.pipelines.examples import make_submissions_example
from leaderboard.report.chart_context import analysis_charts
from leaderboard.report.numbers import Numbers
from leaderboard.report.vega.embed import altair_chart, specifications_only


def baseline_altair_chart(block):
    """The chart as it was built (main 982022b): Altair's default, debug mode on."""
    spec = block.data
    kinds = {"layer": alt.LayerChart, "vconcat": alt.VConcatChart, "hconcat": alt.HConcatChart,
             "concat": alt.ConcatChart, "facet": alt.FacetChart, "repeat": alt.RepeatChart}
    kind = next((cls for key, cls in kinds.items() if key in spec), alt.Chart)
    return kind.from_dict(spec)


def blocks_of_a_submissions_analysis() -> dict:
    """The chart blocks of the submissions example's analysis (``analyze --example
    submissions``), at 100 replicates."""
    preset = make_submissions_example()
    a = leaderboard.analyze_submissions(preset["solution"], preset["submissions"],
                                        metric=preset["metric"], replicates=100, seed=1).analysis
    num = Numbers(a.settings.metric, a.table["score"].to_numpy(dtype=float), a.d95)
    with specifications_only():
        blocks = analysis_charts(a, num, confidence_label(a.settings.alpha))
    return {name: b for name, b in blocks.items() if b is not None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    repeat = parser.parse_args().repeat
    blocks = blocks_of_a_submissions_analysis()
    for name, block in blocks.items():
        new, old = altair_chart(block), baseline_altair_chart(block)
        assert new == old and new.to_dict() == old.to_dict(), name
    print(f"{len(blocks)} charts: equal objects and to_dict() from both builds")
    times = {"baseline": [], "now": []}
    for _ in range(repeat):   # alternating, so both see the same machine load
        for label, build in (("baseline", baseline_altair_chart), ("now", altair_chart)):
            start = time.perf_counter()
            for block in blocks.values():
                build(block)
            times[label].append(time.perf_counter() - start)
    base, now = min(times["baseline"]), min(times["now"])
    print(f"all charts: baseline {base:.2f} s, now {now:.2f} s, ratio {base / now:.2f}x "
          f"(best of {repeat})")


if __name__ == "__main__":
    main()
