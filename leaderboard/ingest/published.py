"""Published scores (``--published FILE``): the headline each model's maintainers published, to be
checked against the model's own per-item data (issue 26 item 7).

A CSV (or a DataFrame from the Python API) of two columns: the model and its published score. The
model column is ``model`` (any case) or else the first column; the score column is ``published``,
``published_score`` or ``score`` (any case), or else the other column of a two-column file. A score
may be written as a percentage (``52.8%``). Every problem is one line naming the file, line and
column: a missing column, an empty name, a name given twice, a score that is not a finite number.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from leaderboard.errors import InputError
from leaderboard.ingest.in_memory import InMemory
from leaderboard.ingest.leaderboards import _column, parse_csv
from leaderboard.ingest.safe_read import DEFAULT_MAX_BYTES, Unreadable, read_file
from leaderboard.ingest.submissions.table import show

_SCORE_NAMES = ("published", "published_score", "published score", "score")


@dataclass(frozen=True)
class Published:
    """Published scores as read: ``models`` (stripped), ``values`` (a percentage already divided
    by 100) and ``percent`` (which were written with ``%``), in the file's order; ``lines`` are
    their lines in the file."""

    source: str
    models: tuple[str, ...]
    values: np.ndarray
    percent: np.ndarray
    lines: tuple[int, ...]
    resolution: np.ndarray   # half a unit of each value's last written decimal (rounding)


def read_published(path: str | os.PathLike[str] | InMemory,
                   max_bytes: int = DEFAULT_MAX_BYTES) -> Published:
    """Read a file of (model, published score).

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "pub.csv"
    >>> _ = p.write_text("model,published\\na,52.8%\\nb,0.41\\n")
    >>> pub = read_published(p)
    >>> pub.models, pub.values.tolist(), pub.percent.tolist()
    (('a', 'b'), [0.528, 0.41], [True, False])
    >>> _ = p.write_text("model,published\\na,high\\n")
    >>> read_published(p)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    leaderboard.errors.InputError: ...pub.csv:2: column 'published': published score 'high' is not a number
    """
    source = path.source if isinstance(path, InMemory) else str(path)
    if isinstance(path, InMemory):
        raw = parse_csv(path.data, source)
    else:
        try:
            raw = parse_csv(read_file(Path(path), max_bytes=max_bytes), source)
        except Unreadable as err:
            raise InputError(str(err), file=source) from None
    columns = list(raw.columns)
    model = _column(raw, None, ("model",), None, "the model column", source) or (
        columns[0] if columns else None)
    score = _column(raw, None, _SCORE_NAMES, None, "the published score column", source)
    if score is None and len(columns) == 2:
        score = next(c for c in columns if c != model)
    if model is None or score is None or model == score:
        raise InputError("give two columns: model and published (the published score); "
                         f"columns in the file: {', '.join(map(show, columns)) or 'none'}",
                         file=source, row=1)
    names = raw[model].str.strip()
    for line, name in zip(raw.index, names):
        if not name:
            raise InputError("a published score without a model name", file=source,
                             row=int(line), column=model)
    twice = names.duplicated()
    if twice.any():
        line = int(raw.index[int(np.argmax(twice.to_numpy()))])
        raise InputError(f"model {show(names[twice].iloc[0])} is given twice; give one published "
                         "score per model", file=source, row=line, column=model)
    text = raw[score].str.strip()
    percent = text.str.endswith("%").to_numpy()
    values, resolution = np.empty(len(text)), np.empty(len(text))
    for k, (line, cell) in enumerate(zip(raw.index, text)):
        try:
            value = float(cell[:-1] if percent[k] else cell)
        except ValueError:
            value = float("nan")
        if not np.isfinite(value):
            raise InputError(f"published score {cell[:24]!r} is not a number",
                             file=source, row=int(line), column=score)
        values[k] = value / 100 if percent[k] else value
        resolution[k] = _half_unit(cell[:-1] if percent[k] else cell) / (100 if percent[k] else 1)
    return Published(source=source, models=tuple(names), values=values, percent=percent,
                     lines=tuple(int(x) for x in raw.index), resolution=resolution)


def _half_unit(text: str) -> float:
    """Half a unit of the last decimal written: ``'52.8' -> 0.05``, ``'0.41' -> 0.005``,
    ``'60' -> 0.5`` (a number in exponent form: 0, it is taken as exact)."""
    text = text.strip()
    if "e" in text.lower():
        return 0.0
    decimals = len(text.split(".", 1)[1]) if "." in text else 0
    return 0.5 * 10.0 ** -decimals
