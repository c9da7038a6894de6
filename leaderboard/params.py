"""Every parameter's constraint in one table, and the one function that checks a value against it.

In the spirit of scikit-learn's ``_param_validation``: a parameter is declared once, by name, with
what it accepts (:data:`PARAMETERS`); the Python API, the options objects of
:mod:`leaderboard.options` and the pipelines' settings all check through :func:`check`, and the
command line's option types (:mod:`leaderboard.cli.common`) word their range errors with the same
:class:`Interval`. Numpy scalars are accepted wherever a Python number is (``y.mean()`` is a
``np.float64``) and come back as Python ``int``/``float``/``bool``, so they never reach the JSON.

This module imports nothing heavy: choices that live in the pipeline (the tier methods, the
universes) are named as ``"module:attribute"`` and looked up only when a value is checked.
"""
from __future__ import annotations

import importlib
import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass

from leaderboard.errors import InputError

N_MAX = 10 ** 9        # test rows: more than any test set, and far below a C long
SEED_MAX = 2 ** 32 - 1  # every seed numpy and numba accept
DRAWS_MAX = 10 ** 7     # simulated test sets or replicates: beyond it, memory runs out first


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
            value = list(value)
        if not isinstance(value, Sequence) or not (value or self.empty):
            raise Invalid(f"must be a list of {kind}, got {value!r}")
        return tuple(self.item.check(v) for v in value)


@dataclass(frozen=True)
class Either:
    """The first of ``options`` the value satisfies (``correlation``: ``"auto"`` or a number)."""

    options: tuple

    def check(self, value: object):
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

    inner: object

    def check(self, value: object):
        return None if value is None else self.inner.check(value)


FRACTION = Interval(float, 0, 1, low_open=True, high_open=True)
ROWS = Interval(int, 2, N_MAX)
SEED = Interval(int, 0, SEED_MAX)
DRAWS = Interval(int, 100, DRAWS_MAX)
CORRELATION = Interval(float, 0, 1, high_open=True)
COLUMN = Optional(Text())
TIERS = Choice("leaderboard.tiers.methods:TIER_METHODS")

#: The table: every parameter of the Python API and of the options objects, by name.
PARAMETERS: dict[str, object] = {
    "metric": Optional(Text()),
    "higher_is_better": Optional(Flag()),
    "n_test": Optional(ROWS),
    "prevalence": Optional(FRACTION),
    "n_public": Optional(ROWS),
    "n_private": Optional(ROWS),
    "public_fraction": Optional(FRACTION),
    # plan: the weaker entry's true score, the difference to detect, the chance of detecting it
    "score": Interval(float),
    "delta": Optional(Interval(float, 0, None, low_open=True)),
    "power": FRACTION,
    # simulate: lists of cases (every combination with grid=True)
    "scores": Optional(Several(Interval(float))),
    "n_tests": Optional(Several(ROWS)),
    "prevalences": Optional(Several(FRACTION)),
    "grid": Flag(),
    "two_stage": Flag(),
    "split": Choice(("private", "public")),
    "alpha": FRACTION,
    "draws": DRAWS,
    "replicates": DRAWS,
    "seed": SEED,
    "correlation": Either((Choice(("auto",)), CORRELATION)),
    "resample": Choice("leaderboard.choices:RESAMPLING"),
    "tiers": TIERS,
    "tier_method": TIERS,
    # per-category intervals on the page: each at its own level, or all holding together
    "category_intervals": Choice(("marginal", "simultaneous")),
    "prizes": Interval(int, 1, N_MAX),
    "top_k": Several(Interval(int, 1, N_MAX), empty=True),
    "beta": Optional(Interval(float, 0, 1e6)),
    "costs": Optional(Text()),
    "team_col": COLUMN, "score_col": COLUMN, "public_col": COLUMN, "private_col": COLUMN,
    "id_col": COLUMN, "group_col": COLUMN, "cluster_col": COLUMN, "category_col": COLUMN,
    "harness_filter": COLUMN, "sample_col": COLUMN,
    "items_policy": Choice("leaderboard.choices:ITEMS_POLICIES"),
    "items_format": Choice("leaderboard.choices:ITEMS_FORMATS"),
    "instances": Optional(Text()),
    "missing_instances": Choice("leaderboard.choices:MISSING_INSTANCES"),
    # benchmarks (issue 26): each item's cost, a file of published scores to check
    "cost_col": COLUMN, "published": Optional(Table()),
    "published_col": COLUMN, "published_model_col": COLUMN,
    "target_col": Optional(Texts()), "pred_col": Optional(Texts()),
    "model_col": Text(), "item_col": Text(), "value_col": Text(),
    "max_file_size": Interval(int, 2 ** 10, 2 ** 40),
    "workers": Optional(Interval(int, 1, 1024)),
    "scheduler": Optional(Text()),
    "universe": Optional(Choice("leaderboard.noise.universe_options:UNIVERSE_NAMES")),
    "classes": Optional(Interval(int, 2, 1000)),
    "class_shares": Optional(Several(Interval(float, 0, 1, low_open=True))),
    "residuals": Choice("leaderboard.noise.universe_options:RESIDUALS"),
    "df": Interval(float, 2, 1e6),   # t residuals: MIN_DF (finite universe, issue 25)
    "threshold": FRACTION,
    "spread": Optional(Interval(float, 0, 1e3, low_open=True)),
    "quiet": Flag(),
    "allow_perfect": Flag(),
    "exclude_flagged": Choices(Choice("leaderboard.flags:EXCLUDABLE")),
    # plan --from (issue 40): simulated boards, the k of "the top k separate"
    "boards": Interval(int, 20, 100_000), "separate": Interval(int, 1, N_MAX),
    # battles mode (issue 26)
    "model_a_col": Text(), "model_b_col": Text(), "winner_col": Text(), "judge_col": COLUMN,
    "date_col": COLUMN, "anchor": Optional(Text()),
    "anchor_rating": Interval(float, -1e9, 1e9),
    "disconnected": Choice("leaderboard.choices:DISCONNECTED"),
}


def check(name: str, value: object, *, where: str | None = None):
    """``value`` checked against ``name``'s constraint, normalised (numpy scalars to Python
    numbers, a string of ``target_col`` to a tuple); :class:`InputError` naming the parameter.

    Examples
    --------
    >>> import numpy as np
    >>> check("prevalence", np.float64(0.2))
    0.2
    >>> check("alpha", 1.5)
    Traceback (most recent call last):
    ...
    leaderboard.errors.InputError: alpha= must be strictly between 0 and 1, got 1.5
    """
    try:
        return PARAMETERS[name].check(value)
    except Invalid as error:
        raise InputError(f"{where or name + '='} {error}") from None


def check_all(values: dict) -> dict:
    """Every item of ``values`` checked by :func:`check` (unknown names are a bug: KeyError)."""
    return {name: check(name, value) for name, value in values.items()}


def check_alpha(alpha: float) -> float:
    """The one check of an error rate, for the statistics' own entry points (a ValueError
    subclass, as their callers catch)."""
    return check("alpha", alpha)


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
