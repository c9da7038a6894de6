"""Caps checked before work: how long a name, how many columns, rows and entries, and how much
memory the replicates may take, each with the option that raises it.

The file-size cap (:mod:`leaderboard.ingest.safe_read`, ``--max-file-size``) bounds what is read; these
bound what reading and resampling would allocate from it: a 256 MB file can hold 100,000 columns,
50 million short rows, a million entries or a 60 MB name, and ``--replicates 10000000`` on 40
entries would take tens of gigabytes. Each is checked before the work it would cause (from the
header, the line count, a Parquet file's metadata, the number of entries and replicates) and
refused with a one-line :class:`~leaderboard.errors.InputError` naming the option.

The caps in force are a context (:func:`using`): the command line sets them from its options; the
Python API and library calls get :data:`DEFAULT` unless they enter ``using(Limits(...))``.
"""
from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, fields, replace

from leaderboard.errors import InputError
from leaderboard.ingest.safe_read import format_size
# the caps' defaults and bounds are the parameter table's; EXPANSION_FLOOR is said there too
from leaderboard.params import EXPANSION_FLOOR, check, default  # noqa: F401 - safe_read reads it here

# Memory one (replicate, entry) pair costs through scoring, ranks, tiers and P(best): measured
# 457 bytes on the 40-entry submissions example (100,000 replicates: 2.27 GB peak, 2,000: 0.47 GB)
BYTES_PER_REPLICATE_ENTRY = 500
# The same for a board of scores (normal rank replicates, drawn block by block): measured 8.4
# bytes (100,000 entries x 2,000 replicates: 1.68 GB peak), doubled for what that run did not
# keep at once; 40 entries x 10 million replicates had passed 4.4 GB when stopped
BYTES_PER_RANK_CELL = 16
# One (model, item) cell of the per-item matrices: a float64 value and an int64 count
BYTES_PER_ITEM_CELL = 16


@dataclass(frozen=True)
class Limits:
    """The caps in force; every one is an option of ``analyze``, ``compare`` and ``choose``.

    Attributes
    ----------
    max_name_length : int
        Characters of one team or model name (``--max-name-length``).
    max_columns : int
        Columns of one input table (``--max-columns``).
    max_rows : int
        Data rows of one input table: solution, submission, per-item results (``--max-rows``).
    max_entries : int
        Entries of a scores-only leaderboard (``--max-entries``).
    max_memory : int
        Bytes the bootstrap's replicates and the per-item matrices may take (``--max-memory``).
    max_expansion : int
        How many times its compressed size a compressed input (``.gz``, ``.zip``, ``.zst``, an
        Inspect ``.eval``, Parquet's pages) may expand to, at least :data:`EXPANSION_FLOOR`
        (``--max-expansion``). Real files compress 3 to 25 times (the CSVs of
        ../shared/data with xz at its strongest: at most 24; gzip: at most 7.4); a
        decompression bomb 1,000 times (deflate's limit) or more.
    max_models : int
        Models of one arena (battles mode, ``--max-models``): its fit holds models x models
        matrices.
    """

    max_name_length: int = default("max_name_length")
    max_columns: int = default("max_columns")
    max_rows: int = default("max_rows")
    max_entries: int = default("max_entries")
    max_memory: int = default("max_memory")
    max_expansion: int = default("max_expansion")
    max_models: int = default("max_models")

    def __post_init__(self) -> None:
        for f in fields(self):   # checked once, by the table (a cap made in code too)
            object.__setattr__(self, f.name, check(f.name, getattr(self, f.name)))

    def check_columns(self, n: int, source: str) -> None:
        """Refuse a table with more than ``max_columns`` columns (from its header)."""
        if n > self.max_columns:
            raise InputError(f"{n:,} columns, over the cap of {self.max_columns:,}; raise it "
                             "with --max-columns if the file is genuine", file=source, row=1)

    def check_rows(self, n: int, source: str, *, entries: bool = False) -> None:
        """Refuse a table of more than ``max_rows`` data rows (``max_entries`` for a board)."""
        cap, option, what = ((self.max_entries, "--max-entries", "entries") if entries
                             else (self.max_rows, "--max-rows", "rows"))
        if n > cap:
            raise InputError(f"{n:,} {what}, over the cap of {cap:,}; raise it with {option} "
                             "if the file is genuine", file=source)

    def check_names(self, names, source: str, column: str, rows=None) -> None:
        """Refuse a name longer than ``max_name_length`` characters, naming its line.

        ``names`` is a pandas Series of text indexed by line (or any sequence, with ``rows``).
        """
        lengths = [len(n) for n in names]
        over = [k for k, n in enumerate(lengths) if n > self.max_name_length]
        if over:
            lines = list(rows if rows is not None else getattr(names, "index", []))
            row = int(lines[over[0]]) if lines else None
            raise InputError(f"a name of {lengths[over[0]]:,} characters, over the cap of "
                             f"{self.max_name_length:,}; raise it with --max-name-length",
                             file=source, row=row, column=column)

    def check_memory(self, needed: int, what: str, lower: str) -> None:
        """Refuse work whose memory estimate ``needed`` (bytes) is over ``max_memory``."""
        if needed > self.max_memory:
            raise InputError(f"{what} would take about {format_size(needed)} of memory, over "
                             f"the cap of {format_size(self.max_memory)}; {lower}, or raise "
                             "--max-memory")

    def check_replicates(self, replicates: int, entries: int,
                         per_cell: int = BYTES_PER_REPLICATE_ENTRY) -> None:
        """Refuse replicates that would not fit in ``max_memory``: a bootstrap's (``per_cell``
        :data:`BYTES_PER_REPLICATE_ENTRY`) or a board of scores' rank draws
        (:data:`BYTES_PER_RANK_CELL`).

        Examples
        --------
        >>> Limits().check_replicates(2000, 40)
        >>> Limits().check_replicates(2000, 100_000, BYTES_PER_RANK_CELL)   # a 100k board runs
        >>> Limits().check_replicates(10_000_000, 40)  # doctest: +NORMALIZE_WHITESPACE
        Traceback (most recent call last):
        ...
        leaderboard.errors.InputError: 10,000,000 replicates of 40 entries would take about 186.3G of memory,
        over the cap of 4G; lower --replicates, or raise --max-memory
        """
        self.check_memory(replicates * max(entries, 1) * per_cell,
                          f"{replicates:,} replicates of {entries:,} entries",
                          "lower --replicates")


DEFAULT = Limits()
_CURRENT: contextvars.ContextVar[Limits] = contextvars.ContextVar("limits", default=DEFAULT)


def current() -> Limits:
    """The caps in force here (:data:`DEFAULT` outside :func:`using`)."""
    return _CURRENT.get()


@contextmanager
def using(limits: Limits) -> Iterator[Limits]:
    """Make ``limits`` the caps in force inside the ``with`` block.

    Examples
    --------
    >>> with using(Limits(max_rows=10)):
    ...     current().max_rows
    10
    >>> current().max_rows == DEFAULT.max_rows
    True
    """
    token = _CURRENT.set(limits)
    try:
        yield limits
    finally:
        _CURRENT.reset(token)


def from_args(args) -> Limits:
    """The caps an ``argparse`` namespace gives (its ``max_*`` options; the rest default)."""
    given = {f.name: getattr(args, f.name) for f in fields(Limits)
             if getattr(args, f.name, None) is not None}
    return replace(DEFAULT, **given)
