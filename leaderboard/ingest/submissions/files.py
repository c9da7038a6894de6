"""Read every submission file found (a folder, a zip or a manifest) and validate each one.

A bad file never stops the others: every entry found becomes one
:class:`~leaderboard.ingest.records.SubmissionFile` with a status, and the whole lot a
:class:`~leaderboard.ingest.records.SubmissionSet`. Only problems with PATH itself (missing,
unreadable zip, a manifest with a bad row) or the absence of any valid submission raise
:class:`~leaderboard.errors.InputError`. Finding the files, and what is never read, is
:mod:`~leaderboard.ingest.submissions.find`.
"""
from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from leaderboard.errors import InputError, processing
from leaderboard.ingest.in_memory import InMemory
from leaderboard.ingest.records import Solution, SubmissionFile, SubmissionSet
from leaderboard.ingest.safe_read import DEFAULT_MAX_BYTES
from leaderboard.ingest.submissions.find import Found, close_archives, find_files
from leaderboard.ingest.submissions.table import column_names
from leaderboard.ingest.submissions.validate import Plan, make_plan, validate
from leaderboard.ingest.toolkit.messages import Rejected, show

def read_submissions(path: str | os.PathLike[str], solution: Solution, *, kind: str,
                     pred_cols: str | Sequence[str] | None = None, id_col: str | None = None,
                     classes: Sequence | None = None,
                     max_bytes: int = DEFAULT_MAX_BYTES) -> SubmissionSet:
    """Read and validate every submission under ``path`` against ``solution``.

    Parameters
    ----------
    path : str or PathLike
        A folder of ``*.csv``/``*.csv.gz`` files (searched recursively; team = file stem), a
        ``.zip`` of them (folders inside allowed; team = member stem), or a manifest: a ``.csv``
        whose columns include ``team`` and ``file`` (paths relative to the manifest) and
        optionally ``selected`` (1/true/yes/x: the team's chosen submission; 0/false/no/blank:
        not). With ``selected``, the unselected files are validated and listed as "not
        selected". Other files in a folder or zip are listed as "skipped". Links, special files
        and manifest paths that leave the manifest's folder are listed and never read (see
        :mod:`~leaderboard.ingest.submissions.find`).
    solution : Solution
        From :func:`~leaderboard.ingest.submissions.read_solution`.
    kind : str
        The metric's prediction kind (``Metric.kind``), which decides the checks.
    pred_cols : str or sequence of str, optional
        Prediction column(s) of the submissions. Default: the solution's target column(s) when
        present, else (multi-class) one column per class named like the class, else (binary) the
        positive class's column, else the only column besides the id. Several columns are taken
        in the order of the classes or target columns.
    id_col : str, optional
        The submissions' id column; default the solution's. Matched exactly, else ignoring case.
        Rows are matched to the solution's by id, in any order: ids are compared as text with
        surrounding spaces removed, or as integers when every solution id is an integer (then
        ``7``, ``007`` and ``7.0`` are one id; text ids such as ``A007`` must match exactly).
    classes : sequence, optional
        Every class, when the solution does not show them all (multi-class predictions then
        need one column per class given here).
    max_bytes : int
        Size cap of every file, on disk and decompressed (``--max-file-size``).

    Returns
    -------
    SubmissionSet

    Raises
    ------
    InputError
        PATH missing or of the wrong kind, an unreadable zip, a bad manifest row, or no valid
        submission at all (the message quotes the first rejection).

    Examples
    --------
    >>> import tempfile
    >>> from leaderboard.ingest.submissions import read_solution
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "solution.csv").write_text("id,y\\n1,0\\n2,1\\n")
    >>> (folder / "subs").mkdir()
    >>> _ = (folder / "subs" / "alice.csv").write_text("id,y\\n2,0.9\\n1,0.2\\n")
    >>> _ = (folder / "subs" / "bob.csv").write_text("id,y\\n1,0.3\\n")
    >>> subs = read_submissions(folder / "subs", read_solution(folder / "solution.csv"),
    ...                         kind="probabilities")
    >>> [(f.team, f.status, f.reason) for f in subs.files]
    [('alice', 'ok', None), ('bob', 'rejected', 'wrong row count: 1 row, expected 2; missing 1 \
id (first: 2)')]
    >>> subs.scored[0].prediction
    array([0.2, 0.9])
    """
    listing = list_submissions(path, solution, kind=kind, pred_cols=pred_cols, id_col=id_col,
                               classes=classes, max_bytes=max_bytes)
    try:
        results = []
        for item in listing.found:
            with processing(f"{listing.source}: {item.file}"):
                results.append(read_one(item, listing.plan, solution) + (None,))
    finally:
        close_archives()
    return submission_set(listing, results)


@dataclass(frozen=True, eq=False)
class Listing:
    """Every entry found under PATH, not read yet: what :func:`read_submissions` reads at once
    and submissions mode streams, batch by batch (:mod:`leaderboard.engine`).

    ``found`` holds each entry's picklable loader (a path, or a zip and its member), so a worker
    elsewhere can read it; ``plan`` says how to validate it.
    """

    source: str
    layout: str
    kind: str
    found: tuple[Found, ...]
    plan: Plan
    has_selected: bool


def list_submissions(path: str | os.PathLike[str], solution: Solution, *, kind: str,
                     pred_cols: str | Sequence[str] | None = None, id_col: str | None = None,
                     classes: Sequence | None = None,
                     max_bytes: int = DEFAULT_MAX_BYTES) -> Listing:
    """Find every submission under ``path`` without reading any (the arguments and the errors
    about PATH itself are :func:`read_submissions`'); :func:`submission_set` turns what each
    entry became into the :class:`SubmissionSet`.

    Examples
    --------
    >>> import tempfile
    >>> from leaderboard.ingest.submissions import read_solution
    >>> subs = Path(tempfile.mkdtemp())
    >>> for name in ("alice.csv", "notes.txt", "solution.csv"):
    ...     _ = (subs / name).write_text("id,y\\n1,0\\n2,1\\n")
    >>> listing = list_submissions(subs, read_solution(subs / "solution.csv"), kind="labels")
    >>> [(f.team, f.skip) for f in listing.found]
    [('alice', None), ('notes', 'not a CSV file'), ('solution', 'the solution file')]
    """
    source = str(path)
    where = Path(path)
    if not where.exists():
        raise InputError("not found; give a folder of submission CSV files, a .zip of them or a "
                         "manifest CSV (columns team, file)", file=source)
    plan = make_plan(solution, kind, pred_cols=pred_cols, id_col=id_col, classes=classes)
    with ExitStack() as stack:
        layout, found = find_files(where, source, stack, _resolved(solution.source), max_bytes)
    return Listing(source=source, layout=layout, kind=kind, found=tuple(found), plan=plan,
                   has_selected=any(f.selected is not None for f in found))


def memory_listing(tables: Sequence[tuple[str, InMemory]], solution: Solution, *, kind: str,
                   pred_cols: str | Sequence[str] | None = None,
                   id_col: str | None = None) -> Listing:
    """:func:`list_submissions` for tables handed over in memory, ``(team, table)`` each (the
    Python API's mapping): every one is read and validated as a submission file would be.

    Examples
    --------
    >>> import pandas as pd
    >>> from leaderboard.ingest.submissions import read_solution
    >>> solution = read_solution(InMemory.of(pd.DataFrame({"id": [1, 2], "y": [0, 1]}), "solution"))
    >>> table = InMemory.of(pd.DataFrame({"id": [1, 2], "y": [0.2, 0.9]}), "a")
    >>> [(f.team, f.file) for f in memory_listing([("a", table)], solution, kind="scores").found]
    [('a', "submissions['a']")]
    """
    if not tables:
        raise InputError("submissions: the mapping is empty")
    plan = make_plan(solution, kind, pred_cols=pred_cols, id_col=id_col)
    found = tuple(Found(team=str(team).strip(), file=f"submissions[{team!r}]",
                        load=table.loader()) for team, table in tables)
    return Listing(source="submissions", layout="mapping", kind=kind, found=found, plan=plan,
                   has_selected=False)


def submission_set(listing: Listing, results: list[tuple]) -> SubmissionSet:
    """The :class:`SubmissionSet` of ``listing`` from ``(item, status, reason, rows, prediction,
    digest)`` per entry found, in order; :class:`InputError` when none is valid."""
    out = SubmissionSet(source=listing.source, layout=listing.layout, kind=listing.kind,
                        files=_label(results),
                        columns=listing.plan.columns if listing.plan.several else None)
    require_valid(out, listing.source, listing.has_selected)
    return out


def read_one(item: Found, plan: Plan, solution: Solution) -> tuple:
    """``(item, status, reason, rows, prediction)`` of one entry found: read and validated."""
    status, reason, rows, prediction = "skipped", item.skip, None, None
    if item.refuse is not None:
        status, reason = "rejected", item.refuse
    elif item.load is not None:
        try:
            data = item.load()
            prediction, rows = validate(data, plan)
            _not_the_solution(data, prediction, solution)
            status, reason = "ok", None
        except Rejected as err:
            status, reason, prediction = "rejected", str(err), None
            rows = err.rows if err.rows is not None else rows
    if item.selected is False:
        status, prediction = "not selected", None  # kept lean: thousands of files
    return item, status, reason, rows, prediction


def _not_the_solution(data: bytes, prediction: np.ndarray, solution: Solution) -> None:
    """Rejected when a submission is the solution itself: the same bytes, or the solution's
    Usage column with its very answers (a re-saved copy), which would otherwise rank first with
    a perfect score."""
    if solution.digest is not None and hashlib.sha256(data).digest() == solution.digest:
        raise Rejected("a copy of the solution file (the same content); not scored")
    if solution.usage_column is None:
        return
    usage = solution.usage_column.strip().lower()
    if not any(f.strip().lower() == usage for f in column_names(data)):
        return
    truth = np.asarray(solution.target)
    if prediction.shape == truth.shape and bool(np.all(prediction == truth)):
        raise Rejected(f"the solution's own content (its {show(solution.usage_column)} column and "
                       "its answers on every row); not scored")


def _label(results: list) -> tuple[SubmissionFile, ...]:
    """SubmissionFiles with unique labels: the team, or "team (file)" when it has several."""
    per_team = Counter(item.team for item, status, *_ in results if status in ("ok", "rejected"))
    files = []
    used: Counter[str] = Counter()
    for item, status, reason, rows, prediction, digest in results:
        alone = per_team[item.team] == 1 and status in ("ok", "rejected")
        label = item.team if alone else f"{item.team} ({item.file})"
        used[label] += 1
        if used[label] > 1:  # the same team and file twice (e.g. a/x.csv and a/x.csv.gz)
            label = f"{label} #{used[label]}"
        files.append(SubmissionFile(team=item.team, file=item.file, selected=item.selected,
                                    status=status, reason=reason, rows=rows, label=label,
                                    prediction=prediction, digest=digest))
    return tuple(files)


def require_valid(subs: SubmissionSet, source: str, has_selected: bool) -> None:
    if subs.scored:
        return
    readable = [f for f in subs.files if f.status != "skipped"]
    if not readable:
        raise InputError("no submission files found (*.csv, *.csv.gz or *.parquet)"
                         + (f"; {len(subs.files)} other files skipped" if subs.files else ""),
                         file=source)
    entries = subs.entries
    if has_selected and not entries:
        raise InputError("no file is marked selected in the manifest's 'selected' column",
                         file=source)
    first = entries[0]
    raise InputError(f"no valid submission: all {len(entries)} rejected (first: "
                     f"{show(first.file)}: {first.reason})", file=source)


def _resolved(path: str | Path) -> Path | None:
    try:
        return Path(os.path.realpath(path))
    except (OSError, ValueError):
        return None
