"""The kinds of constraint a parameter can have (:data:`leaderboard.params.PARAMETERS` holds
which parameter has which): a number within an interval, one of a set of strings, a flag, a list
of numbers, ... Each checks a value and returns it normalised (numpy scalars become Python
numbers, so they never reach the JSON), or raises :class:`Invalid` with the words after the
parameter's name. Nothing heavy is imported: choices that live in the pipeline are named as
``"module:attribute"`` and looked up only when a value is checked.
"""
from __future__ import annotations

import importlib
import math
import numbers
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, cast


class Constraint(Protocol):
    """What every kind below is: a check that returns the value normalised, or raises
    :class:`Invalid`."""

    def check(self, value: object) -> Any:
        """``value`` normalised, or :class:`Invalid` saying why not."""


class Invalid(Exception):
    """A value outside its constraint; ``str(error)`` is the words after the parameter's name."""


@dataclass(frozen=True)
class Interval:
    """A number of ``kind`` (int or float) within ``[low, high]``, each end closed unless open.

    Examples
    --------
    >>> import numpy as np
    >>> Interval(float, 0, 1, low_open=True, high_open=True).check(np.float64(0.2))
    0.2
    >>> Interval(int, 2, 9).words()
    'at least 2 and at most 9 (a whole number)'
    """

    kind: type
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False

    def words(self) -> str:
        """What the interval accepts, as the range errors say it."""
        if self.kind is int:
            return f"at least {self.low} and at most {self.high} (a whole number)"
        if self.low is not None and self.high is not None and self.low_open and self.high_open:
            return f"strictly between {self.low:g} and {self.high:g}"
        if self.low == 0 and self.low_open and self.high is None:
            return "positive"
        parts = ([f"above {self.low:g}" if self.low_open else f"at least {self.low:g}"]
                 if self.low is not None else []) + (
            [f"below {self.high:g}" if self.high_open else f"at most {self.high:g}"]
            if self.high is not None else [])
        return " and ".join(parts) or "a finite number"

    def contains(self, value: float) -> bool:
        """Whether a finite ``value`` lies within the bounds."""
        ok = math.isfinite(value)
        if ok and self.low is not None:
            ok = value > self.low if self.low_open else value >= self.low
        if ok and self.high is not None:
            ok = value < self.high if self.high_open else value <= self.high
        return ok

    def check(self, value: object) -> int | float:
        if isinstance(value, (bool, str)) or not isinstance(value, numbers.Real) or (
                self.kind is int and not isinstance(value, numbers.Integral)):
            raise Invalid(f"must be {'a whole number' if self.kind is int else 'a number'}, got "
                          f"{_quoted_number(value)}")
        number = self.kind(value)
        if not self.contains(number):
            raise Invalid(f"must be {self.words()}, got {_shown(value)}")
        return number


@dataclass(frozen=True)
class Choice:
    """One of a fixed set of strings; ``source`` names them as ``"module:attribute"`` (looked up
    when checked, so this table imports nothing heavy) or lists them."""

    source: str | tuple[str, ...]

    def options(self) -> tuple[str, ...]:
        if isinstance(self.source, tuple):
            return self.source
        module, name = self.source.split(":")
        return tuple(getattr(importlib.import_module(module), name))

    def check(self, value: object) -> str:
        options = self.options()
        if not isinstance(value, str) or value not in options:
            raise Invalid(f"must be one of {', '.join(map(repr, options))}, got {value!r}")
        return value


@dataclass(frozen=True)
class Text:
    """A string (a column name, an address)."""

    def check(self, value: object) -> str:
        if not isinstance(value, str):
            raise Invalid(f"must be a string, got {type(value).__name__}")
        return value


@dataclass(frozen=True)
class Table:
    """A path (text or ``os.PathLike``) or a pandas DataFrame (``published``)."""

    def check(self, value: object):
        import os

        if isinstance(value, (str, os.PathLike)) or hasattr(value, "columns"):
            return value
        raise Invalid(f"must be a path or a pandas DataFrame, got {type(value).__name__}")


@dataclass(frozen=True)
class Texts:
    """A string, or a sequence of strings (repeatable options: ``target_col``, ``pred_col``)."""

    def check(self, value: object) -> tuple[str, ...]:
        values = (value,) if isinstance(value, str) else value
        if not isinstance(values, Sequence) or not values or not all(
                isinstance(v, str) for v in values):
            raise Invalid(f"must be a string or a list of strings, got {value!r}")
        return tuple(values)


@dataclass(frozen=True)
class Choices:
    """Several of a fixed set of strings, each once: a sequence, or comma-separated text
    (``exclude_flagged="perfect,junk"``); none at all is a value.

    Examples
    --------
    >>> Choices(Choice(("perfect", "junk"))).check("junk, perfect,junk")
    ('junk', 'perfect')
    """

    choice: Choice

    def check(self, value: object) -> tuple[str, ...]:
        if isinstance(value, str):
            value = [word.strip() for word in value.split(",") if word.strip()]
        if not isinstance(value, Sequence) or not all(isinstance(v, str) for v in value):
            raise Invalid(f"must be a list of strings, got {value!r}")
        return tuple(dict.fromkeys(self.choice.check(v) for v in value))


@dataclass(frozen=True)
class Flag:
    """True or False (numpy's bool too)."""

    def check(self, value: object) -> bool:
        if not isinstance(value, (bool, _np_bool())):
            raise Invalid(f"must be True or False, got {value!r}")
        return bool(value)


@dataclass(frozen=True)
class Several:
    """Numbers within ``item``: a sequence, an array, one number, or comma-separated text
    (``top_k="10,50"``, ``class_shares="0.5,0.3,0.2"``).

    Examples
    --------
    >>> Several(Interval(int, 1, 9)).check("3,5"), Several(Interval(float, 0, 1)).check(0.5)
    ((3, 5), (0.5,))
    """

    item: Interval
    empty: bool = False   # whether no numbers at all is a value (top_k: no more lines)

    def check(self, value: object) -> tuple:
        kind = "whole numbers" if self.item.kind is int else "numbers"
        if isinstance(value, str):
            try:
                value = [self.item.kind(part) for part in value.split(",") if part.strip()]
            except ValueError:
                raise Invalid(f"must be {kind} separated by commas, got {value!r}") from None
        elif isinstance(value, numbers.Real) and not isinstance(value, bool):
            value = [value]
        elif hasattr(value, "__array__"):   # a numpy array: its items, checked one by one
            value = list(cast(Iterable[object], value))
        if not isinstance(value, Sequence) or not (value or self.empty):
            raise Invalid(f"must be a list of {kind}, got {value!r}")
        return tuple(self.item.check(v) for v in value)


@dataclass(frozen=True)
class Either:
    """The first of ``options`` the value satisfies (``correlation``: ``"auto"`` or a number)."""

    options: tuple[Constraint, ...]

    def check(self, value: object) -> Any:
        reasons = []
        for option in self.options:
            try:
                return option.check(value)
            except Invalid as error:
                reasons.append(str(error).split(", got")[0].removeprefix("must be "))
        raise Invalid(f"must be {' or '.join(reasons)}, got {_shown(value)}")


@dataclass(frozen=True)
class Optional:
    """None, or a value of ``inner``."""

    inner: Constraint

    def check(self, value: object) -> Any:
        return None if value is None else self.inner.check(value)


def _quoted_number(value: object) -> str:
    """A wrong value as the range errors quote it; a number written as text is said to be one.

    Examples
    --------
    >>> _quoted_number("2100"), _quoted_number("lots"), _quoted_number(2.5)
    ("the text '2100' (write the number without quotes: 2100)", "'lots'", '2.5')
    """
    if isinstance(value, str):
        try:
            float(value)
        except ValueError:
            return repr(value)
        return f"the text {value!r} (write the number without quotes: {value.strip()})"
    return repr(value)


def _shown(value: object) -> str:
    """A value as the range errors quote it (numpy scalars as plain numbers)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return str(int(value))
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return repr(float(value))
    return repr(value)


def _np_bool() -> type:
    import numpy as np   # numpy is always loaded by then; imported here to keep the table light

    return np.bool_
