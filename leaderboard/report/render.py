"""The one Jinja2 environment that renders every HTML page (analysis, simulate and plan reports).

Autoescaping is on, so untrusted text (team names, file names, the command line) can only reach
a page escaped; every printed value also passes :func:`neutral_bidi`, so a name holding a
right-to-left override cannot reorder what the page shows and pass itself off as another;
undefined names are errors rather than blanks; whitespace control is fixed, so the same context
always renders to the same bytes. The JSON keeps names exactly as given.
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from functools import lru_cache

import jinja2
import markupsafe

from leaderboard.resources import templates_dir

# Unicode's explicit directional formatting characters: embeddings, overrides, isolates and the
# marks (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C); and the control characters but
# tab and line breaks (an escape sequence would show as an unnamed box).
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c"
                   "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"
                   # invisible characters: two names differing only by one would look the same
                   "\u00ad\u034f\u180e\u200b-\u200d\u2060-\u2064\ufeff]")


def neutral_bidi(value: object) -> object:
    """``value`` with every bidi control, control character and invisible character (zero-width
    space and joiners, word joiner, soft hyphen, byte-order mark) shown as its code point, e.g.
    ``[U+202E]``, so it no longer reorders text and two names differing by it look different;
    anything but a string (numbers) unchanged. It is the environment's ``finalize``: every
    ``{{ ... }}`` of every template goes through it.

    Examples
    --------
    >>> neutral_bidi("team\u202egnp.exe")
    'team[U+202E]gnp.exe'
    >>> neutral_bidi(0.5)
    0.5
    """
    if not isinstance(value, str):
        return value
    if len(value) >= _LARGE:
        return _neutral_large(value)
    # Every character _BIDI matches but U+034F is unprintable (tests/report/test_render.py
    # checks): most text is printable, and this check costs a tenth of the search.
    if value.isprintable() and "\u034f" not in value:
        return value
    return _neutral(value)


# A page's JavaScript bundle (~0.9 MB, the same on every page) took 4.5 ms to search on each
# page; large texts are remembered by value (a string keeps its hash: a second look is cheap).
_LARGE = 200_000


@lru_cache(maxsize=4, typed=True)
def _neutral_large(value: str) -> str:
    return _neutral(value)


def _neutral(value: str) -> str:
    if not _BIDI.search(value):
        return value
    shown = _BIDI.sub(lambda m: f"[U+{ord(m.group()):04X}]", str(value))
    # Markup (already escaped) stays Markup: the replacement holds no markup characters.
    return markupsafe.Markup(shown) if isinstance(value, markupsafe.Markup) else shown


# Characters a JSON string may hold raw that must not reach a page raw: ``<``, ``>`` and ``&`` (so
# no team name can write ``</script>`` or ``<!--`` inside a script element), the line and
# paragraph separators (line breaks to older JavaScript), and every bidi and control character
# (escaped, so the raw code point never reaches the page's bytes; the script shows them as above).
_SCRIPT_UNSAFE = re.compile("[<>&\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c"
                            "\x7f-\x9f]")


def script_json(value: object) -> markupsafe.Markup:
    r"""``value`` as compact JSON safe to place inside ``<script type="application/json">``.

    Every character that could end the element or start a comment is a ``\uXXXX`` escape,
    which ``JSON.parse`` turns back into the same text, so names round-trip exactly.

    Examples
    --------
    >>> str(script_json({"team": "</script><!--\u2028"}))
    '{"team":"\\u003c/script\\u003e\\u003c!--\\u2028"}'
    >>> json.loads(str(script_json(["a&b\u202e"]))) == ["a&b\u202e"]
    True
    """
    return markupsafe.Markup(_script_safe(compact_json(value)))


def compact_json(value: object) -> str:
    """``value`` as the compact JSON :func:`script_json` escapes (not yet safe in a page)."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def _script_safe(text: str) -> str:
    return _SCRIPT_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def script_json_printed(pieces: Iterable[str]) -> Iterator[str]:
    r"""The pieces of a :func:`compact_json` text as ``{{ script_json(value) }}`` prints them in a
    page: escaped as :func:`script_json` escapes, then as the environment's :func:`neutral_bidi`
    shows what is left (the invisible characters JSON keeps raw). Both replace characters one by
    one, so the pieces print as their whole text would: a page can write a payload too large to
    hold (every entry of a 1,000,000-entry board) a block at a time, the same bytes.

    Examples
    --------
    >>> pieces = ['["<', '\u200b"]']
    >>> "".join(script_json_printed(pieces)) == str(neutral_bidi(script_json(["<\u200b"])))
    True
    """
    for piece in pieces:
        yield str(_neutral(_script_safe(piece)))


@lru_cache(maxsize=4)
def _environment(folder: str) -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(folder), autoescape=True,
                              undefined=jinja2.StrictUndefined, trim_blocks=True,
                              lstrip_blocks=True, keep_trailing_newline=True,
                              finalize=neutral_bidi)


def environment() -> jinja2.Environment:
    """The environment over the shipped templates (built once per templates folder).

    Examples
    --------
    >>> environment().from_string("{{ r.name }}").render(r={"name": "<b>&"})
    '&lt;b&gt;&amp;'
    """
    return _environment(str(templates_dir()))


def render_page(template: str, context: dict, **extra) -> str:
    """The shipped ``template`` rendered with the page's context as ``r`` (and ``extra``)."""
    return environment().get_template(template).render(r=context, **extra)
