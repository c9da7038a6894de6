"""The Python API's words: the command line's options named as the keyword arguments that set
them (``--score-col`` -> ``score_col=``), unless the command line itself called the API
(:data:`COMMAND_LINE`), which keeps naming its options. Errors are reworded where the API raises
them (:func:`speaks_python`); the package's other texts (flags, notes, assumptions, page
sentences) where they are made (:func:`said`), since their sentences carry user data too.
"""
from __future__ import annotations

import contextvars
import functools
import re

from leaderboard.errors import InputError
from leaderboard.params import LIMITS, PARAMETERS, Choice, Choices, Either, Optional

# The API's inputs, which the table does not check (a path or a DataFrame): --items -> items=
_INPUT_ARGUMENTS = frozenset({"items", "solution", "submissions", "battles", "public_scores",
                              "baseline", "candidate"})
# The command line's options that are no keyword argument: what the API has in their place
_IN_PLACE = {"json": "to_json()", "csv": "to_csv()", "markdown": "to_markdown()",
             "name_col": "name_col=", "lower_is_better": "higher_is_better=False",
             "from": "leaderboard.plan_from()"}
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

    An option that is no keyword argument is named by what the API has in its place:

    >>> python_words("the whole table is in the CSV (`--csv`) and the JSON (`--json`)")
    'the whole table is in the CSV (`to_csv()`) and the JSON (`to_json()`)'

    A word the option takes is its value, quoted, whether the option takes one word, several or
    a word or a number:

    >>> python_words("(--exclude-flagged junk sets them aside; --correlation auto estimates it)")
    "(exclude_flagged='junk' sets them aside; correlation='auto' estimates it)"
    >>> python_words("over the cap of 10; raise it with --max-rows if the file is genuine")
    'over the cap of 10; raise it with leaderboard.limits.Limits(max_rows=) if the file is genuine'
    """
    def one(match: re.Match) -> str:
        name, value = match[1].replace("-", "_"), match[2]
        if name == "help":
            return "help(leaderboard)" + (f" {value}" if value else "")
        if name in _IN_PLACE:
            return _IN_PLACE[name] + (f" {value}" if value else "")
        if name in LIMITS:
            return f"leaderboard.limits.Limits({name}=)" + (f" {value}" if value else "")
        if name not in PARAMETERS and name not in _INPUT_ARGUMENTS:
            return match[0]
        if value is None:
            return f"{name}="
        if value.startswith("'") or value[0].isdigit() or value[0] == "-":
            return f"{name}={value}"
        if value in _words_of(PARAMETERS.get(name)):
            return f"{name}={value!r}"
        return f"{name}= {value}"   # a word of the sentence, not the option's value

    return _OPTION.sub(one, message.replace("(--help lists every metric)",
                                            "(leaderboard.metrics.metric_names() lists every "
                                            "metric)"))


def _words_of(spec: object) -> tuple[str, ...]:
    """The words a parameter takes (``--split public``, ``--exclude-flagged junk``,
    ``--correlation auto``): its choices, as one, several or one of its alternatives."""
    if isinstance(spec, Optional):
        return _words_of(spec.inner)
    if isinstance(spec, Choice):
        return spec.options()
    if isinstance(spec, Choices):
        return spec.choice.options()
    if isinstance(spec, Either):
        return tuple(word for option in spec.options for word in _words_of(option))
    return ()


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


def said(text: str) -> str:
    """The package's own words in the words of the interface in use: the command line's options
    while it runs (:data:`COMMAND_LINE`), else the keyword arguments that set them
    (:func:`python_words`). Called where a flag, note, assumption or page sentence is made, on
    the package's text alone, never on a sentence that holds user data (a team named
    ``--score-col`` keeps its name); the result keeps the words it was made with (a Python
    result saved later still names keyword arguments).

    Examples
    --------
    >>> said("(--exclude-flagged perfect sets it aside)")
    "(exclude_flagged='perfect' sets it aside)"
    >>> token = COMMAND_LINE.set(True)
    >>> said("(--exclude-flagged perfect sets it aside)")
    '(--exclude-flagged perfect sets it aside)'
    >>> COMMAND_LINE.reset(token)
    """
    return text if COMMAND_LINE.get() else python_words(text)


def said_with(option: str, shown: str, quoted: str | None = None) -> str:
    """An option with a value from the data (a column's name), in the words of the interface in
    use: ``--cluster-col passage`` (``shown``) or ``cluster_col='passage'`` (``quoted``, a
    Python literal; by default ``shown``); the value is never reworded.

    Examples
    --------
    >>> said_with("--cluster-col", "--passage", "'--passage'")
    "cluster_col='--passage'"
    """
    name = said(option)
    return f"{name}{shown if quoted is None else quoted}" if name.endswith("=") else \
        f"{name} {shown}"
