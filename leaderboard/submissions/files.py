"""Find every submission file (a folder, a zip or a manifest) and validate each one.

A bad file never stops the others: every file found becomes one :class:`SubmissionFile` with a
status, and the whole lot a :class:`SubmissionSet`. Only problems with PATH itself (missing,
unreadable zip, a manifest with a bad row) or the absence of any valid submission raise
:class:`~leaderboard.errors.InputError`.
"""
from __future__ import annotations

import gzip
import os
import zipfile
import zlib
from collections import Counter
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import numpy as np

from leaderboard.errors import InputError
from leaderboard.ingest import _column, _first_line, _read_csv, _require_nonempty
from leaderboard.submissions.solution import Solution
from leaderboard.submissions.table import Rejected, column_list, header, show
from leaderboard.submissions.validate import make_plan, validate

STATUSES = ("ok", "rejected", "not selected", "skipped")
_TRUE = {"1", "true", "yes", "y", "x", "t", "selected"}
_FALSE = {"0", "false", "no", "n", "f", ""}


@dataclass(frozen=True, eq=False)
class SubmissionFile:
    """One file found, and what became of it.

    Attributes
    ----------
    team : str
        The team (file stem for a folder or zip, the ``team`` cell of a manifest), stripped.
        Untrusted text: escape it when displaying.
    file : str
        Where it was found: path relative to the folder, member name in the zip, or the manifest's
        ``file`` cell.
    selected : bool or None
        The manifest's ``selected`` flag; None when there is no such column.
    status : str
        ``"ok"`` (valid, scored), ``"rejected"`` (invalid), ``"not selected"`` (validated but not
        the team's chosen submission) or ``"skipped"`` (not a CSV file, or hidden).
    reason : str or None
        Why it was rejected or skipped, one line naming the line and column; for a "not
        selected" file, why it would have been rejected (None when it is valid).
    rows : int or None
        Data rows read (header and blank lines excluded); None when the file could not be read as
        a table.
    label : str
        Unique name of the entry: the team, or ``"team (file)"`` when the team has several.
    prediction : ndarray or None
        The prediction in the solution's row order (see :mod:`~leaderboard.submissions.validate`
        for its shape and type per kind); None unless the status is "ok".
    """

    team: str
    file: str
    selected: bool | None
    status: str
    reason: str | None
    rows: int | None
    label: str
    prediction: np.ndarray | None = field(default=None, repr=False)

    @property
    def ok(self) -> bool:
        """Whether the file is a valid, scored entry."""
        return self.status == "ok"


@dataclass(frozen=True, eq=False)
class SubmissionSet:
    """Every file found under PATH, in order (sorted by path), with its fate.

    Attributes
    ----------
    source : str
        PATH as the user gave it.
    layout : str
        ``"folder"``, ``"zip"`` or ``"manifest"``.
    kind : str
        The prediction kind the files were validated for.
    files : tuple of SubmissionFile
        Every file, whatever its status: ``len(files) == sum(counts.values())``.
    columns : ndarray or None
        For a 2-D prediction, what each column is: the class (multi-class scores or
        probabilities, in the solution's sorted class order) or the target column; else None.
    """

    source: str
    layout: str
    kind: str
    files: tuple[SubmissionFile, ...]
    columns: np.ndarray | None = field(default=None, repr=False)

    @property
    def scored(self) -> tuple[SubmissionFile, ...]:
        """The valid entries, in file order."""
        return tuple(f for f in self.files if f.status == "ok")

    @property
    def entries(self) -> tuple[SubmissionFile, ...]:
        """The contenders, valid or not (files "not selected" and "skipped" left out)."""
        return tuple(f for f in self.files if f.status in ("ok", "rejected"))

    @property
    def counts(self) -> dict[str, int]:
        """Files per status, every status present."""
        found = Counter(f.status for f in self.files)
        return {status: found.get(status, 0) for status in STATUSES}


@dataclass(frozen=True)
class _Found:
    team: str
    file: str
    selected: bool | None = None
    load: Callable[[], bytes] | None = None  # None: skipped
    skip: str | None = None


def read_submissions(path: str | os.PathLike[str], solution: Solution, *, kind: str,
                     pred_cols: str | Sequence[str] | None = None, id_col: str | None = None,
                     classes: Sequence | None = None) -> SubmissionSet:
    """Read and validate every submission under ``path`` against ``solution``.

    Parameters
    ----------
    path : str or PathLike
        A folder of ``*.csv``/``*.csv.gz`` files (searched recursively; team = file stem), a
        ``.zip`` of them (folders inside allowed; team = member stem), or a manifest: a ``.csv``
        whose columns include ``team`` and ``file`` (paths relative to the manifest) and
        optionally ``selected`` (1/true/yes/x: the team's chosen submission; 0/false/no/blank:
        not). With ``selected``, the unselected files are validated and listed as "not
        selected". Other files in a folder or zip are listed as "skipped".
    solution : Solution
        From :func:`~leaderboard.submissions.read_solution`.
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
    >>> from leaderboard.submissions import read_solution
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
    source = str(path)
    where = Path(path)
    if not where.exists():
        raise InputError("not found; give a folder of submission CSV files, a .zip of them or a "
                         "manifest CSV (columns team, file)", file=source)
    plan = make_plan(solution, kind, pred_cols=pred_cols, id_col=id_col, classes=classes)
    with ExitStack() as stack:
        layout, found = _find_files(where, source, stack, _resolved(solution.source))
        has_selected = any(f.selected is not None for f in found)
        results = []
        for item in found:
            status, reason, rows, prediction = "skipped", item.skip, None, None
            if item.load is not None:
                try:
                    prediction, rows = validate(item.load(), plan)
                    status, reason = "ok", None
                except Rejected as err:
                    status, reason, rows = "rejected", str(err), err.rows
            if item.selected is False:
                status, prediction = "not selected", None  # kept lean: thousands of files
            results.append((item, status, reason, rows, prediction))
    files = _label(results)
    out = SubmissionSet(source=source, layout=layout, kind=kind, files=files,
                        columns=plan.columns if plan.several else None)
    _require_valid(out, source, has_selected)
    return out


def _label(results: list) -> tuple[SubmissionFile, ...]:
    """SubmissionFiles with unique labels: the team, or "team (file)" when it has several."""
    per_team = Counter(item.team for item, status, *_ in results if status in ("ok", "rejected"))
    files, used = [], Counter()
    for item, status, reason, rows, prediction in results:
        alone = per_team[item.team] == 1 and status in ("ok", "rejected")
        label = item.team if alone else f"{item.team} ({item.file})"
        used[label] += 1
        if used[label] > 1:  # the same team and file twice (e.g. a/x.csv and a/x.csv.gz)
            label = f"{label} #{used[label]}"
        files.append(SubmissionFile(team=item.team, file=item.file, selected=item.selected,
                                    status=status, reason=reason, rows=rows, label=label,
                                    prediction=prediction))
    return tuple(files)


def _require_valid(subs: SubmissionSet, source: str, has_selected: bool) -> None:
    if subs.scored:
        return
    readable = [f for f in subs.files if f.status != "skipped"]
    if not readable:
        raise InputError("no submission files found (*.csv or *.csv.gz)"
                         + (f"; {len(subs.files)} other files skipped" if subs.files else ""),
                         file=source)
    entries = subs.entries
    if has_selected and not entries:
        raise InputError("no file is marked selected in the manifest's 'selected' column",
                         file=source)
    first = entries[0]
    raise InputError(f"no valid submission: all {len(entries)} rejected (first: "
                     f"{show(first.file)}: {first.reason})", file=source)


def _find_files(where: Path, source: str, stack: ExitStack,
                solution: Path | None) -> tuple[str, list[_Found]]:
    if where.is_dir():
        return "folder", _folder(where, solution)
    if where.suffix.lower() == ".zip" or zipfile.is_zipfile(where):
        try:
            archive = stack.enter_context(zipfile.ZipFile(where))
        except (zipfile.BadZipFile, OSError, EOFError) as err:
            raise InputError(f"not a readable zip file ({err})", file=source) from None
        return "zip", _zip(archive)
    columns = _header_of(where)
    keys = {c.strip().lower() for c in columns}
    if {"team", "file"} <= keys:
        return "manifest", _manifest(where, source, solution)
    if where.suffix.lower() in (".csv", ".gz"):
        raise InputError(f"a CSV file that is not a manifest (its columns: "
                         f"{column_list(columns)}); give the folder or zip of submission files, "
                         "or a manifest with columns team and file", file=source)
    raise InputError("not a folder, a .zip or a manifest CSV of submission files", file=source)


def _header_of(path: Path) -> list[str]:
    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            return header(handle.read(1 << 16))
    except (OSError, UnicodeDecodeError, Rejected):
        return []


def _is_csv(name: str) -> bool:
    return name.lower().endswith((".csv", ".csv.gz"))


def _team(name: str) -> str:
    """The file stem: ``a/b/Team X.csv.gz`` -> ``Team X``."""
    base = PurePosixPath(name).name
    for suffix in (".csv.gz", ".csv", ".gz"):
        if base.lower().endswith(suffix):
            base = base[:-len(suffix)]
            break
    else:
        base = PurePosixPath(base).stem
    return base.strip() or PurePosixPath(name).name


def _skip_reason(name: str) -> str | None:
    parts = PurePosixPath(name).parts
    if any(p.startswith(".") or p == "__MACOSX" for p in parts):
        return "hidden file"
    return None if _is_csv(name) else "not a CSV file"


def _entry(name: str, load: Callable[[], bytes], skip: str | None = None) -> _Found:
    skip = skip or _skip_reason(name)
    return _Found(team=_team(name), file=name, load=None if skip else load, skip=skip)


def _resolved(path: str | Path) -> Path | None:
    try:
        return Path(path).resolve()
    except (OSError, RuntimeError):
        return None


def _folder(root: Path, solution: Path | None) -> list[_Found]:
    names = []
    for folder, _dirs, files in os.walk(root):  # does not follow links to folders
        names += [(Path(folder) / f).relative_to(root).as_posix() for f in files]
    # The solution kept next to the submissions would otherwise score perfectly.
    return [_entry(n, _file_loader(root / n),
                   "the solution file" if _resolved(root / n) == solution else None)
            for n in sorted(names)]


def _zip(archive: zipfile.ZipFile) -> list[_Found]:
    members = sorted((i for i in archive.infolist() if not i.is_dir()), key=lambda i: i.filename)
    return [_entry(i.filename, _member_loader(archive, i)) for i in members]


def _manifest(path: Path, source: str, solution: Path | None) -> list[_Found]:
    raw = _read_csv(path, source)
    team = _column(raw, None, ("team",), "team", "team", source)
    file = _column(raw, None, ("file",), "file", "file", source)
    selected = _column(raw, None, ("selected",), None, "selected", source)
    _require_nonempty(raw, team, source, "every submission needs its team")
    _require_nonempty(raw, file, source, "every row needs the path of a submission file")
    seen: dict[tuple[str, str], int] = {}
    found = []
    for line, name, cell in zip(raw.index, raw[team].str.strip(), raw[file].str.strip()):
        if (name, cell) in seen:
            raise InputError(f"team {name!r} lists file {cell!r} twice (lines {seen[name, cell]} "
                             f"and {line})", file=source, row=int(line), column=file)
        seen[name, cell] = int(line)
        flag = None
        if selected is not None:
            flag = _flag(raw.at[line, selected], source, int(line), selected)
        target = Path(cell) if Path(cell).is_absolute() else path.parent / cell
        if _resolved(target) == solution:
            raise InputError(f"file {cell!r} is the solution file itself", file=source,
                             row=int(line), column=file)
        found.append(_Found(team=name, file=cell, selected=flag, load=_file_loader(target)))
    return found


def _flag(text: str, source: str, line: int, column: str) -> bool:
    value = text.strip().lower()
    if value in _TRUE or value in _FALSE:
        return value in _TRUE
    raise InputError(f"{text!r} is not a yes/no value; use 1/true/yes/x for the team's chosen "
                     "submission(s) and 0/false/no or blank for the others", file=source,
                     row=line, column=column)


def _file_loader(path: Path) -> Callable[[], bytes]:
    def load() -> bytes:
        if not path.exists():
            raise Rejected("file not found")
        if path.is_dir():
            raise Rejected("is a folder, not a file")
        try:
            data = path.read_bytes()
        except OSError as err:
            raise Rejected(f"cannot be read: {err.strerror or err}") from None
        return _gunzip(data) if path.name.lower().endswith(".gz") else data
    return load


def _member_loader(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> Callable[[], bytes]:
    def load() -> bytes:
        try:
            data = archive.read(info)
        except (zipfile.BadZipFile, RuntimeError, NotImplementedError, OSError, EOFError,
                zlib.error) as err:
            raise Rejected(f"cannot be read from the zip ({_first_line(err)})") from None
        return _gunzip(data) if info.filename.lower().endswith(".gz") else data
    return load


def _gunzip(data: bytes) -> bytes:
    try:
        return gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as err:
        raise Rejected(f"not a readable gzip file ({_first_line(err)})") from None
