"""Read a competition's solution file (the true answers) into a
:class:`~leaderboard.ingest.records.Solution`.

Kaggle's conventions: an id column, one or more target columns and a ``Usage`` column saying which
rows rank the public leaderboard and which the private one. Every problem is an
:class:`~leaderboard.errors.InputError` naming the file, the line and the column.

Ids are matched between the solution and the submissions as text, surrounding spaces removed
(:func:`id_keys`). When every solution id is an integer, ids are matched as integers instead, so
``7``, ``007``, ``+7`` and ``7.0`` are the same id; with text ids (``A007``) the text must match
exactly, leading zeros and case included.
"""
from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from leaderboard.errors import InputError, processing
from leaderboard.ingest.in_memory import InMemory
from leaderboard.ingest.records import Solution
from leaderboard.ingest.safe_read import DEFAULT_MAX_BYTES, Unreadable, read_file
from leaderboard.ingest.toolkit.columns import find_column, lines_of, listed_columns
from leaderboard.ingest.toolkit.reading import parse_csv
from leaderboard.metrics.base import KINDS

USAGE = {"public": "public", "publictest": "public", "private": "private",
         "privatetest": "private", "ignored": "ignored"}
USAGE_SPELLINGS = "Public, Private, Ignored, PublicTest, PrivateTest"
_NON_FINITE = {"nan", "+nan", "-nan", "inf", "+inf", "-inf", "infinity", "+infinity", "-infinity"}
_INTEGER = r"[+-]?\d+"


def read_solution(path: str | os.PathLike[str] | InMemory, *, id_col: str | None = None,
                  target_cols: str | Sequence[str] | None = None, usage_col: str | None = None,
                  group_col: str | None = None, kind: str | None = None,
                  max_bytes: int = DEFAULT_MAX_BYTES) -> Solution:
    """Read a solution CSV (UTF-8, optionally ``.gz``/``.zip``).

    Parameters
    ----------
    path : str, PathLike or InMemory
        The solution file, or a table in memory (:class:`~leaderboard.ingest.in_memory.InMemory`).
    id_col : str, optional
        Id column; default the column named ``id`` (any case), else the first column.
    target_cols : str or sequence of str, optional
        Target column(s); default every column except the id, Usage and group columns.
    usage_col : str, optional
        Usage column; default the column named ``Usage`` (any case). Its values are
        Public/PublicTest, Private/PrivateTest or Ignored, in any case. Without one every row is
        private.
    group_col : str, optional
        Column of group ids (rows of one group are resampled together). Never guessed.
    kind : str, optional
        The metric's prediction kind (:data:`~leaderboard.metrics.base.KINDS`), when known:
        ``"values"`` reads targets as numbers and never as classes, ``"rankings"`` keeps them as
        text (``"3"`` is a one-item list), ``"multilabel"`` keeps 0/1 columns as columns.
    max_bytes : int
        Size cap of the file, on disk and decompressed (``--max-file-size``).

    Returns
    -------
    Solution

    Raises
    ------
    InputError
        Unreadable file, a column not found, a blank id or target, a duplicate id, an unknown Usage
        value; the message names the file, line and column.

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "solution.csv"
    >>> _ = path.write_text("id,Insult,Usage\\n1,0,PublicTest\\n2,1,PrivateTest\\n3,1,Private\\n")
    >>> sol = read_solution(path)
    >>> sol.target, sol.classes, sol.usage.tolist(), sol.counts
    (array([0, 1, 1]), array([0, 1]), ['public', 'private', 'private'], \
{'public': 1, 'private': 2, 'ignored': 0})
    """
    if kind is not None and kind not in KINDS:
        raise InputError(f"unknown prediction kind {kind!r}; expected one of {', '.join(KINDS)}")
    source: str   # a FrameSource (a str) for a DataFrame
    if isinstance(path, InMemory):   # the Python API's DataFrame
        source, data = path.source, path.data
    else:
        source = str(path)
        if Path(path).is_dir():
            raise InputError("is a directory, not a CSV file", file=source)
        try:
            data = read_file(path, max_bytes=max_bytes)
        except Unreadable as err:
            raise InputError(str(err), file=source) from None
    with processing(source):
        raw = parse_csv(data, source)
    id_name = find_column(raw, id_col, (), "id", "id_col", source) if id_col is not None else (
        find_column(raw, None, ("id",), None, "id_col", source) or raw.columns[0])
    usage_name = find_column(raw, usage_col, ("usage",), None, "usage_col", source)
    group_name = (find_column(raw, group_col, (), "group", "group_col", source) if group_col
                  else None)
    used = {id_name, usage_name, group_name}
    if target_cols is None:
        targets = [c for c in raw.columns if c not in used]
    else:
        names = [target_cols] if isinstance(target_cols, str) else list(target_cols)
        targets = [find_column(raw, c, (), "target", "target_cols", source) for c in names]
    if not targets:
        raise InputError(f"no target column: the file has only {listed_columns(raw)}; the "
                         "solution needs an id column and at least one target column",
                         file=source)
    clash = used.intersection(targets)
    if clash:
        raise InputError(f"column {clash.pop()!r} cannot be both a target and the id, Usage or "
                         "group column", file=source)

    ids = raw[id_name].str.strip()
    _no_blanks(ids, source, id_name, "id", "every row needs an id")
    integer_ids = bool(ids.str.fullmatch(_INTEGER).all())
    keys = id_keys(ids, integer_ids)
    _no_duplicates(keys, ids, source, id_name, integer_ids)
    usage = _usage(raw, usage_name, source)
    groups = None
    if group_name is not None:
        group_text = raw[group_name].str.strip()
        _no_blanks(group_text, source, group_name, "group", "every row needs a group id")
        groups = group_text.to_numpy(dtype=object)
    target, classes, one_hot = _targets(raw, targets, kind, source)
    counts = {u: int((usage == u).sum()) for u in ("public", "private", "ignored")}
    id_array = ids.to_numpy(dtype=object)   # one array of text for ids and keys when they agree
    return Solution(source=source, id_column=id_name, target_columns=tuple(targets),
                    ids=id_array, target=target, classes=classes,
                    one_hot=one_hot, usage=usage, usage_column=usage_name, groups=groups,
                    integer_ids=integer_ids, rows_read=len(raw), counts=counts,
                    keys=id_array if keys is ids else keys.to_numpy(dtype=object),
                    digest=hashlib.sha256(data).digest())


def id_keys(ids: pd.Series, integer_ids: bool) -> pd.Series:
    """The text ids are matched on: ``ids`` themselves, or integer ids in canonical form.

    With ``integer_ids``, ``"007"``, ``"+7"`` and ``"7.0"`` all become ``"7"``; ids that are not
    integers are left as they are (they match nothing in an integer solution).

    Examples
    --------
    >>> id_keys(pd.Series(["007", "+7", "7.00", "-0", "A7", "12"]), True).tolist()
    ['7', '7', '7', '0', 'A7', '12']
    """
    if not integer_ids:
        return ids
    # Most ids are canonical already; the (slow) regex extraction only runs on the others. The
    # test runs on the text column as read (pyarrow's compiled regex when pandas has it: ten
    # million ids in a second, 13 s once made Python objects).
    odd = ~ids.str.fullmatch(r"0|-?[1-9]\d*").astype(bool).to_numpy()
    if not odd.any():
        return ids
    ids = ids.astype(object)
    parts = ids[odd].str.extract(r"^([+-]?)0*(\d+?)(?:\.0*)?$")
    canonical = parts[0].where(parts[0] == "-", "") + parts[1]
    canonical = canonical.where(canonical != "-0", "0")
    keys = ids.copy()
    keys[odd] = canonical.where(parts[1].notna(), ids[odd]).astype(object)
    return keys


def _no_blanks(text: pd.Series, source: str, column: str, what: str, why: str) -> None:
    blank = text == ""
    n, where = lines_of(blank)
    if n:
        raise InputError(f"{n} blank {what}{'s' if n > 1 else ''} ({where}); {why}", file=source,
                         row=int(blank.idxmax()), column=column)


def _no_duplicates(keys: pd.Series, ids: pd.Series, source: str, column: str,
                   integer_ids: bool = False) -> None:
    repeated = _duplicated(keys, integer_ids)
    if repeated.any():
        second = int(repeated.idxmax())
        first = int(keys.index[(keys == keys[second]).to_numpy()][0])
        raise InputError(f"duplicate id {ids[second]!r} on lines {first} and {second} "
                         f"({int(repeated.sum())} repeated ids in all); ids must be unique",
                         file=source, row=second, column=column)


def _duplicated(keys: pd.Series, integer_ids: bool) -> pd.Series:
    """``keys.duplicated()``; integer keys (canonical, so equal text is an equal number) are
    compared as int64 when they fit: ten million in a second instead of twenty."""
    if integer_ids:
        for dtype in ("int64[pyarrow]", np.int64):   # pyarrow's cast when pandas has it
            try:
                numbers = keys.astype(dtype).to_numpy(dtype=np.int64)
            except (ImportError, TypeError):
                continue
            except (ValueError, OverflowError):        # past int64: compared as text
                break
            return pd.Series(numbers, index=keys.index).duplicated()
    return keys.duplicated()


def _usage(raw: pd.DataFrame, column: str | None, source: str) -> np.ndarray:
    if column is None:
        return np.full(len(raw), "private", dtype=object)
    text = raw[column].str.strip()
    usage = text.str.lower().map(USAGE)
    bad = usage.isna()
    n, where = lines_of(bad)
    if n:
        first = int(bad.idxmax())
        raise InputError(f"unknown Usage value {text[first]!r} ({n} row{'s' if n > 1 else ''}, "
                         f"{where}); expected one of {USAGE_SPELLINGS} (any case)",
                         file=source, row=first, column=column)
    return usage.to_numpy(dtype=object)


def _targets(raw: pd.DataFrame, columns: list[str], kind: str | None,
             source: str) -> tuple[np.ndarray, np.ndarray | None, bool]:
    """``(target, classes, one_hot)`` from the target column(s)."""
    text = {c: raw[c].str.strip() for c in columns}
    for c in columns:
        _no_blanks(text[c], source, c, "target", "every row needs its true answer (mark rows "
                   "that are not scored with Usage Ignored, but give them a value)")
    if len(columns) == 1:
        return _one_target(text[columns[0]], columns[0], kind, source)
    values = np.column_stack([_numbers(text[c], c, source, "several target columns must be "
                                       "numbers") for c in columns])
    binary = bool(np.isin(values, (0.0, 1.0)).all())
    if kind == "multilabel" and not binary:
        bad = ~np.isin(values, (0.0, 1.0))
        row, col = np.argwhere(bad)[0]
        raise InputError(f"multilabel targets must be 0 or 1, not {values[row, col]:g}",
                         file=source, row=int(raw.index[row]), column=columns[col])
    if binary and kind in (None, "labels", "probabilities", "scores") and \
            (values.sum(axis=1) == 1).all():
        # One-hot classes: codes into the sorted column names, like a single label column.
        order = np.argsort(np.array(columns, dtype=object), kind="stable")
        classes = np.array(columns, dtype=object)[order]
        codes = np.argmax(values[:, order], axis=1).astype(np.int64)
        return codes, classes, True
    return (values.astype(np.int64) if binary and kind == "multilabel" else values), None, False


def _one_target(text: pd.Series, column: str, kind: str | None,
                source: str) -> tuple[np.ndarray, np.ndarray | None, bool]:
    if kind == "rankings":
        return text.to_numpy(dtype=object), None, False
    numbers = pd.to_numeric(text, errors="coerce").to_numpy(dtype=float)
    finite = np.isfinite(numbers)
    if kind == "values" or (not finite.all() and
                            (finite | text.str.lower().isin(_NON_FINITE).to_numpy()).all()):
        # Numbers are required, or every value is a number and some are NaN/inf: refuse them
        # rather than read the column as text labels.
        return _numbers(text, column, source, "the target must be numbers"), None, False
    if not finite.all():  # text labels
        values = text.to_numpy(dtype=object)
        return values, np.unique(values), False
    if (numbers == np.round(numbers)).all() and np.abs(numbers).max() < 2 ** 53:
        values = numbers.astype(np.int64)
        return values, np.unique(values), False
    return numbers, None, False


def _numbers(text: pd.Series, column: str, source: str, why: str) -> np.ndarray:
    numbers = pd.to_numeric(text, errors="coerce").to_numpy(dtype=float)
    bad = pd.Series(~np.isfinite(numbers), index=text.index)
    n, where = lines_of(bad)
    if n:
        first = int(bad.idxmax())
        raise InputError(f"target {text[first]!r} is not a finite number ({n} row"
                         f"{'s' if n > 1 else ''}, {where}); {why}", file=source, row=first,
                         column=column)
    return numbers
