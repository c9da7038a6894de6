"""Command line: the commands' parsers in one place, and the entry point with its one guard.

Each command lives in its own module of this package (``analyze``, ``simulate``, ``plan``,
``calibrate``, ``choose``, ``compare``; ``common`` holds what they share). Every
user mistake surfaces as one line on stderr and exit status 2, never a traceback.
"""
from __future__ import annotations

import argparse
import gc
import importlib
import sys
import traceback
import warnings
from collections.abc import Sequence

from leaderboard import __version__, limits
from leaderboard.cli.common import (COMMANDS, Parser, add_debug, compile_notice_once,
                                    internal_error)
from leaderboard.cli.given import GIVEN, given_options
from leaderboard.cli.outputs import check_paths, prints_elsewhere, unencodable_escaped
from leaderboard.errors import InputError
from leaderboard.api_words import COMMAND_LINE
from leaderboard.ingest.safe_read import forget_files_read


def build_parser(parser_class: type[Parser] = Parser, only: str | None = None
                 ) -> argparse.ArgumentParser:
    """Every command's options, defaults and checks (``parser_class``: how errors surface).

    ``only``: the command being run (``""`` when none is); the others are listed with their
    one-line help alone, so that neither their modules nor what those import load (issue 27:
    ``--help`` and a run start fast). None: every command's options (the documentation's option
    tables).
    """
    parser = parser_class(prog="leaderboard", description="Is the winner the best model, or the "
                     "luckiest? Sampling-noise intervals and tiers for competition leaderboards.")
    parser.add_argument("--version", action="version", version=f"leaderboard {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=parser_class)
    for name, line in COMMANDS.items():
        if only is None or name == only:
            _command_module(name).add_parser(commands)
        else:
            commands.add_parser(name, help=line)
    add_debug(parser)
    for command in commands.choices.values():
        add_debug(command)
    return parser


def _command_module(name: str):
    """The module that defines command ``name``'s options and runs it (``run``)."""
    return importlib.import_module(f"leaderboard.cli.{name}")


def _command_named(argv: Sequence[str]) -> str | None:
    """The command ``argv`` runs: its first word that is not an option (the top level's
    options, ``--version``, ``--debug`` and ``--help``, take no value); None without one.

    Examples
    --------
    >>> _command_named(["--debug", "analyze", "board.csv"]), _command_named(["--help"])
    ('analyze', None)
    """
    return next((word for word in argv if not word.startswith("-")), None)


_INPUTS = ("file", "solution", "submissions", "public_scores", "items", "battles", "instances")
_OUTPUTS = (("-o", "output"), ("--json", "json"), ("--csv", "csv"), ("--markdown", "markdown"))
INTERNAL_ERROR = 70  # EX_SOFTWARE: a bug, not a bad input
# Objects allocated between the cyclic collector's youngest-generation passes during a run
# (Python's default is 700). A run's imports and page build create some 200,000 long-lived
# objects, and the default had the collector run ~500 times over them: 0.23 s of CPU on a
# 1,000-entry board against 0.12 s at 5,000 (issue 41). Reference counting still frees every
# array as soon as it is dropped; only garbage caught in cycles waits a little longer.
GC_THRESHOLD = 10_000


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``leaderboard`` command; returns the exit status.

    Bad input: one line on stderr, exit status 2. Anything unexpected: one line naming the input
    being read, exit status 70, and the traceback only with ``--debug``.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    threshold = gc.get_threshold()
    gc.set_threshold(max(threshold[0], GC_THRESHOLD), *threshold[1:])
    try:
        with unencodable_escaped():   # PYTHONIOENCODING=ascii and a name in Greek: never a crash
            return _run(argv)
    finally:
        gc.set_threshold(*threshold)


def entry() -> None:
    """The ``leaderboard`` command (and ``python -m leaderboard``): :func:`main`, then exit
    without the interpreter's last collections. Everything the run made is frozen first
    (:func:`gc.freeze`), so the shutdown's cyclic collections skip it: they took 0.3-0.5 s of
    CPU after a run had written its outputs (issue 41); the memory is the process's to return
    at exit anyway, and every file was closed by the run.
    """
    status = main()
    gc.freeze()
    sys.exit(status)


def _run(argv: list[str]) -> int:
    try:
        parser = build_parser(only=_command_named(argv) or "")
        args = parser.parse_args(argv)
    except SystemExit as stop:  # a one-line usage error (2), or --help and --version (0)
        return stop.code if isinstance(stop.code, int) else 0
    # what the user wrote, told apart from argparse's defaults: an option a mode does not read
    # is refused even at its default value (leaderboard.cli.given)
    setattr(args, GIVEN, given_options(parser, argv))
    debug = getattr(args, "debug", False)
    forget_files_read()   # what this run reads, no output may overwrite (write_output)
    on_command_line = COMMAND_LINE.set(True)   # errors name options, not keyword arguments
    try:
        inputs = [getattr(args, name, None) for name in _INPUTS]
        if args.command == "compare" and args.solution:   # the two entries are files too
            inputs += [args.baseline, args.candidate]
        taken = check_paths([(option, getattr(args, name, None)) for option, name in _OUTPUTS],
                            inputs)
        from leaderboard.provenance import calling, command_line

        with compile_notice_once(getattr(args, "quiet", False)), prints_elsewhere(taken), \
                limits.using(limits.from_args(args)), warnings.catch_warnings(), \
                calling(command_line(argv)):   # the card's provenance names the command
            if not debug:   # numpy's RuntimeWarnings are not for the user (inputs that would
                warnings.simplefilter("ignore", RuntimeWarning)   # overflow are refused first)
            outcome = _command_module(args.command).run(args)
    except InputError as error:
        print(f"leaderboard: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("leaderboard: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the summary piped into `head`: nothing left to say
        return 0
    except Exception as error:  # noqa: BLE001 - the one top-level guard
        if debug:
            traceback.print_exc()
        named = [str(getattr(args, name)) for name in _INPUTS if getattr(args, name, None)]
        print(internal_error(error, named, debug), file=sys.stderr)
        return INTERNAL_ERROR
    finally:
        COMMAND_LINE.reset(on_command_line)
    # a command's own verdict (compare: 1 = not shown better); the others return their results
    return outcome if type(outcome) is int else 0


if __name__ == "__main__":
    entry()
