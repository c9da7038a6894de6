"""The one Jinja2 environment that renders every HTML page (analysis, simulate and plan reports).

Autoescaping is on, so untrusted text (team names, file names, the command line) can only reach
a page escaped; undefined names are errors rather than blanks; whitespace control is fixed, so the
same context always renders to the same bytes.
"""
from __future__ import annotations

from functools import lru_cache

import jinja2

from leaderboard.resources import templates_dir


@lru_cache(maxsize=4)
def _environment(folder: str) -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(folder), autoescape=True,
                              undefined=jinja2.StrictUndefined, trim_blocks=True,
                              lstrip_blocks=True, keep_trailing_newline=True)


def environment() -> jinja2.Environment:
    """The environment over the shipped templates (built once per templates folder).

    Examples
    --------
    >>> environment().from_string("{{ r.name }}").render(r={"name": "<b>&"})
    '&lt;b&gt;&amp;'
    """
    return _environment(str(templates_dir()))


def render_page(template: str, context: dict) -> str:
    """The shipped ``template`` rendered with the page's context as ``r``."""
    return environment().get_template(template).render(r=context)
