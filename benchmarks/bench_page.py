"""The report's size and speed on large boards: every row as compact JSON for the page's script
(the shipped page) against every row as an HTML table row (the naive page, as before).

For 1,000, 10,000 and 100,000 entries (tests/big_board.py: synthetic columns, no statistics run),
it prints the page's size and render time for both, their ratios, and, when Playwright and
/usr/bin/chromium are here, how long Chromium takes to open each page and to answer a search.

    python benchmarks/bench_page.py [--sizes 1000 10000 100000] [--no-browser]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]   # big_board imports tests.report

from big_board import big_analysis  # noqa: E402
from leaderboard.report.html import TEMPLATE, build_context  # noqa: E402
from leaderboard.report.render import render_page  # noqa: E402

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]


def _timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def _browser_times(paths: dict[str, Path], query: str) -> dict[str, tuple[float, float]]:
    """Seconds to open each page and to answer a search (the naive page has no search: its
    'search' is the browser finding the text, window.find)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return {}
    if not Path("/usr/bin/chromium").exists():
        return {}
    times = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        for kind, path in paths.items():
            page = browser.new_page()
            _, opened = _timed(lambda: page.goto(path.as_uri(), timeout=300_000))
            if kind == "json":
                def search():
                    page.fill("#lb-search", query)
                    page.wait_for_function(
                        "document.querySelector('#lb-table tbody').rows.length === 1")
            else:
                def search():
                    assert page.evaluate("q => window.find(q)", query)
            _, searched = _timed(search)
            times[kind] = (opened, searched)
            page.close()
        browser.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    parser.add_argument("--no-browser", action="store_true")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp())
    for n in args.sizes:
        analysis = big_analysis(n)
        shipped, t_json = _timed(lambda: render_page(TEMPLATE, build_context(analysis, charts=True)))
        naive, t_html = _timed(lambda: render_page(
            TEMPLATE, build_context(analysis, static_rows=None, interactive=False, charts=True)))
        paths = {"json": folder / f"json{n}.html", "html": folder / f"html{n}.html"}
        paths["json"].write_text(shipped, encoding="utf-8")
        paths["html"].write_text(naive, encoding="utf-8")
        mb = {k: p.stat().st_size / 1e6 for k, p in paths.items()}
        print(f"{n:>7,} entries: page {mb['json']:.2f} MB (all rows as HTML: {mb['html']:.2f} MB, "
              f"ratio {mb['html'] / mb['json']:.2f}); render {t_json:.2f} s "
              f"(all rows as HTML: {t_html:.2f} s, ratio {t_html / t_json:.2f})")
        if not args.no_browser:
            times = _browser_times(paths, f"team_{n // 2 + 1:06d}")
            for kind, (opened, searched) in times.items():
                what = "shipped page" if kind == "json" else "all rows as HTML"
                print(f"          Chromium, {what}: opened in {opened:.2f} s, search "
                      f"answered in {searched:.2f} s")


if __name__ == "__main__":
    main()
