"""Benchmark: a report page's open in Chromium with its charts drawn as they come near the screen
(the shipped ``templates/charts.js``) against every chart drawn on open (the baseline, main
a3e0e57), issue 27.

Both pages are the same file but for one line: the baseline's script skips the
IntersectionObserver and draws every chart at once, as before. For each page (the scores and the
submissions examples) and each width (1300 and 390 px), it opens both in turn ``--repeat`` times in
one browser (each open a fresh context, as a reader's new tab) and prints the median seconds to
open (Playwright's ``goto``: the load event, which waits for the charts the script draws), the
charts drawn by then, and the seconds until every chart is drawn (the baseline: the same; the
lazy page: ``LBCharts.drawAll()`` after the open, as a reader who scrolls the whole page), with
the ratios baseline / lazy. The drawings are the same code on the same specifications, so the
pages end the same (checked here: the same number of charts live, no console error).

    python benchmarks/bench_lazy_charts.py [--repeat 5]
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from leaderboard.cli import main as cli

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
LAZY = 'if ("IntersectionObserver" in window) {'
EAGER = "if (false) {   // the baseline: every chart drawn on open"
LIVE = "document.querySelectorAll('.lb-chart.lb-live').length"


def pages(folder: Path) -> dict[str, tuple[Path, Path]]:
    """The examples' pages (lazy, baseline)."""
    out = {}
    for kind in ("scores", "submissions"):
        lazy = folder / f"{kind}.html"
        which = [] if kind == "scores" else [kind]
        assert cli(["analyze", "--example", *which, "--draws", "200", "--replicates", "200",
                    "--quiet", "-o", str(lazy)]) == 0
        html = lazy.read_text(encoding="utf-8")
        assert html.count(LAZY) == 1, "charts.js changed: update the benchmark's baseline"
        eager = folder / f"{kind}-baseline.html"
        eager.write_text(html.replace(LAZY, EAGER), encoding="utf-8")
        out[kind] = (lazy, eager)
    return out


def open_once(browser, path: Path, width: int) -> tuple[float, int, float, int, list[str]]:
    """Seconds to open, charts drawn then, seconds until all are drawn, charts, console errors."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    start = time.perf_counter()
    page.goto(path.as_uri())
    opened = time.perf_counter() - start
    live = page.evaluate(LIVE)
    page.evaluate("LBCharts.drawAll()")
    done = time.perf_counter() - start
    total = page.evaluate(LIVE)
    assert total == page.locator(".lb-chart").count()
    context.close()
    return opened, live, done, total, errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    folder = Path(tempfile.mkdtemp())
    built = pages(folder)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        for kind, (lazy, eager) in built.items():
            for width in (1300, 390):
                runs: dict[str, list] = {"lazy": [], "baseline": []}
                for _ in range(args.repeat):   # alternate: the machine's load hits both alike
                    for name, path in (("baseline", eager), ("lazy", lazy)):
                        runs[name].append(open_once(browser, path, width))
                med = {name: (statistics.median(r[0] for r in rs),
                              statistics.median(r[2] for r in rs), rs[0][1], rs[0][3],
                              sum(len(r[4]) for r in rs)) for name, rs in runs.items()}
                (bo, bd, bl, bt, be), (lo, ld, ll, lt, le) = med["baseline"], med["lazy"]
                assert bt == lt and be == le == 0, (kind, width, med)
                print(f"{kind:>11} at {width:>4} px: open {bo:.2f} s ({bl}/{bt} charts drawn) "
                      f"-> {lo:.2f} s ({ll}/{lt} drawn), ratio {bo / lo:.2f}; every chart "
                      f"drawn {bd:.2f} -> {ld:.2f} s, ratio {bd / ld:.2f}")
        browser.close()


if __name__ == "__main__":
    main()
