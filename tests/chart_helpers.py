"""Reading the charts back out of a page: each chart's Vega-Lite specification (the JSON in its
``<script type="application/json" class="lb-spec">``), its static SVG, and checks on them."""
from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

from leaderboard.report.vega.validation import validate_spec

SVG_NS = "{http://www.w3.org/2000/svg}"
_CHART = re.compile(r'<div class="lb-chart[^"]*" id="([^"]+)">(.*?)\n</div>', re.S)
_SPEC = re.compile(r'<script type="application/json" class="lb-spec">(.*?)</script>', re.S)
_STATIC = re.compile(r'<div class="lb-static"[^>]*>(.*?)</div>', re.S)


def page_charts(html: str) -> dict[str, dict]:
    """Every chart of the page by its container id: ``{"spec": dict, "svg": str or None}``."""
    out = {}
    for chart_id, body in _CHART.findall(html):
        spec = _SPEC.search(body)
        static = _STATIC.search(body)
        out[chart_id] = {"spec": json.loads(spec.group(1)) if spec else None,
                         "svg": static.group(1) if static else None}
    return out


# A chart's static drawing (``--static-charts``) and, without it, the note in its place
# (templates/chart.html.j2): the one difference the option makes to a page.
_DRAWN = re.compile(r'<div class="lb-static" role="img" aria-label="([^"]*)">.*?</div>', re.S)
_NOTE = (r'<noscript><p class="muted">\1: this chart is drawn by JavaScript, which is off; the '
         r"page's tables and the JSON hold its numbers.</p></noscript>")
_HAS_STATIC = re.compile(r'(<div class="lb-chart[^"]*?) has-static(" id=")')


def without_static(html: str) -> str:
    """``html`` (a page with static drawings) as it is without them: each drawing replaced by
    the note for readers without JavaScript, and the charts' ``has-static`` class gone.

    Examples
    --------
    >>> print(without_static('<div class="lb-chart has-static" id="c"><div class="lb-static" '
    ...                      'role="img" aria-label="A &amp; B"><svg></svg></div>'))
    ... # doctest: +NORMALIZE_WHITESPACE
    <div class="lb-chart" id="c"><noscript><p class="muted">A &amp; B: this chart is drawn by
    JavaScript, which is off; the page's tables and the JSON hold its numbers.</p></noscript>
    """
    return _HAS_STATIC.sub(r"\1\2", _DRAWN.sub(_NOTE, html))


def specs(html: str) -> dict[str, dict]:
    """Every chart's specification by container id."""
    return {k: v["spec"] for k, v in page_charts(html).items()}


def validate(spec: dict) -> None:
    """Raise unless ``spec`` is a valid Vega-Lite specification (Altair's check, with a validator
    built once: :func:`leaderboard.report.vega.validation.validate_spec`)."""
    validate_spec(spec)


def units(spec: dict) -> list[dict]:
    """The unit views (those with a mark) of a specification, layers and concatenations opened."""
    if "mark" in spec:
        return [spec]
    out = []
    for key in ("layer", "hconcat", "vconcat", "concat"):
        for part in spec.get(key, []):
            out += units(part)
    if "spec" in spec:
        out += units(spec["spec"])
    return out


def mark_type(unit: dict) -> str:
    m = unit["mark"]
    return m if isinstance(m, str) else m["type"]


def static_root(svg: str) -> ET.Element:
    """The static drawing parsed: one well-formed SVG element."""
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG_NS}svg"
    return root


def svg_text(svg: str) -> str:
    """All the text the static drawing shows."""
    return "".join(static_root(svg).itertext())


def assert_offline(html: str) -> None:
    """The page loads nothing: no src or href to a network address, no <link>, no @import; its
    only scripts are inline: the table's script and data, the Vega libraries and the charts'
    code (modules) and specifications (JSON); no data closes a script element early."""
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", html, re.I)
    assert "<link" not in html and "@import" not in html
    tags = re.findall(r"<script([^>]*)>", html)
    assert set(tags) <= {"", ' type="module"', ' type="application/json" class="lb-spec"',
                         ' type="application/json" id="lb-data"'}
    assert html.lower().count("</script") == len(tags)


def without_scripts(html: str) -> str:
    """The page's markup with every script element's body removed, and the SVG drawings'
    namespace declarations (names, not addresses anything is loaded from)."""
    html = re.sub(r"(<script[^>]*>).*?</script>", r"\1</script>", html, flags=re.S)
    return re.sub(r'\sxmlns(:\w+)?="[^"]*"', "", html)
