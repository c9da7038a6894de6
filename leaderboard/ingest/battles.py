"""Pairwise battles in LMArena's layout: one row per battle, ``model_a``, ``model_b``, ``winner``.

``winner`` is ``model_a``, ``model_b``, ``tie`` or ``tie (bothbad)`` (case and surrounding spaces
ignored; ``both_bad`` too, as arena-rank writes it). Optional columns say who judged, the prompt's
category and the date; they are carried along and counted, not modelled.

Every row is accounted for: kept, or dropped with its reason and first lines (no outcome
recorded; a model against itself). A winner that is none of the values above, or a blank model
name, is an error naming the file, the line and the column: guessing an outcome would change the
ratings silently.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from leaderboard.errors import InputError
from leaderboard.ingest.leaderboards import DroppedRows, _column
from leaderboard.ingest.safe_read import DEFAULT_MAX_BYTES, Unreadable, read_file
from leaderboard.ingest.items import _read as read_table
from leaderboard.ingest.submissions.table import show

OUTCOMES = {"model_a": 0, "model_b": 1, "tie": 2, "tie (bothbad)": 2, "both_bad": 2}
_BOTH_BAD = ("tie (bothbad)", "both_bad")
_SHOW = 3
_LINES_KEPT = 20
_JSON_LINES = (".jsonl", ".ndjson", ".json")
OPTIONAL_ROLES = {"judge": ("judge", "judge_id", "user", "voter"),
                  "category": ("category", "language", "task"),
                  "date": ("date", "tstamp", "timestamp")}


@dataclass(frozen=True)
class Battles:
    """The battles that were read, as codes into ``models``.

    Attributes
    ----------
    source : str
        The file (or ``"DataFrame"``).
    models : tuple of str
        Every model named in a kept battle, sorted.
    a, b : ndarray of int
        The two models of each kept battle (indices into ``models``).
    outcome : ndarray of int
        0: ``a`` won; 1: ``b`` won; 2: a tie (``both_bad`` marks ``tie (bothbad)``).
    both_bad : ndarray of bool
    lines : ndarray of int
        Each kept battle's line in the file (header = 1); for a DataFrame, its position + 2, as
        if written with a header.
    rows_read : int
    dropped : tuple of DroppedRows
        Rows not used, grouped by reason, with their first lines.
    columns : dict
        The file's column for each role (``model_a``, ``model_b``, ``winner``, and ``judge``,
        ``category``, ``date`` when present).
    extra : dict
        The optional columns' values for the kept battles, by role.
    """

    source: str
    models: tuple[str, ...]
    a: np.ndarray
    b: np.ndarray
    outcome: np.ndarray
    both_bad: np.ndarray
    lines: np.ndarray
    rows_read: int
    dropped: tuple[DroppedRows, ...]
    columns: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)

    @property
    def n_battles(self) -> int:
        return int(self.a.size)


def read_battles(data: pd.DataFrame | str | os.PathLike[str], *, model_a_col: str = "model_a",
                 model_b_col: str = "model_b", winner_col: str = "winner",
                 judge_col: str | None = None, category_col: str | None = None,
                 date_col: str | None = None,
                 max_bytes: int = DEFAULT_MAX_BYTES) -> Battles:
    """Read battles from a DataFrame or a CSV (optionally compressed), Parquet or JSON-lines file.

    Parameters
    ----------
    data : DataFrame or path
    model_a_col, model_b_col, winner_col : str
        The columns of the two models and the outcome (matched exactly, else ignoring case).
    judge_col, category_col, date_col : str, optional
        Optional columns; when not given, a column named like one (``judge``, ``category``,
        ``date``, ``tstamp``, ...) is picked up.
    max_bytes : int
        Files larger than this (on disk or decompressed) are refused.

    Raises
    ------
    InputError
        A missing column, an unknown winner value or a blank model name, naming the file, line
        and column; no battle left.

    Examples
    --------
    >>> df = pd.DataFrame({"model_a": ["x", "y", "x", "x"], "model_b": ["y", "x", "x", "y"],
    ...                    "winner": ["model_a", "tie (bothbad)", "tie", ""]})
    >>> battles = read_battles(df)
    >>> battles.models, battles.outcome.tolist(), [(d.reason, d.count) for d in battles.dropped]
    (('x', 'y'), [0, 2], [('a model against itself', 1), ('no winner recorded', 1)])
    """
    if isinstance(data, pd.DataFrame):
        source = "DataFrame"
        raw = data.astype(str).where(data.notna(), "")
        raw.columns = [str(c) for c in raw.columns]
        raw.index = np.arange(2, len(raw) + 2)
    else:
        source = os.fspath(data)
        raw = _read(Path(source), source, max_bytes)
    if raw.empty:
        raise InputError("no battles: the file has a header and no rows", file=source)
    columns = {"model_a": _column(raw, model_a_col, (), "model_a", "model_a_col", source),
               "model_b": _column(raw, model_b_col, (), "model_b", "model_b_col", source),
               "winner": _column(raw, winner_col, (), "winner", "winner_col", source)}
    for role, given in (("judge", judge_col), ("category", category_col), ("date", date_col)):
        found = _column(raw, given, OPTIONAL_ROLES[role], None, f"{role}_col", source)
        if found is not None and found not in columns.values():
            columns[role] = found
    a_name = raw[columns["model_a"]].str.strip()
    b_name = raw[columns["model_b"]].str.strip()
    for role, names in (("model_a", a_name), ("model_b", b_name)):
        blank = (names == "").to_numpy()
        if blank.any():
            raise InputError(f"{int(blank.sum()):,} battle(s) without a model name (first on "
                             f"this line); every battle names both models", file=source,
                             row=int(raw.index[np.argmax(blank)]), column=columns[role])
    winner = raw[columns["winner"]].str.strip().str.lower()
    no_winner = (winner == "").to_numpy()
    code = winner.map(OUTCOMES)
    unknown = code.isna().to_numpy() & ~no_winner
    if unknown.any():
        first = int(np.argmax(unknown))
        values = ", ".join(show(v) for v in pd.unique(winner[unknown])[:_SHOW])
        raise InputError(f"{int(unknown.sum()):,} winner value(s) not understood ({values}); "
                         "expected model_a, model_b, tie or tie (bothbad)", file=source,
                         row=int(raw.index[first]), column=columns["winner"])
    itself = (a_name == b_name).to_numpy() & ~no_winner
    dropped = tuple(DroppedRows(reason=reason, count=int(mask.sum()),
                                lines=tuple(int(x) for x in raw.index[mask][:_LINES_KEPT]))
                    for reason, mask in (("a model against itself", itself),
                                         ("no winner recorded", no_winner)) if mask.any())
    keep = ~(itself | no_winner)
    if not keep.any():
        why = "; ".join(f"{d.count:,} {d.reason}" for d in dropped)
        raise InputError(f"no battle left to rate: {why}",
                         file=source)
    codes, models = pd.factorize(pd.concat([a_name[keep], b_name[keep]]), sort=True)
    n = int(keep.sum())
    return Battles(source=source, models=tuple(str(m) for m in models),
                   a=codes[:n].astype(np.int64), b=codes[n:].astype(np.int64),
                   outcome=code.to_numpy()[keep].astype(np.int64),
                   both_bad=winner.isin(_BOTH_BAD).to_numpy()[keep],
                   lines=raw.index.to_numpy()[keep].astype(np.int64), rows_read=len(raw),
                   dropped=dropped, columns=columns,
                   extra={role: raw[col].to_numpy()[keep] for role, col in columns.items()
                          if role in OPTIONAL_ROLES})


def _read(path: Path, source: str, max_bytes: int) -> pd.DataFrame:
    """Every cell as text, indexed by its line: JSON lines here (each record's own line); CSV
    (the header is line 1) and Parquet (the row + 2, as if written with a header) as the
    per-item reader reads them."""
    name = path.name.lower()
    for compressed in (".gz", ".bz2", ".xz", ".zst", ".zip"):
        name = name.removesuffix(compressed)
    if not name.endswith(_JSON_LINES):
        return read_table(path, source, max_bytes)
    try:
        data = read_file(path, max_bytes=max_bytes)
    except Unreadable as err:
        raise InputError(str(err), file=source) from None
    frame, lines = _json_lines(data, source)
    text = frame.astype(str).where(frame.notna(), "")
    text.columns = [str(c) for c in text.columns]
    text.index = lines
    return text


def _json_lines(data: bytes, source: str) -> tuple[pd.DataFrame, np.ndarray]:
    """One JSON object per line (LMArena's releases), or one JSON array of objects; with each
    record's line (an array's records: their position + 1)."""
    import json

    text = data.decode("utf-8", errors="replace").strip()
    if text.startswith("["):
        try:
            records = json.loads(text)
        except json.JSONDecodeError as err:
            raise InputError(f"not valid JSON ({err.msg})", file=source, row=err.lineno) from None
        lines = list(range(1, len(records) + 1)) if isinstance(records, list) else []
    else:
        records, lines = [], []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            lines.append(number)
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as err:
                raise InputError(f"not a JSON object ({err.msg})", file=source,
                                 row=number) from None
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise InputError("expected one JSON object per battle", file=source)
    return pd.DataFrame.from_records(records), np.asarray(lines, dtype=np.int64)
