"""The records several readers hand on to the stages after ingest.

- :class:`DroppedRows`: rows of an input that are not analysed, and why (a leaderboard's
  superseded submissions, battles without an outcome, ...);
- :class:`Solution`, :class:`SubmissionFile` and :class:`SubmissionSet`: what submissions mode
  analyses, the true answers and every entry's predictions with its fate, handed on by the
  solution and submission readers (:mod:`leaderboard.ingest.submissions`) and by the per-item
  results reader (:mod:`leaderboard.ingest.item_table`), one row per item.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class DroppedRows:
    """Rows of the input that are not analysed, and why.

    ``lines`` are 1-based line numbers in the file (the header is line 1), at most the first 20.
    """

    reason: str
    count: int
    lines: tuple[int, ...]


@dataclass(frozen=True, eq=False)
class Solution:
    """The true answers, one row per test row, in file order.

    Attributes
    ----------
    source : str
        The path as the user gave it.
    id_column : str
        The id column's name; submissions are expected to use it too.
    target_columns : tuple of str
        The target column(s) read.
    ids : ndarray of str
        Ids as written (surrounding spaces removed).
    target : ndarray
        Shape ``(n,)`` for one target column: ``int64`` when every value is an integer, ``float64``
        for other numbers, ``str`` objects otherwise. Shape ``(n, k)`` for several columns
        (``int64`` 0/1 for ``kind="multilabel"``, else ``float64``), except one-hot classes (see
        ``one_hot``).
    classes : ndarray or None
        Sorted distinct labels (as :func:`sklearn.utils.multiclass.unique_labels` orders them) when
        the target is categorical (integers, text or one-hot columns), else None.
    one_hot : bool
        True when several 0/1 target columns with exactly one 1 per row were read as one
        multi-class target: ``classes`` are the column names (sorted) and ``target`` holds codes
        into ``classes``; ``np.eye(len(classes), dtype=int)[target]`` gives the columns back.
    usage : ndarray of str
        ``"public"``, ``"private"`` or ``"ignored"`` per row.
    usage_column : str or None
        The Usage column's name; None when there is none and every row is ``"private"``.
    groups : ndarray of str or None
        Group id per row (``group_col``), else None.
    integer_ids : bool
        Whether ids are matched as integers (every solution id is one).
    keys : ndarray of str
        The ids as they are matched
        (:func:`~leaderboard.ingest.submissions.solution.id_keys`): ``ids``, or integers in
        canonical form.
    rows_read : int
        Data rows in the file (header and blank lines excluded); equals ``sum(counts.values())``.
    counts : dict
        Rows per usage, keys ``"public"``, ``"private"``, ``"ignored"``.
    digest : bytes or None
        SHA-256 of the file's (decompressed) bytes: a submission with the same bytes is a copy of
        the solution, never scored.
    categories : ndarray of str or None
        Category of each row (per-item results with ``--category-col``), else None.
    grouping_columns : tuple of (str, int)
        Per-item results: columns not declared as clusters that are constant within each item
        and group several items (passage, repository), with their number of groups
        (:func:`leaderboard.ingest.item_table.grouping_columns`).
    coverage : ItemCoverage or None
        Per-item results: which items were analysed and why, duplicates merged, samples
        (:class:`leaderboard.ingest.item_coverage.ItemCoverage`).
    notes : tuple of str
        Per-item results read from a benchmark's own files: how values were counted (SWE-bench
        instances without a result, HELM's perturbed instances, Inspect's epochs), shown with
        the analysis's notes.
    """

    source: str
    id_column: str
    target_columns: tuple[str, ...]
    ids: np.ndarray = field(repr=False)
    target: np.ndarray = field(repr=False)
    classes: np.ndarray | None
    one_hot: bool
    usage: np.ndarray = field(repr=False)
    usage_column: str | None
    groups: np.ndarray | None = field(repr=False)
    integer_ids: bool
    rows_read: int
    counts: dict[str, int]
    keys: np.ndarray = field(repr=False)
    digest: bytes | None = field(default=None, repr=False)
    categories: np.ndarray | None = field(default=None, repr=False)
    grouping_columns: tuple[tuple[str, int], ...] = ()
    coverage: object = field(default=None, repr=False)
    notes: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def has_usage(self) -> bool:
        """Whether the file has a Usage column (without one, every row is private)."""
        return self.usage_column is not None


STATUSES = ("ok", "rejected", "set aside", "not selected", "skipped")


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
        ``"ok"`` (valid, scored), ``"rejected"`` (invalid), ``"set aside"`` (valid and scored,
        then left out before the ranking: not an entry, or ``--exclude-flagged``;
        :mod:`leaderboard.set_aside`; or a model lacking items that the items policy keeps),
        ``"not selected"`` (validated but not the team's chosen submission) or ``"skipped"``
        (not a CSV file, or hidden).
    reason : str or None
        Why it was rejected or skipped, one line naming the line and column; for a "not
        selected" file, why it would have been rejected (None when it is valid).
    rows : int or None
        Data rows read (header and blank lines excluded); None when the file could not be read as
        a table.
    label : str
        Unique name of the entry: the team, or ``"team (file)"`` when the team has several.
    prediction : ndarray or None
        The prediction in the solution's row order (see
        :mod:`~leaderboard.ingest.submissions.validate` for its shape and type per kind); None
        unless the status is "ok", and None when the files
        were streamed (read, scored and let go:
        :func:`~leaderboard.ingest.submissions.files.list_submissions`).
    digest : bytes or None
        The prediction's digest (:func:`~leaderboard.ingest.submissions.identical.digest`) when
        it was streamed, so identical files are still found; else None.
    """

    team: str
    file: str
    selected: bool | None
    status: str
    reason: str | None
    rows: int | None
    label: str
    prediction: np.ndarray | None = field(default=None, repr=False)
    digest: bytes | None = field(default=None, repr=False)

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
