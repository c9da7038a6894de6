"""Benchmark: building a page's charts and text (issue 27): the analysis page of the bundled
examples and two real Kaggle boards, rendered in this process with every chart skeleton built
anew (their caches cleared, as in a fresh process or a test with other parameters).

What changed, each against its former code run here as the baseline (patched back in):

* skeletons are built with Altair's debug mode off (:func:`leaderboard.report.vega.common.skeleton`):
  in it Altair validated every schema object (mark, scale, axis, filter...) as it was built;
* layered charts are put together as dictionaries (:func:`~leaderboard.report.vega.layering.layered`)
  from the layers Altair built, not by Altair's ``LayerChart``, which copies every layer (twice)
  to lift their selections;
* :func:`~leaderboard.report.vega.common.records` converts a column at a time, not row by row,
  and the curves' rows are rounded a curve at a time, not a point at a time;
* :func:`~leaderboard.report.render.neutral_bidi` (every ``{{ }}`` of the page) passes printable
  text by ``str.isprintable`` and remembers its verdict on large texts (the ~0.9 MB Vega bundle,
  the same on every page), instead of searching each with a regular expression.

It asserts that both builds give the same page, byte for byte, then times them alternately.
The pages leave out the static SVG drawings (``specifications_only``: vl-convert's time, the same
in both). Real boards are skipped when /work/shared/data is absent.

    python benchmarks/bench_chart_build.py [--repeat 3]
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import math
import pkgutil
import time
from pathlib import Path

import altair as alt
import markupsafe
import numpy as np

import leaderboard
import leaderboard.report.vega as vega
from leaderboard.options import AnalyzeOptions, NoiseOptions, RankOptions
from leaderboard.pipelines.run import Inputs, run_analysis
from leaderboard.report import render
from leaderboard.report.html import render_html
from leaderboard.noise.curves import GRID
from leaderboard.report.vega import common, curves
from leaderboard.report.vega.embed import specifications_only

DATA = Path("/work/shared/data")
FAST = dict(draws=100, replicates=200)
BOARDS = {   # tests/pipelines/test_real_boards.py's options
    "mlsp": ("kaggle_public_private/mlsp-2014-mri__public_private.csv",
             dict(metric="auc", n_public=30, n_private=90, prevalence=0.5)),
    "sberbank": ("kaggle_lb_downloads/sberbank-russian-housing-market__publicleaderboard.csv",
                 dict(metric="rmsle", n_test=7662)),
}
MODULES = [importlib.import_module(f"leaderboard.report.vega.{m.name}")
           for m in pkgutil.iter_modules(vega.__path__)]


def baseline_records(frame):
    """``records`` as it was (main 31b2098): row by row."""
    out = []
    for row in frame.itertuples(index=False):
        rec = {}
        for key, value in zip(frame.columns, row):
            if isinstance(value, (float, np.floating)):
                value = float(value) if math.isfinite(value) else None
            elif isinstance(value, (np.integer,)):
                value = int(value)
            elif isinstance(value, (np.bool_,)):
                value = bool(value)
            rec[key] = value
        out.append(rec)
    return out


def baseline_neutral_bidi(value):
    """``neutral_bidi`` as it was: a regular-expression search of every text."""
    if not isinstance(value, str) or not render._BIDI.search(value):
        return value
    shown = render._BIDI.sub(lambda m: f"[U+{ord(m.group()):04X}]", str(value))
    return markupsafe.Markup(shown) if isinstance(value, markupsafe.Markup) else shown


def baseline_layered(*layers, **properties):
    """Layering as it was: Altair's LayerChart and ``properties``."""
    return alt.layer(*layers).properties(**properties)


def baseline_long(curves, field):
    """``curves._long`` as it was: :func:`~leaderboard.report.vega.common.finite` a value at a
    time."""
    rows = []
    for t, c in enumerate(curves.entries):
        y = getattr(c, field)
        band = getattr(c, f"{field}_band", None)
        for k, x in enumerate(GRID):
            row = {"t": t, "x": round(float(x), 2), "y": common.finite([y[k]], 4)[0]}
            if band is not None:
                row["lo"], row["hi"] = common.finite([band[0][k], band[1][k]], 4)
            rows.append(row)
    return rows


def _no_quiet(flag):
    return contextlib.nullcontext()   # Altair's debug mode stays as it is (on)


@contextlib.contextmanager
def baseline():
    """The former code patched in (and the page environment rebuilt with it)."""
    saved = []

    def patch(obj, name, value):
        saved.append((obj, name, getattr(obj, name)))
        setattr(obj, name, value)

    patch(common, "debug_mode", _no_quiet)
    patch(common, "records", baseline_records)
    patch(curves, "_long", baseline_long)
    patch(render, "neutral_bidi", baseline_neutral_bidi)
    patch(common, "neutral_bidi", baseline_neutral_bidi)
    for module in MODULES:
        if hasattr(module, "layered"):
            patch(module, "layered", baseline_layered)
    render._environment.cache_clear()
    try:
        yield
    finally:
        for obj, name, value in reversed(saved):
            setattr(obj, name, value)
        render._environment.cache_clear()


def clear_skeletons() -> None:
    """Every cached chart skeleton forgotten (the Vega bundle is kept: the same in both)."""
    for module in MODULES:
        for name, fn in vars(module).items():
            if callable(getattr(fn, "cache_clear", None)) and name != "bundle":
                fn.cache_clear()


def analyses() -> dict:
    options = AnalyzeOptions(noise=NoiseOptions(draws=FAST["draws"]),
                             ranks=RankOptions(replicates=FAST["replicates"]))
    out = {name: run_analysis(Inputs(example=name), options) for name in ("scores",
                                                                          "submissions")}
    for name, (file, kwargs) in BOARDS.items():
        if (DATA / file).exists():
            out[name] = leaderboard.analyze(DATA / file, **kwargs, **FAST, seed=0).analysis
    return out


def page(analysis) -> str:
    clear_skeletons()
    with specifications_only():
        return render_html(analysis)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    repeat = parser.parse_args().repeat
    runs = analyses()
    for name, a in runs.items():
        with baseline():
            old = page(a)
        new = page(a)
        assert new == old, name
        print(f"{name}: the same page from both builds ({len(new):,} characters)")
    times = {name: {"baseline": [], "now": []} for name in runs}
    for _ in range(repeat):   # alternating, so both see the same machine load
        for name, a in runs.items():
            for label in ("baseline", "now"):
                with baseline() if label == "baseline" else contextlib.nullcontext():
                    start = time.perf_counter()
                    page(a)
                    times[name][label].append(time.perf_counter() - start)
    total = {"baseline": 0.0, "now": 0.0}
    for name, t in times.items():
        base, now = min(t["baseline"]), min(t["now"])
        total["baseline"] += base
        total["now"] += now
        print(f"{name:12s} baseline {base:.3f} s, now {now:.3f} s, ratio {base / now:.2f}x")
    print(f"{'all pages':12s} baseline {total['baseline']:.3f} s, now {total['now']:.3f} s, "
          f"ratio {total['baseline'] / total['now']:.2f}x (best of {repeat})")


if __name__ == "__main__":
    main()
