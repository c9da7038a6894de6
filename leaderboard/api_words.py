"""The Python API's words for errors: the command line's options named as the keyword
arguments that set them (``--score-col`` -> ``score_col=``), unless the command line itself
called the API (:data:`COMMAND_LINE`), whose errors keep naming its options.
"""
from __future__ import annotations

import contextvars
import functools
import re

from leaderboard.errors import InputError
from leaderboard.params import LIMITS, PARAMETERS, Choice, Optional

# The API's inputs, which the table does not check (a path or a DataFrame): --items -> items=
_INPUT_ARGUMENTS = frozenset({"items", "solution", "submissions", "battles", "public_scores",
                              "baseline", "candidate"})
_OPTION = re.compile(r"(?<![\w-])--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)(?: ('[^']*'|-?[\d.]+\b|[a-z][\w-]*))?")


def python_words(message: str) -> str:
    """An error's words for the Python API: the command line's options become the keyword
    arguments that set them (``--score-col`` -> ``score_col=``; ``--split public`` ->
    ``split='public'``), as the API has no ``--help``.

    Examples
    --------
    >>> python_words("column 'x' (--score-col) not found; or give --team-col 'rank'")
    "column 'x' (score_col=) not found; or give team_col='rank'"
    >>> python_words("no public rows (--split private), see --help; --no-such stays")
    "no public rows (split='private'), see help(leaderboard); --no-such stays"

    The caps are no keyword of the API's functions: they are set by
    :func:`leaderboard.limits.using`.

    >>> python_words("over the cap of 10; raise it with --max-rows if the file is genuine")
    'over the cap of 10; raise it with leaderboard.limits.Limits(max_rows=) if the file is genuine'
    """
    def one(match: re.Match) -> str:
        name, value = match[1].replace("-", "_"), match[2]
        if name == "help":
            return "help(leaderboard)" + (f" {value}" if value else "")
        if name in LIMITS:
            return f"leaderboard.limits.Limits({name}=)" + (f" {value}" if value else "")
        if name not in PARAMETERS and name not in _INPUT_ARGUMENTS:
            return match[0]
        spec = PARAMETERS.get(name)
        inner = spec.inner if isinstance(spec, Optional) else spec
        if value is None:
            return f"{name}="
        if value.startswith("'") or value[0].isdigit() or value[0] == "-":
            return f"{name}={value}"
        if isinstance(inner, Choice) and value in inner.options():
            return f"{name}={value!r}"
        return f"{name}= {value}"   # a word of the sentence, not the option's value

    return _OPTION.sub(one, message.replace("(--help lists every metric)",
                                            "(leaderboard.metrics.metric_names() lists every "
                                            "metric)"))


#: True while the command line runs (:func:`leaderboard.cli.main`): the API functions it calls
#: then keep its options' names in their errors.
COMMAND_LINE: contextvars.ContextVar[bool] = contextvars.ContextVar("leaderboard_command_line",
                                                                    default=False)


def speaks_python(function):
    """Decorate a function of the Python API: its :class:`InputError` names keyword arguments,
    not the command line's options (:func:`python_words`), unless the command line called it;
    file, row and column are kept."""
    @functools.wraps(function)
    def api(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except InputError as error:
            if COMMAND_LINE.get():
                raise
            reworded = InputError(python_words(error.message), file=error.file, row=error.row,
                                  column=error.column)
            raise reworded.with_traceback(error.__traceback__) from None

    return api
