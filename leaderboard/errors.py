"""The one exception type that the command line turns into a one-line message and exit status 2,
the one sanitiser for text echoed to a terminal, and the note of which input is being read (so an
unexpected error can name it).
"""
from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from contextlib import contextmanager

# Attribute set on an unexpected exception: the innermost input being read when it was raised.
INPUT_ATTRIBUTE = "leaderboard_input"


def printable(text: object) -> str:
    """``text`` made safe to echo on a terminal, on one line.

    Every character that is not printable (control characters such as ESC and newlines, and the
    invisible format characters, bidi overrides among them) becomes ``?``, so untrusted names,
    paths and column headers cannot move the cursor, recolour the terminal, reorder what follows or
    start a new line. This is the only sanitiser: every echoed string goes through it.

    Examples
    --------
    >>> printable("team\\x1b[31m")
    'team?[31m'
    >>> printable("a\\nb\\u202ec")
    'a?b?c'
    """
    return "".join(ch if ch.isprintable() else "?" for ch in str(text))


class FrameSource(str):
    """The name of a table handed over in memory (``"DataFrame 'data'"``), standing where a path
    would. :class:`InputError` words a place in it as the user knows it: the readers number a
    table's CSV text by physical line (the header is line 1), and ``row`` becomes the DataFrame's
    position (``iloc``), as does every ``line N`` of the message.

    ``lines`` is the line each record starts on when a cell holds a line break (pandas writes it
    inside quotes, so the records after it start lines further down); None when every record is
    one line (record ``i`` on line ``i + 2``).

    Examples
    --------
    >>> str(InputError("not a number (line 5)", file=FrameSource.named("data"), row=5,
    ...                column="score"))
    "DataFrame 'data', row 3, column 'score': not a number (row 3)"
    >>> spans = FrameSource.named("data", lines=[2, 4, 5])   # row 0's cell holds a line break
    >>> str(InputError("bad values (lines 4 and 5)", file=spans, row=5))
    "DataFrame 'data', row 2: bad values (rows 1 and 2)"
    >>> str(InputError("column 'x' is written twice", file=spans, row=1))   # the header: no row
    "DataFrame 'data': column 'x' is written twice"
    """

    lines: tuple[int, ...] | None = None

    @classmethod
    def named(cls, name: str, lines=None) -> FrameSource:
        source = cls(f"DataFrame {name!r}")
        source.lines = None if lines is None else tuple(int(line) for line in lines)
        return source

    def with_lines(self, lines) -> FrameSource:
        """The same name with the records' first lines (None: one line each)."""
        source = type(self)(self)
        source.lines = None if lines is None else tuple(int(line) for line in lines)
        return source

    def row(self, line: int) -> int:
        """The DataFrame position of the record on physical ``line`` of its CSV text."""
        if self.lines is None:
            return line - 2
        return max(bisect.bisect_right(self.lines, line) - 1, 0)

    def reworded(self, message: str) -> str:
        """``message`` with every ``line N`` (``lines N, M and K``) as DataFrame rows, and the
        columns "in the file" as the DataFrame's."""
        def rows(match: re.Match) -> str:
            numbers = _NUMBER.sub(lambda n: str(self.row(int(n[0]))), match[2])
            return ("rows " if match[1] == "lines" else "row ") + numbers

        return _LINES.sub(rows, message).replace("columns in the file:",
                                                 "columns in the DataFrame:")


_LINES = re.compile(r"\b(lines?) (\d+(?:(?:, | and )\d+)*)")
_NUMBER = re.compile(r"\d+")


class InputError(ValueError):
    """Bad input from the user: a file, a row, a column or an option.

    ``str(error)`` is one printable line (see :func:`printable`): untrusted parts of the message
    (paths, column names, quoted values) cannot reach the terminal raw.

    Parameters
    ----------
    message : str
        What is wrong, in words a user can act on.
    file, row, column : optional
        Where it is wrong. ``row`` is the 1-based line number in the file, header included,
        which is what a text editor shows.

    Examples
    --------
    >>> str(InputError("not a number", file="board.csv", row=3, column="score\\x1b"))
    "board.csv:3: column 'score\\\\x1b': not a number"
    """

    def __init__(self, message: str, *, file: str | None = None, row: int | None = None,
                 column: str | None = None) -> None:
        self.message = message
        self.file = file
        self.row = row
        self.column = column
        super().__init__(str(self))

    def __str__(self) -> str:
        if isinstance(self.file, FrameSource):   # rows as positions, the header not counted
            place = [str(self.file)] + (   # line 1, the header: the column names, no row
                [f"row {self.file.row(self.row)}"] if self.row is not None and self.row > 1
                else []) + (
                [f"column {self.column!r}"] if self.column is not None else [])
            return printable(", ".join(place) + ": " + self.file.reworded(self.message))
        where = []
        if self.file is not None:
            where.append(str(self.file) + (f":{self.row}" if self.row is not None else ""))
        elif self.row is not None:
            where.append(f"line {self.row}")
        if self.column is not None:
            where.append(f"column {self.column!r}")
        return printable((": ".join(where) + ": " if where else "") + self.message)


@contextmanager
def processing(what: str) -> Iterator[None]:
    """Mark ``what`` (a path, or "path: member") as the input being read.

    An unexpected exception raised inside gets the innermost such name as its
    ``leaderboard_input`` attribute, which the command line's guard names in its one-line message.
    :class:`InputError` already names its file and is left alone.

    Examples
    --------
    >>> try:
    ...     with processing("subs.zip"), processing("subs.zip: a.csv"):
    ...         raise KeyError("x")
    ... except KeyError as error:
    ...     getattr(error, INPUT_ATTRIBUTE)
    'subs.zip: a.csv'
    """
    try:
        yield
    except InputError:
        raise
    except Exception as error:
        if not hasattr(error, INPUT_ATTRIBUTE):
            try:
                setattr(error, INPUT_ATTRIBUTE, what)
            except AttributeError:  # exceptions with __slots__: name the input some other way
                pass
        raise
