"""The one exception type that the command line turns into a one-line message and exit status 2."""
from __future__ import annotations


class InputError(ValueError):
    """Bad input from the user: a file, a row, a column or an option.

    Parameters
    ----------
    message : str
        What is wrong, in words a user can act on.
    file, row, column : optional
        Where it is wrong. ``row`` is the 1-based line number in the file, header included,
        which is what a text editor shows.
    """

    def __init__(self, message: str, *, file: str | None = None, row: int | None = None,
                 column: str | None = None) -> None:
        self.message = message
        self.file = file
        self.row = row
        self.column = column
        super().__init__(str(self))

    def __str__(self) -> str:
        where = []
        if self.file is not None:
            where.append(str(self.file) + (f":{self.row}" if self.row is not None else ""))
        elif self.row is not None:
            where.append(f"line {self.row}")
        if self.column is not None:
            where.append(f"column {self.column!r}")
        return (": ".join(where) + ": " if where else "") + self.message
