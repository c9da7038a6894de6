"""What every chart of every page shares: colours, the look, the shared team selection and the
way numbers and names go into a specification's data.

Charts are Vega-Lite specifications built with Altair (:mod:`altair`); each page module
(:mod:`~leaderboard.report.vega.analyze`, ``ranks``, ``shakeup``, ``curves``, ``simulate``,
``plan``, ``choose``) turns DataFrames into charts, and :mod:`~leaderboard.report.vega.embed`
puts them on the page. Team names only ever enter a chart as data values (never as markup), and
pass :func:`~leaderboard.report.render.neutral_bidi` first, so a chart shows a name exactly as the
page's tables do.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache, wraps
from typing import Any

import altair as alt
from altair.utils.schemapi import debug_mode
import numpy as np
import pandas as pd

from leaderboard.report.numbers import MISSING
from leaderboard.report.render import neutral_bidi
from leaderboard.report.vega.validation import validate_spec

# Okabe & Ito's colour-blind-safe qualitative palette; tiers past the eighth reuse it in order.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#F0E442", "#000000")
NO_TIER = "#6B7280"
INK, MUTED, GRID, BAND, HIGHLIGHT = "#1f2937", "#6b7280", "#e5e7eb", "#c9d3de", "#fde68a"
FONT = ('system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, '
        '"Liberation Sans", "DejaVu Sans", sans-serif')
SELECTED = "selected_team"   # the Vega signal every chart shares with the page's selection
TOP = 50                     # entries a per-entry chart shows (the selected team is added)
WIDTH = 760                  # default plot width in pixels (the page's column is ~1090 px)


def tier_colour(tier: int) -> str:
    """A tier's colour (tiers past the eighth reuse the palette; no tier: grey).

    Examples
    --------
    >>> tier_colour(1), tier_colour(9), tier_colour(0)
    ('#0072B2', '#0072B2', '#6B7280')
    """
    return PALETTE[(int(tier) - 1) % len(PALETTE)] if tier > 0 else NO_TIER


def tier_class(tier: int) -> str:
    """CSS class of a tier's colour chip in the tables (``c0`` ... ``c7``; ``c-none``)."""
    return f"c{(int(tier) - 1) % len(PALETTE)}" if tier > 0 else "c-none"


def label(value: object) -> str:
    """A name as the page shows it: text, bidi and control characters made visible.

    Examples
    --------
    >>> label("team\u202egnp.exe"), label(7)
    ('team[U+202E]gnp.exe', '7')
    """
    return str(neutral_bidi(str(value)))


def share_text(p: float) -> str:
    """A share of replicates as a percentage that never claims 0% or 100% from a finite sample.

    Examples
    --------
    >>> [share_text(p) for p in (0.0, 0.0004, 0.004, 0.1449, 0.955, 1.0)]
    ['<0.1%', '<0.1%', '0.4%', '14%', '95.5%', '>99.9%']
    >>> share_text(float("nan"))   # an entry without a noise model: missing, never "nan%"
    '—'
    """
    if p is None or not math.isfinite(float(p)):
        return MISSING
    x = 100.0 * float(p)
    if x < 0.1:
        return "<0.1%"
    if x > 99.9:
        return ">99.9%"
    return f"{x:.1f}%" if x < 10 or x > 90 else f"{x:.0f}%"


def finite(values: Iterable[float], digits: int | None = None) -> list[float | None]:
    """Floats for JSON: NaN and infinities become ``None`` (Vega skips them), optionally rounded
    to ``digits`` significant digits so the page carries no float noise.

    Examples
    --------
    >>> finite([0.123456789, float("nan"), 2.0], digits=4)
    [0.1235, None, 2.0]
    """
    out: list[float | None] = []
    for v in values:
        v = float(v)
        if not math.isfinite(v):
            out.append(None)
        elif digits is None or v == 0:
            out.append(v)
        else:
            out.append(float(f"{v:.{digits}g}"))
    return out


def number_format(decimals: int) -> str:
    """The d3-format of a score shown with ``decimals`` decimals (tooltips and axes).

    Examples
    --------
    >>> number_format(4)
    '.4f'
    """
    return f".{max(int(decimals), 0)}f"


def records(frame: pd.DataFrame) -> list[dict]:
    """Rows for a specification's ``datasets``: NaN as null, numpy scalars as plain Python.

    Converted a column at a time (numbers by numpy's ``tolist``, which gives the same Python
    values as the row-by-row conversion did, at a fraction of the time); only columns of
    objects are looked at value by value.

    Examples
    --------
    >>> for row in records(pd.DataFrame({"team": ["a", "b"], "score": [0.5, float("nan")],
    ...                                  "rank": np.array([1, 2]), "top": [True, False]})):
    ...     print(row)
    {'team': 'a', 'score': 0.5, 'rank': 1, 'top': True}
    {'team': 'b', 'score': None, 'rank': 2, 'top': False}
    """
    names = list(frame.columns)
    columns = [_plain_column(frame.iloc[:, k]) for k in range(len(names))]
    if not columns:
        return [{} for _ in range(len(frame))]
    return [dict(zip(names, row)) for row in zip(*columns)]


def _plain_column(column: pd.Series) -> list:
    """A column's values as plain Python (see :func:`records`)."""
    if isinstance(column.dtype, np.dtype) and column.dtype.kind in "fiub":
        values = column.to_numpy()
        out = values.tolist()
        if values.dtype.kind == "f":
            for i in np.flatnonzero(~np.isfinite(values)).tolist():
                out[i] = None
        return out
    return [_plain(v) for v in column]


def _plain(value: object) -> object:
    """One value as plain Python: NaN and infinities as None, numpy scalars as Python's."""
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def selection() -> dict:
    """The shared team selection's definition: a variable (not a selection) named
    :data:`SELECTED`, set by the page (``LB.select``) and read by every chart's highlight."""
    return {"name": SELECTED, "value": ""}


def is_selected(field: str = "team") -> str:
    """Vega expression: this datum's team is the selected one."""
    return f"{SELECTED} !== '' && datum.{field} === {SELECTED}"


def dim_others(field: str = "team", low: float = 0.25) -> dict:
    """An opacity encoding: full for everyone until a team is selected, then the others fade."""
    return {"condition": {"test": f"{SELECTED} === '' || datum.{field} === {SELECTED}",
                          "value": 1}, "value": low}


# a log axis labels 1, 2 and 5 times the powers of ten only (the others crowd)
LOG_LABELS = "test(/^[125]0*$/, '' + datum.value) ? datum.label : ''"


def label_limit(wide: int, narrow: int = 120) -> alt.ExprRef:
    """An axis's label width: ``narrow`` pixels in a box narrower than 600 px (a phone), else
    ``wide`` (the static drawing has no box: wide)."""
    return alt.ExprRef(f"containerSize()[0] > 0 && containerSize()[0] < 600 ? {narrow} : {wide}")


def axis_title(text: str, width: int = 40) -> str | list[str]:
    """An axis title in lines of at most ``width`` characters (a list: Vega draws one line
    each): a long one ("|difference| in mean per-item value between two draws") ran past both
    edges of a phone's chart, centred under a 300-pixel axis, and was cut there.

    Examples
    --------
    >>> axis_title("ROC AUC on a simulated test set")
    'ROC AUC on a simulated test set'
    >>> axis_title("|difference| in mean per-item value between two draws")
    ['|difference| in mean per-item value', 'between two draws']
    """
    import textwrap

    lines = textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)
    return text if len(lines) < 2 else lines


def top_or_selected(top: int) -> str:
    """Vega filter: the top ``top`` ranks, plus the selected team wherever it ranks."""
    return f"datum.rank <= {int(top)} || datum.team === {SELECTED}"


def data(name: str) -> alt.Data:
    """A reference to the dataset ``name`` of the chart's :class:`Spec` (data stay out of the
    Altair objects, which copy themselves at every step)."""
    return alt.Data(name=name)


_CONFIG: dict[str, Any] = dict(   # alt.Config's keyword arguments
    font=FONT, background="white", padding=6, view=alt.ViewConfig(stroke=None),
    axis=alt.AxisConfig(labelFontSize=11.5, titleFontSize=12.5, titleFontWeight="normal",
                        labelColor="#4b5563", titleColor=INK, gridColor=GRID,
                        domainColor="#9ca3af", tickColor="#9ca3af",
                        # at least this gap between labels (pixels): Vega's default ~40 px per
                        # tick left five-digit scores touching on dense axes
                        labelSeparation=8),
    legend=alt.LegendConfig(labelFontSize=12, titleFontSize=12, titleFontWeight="normal",
                            orient="top", symbolStrokeWidth=2),
    title=alt.TitleConfig(fontSize=13, fontWeight="normal", anchor="start", color=INK))


@dataclass(frozen=True)
class Spec:
    """A chart's Vega-Lite specification without its data (``skeleton``, built by Altair and
    shared between charts of the same kind: never mutate it) and its ``datasets`` (rows as plain
    dictionaries), which the skeleton refers to by name (:func:`data`)."""

    skeleton: dict
    datasets: dict[str, list[dict]]

    def to_dict(self, validate: bool = False) -> dict:
        """The whole specification; ``validate`` checks it against the Vega-Lite schema (the
        check of Altair's ``to_dict(validate=True)``), data included."""
        spec = {**self.skeleton, "datasets": self.datasets}
        if validate:
            validate_spec(spec)
        return spec


class Chart(alt.Chart):
    """:class:`altair.Chart` whose ``encode`` builds each channel as its own class.

    Given a shorthand string (``"x:Q"``) or a dictionary, Altair finds the channel's class by
    searching the whole Vega-Lite schema (``from_dict``: ~3 ms a channel, two thirds of the time
    a page's charts took to build); the class is known from the channel's name. The
    specification is the same (tested: every chart validates against the schema).
    """

    def encode(self, *args, **channels):
        return super().encode(*args, **{k: _channel(k, v) for k, v in channels.items()})


def _channel(name: str, value):
    """A channel's value as Altair's class for it: a field (string or dictionary), or a value
    (a dictionary with ``value``, as Altair decides); anything else is left to Altair."""
    if isinstance(value, (list, tuple)):
        return [_channel(name, v) for v in value]
    if not isinstance(value, (str, dict)):
        return value
    kind = name[:1].upper() + name[1:] + ("Value" if isinstance(value, dict) and "value" in value
                                          else "")
    cls = getattr(alt, kind, None)
    if cls is None:
        return value
    return cls(value) if isinstance(value, str) else cls(**value)


def skeleton(maxsize: int = 0) -> Callable[[Callable[..., dict]], Callable[..., dict]]:
    """Decorator of every function that builds a chart's skeleton (and ends in :func:`finish`):
    Altair builds its objects with its debug mode off, and with ``maxsize`` the skeletons are
    cached by their parameters (:func:`functools.lru_cache`; never mutate one).

    In its debug mode (on by default) Altair validates every schema object it builds (each
    mark, scale, axis, filter...) against the Vega-Lite schema as it is built: about half the
    time a skeleton took (benchmarks/bench_chart_build.py). The specification is the same; the
    tests validate every whole specification against the schema (``Spec.to_dict(validate=True)``).
    The mode is Altair's global setting, restored on the way out.
    """
    def decorate(build: Callable[..., dict]) -> Callable[..., dict]:
        @wraps(build)
        def quiet(*args, **kwargs) -> dict:
            with debug_mode(False):
                return build(*args, **kwargs)
        return lru_cache(maxsize=maxsize)(quiet) if maxsize else quiet
    return decorate


def finish(chart, name: str, *, fit: bool = True) -> dict:
    """A chart's skeleton: the shared selection added, named (so generated names never depend
    on how many charts were built before), in the house look, as a dictionary. With ``fit`` (a
    single view, layered or not) the live chart takes the width of its box on the page.

    The selection, name and look are set on the dictionary, as Altair's ``add_params``,
    ``properties`` and ``configure`` would (each of those copies the whole chart). Builders cache
    skeletons by their parameters (``functools.lru_cache``): the page only changes their data.
    ``chart`` is an Altair chart, or its dictionary (:func:`~.layering.layered`)."""
    spec = chart if isinstance(chart, dict) else chart.to_dict(validate=False)
    theme = spec.pop("config", {})
    look = _look()
    spec["params"] = [*spec.get("params", []), selection()]
    spec["name"] = name
    spec["config"] = {**theme, **look, "view": {**theme.get("view", {}), **look.get("view", {})}}
    if fit:
        spec["usermeta"] = {**spec.get("usermeta", {}), "lb_fit": True}
    return spec


@lru_cache(maxsize=1)
def _look() -> dict:
    """The house look as Vega-Lite ``config`` (shared by every skeleton: never mutate it)."""
    return alt.Config(**_CONFIG).to_dict(validate=False)


def with_data(skeleton: dict, **datasets: pd.DataFrame | list[dict]) -> Spec:
    """The chart ``skeleton`` with its ``datasets`` (DataFrames become rows)."""
    return Spec(skeleton, {k: records(v) if isinstance(v, pd.DataFrame) else v
                           for k, v in datasets.items()})


def padded(values: Sequence[float], pad: float = 0.04) -> list[float]:
    """A data range widened by ``pad`` of its span at each end (a point gets a small range).

    Examples
    --------
    >>> padded([0.0, 1.0]), padded([2.0, 2.0])
    ([-0.04, 1.04], [1.98, 2.02])
    """
    v = np.asarray([x for x in values if x is not None and np.isfinite(x)], dtype=float)
    lo, hi = (float(v.min()), float(v.max())) if v.size else (0.0, 1.0)
    if not hi > lo:
        half = max(abs(lo) * 0.01, 1e-3)
        return [lo - half, lo + half]
    span = hi - lo
    return [lo - pad * span, hi + pad * span]
