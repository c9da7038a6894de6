"""Validate one submission file as a Kaggle scorer would, and align it to the solution's rows.

A :class:`Plan` is worked out once from the solution, the metric's prediction kind and the options;
:func:`validate` then turns one file's bytes into the prediction array, in the solution's row
order, or raises :class:`~leaderboard.ingest.submissions.table.Rejected` with a one-line reason naming the
line and the column. Checks are vectorised; Python only touches the first offending row, to word
the reason.

What each kind must hold (``n`` rows in solution order, ``K`` columns):

``labels``         one label per row: integers when the solution's labels are integers, else any
                   text (a label the solution never uses is just wrong, not invalid); with one-hot
                   solution columns, a class name (or the one-hot columns) -> codes into classes
``scores``         finite reals, ``(n,)``, or ``(n, K)`` with one column per class (multi-class)
``probabilities``  like scores, in [0, 1] (values within 1e-6 of it, as float32 output
                   written out gives, are clipped into it); multi-class rows must have a positive
                   sum (they need not sum to 1)
``values``         finite reals, ``(n,)`` or ``(n, K)`` for several target columns
``multilabel``     0/1 in every target column, ``(n, K)`` int64
``rankings``       text of space-separated items, blank allowed (an empty list): str objects,
                   surrounding spaces removed
``clusters``       any non-blank cluster id, returned as int64 codes (ids need not match labels)
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from leaderboard.api_words import said
from leaderboard.errors import InputError
from leaderboard.ingest.records import Solution
from leaderboard.ingest.submissions.solution import id_keys
from leaderboard.ingest.submissions.table import (as_text, check_text, drop_blank_lines, header,
                                                  is_parquet, parquet_table, read_table)
from leaderboard.ingest.toolkit.columns import MAX_MAGNITUDE, separator_hint
from leaderboard.ingest.toolkit.messages import Rejected, column_list, quote, show
from leaderboard.metrics.base import KINDS

_NUMERIC_KINDS = ("scores", "probabilities", "values")
_NAN_WORDS = {"nan", "+nan", "-nan"}
_PROBABILITY_SLACK = 1e-6  # float32 softmax output written as 1.0000001 is still a probability


@dataclass(frozen=True, eq=False)
class Plan:
    """What every submission must hold, worked out once (see :func:`make_plan`)."""

    kind: str
    id_column: str
    mode: str                   # number | multilabel | label | text | cluster
    names: tuple[str, ...]      # several: all required; single: preferred, in order
    several: bool               # 2-D prediction (one column per name)
    explicit: bool              # names come from pred_cols: no guessing
    columns: np.ndarray | None  # what each column of a 2-D prediction is (class or target)
    onehot: tuple[str, ...] | None  # labels, one-hot solution: class columns accepted instead
    label_type: str | None      # labels: "int", "float", "text" or "code"
    classes: np.ndarray | None = field(repr=False)
    keys: pd.Index = field(repr=False)
    int_keys: pd.Index | None = field(repr=False)
    solution: Solution = field(repr=False)

    @property
    def text(self) -> bool:
        """Whether a single prediction column is read as text rather than numbers."""
        return self.mode in ("text", "cluster") or (self.mode == "label" and
                                                    self.label_type in ("text", "code"))


def make_plan(solution: Solution, kind: str, *, pred_cols: Sequence[str] | str | None = None,
              id_col: str | None = None, classes: Sequence | None = None) -> Plan:
    """The checks for ``kind`` against ``solution``; bad options raise :class:`InputError`."""
    if kind not in KINDS:
        raise InputError(f"unknown prediction kind {kind!r}; expected one of {', '.join(KINDS)}")
    asked = None if classes is None else np.asarray(classes)
    cls = solution.classes if asked is None else asked
    if asked is not None and solution.classes is not None:
        absent = sorted(set(map(str, solution.classes)) - set(map(str, asked)))
        if absent:
            raise InputError(f"classes given do not include the solution's class(es) "
                             f"{', '.join(map(show, absent[:5]))}")
    names: tuple[str, ...] = ()
    several = True
    columns: np.ndarray | None = None
    onehot: tuple[str, ...] | None = None
    if kind in ("probabilities", "scores") and cls is not None and len(cls) > 2:   # multiclass
        names, columns = tuple(str(c) for c in cls), cls
    elif kind == "multilabel" or (kind in _NUMERIC_KINDS and solution.target.ndim == 2):
        if kind == "multilabel" and solution.one_hot:
            names = _class_names(solution)
        else:
            names = solution.target_columns
        columns = np.array(names, dtype=object)
    else:
        several = False
        if len(solution.target_columns) == 1:
            names = solution.target_columns
        if kind in ("probabilities", "scores") and cls is not None and len(cls) == 2:
            names += (str(cls[-1]),)  # binary: the positive class's column
        if kind == "labels" and solution.one_hot:
            onehot = _class_names(solution)
    if pred_cols is not None:
        given = (pred_cols,) if isinstance(pred_cols, str) else tuple(pred_cols)
        allowed = {len(names)} if several else {1} | ({len(onehot)} if onehot else set())
        if len(given) not in allowed:
            want = f"{len(names)} ({', '.join(names)})" if several else "1"
            raise InputError(f"{kind} predictions take {want} prediction column(s), not "
                             f"{len(given)} ({', '.join(given)})")
        if onehot and len(given) == len(onehot) > 1:
            names, onehot = (), given  # the class columns, in the order of the classes
        else:
            names, onehot = given, None
    mode = {"multilabel": "multilabel", "labels": "label", "rankings": "text",
            "clusters": "cluster"}.get(kind, "number")
    label_type = None
    if kind == "labels":
        dtype = solution.target.dtype.kind
        label_type = ("code" if solution.one_hot else "int" if dtype in "iu" else
                      "float" if dtype == "f" else "text")
    keys = solution.keys
    int_keys = None
    if solution.integer_ids and max(map(len, keys)) < 19:  # fits in int64
        int_keys = pd.Index(keys.astype(np.int64))
    return Plan(kind=kind, id_column=id_col or solution.id_column, mode=mode, names=names,
                several=several, explicit=pred_cols is not None, columns=columns, onehot=onehot,
                label_type=label_type, classes=cls, keys=pd.Index(keys, dtype=object),
                int_keys=int_keys, solution=solution)


def _class_names(solution: Solution) -> tuple[str, ...]:
    """A one-hot solution's classes (its column names) as text."""
    assert solution.classes is not None   # one-hot targets always name their classes
    return tuple(str(c) for c in solution.classes)


def validate(data: bytes, plan: Plan) -> tuple[np.ndarray, int]:
    """``(prediction in solution row order, data rows read)`` of one CSV or Parquet file; else
    Rejected."""
    if is_parquet(data):
        fields, frame = parquet_table(data)
        id_name, preds, mode = _choose(fields, plan)
        frame = _as_csv_reads(frame, id_name, preds, mode, plan)
    else:
        check_text(data)
        fields = header(data)
        id_name, preds, mode = _choose(fields, plan)
        dtype = {name: object for name in preds if plan.text and mode != "onehot"}
        if plan.int_keys is None:
            dtype[id_name] = object
        frame = read_table(data, dtype)
        if frame[id_name].dtype.kind in "fb":  # ids like "7.0": read them again as written
            frame = read_table(data, {**dtype, id_name: object})
    frame = drop_blank_lines(frame, id_name)
    if frame.empty:
        raise Rejected("no data rows: nothing below the header line", rows=0)
    try:
        order = _align(frame[id_name], id_name, plan)
        values = _values(frame, preds, mode, plan)
    except Rejected as err:
        raise Rejected(str(err), rows=len(frame)) from None
    return values[order], len(frame)


def _as_csv_reads(frame: pd.DataFrame, id_name: str, preds: tuple[str, ...], mode: str,
                  plan: Plan) -> pd.DataFrame:
    """A Parquet file's columns as the CSV reader gives them, so every check and reason is the
    same: text where a CSV is read as text (ids unless matched as integers, text predictions),
    and numbers with missing values as text, so that a blank is "missing value"."""
    text = {name for name in preds if plan.text and mode != "onehot"}
    ids = frame[id_name]
    if plan.int_keys is None or ids.dtype.kind not in "iu":
        text.add(id_name)
    text |= {name for name in preds if frame[name].isna().any()}
    return frame.assign(**{name: as_text(frame[name]) for name in text}) if text else frame


def _find(fields: list[str], name: str) -> str | None:
    """``name`` in the header, else its only case-insensitive match; Rejected when two columns
    match it, differing only in case or spaces (scoring either would be a silent guess)."""
    loose = [f for f in fields if f.strip().lower() == name.strip().lower()]
    if len(loose) > 1:
        raise Rejected(f"columns {quote(loose[0])} and {quote(loose[1])} differ only in case or "
                       f"spaces; which one is {quote(name)} is ambiguous: rename or delete one")
    return loose[0] if loose else None


def _choose(fields: list[str], plan: Plan) -> tuple[str, tuple[str, ...], str]:
    """``(id column, prediction columns, mode)`` for a file with header ``fields``."""
    listed = f"(columns: {column_list(fields)}){separator_hint(fields)}"
    id_name = _find(fields, plan.id_column)
    if id_name is None:
        raise Rejected(f"missing id column {quote(plan.id_column)} {listed}")
    if plan.several:
        found = [_find(fields, n) for n in plan.names]
        missing = [n for n, f in zip(plan.names, found) if f is None]
        if missing:
            raise Rejected(f"missing prediction column{'s' if len(missing) > 1 else ''} "
                           f"{', '.join(map(quote, missing[:5]))}"
                           f"{', ...' if len(missing) > 5 else ''} {listed}")
        return id_name, tuple(f for f in found if f is not None), plan.mode
    for name in plan.names:  # preferred names, best first
        hit = _find(fields, name)
        if hit is not None and hit != id_name:
            return id_name, (hit,), plan.mode
    if plan.onehot:
        matched = [_find(fields, n) for n in plan.onehot]
        named = [f for f in matched if f]
        if len(named) == len(matched):
            return id_name, tuple(named), "onehot"
    # As a scorer would: a column named like the solution's target is required; any single other
    # column is taken only when there is no name to expect.
    others = [f for f in fields if f != id_name and f.strip()]
    if len(others) == 1 and not plan.explicit and not plan.names:
        return id_name, (others[0],), plan.mode
    wanted = quote(plan.names[0]) if plan.names else "(one prediction column)"
    hint = "" if plan.explicit else said("; use --pred-col if the name differs")
    raise Rejected(f"missing prediction column {wanted} {listed}{hint}")


def _align(ids: pd.Series, column: str, plan: Plan) -> np.ndarray:
    """Positions such that ``values[order]`` is in solution row order; Rejected on any mismatch."""
    n, total = len(ids), len(plan.keys)
    if plan.int_keys is not None and ids.dtype.kind in "iu":
        pos = plan.int_keys.get_indexer(ids.to_numpy())
    else:
        pos = plan.keys.get_indexer(ids.to_numpy(dtype=object))
    if n == total and pos.min() >= 0:
        order = np.full(total, -1, dtype=np.int64)
        order[pos] = np.arange(n)
        if order.min() >= 0:
            return order
    # Something is off: match on canonical keys and word the first problem.
    text = ids.astype(object).fillna("").astype(str).str.strip()
    lines = ids.index
    blank = (text == "").to_numpy()
    if blank.any():
        raise Rejected(f"missing id on line {lines[blank.argmax()]}, column {quote(column)}")
    keys = id_keys(text, plan.solution.integer_ids)
    repeated = keys.duplicated().to_numpy()
    if repeated.any():
        second = int(repeated.argmax())
        first = int((keys == keys.iloc[second]).to_numpy().argmax())
        more = f" ({int(repeated.sum())} repeated ids in all)" if repeated.sum() > 1 else ""
        raise Rejected(f"duplicate id {show(text.iloc[second])} on lines {lines[first]} and "
                       f"{lines[second]}{more}")
    pos = plan.keys.get_indexer(keys.to_numpy(dtype=object))
    if n == total and pos.min() >= 0:  # ids written differently (007, 7.0): a permutation
        order = np.empty(total, dtype=np.int64)
        order[pos] = np.arange(n)
        return order
    parts = [f"wrong row count: {n} row{'s' if n > 1 else ''}, expected {total}"
             ] if n != total else []
    extra = pos < 0
    if extra.any():
        k, i = int(extra.sum()), int(extra.argmax())
        parts.append(f"{k} extra id{'s' if k > 1 else ''} not in the solution (first: "
                     f"{show(text.iloc[i])} on line {lines[i]})")
    present = np.zeros(total, dtype=bool)
    present[pos[~extra]] = True
    if not present.all():
        k = int(total - present.sum())
        parts.append(f"missing {k} id{'s' if k > 1 else ''} (first: "
                     f"{show(plan.solution.ids[int(present.argmin())])})")
    raise Rejected("; ".join(parts))


def _values(frame: pd.DataFrame, names: tuple[str, ...], mode: str, plan: Plan) -> np.ndarray:
    """The prediction in file order, checked for ``mode``."""
    if mode == "text":
        return frame[names[0]].fillna("").astype(str).str.strip().to_numpy(dtype=object)
    if mode == "cluster" or (mode == "label" and plan.label_type in ("text", "code")):
        text = frame[names[0]].fillna("").astype(str).str.strip()
        _reject(frame, names, (text == "").to_numpy()[:, None], lambda r, c: "missing value")
        if mode == "cluster":
            return pd.factorize(text)[0].astype(np.int64)
        if plan.label_type == "text":
            return text.to_numpy(dtype=object)
        lookup = {c: i for i, c in enumerate(_class_names(plan.solution))}
        codes = text.map(lookup)
        known = ", ".join(show(c) for c in list(lookup)[:10])
        _reject(frame, names, codes.isna().to_numpy()[:, None],
                lambda r, c: f"unknown class {show(text.iloc[r])}", f" (classes: {known})")
        return codes.to_numpy(dtype=np.int64)
    values = _numbers(frame, names)
    if mode == "label":
        if plan.label_type == "int":
            _reject(frame, names, values != np.round(values),
                    lambda r, c: f"label {show(_cell(frame, r, names[c]))}",
                    " is not an integer like the solution's labels")
            return values[:, 0].astype(np.int64)
        return values[:, 0]
    if mode in ("multilabel", "onehot"):
        _reject(frame, names, (values != 0) & (values != 1),
                lambda r, c: f"value {show(_cell(frame, r, names[c]))}", " is not 0 or 1")
        if mode == "multilabel":
            return values.astype(np.int64)
        marked = values.sum(axis=1)
        wrong = marked != 1
        if wrong.any():
            r = int(wrong.argmax())
            raise Rejected(f"line {frame.index[r]} marks {int(marked[r])} classes with 1 "
                           f"(expected exactly one){_more(int(wrong.sum()), 'such lines')}")
        return values.argmax(axis=1).astype(np.int64)
    if plan.kind == "probabilities":
        outside = (values < -_PROBABILITY_SLACK) | (values > 1 + _PROBABILITY_SLACK)
        _reject(frame, names, outside, lambda r, c: (
            f"probability {show(_cell(frame, r, names[c]))} outside [0, 1]"))
        values = np.clip(values, 0.0, 1.0)
        if plan.several:
            empty = values.sum(axis=1) <= 0
            if empty.any():
                r = int(empty.argmax())
                raise Rejected(f"class probabilities on line {frame.index[r]} sum to 0"
                               f"{_more(int(empty.sum()), 'such lines')}")
    return values if plan.several else values[:, 0]


def _numbers(frame: pd.DataFrame, names: tuple[str, ...]) -> np.ndarray:
    """Columns ``names`` as finite float64, shape ``(n, K)``; Rejected at the first bad cell."""
    values = np.empty((len(frame), len(names)))
    for j, name in enumerate(names):
        col = frame[name]
        if col.dtype.kind in "iuf":  # parsed as numbers by pandas: the fast path (True/False
            # columns come back as bools: they go the slow way and are refused, not read as 1/0)
            values[:, j] = col.to_numpy(dtype=float)
        else:
            text = col.fillna("").astype(str).str.strip()
            values[:, j] = pd.to_numeric(text, errors="coerce").to_numpy(dtype=float)
    _reject(frame, names, ~np.isfinite(values), lambda r, c: _non_finite(
        _cell(frame, r, names[c]), values[r, c]))
    _reject(frame, names, np.abs(values) > MAX_MAGNITUDE, lambda r, c: (
        f"value {quote(_cell(frame, r, names[c]))} beyond +-{MAX_MAGNITUDE:g} (sums and squares "
        "of it overflow)"))
    return values


def _non_finite(text: str, value: float) -> str:
    if text == "":
        return "missing value"
    if text.lower() in ("true", "false"):
        return f"value {quote(text)} is a yes/no, not a number (write 1 or 0)"
    if np.isnan(value):
        return "NaN" if text.lower() in _NAN_WORDS else f"non-numeric value {quote(text)}"
    return "inf" if value > 0 else "-inf"


def _cell(frame: pd.DataFrame, row: int, name: str) -> str:
    value = frame[name].iloc[row]
    if isinstance(value, float | np.floating):
        return repr(float(value))
    return "" if pd.isna(value) else str(value).strip()


def _reject(frame: pd.DataFrame, names: tuple[str, ...], bad: np.ndarray,
            what: Callable[[int, int], str], after: str = "") -> None:
    """Rejected at the first True of ``bad`` (rows x columns):
    "<what(row, col)> on line L, column 'c'<after> (first of k bad values)"."""
    if not bad.any():
        return
    rows, cols = np.nonzero(bad)
    r, c = int(rows[0]), int(cols[0])
    raise Rejected(f"{what(r, c)} on line {frame.index[r]}, column {quote(names[c])}{after}"
                   f"{_more(len(rows), 'bad values')}")


def _more(count: int, what: str) -> str:
    return f" (first of {count} {what})" if count > 1 else ""
