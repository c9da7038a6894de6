"""The self-contained HTML report: the page's context put together here from the modules of its
parts (the answer box, the facts, "How to read", the sections below the table, the charts chosen
in chart_context and specified in report/vega/), layout in the template.

The page loads nothing (CSS, the table's script and the chart libraries inlined), so it works
offline; every chart is a Vega-Lite specification, drawn by the page's JavaScript (on screen, and
before printing); with ``static_charts`` (``--static-charts``) the top ones are also drawn as
static SVG, for readers without JavaScript. Team names and file names are untrusted: they reach the page
only through Jinja2 autoescaping or as escaped JSON string data (:func:`render.script_json`, or
:func:`render.script_json_printed` for the table's rows, written a block at a time).
Nothing time-dependent is printed, so the same analysis always renders to the same bytes.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import markupsafe
import numpy as np

from leaderboard.api_words import said
from leaderboard.confidence import confidence_label
from leaderboard.report import tier_table
from leaderboard.report.answer_box import answer_context
from leaderboard.report.chart_context import moved_marks, scores_legend
from leaderboard.report.facts_text import facts
from leaderboard.report.how_to_read import how_to_read
from leaderboard.report.numbers import Numbers
from leaderboard.report.page_sections import sections_context
from leaderboard.report.render import render_page, script_json_printed
from leaderboard.report.vega.common import NO_TIER, PALETTE, TOP
from leaderboard.report.vega.embed import page_scripts, static_drawings
from leaderboard.report.vocabulary import vocabulary
from leaderboard.safe_write import write_pieces

if TYPE_CHECKING:  # annotations only: keeps leaderboard.report importable from anywhere
    from leaderboard.pipelines.scores import Analysis

TEMPLATE = "report.html.j2"


def render_html(analysis: Analysis, static_charts: bool = False) -> str:
    """The report as one HTML string (deterministic for a given analysis); with
    ``static_charts`` the top charts also drawn as static SVG (:func:`page_pieces`)."""
    return "".join(page_pieces(analysis, static_charts))


def render_summary(analysis: Analysis, rows: int = 20) -> str:
    """A compact page for notebooks: the headline, the flags and the top ``rows`` of the table,
    with the scores chart as a static drawing (a notebook's sandboxed frame runs no script)."""
    with static_drawings():   # the notebook's frame runs no script: the drawing is the chart
        context = build_context(analysis, static_rows=rows, interactive=False, charts="summary")
    return render_page("notebook.html.j2", context, rows=context["rows"])


def write_html(analysis: Analysis, path, static_charts: bool = False) -> None:
    """Write :func:`render_html` to ``path`` as UTF-8, the same bytes, a piece at a time."""
    write_pieces(path, page_pieces(analysis, static_charts))


def page_pieces(analysis: Analysis, static_charts: bool = False) -> Iterator[str]:
    """The text of :func:`render_html` in pieces: the page rendered around a placeholder for
    the table script's data, then that data a block of rows at a time
    (:func:`~leaderboard.report.tier_table.payload_text`, escaped as ``{{ script_json(data) }}``
    prints: :func:`~leaderboard.report.render.script_json_printed`), then the rest of the page.
    So the page of a large board never holds every row (0.5 GB at 1,000,000 entries) nor its
    whole text. ``static_charts``: the top charts also drawn as static SVG, for readers without
    JavaScript (vl-convert's child process, 0.70 s of CPU a run whose drawings are not kept);
    without it the renderer never starts and the page draws every chart with its script."""
    with static_drawings(static_charts):
        context = build_context(analysis, charts=True)
    head, placeholder, tail = render_page(TEMPLATE, context).partition(_TABLE_DATA)
    if not placeholder or _TABLE_DATA in tail:   # printed once, from the template alone
        raise RuntimeError(f"{TEMPLATE} must print r.table_data exactly once")
    yield head
    meta = context["table_meta"]
    yield from script_json_printed(tier_table.payload_text(analysis, meta["decimals"], meta))
    yield tail


# --- the page's parts ---------------------------------------------------------------------------

# Stands for the table script's data while the page renders (escaped wherever a name could
# print it: ``<`` is ``&lt;`` in HTML and ``\u003c`` in JSON, so only the template prints it).
_TABLE_DATA = markupsafe.Markup("<lb-table-data/>")


def _table_meta(a: Analysis, num: Numbers, conf: str) -> dict:
    """How the table's script prints the rows (see templates/table.js)."""
    return {"decimals": num.decimals, "higher": bool(a.settings.higher_is_better),
            "conf": conf, "palette": len(PALETTE),
            "top_k": list(a.ranking.top_k) if a.ranking is not None else [],
            "csv": f"{a.settings.metric.name}-tiers.csv",
            "pinned": vocabulary(a).pinned, "not_found": vocabulary(a).not_found}


def build_context(a: Analysis, static_rows: int | None = tier_table.STATIC_ROWS,
                  interactive: bool = True, charts: bool | str = False) -> dict:
    """Everything the template prints, already formatted: the first ``static_rows`` rows of the
    table as plain HTML (all with ``None``), with ``interactive`` a placeholder where the table
    script's JSON of every row goes (``table_data``: :func:`page_pieces` writes it there, see
    :mod:`leaderboard.report.tier_table`) and how the script prints it, and with ``charts``
    the page's charts (True: every chart, interactive; "summary": the scores chart alone,
    static)."""
    s, t = a.settings, a.table
    num = Numbers(s.metric, t["score"].to_numpy(dtype=float), a.d95)
    conf = confidence_label(s.alpha)
    pending = None
    if charts:   # first: the renderer draws the static charts while the rest is built
        from leaderboard.report.chart_context import pending_charts

        pending = pending_charts(a, num, conf, summary=charts == "summary")
    top = answer_context(a, num, conf)
    shown = min(len(t), TOP)
    legend, legend_note = scores_legend(t["tier"].to_numpy(dtype=int), shown)
    context = {
        "title": f"Best model or luckiest? {s.metric.label} leaderboard",
        "source": str(a.leaderboard.source), "metric": s.metric.label, "conf": conf,
        **top,
        "flags": [f.message for f in a.flags],
        "has_noise": a.tiers is not None, "mode": a.mode,
        "has_p": a.tiers is not None and bool(np.isfinite(a.table["p_vs_anchor"]).any()),
        "facts": facts(a, conf), "dots": {"shown": shown, "total": len(t),
                                          **moved_marks(t["tier"].to_numpy(dtype=int), shown)},
        "legend": legend, "legend_note": legend_note,
        "more_notes": list(a.notes if a.tiers is not None else a.notes[1:]),
        "rows": tier_table.static_rows(a, num.score, static_rows), "n_entries": len(t),
        "exports": {"json": said("--json"), "csv": said("--csv")},   # the interface's words
        "table_caption": tier_table.caption(a),
        "table_data": _TABLE_DATA if interactive else None,   # see page_pieces
        "table_meta": _table_meta(a, num, conf) if interactive else None,
        "tier_options": tier_table.tier_options(a),
        "has_public": "public_score" in t.columns, "has_private": "private_score" in t.columns,
        "palette": [(f"c{i}", colour) for i, colour in enumerate(PALETTE)],
        "no_tier": NO_TIER, "how": how_to_read(a, conf),
        **sections_context(a, num),
        "seed": s.seed, "w": vocabulary(a),
        "charts": None, "vega": page_scripts(),
    }
    if pending is not None:
        from leaderboard.report.chart_context import finished

        context["charts"] = finished(pending)
        if charts is True:   # the selected team's row comes from the table's data (LB.row)
            context["vega"] = page_scripts(context["charts"])
    from leaderboard import __version__  # here, not at the top: leaderboard/__init__ may import us

    context["version"] = __version__
    return context
