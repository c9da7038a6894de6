"""Published scores (``--published FILE``): the headline each model's maintainers published, to be
checked against the model's own per-item data (issue 26 item 7), read as they are published
(issue 40).

A CSV, a DataFrame from the Python API, or a JSON file: a list of records, or an object holding
lists of records (SWE-bench's ``leaderboards.json``: ``{"leaderboards": [{"name": "Verified",
"results": [{"name", "folder", "resolved", ...}]}]}``). Its records are read as a table, one
column per key holding plain values; a JSON file with several boards uses the board whose names
match the most analysed models (a tie is refused, naming the boards).

**Which columns.** The score column is ``published_col`` (``--published-col``), else one named
``published``, ``published_score``, ``published score`` or ``score`` (any case), else the other
column of a two-column file, else the one column other than the model's whose cells are all
numbers. The model column is ``model_col`` (``--published-model-col``), else the column whose
values name the most analysed models (SWE-bench's ``folder`` rather than its display ``name``),
else ``model`` (any case) or the first column. A score may be written as a percentage
(``52.8%``).

**What is refused.** Only what would make a check wrong: a model of the data given twice with
different scores (a real clash), or one whose score is not a finite number, each one line naming
the file, line and column. Everything else is read as published and accounted for: names absent
from the data (SWE-bench Verified's board holds 162 rows whose display names repeat, ``Warp``
twice, ``devlo`` three times) are counted and listed by the check, a name given twice with one
score is kept once, and a row without a name is skipped with its line.
"""
from __future__ import annotations

import json
import math
import os
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from leaderboard.api_words import said
from leaderboard.errors import InputError
from leaderboard.ingest.in_memory import InMemory
from leaderboard.ingest.json_logs import parse_json
from leaderboard.ingest.safe_read import DEFAULT_MAX_BYTES, Unreadable, read_file
from leaderboard.ingest.toolkit.columns import find_column
from leaderboard.ingest.toolkit.messages import quote, show
from leaderboard.ingest.toolkit.reading import parse_csv

_SCORE_NAMES = ("published", "published_score", "published score", "score")
_MAX_DEPTH = 6   # how deep a JSON file's lists of records are looked for


@dataclass(frozen=True)
class Published:
    """Published scores as read: ``models`` (stripped, each once), ``values`` (a percentage
    already divided by 100; NaN where the score is not a number, for names absent from the
    data only) and ``percent`` (which were written with ``%``), in the file's order; ``lines``
    are their lines in the file (records, for JSON).

    ``model_column`` and ``score_column`` say which columns were read and ``board`` which board
    of a JSON file; ``repeated`` lists the names given more than once, with how often (kept once:
    absent from the data, or given one score); ``skipped`` the lines without a model name."""

    source: str
    models: tuple[str, ...]
    values: np.ndarray
    percent: np.ndarray
    lines: tuple[int, ...]
    resolution: np.ndarray   # half a unit of each value's last written decimal (rounding)
    model_column: str = "model"
    score_column: str = "published"
    board: str | None = None
    repeated: tuple[tuple[str, int], ...] = ()
    skipped: tuple[int, ...] = ()
    rows: int = 0
    how: str = ""            # how the model column was chosen, in words


def read_published(path: str | os.PathLike[str] | InMemory,
                   max_bytes: int = DEFAULT_MAX_BYTES, *, known: Collection[str] = (),
                   model_col: str | None = None, score_col: str | None = None) -> Published:
    """Read a file of (model, published score); ``known`` are the models of the data (the
    analysed ones and those rejected), which decide what is a real clash and which column names
    the models when ``model_col`` is not given.

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "pub.csv"
    >>> _ = p.write_text("model,published\\na,52.8%\\nb,0.41\\nz,1\\nz,2\\n")
    >>> pub = read_published(p, known={"a", "b"})
    >>> pub.models, pub.values.tolist()[:2], pub.repeated     # z is not in the data
    (('a', 'b', 'z'), [0.528, 0.41], (('z', 2),))
    >>> _ = p.write_text("model,published\\na,high\\n")
    >>> read_published(p, known={"a"})  # doctest: +ELLIPSIS, +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    leaderboard.errors.InputError: ...pub.csv:2: column 'published': published score 'high' of model a is not
    a number
    """
    source = path.source if isinstance(path, InMemory) else str(path)
    board, raw = None, None
    if isinstance(path, InMemory):
        raw = parse_csv(path.data, source)
    else:
        try:
            data = read_file(Path(path), max_bytes=max_bytes)
        except Unreadable as err:
            raise InputError(str(err), file=source) from None
        if _looks_like_json(data):
            board, raw = _json_table(parse_json(data, source), source, known)
        else:
            raw = parse_csv(data, source)
    columns = list(raw.columns)
    model, how = _model_column(raw, model_col, known, source)
    score = _score_column(raw, score_col, model, source)
    names = raw[model].str.strip()
    empty = names.eq("").to_numpy()
    skipped = tuple(int(x) for x in raw.index[empty])
    raw, names = raw.loc[~empty], names[~empty]
    if raw.empty:
        raise InputError(f"no published score with a model name (column {quote(model)}); "
                         f"columns in the file: {', '.join(map(quote, columns))}", file=source)
    known = set(known)
    text = raw[score].str.strip()
    percent = text.str.endswith("%").to_numpy()
    values, resolution = np.empty(len(text)), np.empty(len(text))
    for k, (line, name, cell) in enumerate(zip(raw.index, names, text)):
        number = cell[:-1] if percent[k] else cell
        try:
            value = float(number)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) and name in known:   # only the data's models must parse
            raise InputError(f"published score {cell[:24]!r} of model {show(name)} is not a "
                             "number", file=source, row=int(line), column=score)
        values[k] = value / 100 if percent[k] else value
        resolution[k] = _half_unit(number) / (100 if percent[k] else 1)
    first, repeated = _once(names, values, known, raw.index, source, model)
    return Published(source=source, models=tuple(names.iloc[first]), values=values[first],
                     percent=percent[first],
                     lines=tuple(int(x) for x in raw.index[first]),
                     resolution=resolution[first], model_column=str(model),
                     score_column=str(score), board=board, repeated=repeated, skipped=skipped,
                     rows=len(raw) + len(skipped), how=how)


def _once(names: pd.Series, values: np.ndarray, known: set[str], lines: pd.Index, source: str,
          column: str) -> tuple[np.ndarray, tuple[tuple[str, int], ...]]:
    """Each name's first row, and the names given more than once; a model of the data given
    twice with different scores is the one clash refused (which would be checked?)."""
    counts = Counter(names)
    repeated = tuple((name, n) for name, n in counts.items() if n > 1)
    for name, _ in repeated:
        if name not in known:
            continue
        rows = np.flatnonzero(names.to_numpy() == name)
        given = values[rows]
        if not np.all(given == given[0]):
            raise InputError(f"model {show(name)} is given {len(rows)} times with different "
                             f"published scores ({', '.join(f'{v:g}' for v in given[:3])}, "
                             f"lines {', '.join(str(int(lines[r])) for r in rows[:3])}); give "
                             "one score per model", file=source, row=int(lines[rows[1]]),
                             column=column)
    first = np.flatnonzero(~names.duplicated().to_numpy())
    return first, repeated


def _model_column(raw: pd.DataFrame, given: str | None, known: Collection[str],
                  source: str) -> tuple[str, str]:
    """The column naming the models, and how it was chosen (words for the page)."""
    if given is not None:
        return find_column(raw, given, (), "model", "--published-model-col", source), \
            said("given (--published-model-col)")
    known = set(known)
    matches = {c: int(raw[c].str.strip().isin(known).sum()) for c in raw.columns}
    best = max(matches.values(), default=0)
    if best > 0:
        column = next(c for c in raw.columns if matches[c] == best)
        named = find_column(raw, None, ("model",), None, "--published-model-col", source)
        if named is not None and matches[named] == best:
            return named, "named model"
        return column, f"its values name the most models of the data ({best:,})"
    named = find_column(raw, None, ("model",), None, "--published-model-col", source)
    if named is not None:
        return named, "named model"
    if not len(raw.columns):
        raise InputError("no columns", file=source, row=1)
    return str(raw.columns[0]), "the first column"


def _score_column(raw: pd.DataFrame, given: str | None, model: str, source: str) -> str:
    """The published score's column (see the module docstring)."""
    columns = list(raw.columns)
    score: str | None
    if given is not None:
        score = find_column(raw, given, (), "published score", "--published-col", source)
    else:
        score = find_column(raw, None, _SCORE_NAMES, None, "--published-col", source)
    if score is None and len(columns) == 2:
        score = next((c for c in columns if c != model), None)
    if score is None:
        numeric = [c for c in columns if c != model and _all_numbers(raw[c])]
        if len(numeric) == 1:
            score = numeric[0]
        elif numeric:
            raise InputError(f"several columns hold numbers ({', '.join(map(quote, numeric[:5]))}"
                             "): name the published score with --published-col", file=source,
                             row=1)
    if score is None or score == model:
        raise InputError("give two columns: model and published (the published score), or "
                         "name them with --published-model-col and --published-col; columns in "
                         f"the file: {', '.join(map(quote, columns)) or 'none'}", file=source,
                         row=1)
    return score


def _all_numbers(cells: pd.Series) -> bool:
    """Every non-empty cell a finite number (``%`` allowed), and at least one such cell."""
    text = cells.str.strip()
    text = text[text.ne("")].str.rstrip("%")
    if text.empty:
        return False
    numbers = pd.to_numeric(text, errors="coerce")
    return bool(np.isfinite(numbers.to_numpy(dtype=float)).all())


def _looks_like_json(data: bytes) -> bool:
    head = data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    return head in (b"[", b"{")


def _json_table(doc: object, source: str, known: Collection[str]
                ) -> tuple[str | None, pd.DataFrame]:
    """The records of a JSON document as a text table indexed by record number (from 1), and
    the board they came from when the file holds several lists of records: the one whose
    values (in any column) name the most models of the data."""
    boards = _record_lists(doc, "", 0)
    if not boards:
        raise InputError("no list of records (objects) in this JSON file: give the published "
                         "scores as a list of objects or a CSV", file=source)
    tables = [(name, _records_table(records)) for name, records in boards]
    if len(tables) == 1:
        return (None if isinstance(doc, list) else tables[0][0]), tables[0][1]
    known = set(known)

    def hits(table: pd.DataFrame) -> int:   # by any column: the board is what names the data
        return max((int(table[c].str.strip().isin(known).sum()) for c in table.columns),
                   default=0)

    scored = [(hits(table), name, table) for name, table in tables]
    best = max(h for h, _, _ in scored)
    winners = [(name, table) for h, name, table in scored if h == best]
    if best == 0 or len(winners) > 1:
        listed = ", ".join(quote(name) for _, name, _ in scored[:8])
        why = ("none names a model of the data" if best == 0 else
               f"{len(winners)} of them each name {best:,} model{'s' if best > 1 else ''} of "
               "the data")
        raise InputError(f"this JSON file holds {len(scored):,} boards ({listed}) and {why}: "
                         "give the board's records alone (a list of objects or a CSV)",
                         file=source)
    return winners[0]


def _record_lists(doc: object, name: str, depth: int) -> list[tuple[str, list[dict]]]:
    """Every list of objects in ``doc``, each named by its path or its parent's ``name``."""
    if depth > _MAX_DEPTH:
        return []
    if isinstance(doc, list):
        if doc and all(isinstance(x, dict) for x in doc):
            inner = [found for k, x in enumerate(doc)
                     for found in _record_lists(x, _label(x, f"{name}[{k}]"), depth + 1)]
            # a list of boards (each holding records) is not itself the records
            return inner if inner and all(_holds_list(x) for x in doc) else [(name or "records",
                                                                               doc)] + inner
        return []
    if isinstance(doc, dict):
        lists = [key for key, value in doc.items() if isinstance(value, list)]
        return [found for key, value in doc.items()
                for found in _record_lists(value, name if name and lists == [key] else
                                           f"{name}.{key}" if name else str(key), depth + 1)]
    return []


def _holds_list(record: dict) -> bool:
    return any(isinstance(v, list) and v and all(isinstance(x, dict) for x in v)
               for v in record.values())


def _label(record: dict, fallback: str) -> str:
    name = record.get("name")
    return str(name) if isinstance(name, (str, int, float)) and not isinstance(name, bool) \
        else fallback


def _records_table(records: list[dict]) -> pd.DataFrame:
    """Records as text cells, one column per key holding plain values (numbers as written by
    ``repr``, true/false, null as empty); lists and objects are left out."""
    keys: dict[str, None] = {}
    for record in records:
        for key, value in record.items():
            if not isinstance(value, (list, dict)):
                keys.setdefault(str(key), None)
    rows = [[_cell(record.get(key)) for key in keys] for record in records]
    table = pd.DataFrame(rows, columns=list(keys), dtype=object).astype(str)
    table.index = np.arange(1, len(table) + 1)
    return table


def _cell(value: object) -> str:
    if value is None or isinstance(value, (list, dict)):
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value) if isinstance(value, float) else str(value)


def _half_unit(text: str) -> float:
    """Half a unit of the last decimal written: ``'52.8' -> 0.05``, ``'0.41' -> 0.005``,
    ``'60' -> 0.5`` (a number in exponent form: 0, it is taken as exact)."""
    text = text.strip()
    if "e" in text.lower():
        return 0.0
    decimals = len(text.split(".", 1)[1]) if "." in text else 0
    return 0.5 * 10.0 ** -decimals
