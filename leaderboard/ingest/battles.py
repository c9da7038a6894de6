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
from leaderboard.ingest.json_logs import parse_json, parse_json_lines
from leaderboard.ingest.records import DroppedRows
from leaderboard.ingest.safe_read import DEFAULT_MAX_BYTES, Unreadable, read_file
from leaderboard.ingest.text_rules import look_alike_groups
from leaderboard.ingest.toolkit.columns import find_column
from leaderboard.ingest.toolkit.messages import grouping_words, show
from leaderboard.ingest.toolkit.reading import read_table_file, text_cells

OUTCOMES = {"model_a": 0, "model_b": 1, "tie": 2, "tie (bothbad)": 2, "both_bad": 2}
_BOTH_BAD = ("tie (bothbad)", "both_bad")
_SHOW = 3
_LINES_KEPT = 20
_JSON_LINES = (".jsonl", ".ndjson", ".json")
OPTIONAL_ROLES = {"judge": ("judge", "judge_id", "user", "voter"),
                  "category": ("category", "language", "task"),
                  "date": ("date", "tstamp", "timestamp"),
                  "id": ("battle_id", "conv_id", "conversation_id", "id")}
# a date column identifies a battle only when it has the resolution of a clock (several distinct
# values per battle day); a column of days repeats by design
MIN_GROUPS = 10
_MIN_COPY = 20     # rows of a file given twice: a shorter block repeating is a pattern, not a copy


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
    cluster : ndarray of int, optional
        With ``cluster_col``: each kept battle's cluster, codes 0..C-1 (battles of one cluster
        are resampled together).
    repeats : tuple of DroppedRows
        Battles given twice (the same battle id, or the same timestamp, models and winner; or the
        whole file repeated), counted once: the repeats are also in ``dropped``.
    grouping : tuple of (str, int)
        Columns that group the battles like clusters (a prompt, a voter) without being declared
        with ``cluster_col``, and their number of groups.
    look_alike : tuple of tuple of str
        Model names that differ only in case or spaces (rated as different models).
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
    cluster: np.ndarray | None = None
    repeats: tuple = ()
    grouping: tuple = ()
    look_alike: tuple = ()

    @property
    def n_battles(self) -> int:
        return int(self.a.size)


def read_battles(data: pd.DataFrame | str | os.PathLike[str], *, model_a_col: str = "model_a",
                 model_b_col: str = "model_b", winner_col: str = "winner",
                 judge_col: str | None = None, category_col: str | None = None,
                 date_col: str | None = None, cluster_col: str | None = None,
                 max_bytes: int = DEFAULT_MAX_BYTES) -> Battles:
    """Read battles from a DataFrame or a CSV (optionally compressed), Parquet or JSON-lines file.

    Parameters
    ----------
    data : DataFrame or path
    model_a_col, model_b_col, winner_col : str
        The columns of the two models and the outcome (matched exactly, else ignoring case).
    judge_col, category_col, date_col : str, optional
        Optional columns; when not given, a column named like one (``judge``, ``category``,
        ``date``, ``tstamp``, ...) is picked up. A battle id column (``battle_id``, ``conv_id``,
        ``id``) is picked up by name: an id given twice is one battle, counted once.
    cluster_col : str, optional
        Battles of one value (a prompt, a question, a voter) are resampled together.
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
        _no_twin_columns(data, source)
        raw = text_cells(data)
        raw.index = np.arange(2, len(raw) + 2)
    else:
        source = os.fspath(data)
        raw = _read(Path(source), source, max_bytes)
    if raw.empty:
        raise InputError("no battles: the file has a header and no rows", file=source)
    columns = {"model_a": find_column(raw, model_a_col, (), "model_a", "--model-a-col", source),
               "model_b": find_column(raw, model_b_col, (), "model_b", "--model-b-col", source),
               "winner": find_column(raw, winner_col, (), "winner", "--winner-col", source)}
    _no_twin_columns(raw, source)
    for role, given in (("judge", judge_col), ("category", category_col), ("date", date_col),
                        ("id", None)):
        found = find_column(raw, given, OPTIONAL_ROLES[role], None,
                            f"--{role}-col" if role != "id" else "id_col", source)
        if found is not None and found not in columns.values():
            columns[role] = found
    if cluster_col is not None:
        columns["cluster"] = find_column(raw, cluster_col, (), "cluster", "--cluster-col", source)
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
    if "id" in columns and not _battle_id(raw[columns["id"]], a_name, b_name):
        del columns["id"]       # it names something else (a prompt): the grouping check may
    repeated = _repeats(raw, columns, a_name, b_name, winner) & ~(itself | no_winner)
    if repeated.any():
        dropped += (DroppedRows(reason="given twice (counted once)", count=int(repeated.sum()),
                                lines=tuple(int(x) for x in raw.index[repeated][:_LINES_KEPT])),)
    keep = ~(itself | no_winner | repeated)
    if not keep.any():
        why = "; ".join(f"{d.count:,} {d.reason}" for d in dropped)
        raise InputError(f"no battle left to rate: {why}",
                         file=source)
    codes, models = pd.factorize(pd.concat([a_name[keep], b_name[keep]]), sort=True)
    n = int(keep.sum())
    cluster = None
    if "cluster" in columns:
        labels = raw[columns["cluster"]].str.strip()
        blank = (labels == "").to_numpy() & keep
        if blank.any():
            raise InputError(f"{int(blank.sum()):,} battle(s) without a cluster (first on this "
                             "line); with a cluster column every battle names its cluster",
                             file=source, row=int(raw.index[np.argmax(blank)]),
                             column=columns["cluster"])
        cluster = pd.factorize(labels[keep])[0].astype(np.int64)
    roles = {columns[r] for r in ("model_a", "model_b", "winner", "category", "id", "cluster")
             if r in columns}
    if "date" in columns:
        roles.add(columns["date"])
    return Battles(source=source, models=tuple(str(m) for m in models),
                   a=codes[:n].astype(np.int64), b=codes[n:].astype(np.int64),
                   outcome=code.to_numpy()[keep].astype(np.int64),
                   both_bad=winner.isin(_BOTH_BAD).to_numpy()[keep],
                   lines=raw.index.to_numpy()[keep].astype(np.int64), rows_read=len(raw),
                   dropped=dropped, columns=columns,
                   extra={role: raw[col].to_numpy()[keep] for role, col in columns.items()
                          if role in OPTIONAL_ROLES},
                   cluster=cluster,
                   repeats=tuple(d for d in dropped if d.reason.startswith("given twice")),
                   grouping=() if cluster is not None else grouping_columns(raw[keep], roles),
                   look_alike=look_alike(models))


def _no_twin_columns(raw: pd.DataFrame, source: str) -> None:
    """Two columns of one name: which holds the battles would be a guess."""
    seen: set[str] = set()
    twins = []
    for name in map(str, raw.columns):   # compared as Python text: pandas refuses some
        if name in seen:
            twins.append(name)
        seen.add(name)
    if twins:
        raise InputError(f"two columns are named {show(twins[0])}; which one holds the battles "
                         "would be a guess: rename one", file=source, row=1)


def _battle_id(key: pd.Series, a_name: pd.Series, b_name: pd.Series) -> bool:
    """Whether a column named like an id identifies battles: every id that comes back comes
    back with the same two models (an id that returns with other models names a prompt or a
    conversation, not a battle)."""
    key = key.str.strip()
    same = pd.DataFrame({"k": key, "a": a_name, "b": b_name})
    return int(same.duplicated(["k", "a", "b"]).sum()) == int(key.duplicated().sum())


def _repeats(raw: pd.DataFrame, columns: dict, a_name: pd.Series, b_name: pd.Series,
             winner: pd.Series) -> np.ndarray:
    """Rows that repeat a battle already read: the same battle id; or, without one, the same
    timestamp (a clock's, not a day's), models and winner; or, without either, the whole file
    given twice or more in a row (every column equal, block after block). Rows that merely look
    alike (one prompt judged twice, as Arena-Hard's files hold) are battles, kept."""
    n = len(raw)
    if "id" in columns:
        key = raw[columns["id"]].str.strip()
        return (key.duplicated() & key.ne("")).to_numpy()
    if "date" in columns:
        stamp = raw[columns["date"]].str.strip()
        if stamp.nunique() > 0.5 * n:           # a clock: repeats are the same battle
            frame = pd.DataFrame({"t": stamp, "a": a_name, "b": b_name, "w": winner})
            return (frame.duplicated() & stamp.ne("")).to_numpy()
    for copies in range(2, 11):                 # the whole file repeated, copies times
        size = n // copies
        if n % copies or size < _MIN_COPY or not raw.iloc[0].equals(raw.iloc[size]):
            continue
        first = raw.iloc[:size].to_numpy()
        if all(np.array_equal(first, raw.iloc[k * size:(k + 1) * size].to_numpy())
               for k in range(1, copies)):
            out = np.zeros(n, bool)
            out[size:] = True
            return out
    return np.zeros(n, bool)


def grouping_columns(raw: pd.DataFrame, exclude: set[str]) -> tuple[tuple[str, int], ...]:
    """Columns that group the battles like clusters without being declared: from
    :data:`MIN_GROUPS` to ``battles / 2`` distinct values (two battles a group on average; a
    column of nearly unique labels, such as a text or an id, groups nothing; a column of a few
    values, such as a flag or a language, is a stratum, not a cluster). Battles on one prompt, or by one
    voter,
    are often related; resampling them one by one then understates the noise (on Arena-Hard's
    judge battles, question-clustered intervals are wider: docs/battles.md).

    Examples
    --------
    >>> raw = pd.DataFrame({"model_a": ["x", "y"] * 20, "model_b": ["y", "x"] * 20,
    ...                     "winner": ["model_a"] * 40, "question_id": [str(k // 2) for k in
    ...                                                                range(40)],
    ...                     "note": [str(k) for k in range(40)], "flag": ["a", "b"] * 20})
    >>> grouping_columns(raw, {"model_a", "model_b", "winner"})
    (('question_id', 20),)
    """
    found = []
    for column in raw.columns:
        if column in exclude:
            continue
        labels = raw[column].str.strip()
        if labels.eq("").any():
            continue
        groups = int(labels.nunique())
        if MIN_GROUPS <= groups <= len(raw) // 2:
            found.append((str(column), groups))
    return tuple(found)


def look_alike(models) -> tuple[tuple[str, ...], ...]:
    """Names that differ only in case, spaces, invisible characters or character forms (``GPT-4``
    and ``gpt 4``; :func:`~leaderboard.ingest.text_rules.look_alike_key`), which are rated as
    different models: probably one model written two ways.

    Examples
    --------
    >>> look_alike(["GPT-4", "gpt-4", "claude", "gpt  -4"])
    (('GPT-4', 'gpt  -4', 'gpt-4'),)
    >>> print(ascii(look_alike(["caf\u00e9", "cafe\u0301"])))   # composed and decomposed
    (('cafe\u0301', 'caf\xe9'),)
    """
    return tuple(tuple(sorted(g)) for g in look_alike_groups(models))


def grouping_sentence(column: str, groups: int) -> str:
    """The warning for one undeclared grouping column of battles (the page, the JSON's notes,
    stderr).

    Examples
    --------
    >>> grouping_sentence("question_id", 120)[:57]
    "column 'question_id' groups the battles into 120 groups; "
    """
    return grouping_words(column, groups, "battles", " (one prompt, one voter)")


def _read(path: Path, source: str, max_bytes: int) -> pd.DataFrame:
    """Every cell as text, indexed by its line: JSON lines here (each record's own line); CSV
    (the header is line 1) and Parquet (the row + 2, as if written with a header) by the table
    toolkit (:func:`~leaderboard.ingest.toolkit.reading.read_table_file`)."""
    name = path.name.lower()
    for compressed in (".gz", ".bz2", ".xz", ".zst", ".zip"):
        name = name.removesuffix(compressed)
    if not name.endswith(_JSON_LINES):
        return read_table_file(path, source, max_bytes)
    try:
        data = read_file(path, max_bytes=max_bytes)
    except Unreadable as err:
        raise InputError(str(err), file=source) from None
    frame, lines = _json_lines(data, source)
    text = text_cells(frame)
    text.index = lines
    return text


def _json_lines(data: bytes, source: str) -> tuple[pd.DataFrame, np.ndarray]:
    """One JSON object per line (LMArena's releases), or one JSON array of objects; with each
    record's line (an array's records: their position + 1). Decoding, nesting, huge integers,
    raw U+2028 inside strings and the memory check follow the JSON readers' one set of rules
    (:mod:`leaderboard.ingest.json_logs`)."""
    if data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"["):
        records = parse_json(data, source)
        lines = list(range(1, len(records) + 1)) if isinstance(records, list) else []
    else:
        parsed = list(parse_json_lines(data, source))
        lines = [line for line, _ in parsed]
        records = [record for _, record in parsed]
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise InputError("expected one JSON object per battle", file=source)
    return pd.DataFrame.from_records(records), np.asarray(lines, dtype=np.int64)
