"""Charts on the page: each specification as escaped JSON in a ``<script type="application/json">``,
a static SVG of it when asked for (:func:`static_drawings`: the view without JavaScript, and on
paper), and the Vega libraries inlined once.

The page opens offline: the JavaScript of Vega, Vega-Lite and vega-embed comes from
:func:`vl_convert.javascript_bundle` (about 0.9 MB; made when the package was built and shipped in
it, :mod:`~leaderboard.report.vega.shipped`) and is inlined once per page that has charts;
``templates/charts.js`` embeds every chart and wires the shared team selection, and draws them
before printing. The static SVG, when asked for (``--static-charts``; a file or a notebook's
summary that is itself a picture always has it), is rendered from the same specification by
:func:`vl_convert.vegalite_to_svg`, so the printed chart is the interactive one; a page without it
never starts the renderer's child process (0.70 s of CPU a run whose drawings are not kept:
docs/benchmarks.md). Team names reach the page only as JSON string values with ``<``, ``>``,
``&``, U+2028/U+2029, bidi and control characters escaped
(:func:`~leaderboard.report.render.script_json`), so no name can close the script element or
open a comment.
Everything here is deterministic: the same charts give the same bytes.
"""
from __future__ import annotations

import contextvars
import json
import re
import xml.etree.ElementTree as ET
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import altair as alt
from altair.utils.schemapi import debug_mode
import markupsafe
import vl_convert as vlc

from leaderboard.report.render import script_json
from leaderboard.report.vega.bundle_cache import (cache_file, cached_bundle, looks_like_bundle,
                                                  shipped_bundle)
from leaderboard.report.vega.shipped import vega_lite_version
from leaderboard.report.vega import renderer
from leaderboard.report.vega.common import Spec

if TYPE_CHECKING:   # Altair's top-level chart classes, one per kind of specification
    _TopLevel = (alt.Chart | alt.LayerChart | alt.VConcatChart | alt.HConcatChart
                 | alt.ConcatChart | alt.FacetChart | alt.RepeatChart)

def _vl_version() -> str | None:
    """The Vega-Lite version Altair writes specifications for, if vl-convert has it (else its
    newest), so the browser and the static renderer read a specification the same way (the
    build backend picks the shipped bundle's version with the same function)."""
    return vega_lite_version(alt.SCHEMA_VERSION, vlc.get_vegalite_versions())


VL_VERSION = _vl_version()


@dataclass(frozen=True)
class ChartBlock:
    """One chart as the templates place it (``templates/chart.html.j2``).

    Attributes
    ----------
    id : str
        The element id of the chart's container (unique on the page).
    title : str
        What the chart shows, in words (its accessible name).
    spec : Markup
        The Vega-Lite specification as script-safe JSON (:func:`~leaderboard.report.render.script_json`).
    svg : Markup or None
        The same specification rendered to static SVG, or None when the page leaves it out.
    caption : str
        Words the chart's builder wrote about it (what it left out, what its marks mean), or "".
    note : str
        Shown in place of the chart when it cannot be drawn on this machine at all (the chart
        renderer cannot run and no JavaScript bundle is cached), else "".
    """

    id: str
    title: str
    spec: markupsafe.Markup
    svg: markupsafe.Markup | None
    caption: str = ""
    note: str = ""

    @property
    def data(self) -> dict:
        """The specification as a dictionary (for tests and exports)."""
        return json.loads(str(self.spec))




def static_svg(spec: dict, prefix: str) -> markupsafe.Markup | None:
    """The specification rendered to SVG by vl-convert (no JavaScript engine of the page's), in
    its child process (:mod:`~leaderboard.report.vega.renderer`); None when that cannot run on
    this machine (the page then draws the chart with JavaScript only, and says so without it).

    Vega's SVG renderer escapes every text it writes; the result is checked to be one well-formed
    SVG element holding no script before it is marked safe. Its element ids (clip paths) are
    renamed ``prefix-1``, ``prefix-2``, ... in order: vl-convert numbers them per process, and
    ids must be unique on the page and the same on every run (and a drawing the renderer kept
    from an earlier page gets this page's ids).
    """
    return page_svg(renderer.svg(spec, VL_VERSION), prefix)


def page_svg(svg: str | None, prefix: str) -> markupsafe.Markup | None:
    """The renderer's ``svg`` with its ids renamed for the page and checked (see
    :func:`static_svg`), or None."""
    if svg is None:
        return None
    names: dict[str, str] = {}
    for old in re.findall(r'\bid="([^"]+)"', svg):
        names.setdefault(old, f"{prefix}-{len(names) + 1}")
    if names:
        alternatives = "|".join(re.escape(k) for k in names)
        pattern = re.compile(rf'(\bid="|url\(#|href="#)({alternatives})(?=[")])')
        svg = pattern.sub(lambda m: m.group(1) + names[m.group(2)], svg)
    svg = _font_margin(svg)
    root = ET.fromstring(svg)
    if root.tag != "{http://www.w3.org/2000/svg}svg" or any(
            el.tag.endswith("script") or el.tag.endswith("foreignObject") for el in root.iter()):
        raise ValueError("the static chart is not a plain SVG drawing")
    return markupsafe.Markup(svg)


_FRAME = re.compile(r'^(<svg\b[^>]*?\bwidth=")([\d.]+)("[^>]*?\bviewBox="0 0 )([\d.]+)'
                    r'( [\d.]+">(?:<rect width=")?)([\d.]+)?(.*?<g\b[^>]*?transform="translate\()'
                    r'([\d.]+)(,)', re.DOTALL)


def _font_margin(svg: str, share: float = 0.3) -> str:
    """``svg`` with its left margin widened by ``share`` of the drawing's own: vl-convert lays
    out the labels left of the plot (entry names) with its font's widths, and a viewer (a
    browser printing the page, GitHub showing the README's picture) draws them in its own sans
    serif, up to a third wider, past the left edge ("7. Logistic regression baseline").

    Examples
    --------
    >>> print(_font_margin('<svg width="100" height="50" viewBox="0 0 100 50"><rect '
    ...                    'width="100" height="50"/><g transform="translate(40,5)"></g></svg>'))
    ... # doctest: +NORMALIZE_WHITESPACE
    <svg width="112" height="50" viewBox="0 0 112 50"><rect width="112" height="50"/><g
    transform="translate(52,5)"></g></svg>
    """
    match = _FRAME.match(svg)
    if match is None:
        return svg
    left = float(match[8])
    extra = round(share * left)
    if extra <= 0:
        return svg

    def wider(text: str | None) -> str:
        return "" if text is None else f"{float(text) + extra:g}"

    return (match[1] + wider(match[2]) + match[3] + wider(match[4]) + match[5] + wider(match[6])
            + match[7] + f"{left + extra:g}" + match[9] + svg[match.end():])


@dataclass(frozen=True)
class PendingChart:
    """A chart whose static SVG is being drawn (:func:`pending_block`); :meth:`result` waits
    for it and gives the :class:`ChartBlock`."""

    id: str
    title: str
    spec: dict
    drawing: Future | None
    caption: str = ""
    on_page: bool = True   # False: for Altair (:func:`specifications_only`), no page's note

    def result(self) -> ChartBlock:
        svg = None if self.drawing is None else page_svg(self.drawing.result(), self.id)
        note = "" if svg is not None or not self.on_page or bundle() is not None else (
            f"{self.title}: this chart cannot be drawn here, as its renderer (vl-convert) cannot "
            f"run on this machine ({renderer.unavailable()}); the page's tables and the JSON "
            "hold its numbers.")
        return ChartBlock(self.id, self.title, script_json(self.spec), svg, self.caption, note)


# False inside :func:`specifications_only`: charts are built without their static drawings.
_DRAWING = contextvars.ContextVar("leaderboard_static_drawings", default=True)
# True inside :func:`static_drawings`: a page's charts get their static drawings (off by default).
_STATIC = contextvars.ContextVar("leaderboard_page_drawings", default=False)


@contextmanager
def static_drawings(on: bool = True):
    """Charts built inside have their static SVG when ``on`` (``--static-charts``,
    ``static_charts=True``; a picture file and the notebook's summary always ask): outside, a
    page's charts are drawn by its JavaScript alone, and the renderer's child never starts.

    Examples
    --------
    >>> with static_drawings():
    ...     _STATIC.get()
    True
    >>> _STATIC.get()
    False
    """
    token = _STATIC.set(bool(on))
    try:
        yield
    finally:
        _STATIC.reset(token)


@contextmanager
def specifications_only():
    """Charts built inside have no static SVG: for callers that show them interactively
    (:meth:`leaderboard.Result.charts` in a notebook), which would otherwise wait for drawings
    nobody sees (the renderer's start and ~0.1-0.2 s a chart)."""
    token = _DRAWING.set(False)
    try:
        yield
    finally:
        _DRAWING.reset(token)


def pending_block(chart: Spec, id: str, title: str, *, static: bool = True,
                  caption: str = "") -> PendingChart:
    """:func:`block` with its static drawing started, not awaited: a page starts every chart's
    drawing, goes on with its own work, and takes the blocks at the end (same bytes). The
    drawing only inside :func:`static_drawings`."""
    spec = chart.to_dict()
    on_page = _DRAWING.get()
    drawing = (renderer.svg_later(spec, VL_VERSION) if static and on_page and _STATIC.get()
               else None)
    return PendingChart(id, title, spec, drawing, caption, on_page)


def block(chart: Spec, id: str, title: str, *, static: bool = True,
          caption: str = "") -> ChartBlock:
    """A chart ready for the page: its specification, and its static SVG if ``static`` and
    inside :func:`static_drawings` (the tests validate every specification against the
    Vega-Lite schema; the page does not pay for it)."""
    return pending_block(chart, id, title, static=static, caption=caption).result()


def altair_chart(chart: ChartBlock) -> alt.TopLevelMixin:
    """The chart as an Altair object, from the page's own specification (data included): in
    Jupyter it displays through Altair's renderer, and ``.save``/``.to_dict`` work as usual."""
    spec = chart.data
    kinds: dict[str, type[_TopLevel]] = {
        "layer": alt.LayerChart, "vconcat": alt.VConcatChart, "hconcat": alt.HConcatChart,
        "concat": alt.ConcatChart, "facet": alt.FacetChart, "repeat": alt.RepeatChart}
    kind = next((cls for key, cls in kinds.items() if key in spec), alt.Chart)
    # Not validated against the Vega-Lite schema here, as the page's specifications are not
    # (:func:`block`): the tests validate every one (test_api validates these charts). Altair's
    # defaults validated the whole specification and then, in its debug mode, each of the
    # hundreds of objects built from it: 2.3x the time (benchmarks/bench_altair_charts.py).
    with debug_mode(False):
        return kind.from_dict(spec, validate=False)


def _cache_file() -> Path | None:
    """Where the bundle is kept between runs (:mod:`leaderboard.report.vega.bundle_cache`)."""
    return cache_file(getattr(vlc, "__version__", "unknown"), VL_VERSION)


def _shipped_bundle() -> str | None:
    """The bundle shipped in the package, when it is this vl-convert's and Vega-Lite version's
    and passes the cache's checks (:func:`~leaderboard.report.vega.bundle_cache.shipped_bundle`)."""
    return shipped_bundle(getattr(vlc, "__version__", "unknown"), VL_VERSION)


def _build_bundle() -> str | None:
    return renderer.javascript_bundle(VL_VERSION)   # None: the renderer cannot run here


def _cached_bundle() -> str | None:
    """vl-convert's bundle, from the cache only when it passes every check of
    :func:`~leaderboard.report.vega.bundle_cache.cached_bundle` (else built in memory); None
    when the renderer cannot run here and nothing is cached."""
    return cached_bundle(_cache_file(), _build_bundle)


@lru_cache(maxsize=1)
def bundle() -> markupsafe.Markup | None:
    """The JavaScript of Vega, Vega-Lite and vega-embed, to inline once in a page (about 0.9 MB):
    the package's own (:func:`_shipped_bundle`, made when its wheel was built), else the one
    built once per machine and vl-convert version (:func:`_cached_bundle`); the same bytes
    either way. It defines ``window.vegaEmbed``. None when vl-convert cannot run on this machine
    and nothing is shipped or cached.
    """
    js = _shipped_bundle() or _cached_bundle()
    if js is None:
        return None
    if not looks_like_bundle(js):   # it could not be inlined safely
        raise RuntimeError("the Vega JavaScript bundle cannot be inlined in a <script> element")
    return markupsafe.Markup(js)


def page_scripts(*groups) -> dict:
    """The page's ``vega`` context (``templates/chart.html.j2``, ``scripts``): the bundle when
    any of ``groups`` (dictionaries or lists of charts) holds a chart, else None."""
    has = any(any(v is not None for v in (g.values() if isinstance(g, dict) else g))
              for g in groups if g)
    code = bundle() if has else None
    return {"bundle": code, "notices": notices() if code is not None else None}


@lru_cache(maxsize=1)
def notices() -> markupsafe.Markup:
    """The third-party notices of the JavaScript the page inlines (``VEGA_NOTICES.txt``: Vega,
    Vega-Lite and vega-embed under BSD-3-Clause, which asks that redistributions carry the
    notice, and what they are built from), as a ``/*! ... */`` comment that goes before the
    bundle in its script: a page shared on is a redistribution of that code. Nothing in the
    text can end the comment or the script.

    Examples
    --------
    >>> text = str(notices())
    >>> text.startswith("/*!") and "BSD-3-Clause" in text and text.count("*/") == 1
    True
    """
    text = (Path(__file__).with_name("VEGA_NOTICES.txt").read_text(encoding="utf-8")
            .replace("*/", "* /").replace("</", "<\\/"))
    return markupsafe.Markup("/*!\nThe script below is the Vega JavaScript bundle that the "
                             "leaderboard package inlines in its pages. Its notices, as shipped "
                             f"with the package:\n\n{text.rstrip()}\n*/\n")
