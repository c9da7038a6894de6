"""The command line's option types: every value checked where it is parsed, with the bounds
and words of the parameter table (:mod:`leaderboard.params`), and the options of table
parameters built from it (:func:`add_parameter`: default, help and type in one place).
:mod:`leaderboard.cli.common` re-exports them for every command."""
from __future__ import annotations

import argparse
import math
from collections.abc import Callable

from leaderboard import params
from leaderboard.constraints import Constraint
from leaderboard.ingest.safe_read import parse_size
from leaderboard.params import PARAMETERS, Choice, Interval, Optional
from leaderboard.params import option as table_option


def count(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number in ``[low, high]``, else a one-line error.

    Examples
    --------
    >>> count(0, 9)("7")
    7
    >>> count(2, 9)("-1")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be at least 2 and at most 9 (a whole number), got '-1'
    """
    interval = Interval(int, low, high)   # the words and bounds of the API's table

    def parse(text: str) -> int:
        try:
            number = float(text)
        except ValueError:
            raise ValueError(text) from None  # argparse: "invalid int value: 'x'"
        if not math.isfinite(number) or not number.is_integer():
            raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}")
        value = int(text) if text.strip().lstrip("+-").isdigit() else int(number)
        if not interval.contains(value):
            raise argparse.ArgumentTypeError(f"must be {interval.words()}, got {text!r}")
        return value
    parse.__name__ = "int"
    return parse


def real(low: float | None = None, high: float | None = None, *, low_open: bool = False,
         high_open: bool = False) -> Callable[[str], float]:
    """An argparse type: a finite number within the bounds (open or closed), else one line.

    Examples
    --------
    >>> real(0, 1, low_open=True, high_open=True)("0.2")
    0.2
    >>> real(0, 1, low_open=True, high_open=True)("nan")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be strictly between 0 and 1, got 'nan'
    """
    interval = Interval(float, low, high, low_open, high_open)   # as the API's table says it

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not interval.contains(value):
            raise argparse.ArgumentTypeError(f"must be {interval.words()}, got {text!r}")
        return value
    parse.__name__ = "number"
    return parse


def number_list(item: Callable[[str], object], percent: bool = False) -> Callable[[str], str]:
    """An argparse type: a comma-separated list whose every item passes ``item`` (a type above);
    the text is kept as given (commands parse it again to build their cases)."""
    def parse(text: str) -> str:
        parts = [p.strip() for p in text.split(",")]
        if not parts or not all(parts):
            raise argparse.ArgumentTypeError(f"give comma-separated values, got {text!r}")
        for part in parts:
            value = str(float(part[:-1]) / 100) if percent and part.endswith("%") and \
                _is_float(part[:-1]) else part
            try:
                item(value)
            except argparse.ArgumentTypeError as err:
                words = str(err).split(", got")[0]
                raise argparse.ArgumentTypeError(words if words.startswith("'") else
                                                 f"{part!r} {words}") from None
            except ValueError:
                raise argparse.ArgumentTypeError(f"{part!r} is not a number") from None
        return text
    parse.__name__ = "list"
    return parse


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def size(text: str) -> int:
    """An argparse type: a file size such as ``500M`` or ``2G``, from 1K to 1T."""
    try:
        value = parse_size(text)
    except ValueError:
        value = -1
    if not 2 ** 10 <= value <= 2 ** 40:
        raise argparse.ArgumentTypeError(f"must be a size from 1K to 1T such as 500M or 2G, got "
                                         f"{text!r}")
    return value


def parsed_as(constraint: str | Constraint) -> Callable[[str], int | float]:
    """The argparse type of a parameter of the table (its name) or of a number's constraint:
    the bounds the Python API checks are the ones parsed, worded alike.

    Examples
    --------
    >>> parsed_as("classes")("3")
    3
    >>> parsed_as("spread")("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be above 0 and at most 1000, got '0'
    """
    interval = PARAMETERS[constraint] if isinstance(constraint, str) else constraint
    while not isinstance(interval, Interval):   # Optional(...), Several(...): the number's own
        interval = getattr(interval, "inner", None) or interval.item  # type: ignore[attr-defined]
    if interval.kind is int:   # every whole number of the table has both bounds
        return count(int(interval.low or 0), int(interval.high or 0))
    return real(interval.low, interval.high, low_open=interval.low_open,
                high_open=interval.high_open)


ROWS = parsed_as("n_test")
FRACTION = parsed_as(params.FRACTION)
CORRELATION = parsed_as(params.CORRELATION)


def add_parameter(parser, name: str, command: str | None = None, *, short: str | None = None,
                  **given) -> None:
    """``--name`` (underscores as dashes) with the default and help the parameter table gives
    ``command`` (:func:`leaderboard.params.option`), and its type (or choices) from the
    parameter's constraint: the bounds the Python API checks are the ones parsed here. ``given``:
    argparse's other keywords, or a type of the command's own (``choose``'s ``--draws`` starts at
    1,000); ``short``: a one-letter form too (``-o``). An option of the command line alone
    (``output``) has a default and help in the table but no constraint.

    Examples
    --------
    >>> from leaderboard.cli.common import Parser
    >>> parser = Parser(prog="leaderboard plan")
    >>> add_parameter(parser, "alpha", "plan")
    >>> parser.parse_args([]).alpha, parser.format_help().split("--alpha ALPHA")[-1].split()
    (0.05, ['two-sided', 'test', 'level', '(default', '0.05)'])
    >>> parser.parse_args(["--alpha", "1"])
    Traceback (most recent call last):
    ...
    SystemExit: 2
    """
    table = table_option(name, command)
    constraint = PARAMETERS.get(name)
    inner = constraint.inner if isinstance(constraint, Optional) else constraint
    if "type" not in given and "choices" not in given:
        if isinstance(inner, Interval):
            given["type"] = parsed_as(inner)
        elif isinstance(inner, Choice):
            given["choices"] = inner.options()
    flags = (short,) if short else ()
    parser.add_argument(*flags, "--" + name.replace("_", "-"), default=table.default,
                        help=table.help, **given)
