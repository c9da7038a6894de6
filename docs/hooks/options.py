"""MkDocs hook: every command's option table, generated from the argparse parser at build time.

A page asks for a command's table with the line ``<!-- options: COMMAND -->`` (``analyze``,
``choose``, ...) and for the top-level options with ``<!-- options: leaderboard -->``. The table
is built from ``leaderboard.cli.build_parser()`` itself (option strings, argument, default,
choices, help text with ``%(default)s`` expanded), so the manual cannot drift from the command
line: a new option appears on the next build, a renamed one disappears. A marker naming no
command fails the build.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[2])

MARKER = re.compile(r"^<!-- options: ([a-z_-]+) -->$", re.MULTILINE)


def _cell(text: str) -> str:
    """One Markdown table cell: one line, pipes escaped, angle brackets as entities."""
    text = " ".join(str(text).split())
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace("|", "\\|"))


def _argument(action: argparse.Action, formatter: argparse.HelpFormatter) -> str:
    if action.nargs == 0:
        return ""
    if action.choices is not None and action.metavar is None:
        return "{" + ", ".join(str(c) for c in action.choices) + "}"
    return formatter._format_args(action, formatter._get_default_metavar_for_optional(action))


def _default(action: argparse.Action) -> str:
    default = action.default
    if default is None or default is argparse.SUPPRESS or action.nargs == 0:
        return ""
    return f"`{default}`"


def option_table(parser: argparse.ArgumentParser) -> str:
    """The parser's options as Markdown: its usage, then one table per argument group."""
    formatter = parser._get_formatter()
    usage = parser.format_usage().strip().removeprefix("usage: ")
    out = [f"```text\n{usage}\n```", ""]
    for group in parser._action_groups:
        actions = [a for a in group._group_actions
                   if a.help != argparse.SUPPRESS and not isinstance(a, argparse._HelpAction)
                   and not isinstance(a, argparse._SubParsersAction)]
        if not actions:
            continue
        out += [f"**{_cell(group.title)}**", ""]
        if group.description:
            out += [_cell(group.description), ""]
        out += ["| option | argument | default | what it does |", "| --- | --- | --- | --- |"]
        for action in actions:
            names = ", ".join(f"`{s}`" for s in action.option_strings) or f"`{action.dest}`"
            help_text = formatter._expand_help(action) if action.help else ""
            out.append(f"| {names} | {_cell(_argument(action, formatter))} | "
                       f"{_cell(_default(action))} | {_cell(help_text)} |")
        out.append("")
    return "\n".join(out)


def _parsers() -> dict[str, argparse.ArgumentParser]:
    # The checkout's own parser, installed or not (`mkdocs serve` from a clone); here, not at
    # import: the build may change sys.path between loading the hook and calling it.
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    from leaderboard.cli import build_parser

    top = build_parser()
    found = {"leaderboard": top}
    for action in top._actions:
        if isinstance(action, argparse._SubParsersAction):
            found.update(action.choices)
    return found


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ARG001 - MkDocs' hook
    if "<!-- options:" not in markdown:
        return markdown
    parsers = _parsers()

    def table(match: re.Match) -> str:
        name = match.group(1)
        if name not in parsers:
            raise ValueError(f"{page.file.src_path}: no command {name!r} "
                             f"(the parser has {', '.join(sorted(parsers))})")
        return option_table(parsers[name])

    return MARKER.sub(table, markdown)
