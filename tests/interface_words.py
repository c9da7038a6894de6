"""The words of the interface in use, for the tests: the command line's options that a text names,
a page's text without its inlined scripts and styles, and a command's JSON in the Python API's
words. Shared by tests/api/test_interface_words.py and the tests that hold the API's JSON to the
command line's (tests/api/test_api.py, tests/api/test_decide.py)."""
from __future__ import annotations

import argparse
import re
from functools import cache

from leaderboard.api_words import python_words

_OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
_INLINED = re.compile(r"<script\b.*?</script>|<style\b.*?</style>", re.S | re.I)


@cache
def cli_options() -> frozenset[str]:
    """Every option of every command of the command line (``--help`` aside: Python's answer is
    ``help()``, and no result names it)."""
    from leaderboard.cli import build_parser

    def walk(parser: argparse.ArgumentParser) -> set[str]:
        found = set()
        for action in parser._actions:
            found |= {s for s in action.option_strings if s.startswith("--")}
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    found |= walk(sub)
        return found

    return frozenset(walk(build_parser()) - {"--help"})


def options_in(text: str, data: tuple[str, ...] = ()) -> list[str]:
    """The command line's options ``text`` names, once each, sorted; ``data``: user data (a
    team's name) that may hold one, taken out first."""
    for name in data:
        text = text.replace(name, "")
    return sorted({m for m in _OPTION.findall(text) if m in cli_options()})


def page_text(html: str) -> str:
    """A page as its reader gets it: without the inlined scripts and styles (the bundled
    libraries hold ``--`` of their own), attributes (titles, labels) kept."""
    return _INLINED.sub("", html)


def in_python_words(value):
    """A command's JSON (parsed) with every text in the Python API's words
    (:func:`leaderboard.api_words.python_words`): what the API's result of the same analysis
    holds, when no name in the data holds an option."""
    if isinstance(value, str):
        return python_words(value)
    if isinstance(value, list):
        return [in_python_words(v) for v in value]
    if isinstance(value, dict):
        return {k: in_python_words(v) for k, v in value.items()}
    return value
