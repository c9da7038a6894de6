"""Untrusted names and values in one-line messages, and :class:`Rejected`, one file's reason.

Every reader quotes what it read back to the user (a team, a column, a cell): :func:`show` for a
value, :func:`quote` for a column name, :func:`column_list` for a header; shortened and made
printable, so that a message stays one line whatever the file holds.
"""
from __future__ import annotations

import re

from leaderboard.api_words import said_with
from leaderboard.errors import printable

_NAME_LIMIT = 40  # characters of an untrusted name or value quoted in a reason


class Rejected(Exception):
    """A file fails validation; ``str(error)`` is the one-line reason.

    ``rows`` is the number of data rows read, when the file could be read as a table.

    Examples
    --------
    >>> str(Rejected("empty file\\x1b[2J")), Rejected("no id column", rows=3).rows
    ('empty file?[2J', 3)
    """

    def __init__(self, reason: str, rows: int | None = None) -> None:
        super().__init__(printable(reason))  # reasons quote untrusted names and values
        self.rows = rows


def show(text: object) -> str:
    """An untrusted value for a one-line message: bare when plain, else quoted and shortened.

    Examples
    --------
    >>> show("1043"), show("a b"), show("x" * 50)[-6:]
    ('1043', "'a b'", "xx...'")
    """
    text = str(text)
    if re.fullmatch(r"[\w.+-]{1,40}", text, flags=re.ASCII):
        return text
    return repr(text[:_NAME_LIMIT] + "..." if len(text) > _NAME_LIMIT else text)


def quote(name: object) -> str:
    """A column name for a one-line message: always quoted, shortened when long.

    Examples
    --------
    >>> quote("Insult")
    "'Insult'"
    """
    name = " ".join(str(name).split())
    return repr(name[:_NAME_LIMIT] + "..." if len(name) > _NAME_LIMIT else name)


def grouping_words(column: object, groups: int, units: str, related: str = "") -> str:
    """The warning for a column that groups the ``units`` (items, battles) like clusters
    without being declared: ``related`` says what relates them (``" (one prompt, one voter)"``).

    Examples
    --------
    >>> grouping_words("repo", 12, "items")[:56]
    "column 'repo' groups the items into 12 groups; if items "
    """
    name = show(column)
    quoted = name if name.startswith(("'", '"')) else f"'{name}'"
    return (f"column {quoted} groups the {units} into {groups:,} groups; if {units} of a group "
            f"are related{related}, pass {said_with('--cluster-col', name, quoted)}: the "
            "intervals may be too narrow "
            "without it")


def column_list(names: list[str], limit: int = 12) -> str:
    """Column names for a message: one line, at most ``limit`` of them.

    Examples
    --------
    >>> column_list(["id", "Insult\\n", ""]), column_list(list("abcd"), limit=2)
    ("id, Insult, ''", 'a, b, ... (2 more)')
    """
    shown = [printable(" ".join(str(n).split())[:_NAME_LIMIT]) or "''" for n in names[:limit]]
    return ", ".join(shown) + (f", ... ({len(names) - limit} more)" if len(names) > limit else "")
