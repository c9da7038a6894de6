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
# A board of scores above SCORES_SMALL entries (issue 41, benchmarks/bench_memory_model.py):
# its peak is the process's start and its table (SCORES_BASE), what each entry costs until the
# JSON is written (SCORES_PER_ENTRY: 2.3 kB measured at 1,000,000 entries, the JSON's +1.3 GB
# included) and what each draw costs (SCORES_PER_CELL: the float32 errors, 4 bytes, beside the
# rank sets' block layout, 1.25, and its build; 5.4 bytes measured at 100,000 x 2,000). Smaller
# boards take the numpy paths, whose float64 blocks cost more per draw: 19 bytes measured at 40
# entries x 200,000 replicates (40 x 10 million had passed 4.4 GB when stopped, issue 29).
SCORES_SMALL = 160
SCORES_BASE = 450 * 2 ** 20
SCORES_PER_ENTRY = 2560
SCORES_PER_CELL = 6
SCORES_SMALL_PER_CELL = 24
# Runs estimated under this are never refused for the machine's free memory (check_scores)
MACHINE_CHECK_FLOOR = 2 ** 30
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
        :data:`BYTES_PER_REPLICATE_ENTRY`; a board of scores is :meth:`check_scores`).

        Examples
        --------
        >>> Limits().check_replicates(2000, 40)
        >>> Limits().check_replicates(10_000_000, 40)  # doctest: +NORMALIZE_WHITESPACE
        Traceback (most recent call last):
        ...
        leaderboard.errors.InputError: 10,000,000 replicates of 40 entries would take about 186.3G of memory,
        over the cap of 4G; lower --replicates, or raise --max-memory
        """
        self.check_memory(replicates * max(entries, 1) * per_cell,
                          f"{replicates:,} replicates of {entries:,} entries",
                          "lower --replicates")

    def check_scores(self, replicates: int, entries: int) -> None:
        """Refuse a board of scores whose run would not fit: its :func:`scores_memory` over
        ``max_memory``, or over what the machine has free (:func:`machine_memory`), said with
        how many replicates would fit, before anything is drawn.

        Examples
        --------
        >>> Limits().check_scores(2000, 100_000)   # a 100k board runs (about 1.8G)
        >>> Limits().check_scores(2000, 1_000_000)  # doctest: +NORMALIZE_WHITESPACE
        Traceback (most recent call last):
        ...
        leaderboard.errors.InputError: 2,000 replicates of 1,000,000 entries would take about 14G of
        memory, over the cap of 4G; lower --replicates (at most 210 fit), or raise --max-memory
        """
        needed = scores_memory(entries, replicates)
        what = f"{replicates:,} replicates of {entries:,} entries"
        self.check_memory(needed, what,
                          f"lower --replicates{_fit(entries, replicates, self.max_memory)}")
        free = machine_memory()
        # a guess against a guess: never refuse a run the estimate puts under 1G (the estimate
        # is 2x the example's measured peak, and a small container must still run small boards)
        if free is not None and needed > max(free, MACHINE_CHECK_FLOOR):
            raise InputError(f"{what} would take about {format_size(needed)} of memory, more "
                             f"than the {format_size(free)} this machine has free for it; lower "
                             f"--replicates{_fit(entries, replicates, free)}")


def scores_memory(entries: int, replicates: int) -> int:
    """Estimated peak memory (bytes) of the analysis of a board of scores: ``entries`` drawn
    ``replicates`` times (the rank replicates, their block layout and the page).

    Measured against the process's peak RSS by ``benchmarks/bench_memory_model.py`` (the
    estimate stays above it; see docs/benchmarks.md). Linear in entries x replicates: the
    rank sets read every draw, so the float32 draws are held whole (4 bytes each).

    Examples
    --------
    >>> round(scores_memory(100_000, 2000) / 2 ** 30, 2)
    1.8
    """
    fixed, per_replicate = _scores_terms(entries)
    return fixed + max(int(replicates), 1) * per_replicate


def _scores_terms(entries: int) -> tuple[int, int]:
    """:func:`scores_memory`'s bytes whatever the replicates, and per replicate."""
    entries = max(int(entries), 1)
    per_cell = SCORES_PER_CELL if entries > SCORES_SMALL else SCORES_SMALL_PER_CELL
    return SCORES_BASE + entries * SCORES_PER_ENTRY, entries * per_cell


def _fit(entries: int, replicates: int, budget: int) -> str:
    """`` (at most N fit)``: the most replicates within ``budget`` bytes when fewer than asked;
    `` (none fit: fewer entries)`` when not even one does."""
    fixed, per_replicate = _scores_terms(entries)
    most = (budget - fixed) // per_replicate
    if most < 1:
        return " (none fit: this board needs fewer entries)"
    return f" (at most {most:,} fit)" if most < replicates else ""


def machine_memory() -> int | None:
    """Bytes this process could reach, all told: its resident memory now plus the least of
    what the system has available (``MemAvailable``), its cgroup's limit less its use (cgroup
    v2 or v1), and its address-space limit (``ulimit -v``) less its mapped size. None where none
    is known (not Linux).

    Examples
    --------
    >>> free = machine_memory()
    >>> free is None or free > 0
    True
    """
    import resource
    from pathlib import Path

    def field(path: str, key: str) -> int | None:
        try:
            for line in Path(path).read_text().splitlines():
                if line.startswith(key):
                    return int(line.split()[1]) * 1024
        except (OSError, ValueError, IndexError):
            return None
        return None

    available = field("/proc/meminfo", "MemAvailable:")
    rss, size = field("/proc/self/status", "VmRSS:"), field("/proc/self/status", "VmSize:")
    if available is None or rss is None or size is None:
        return None
    room = [available]
    soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    if soft != resource.RLIM_INFINITY:
        room.append(soft - size)
    # the cgroup the process sees as its own (v2, then v1); no limit reads "max" or about 2^63
    for cap_file, used_file in (("memory.max", "memory.current"),
                                ("memory/memory.limit_in_bytes", "memory/memory.usage_in_bytes")):
        try:
            cap = Path("/sys/fs/cgroup", cap_file).read_text().strip()
            used = Path("/sys/fs/cgroup", used_file).read_text().strip()
            if cap != "max" and int(cap) < 2 ** 60:
                room.append(int(cap) - int(used))
            break
        except (OSError, ValueError):
            continue
    return rss + max(0, min(room))


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
