"""Pieces every command shares: the one-line-error parser, the option types that validate every
value where it is parsed (:mod:`leaderboard.cli.option_types`, re-exported here), the output and
universe options, the terminal echo, and writing an output file."""
from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, NoReturn

from leaderboard.errors import INPUT_ATTRIBUTE, printable
from leaderboard.noise.universe_options import UNIVERSE_NAMES, UniverseOptions
from leaderboard.options import universe_from
from leaderboard.params import CAPS, DRAWS_MAX, N_MAX, SEED_MAX, Interval  # noqa: F401 - the limits
from leaderboard.cli.option_types import (CORRELATION, FRACTION, ROWS, add_parameter,  # noqa: F401
                                          count, number_list, parsed_as, real, size)
from leaderboard.cli.outputs import check_paths, write_output  # noqa: F401 - every command's

if TYPE_CHECKING:
    from leaderboard.progress import Progress

#: Each command's one-line help, in ``leaderboard --help``'s order. The module of the same name
#: in this package defines its options and runs it; ``--help`` and every other command's run list
#: a command from this line alone, without importing its module (issue 27: a fast start).
COMMANDS = {
    "analyze": "analyse a leaderboard file: intervals, d95, tiers, HTML report and JSON",
    "simulate": "simulate test sets from a universe whose true score is known: the spread of "
                "observed scores, d95, and how often the better model wins",
    "plan": "before a competition: the test-set size that tells apart entries a given difference "
            "apart, and the smallest difference a test set resolves",
    "calibrate": "rerun the calibration study (simulated competitions with known truth) and "
                 "write its table",
    "choose": "for a team: which two submissions to select, corrected for the winner's curse, "
              "and how sure that choice is",
    "compare": "CI gate: is the candidate shown better than the baseline? exit 0 yes, 1 no, 2 "
               "bad input",
}


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit status 2, worded like every input
    error: ``leaderboard: error: --seed must be ...``."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"leaderboard: error: {option_message(message, self.prog)}\n")


def option_message(message: str, prog: str) -> str:
    """argparse's message as one printable line, worded like every input error."""
    message = re.sub(r"^argument ([^:]+): must", r"\1 must", message)
    return f"{printable(message)} (see {prog} --help)"


def add_max_file_size(parser: argparse.ArgumentParser, unread: Iterable[str] = ()) -> None:
    """``--max-file-size``: the cap on every input file, on disk and decompressed; and the other
    caps but those the command never reads (``unread``)."""
    add_parameter(parser, "max_file_size", type=size, metavar="SIZE")
    add_limit_options(parser, unread)


def add_limit_options(parser: argparse.ArgumentParser, unread: Iterable[str] = ()) -> None:
    """The caps checked before work (:mod:`leaderboard.limits`), each with its default, bounds
    and help from the parameter table; a cap the command never reads (``unread``: an arena's
    models in a command that reads no battles) is not offered, so argparse refuses it rather
    than the command ignoring it."""
    group = parser.add_argument_group("caps checked before reading or allocating (docs/security.md)")
    for name in CAPS:
        if name not in unread:
            add_parameter(group, name, metavar="N")
    add_parameter(group, "max_memory", type=size, metavar="SIZE")
    add_parameter(group, "max_expansion", metavar="N")


def add_debug(parser: argparse.ArgumentParser) -> None:
    """``--debug``: an unexpected error shows its traceback (it is one line otherwise)."""
    parser.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="show the traceback of an unexpected error (exit status 70)")


def advance_by(progress: Progress, steps: int) -> Callable[[object], None]:
    """A future's done-callback that advances ``progress`` by ``steps`` (bound here, for each
    future, rather than to a loop's variable)."""
    return lambda _future: progress.advance(steps)


def echo(text: str) -> None:
    """Print ``text`` to the terminal, every line through :func:`printable`: a name or header
    that holds escape sequences or line breaks cannot drive the terminal or add lines."""
    print("\n".join(printable(line) for line in str(text).split("\n")))


def wrote(paths: Iterable[str | None]) -> str:
    """The line that says which files a command wrote ("" when none).

    Examples
    --------
    >>> wrote(["r.html", None, "r.json", "t.csv"])
    'wrote r.html, r.json and t.csv'
    """
    written = [str(p) for p in paths if p]
    if not written:
        return ""
    return "wrote " + ", ".join(written[:-1]) + (" and " if len(written) > 1 else "") + written[-1]


def add_solution_columns(parser) -> None:
    """The columns of a solution and its submission files: ``--id-col``, ``--target-col``,
    ``--pred-col`` (both repeatable) and ``--group-col`` (analyze, compare)."""
    add_parameter(parser, "id_col")
    add_parameter(parser, "target_col", action="append")
    add_parameter(parser, "pred_col", action="append")
    add_parameter(parser, "group_col")


def add_output_options(parser: argparse.ArgumentParser, command: str) -> None:
    """``-o/--output`` (the HTML report; its default is ``command``'s in the parameter table),
    ``--static-charts`` (its charts also drawn as static SVG), ``--json`` and ``--quiet``.

    Examples
    --------
    >>> parser = Parser(prog="leaderboard simulate")
    >>> add_output_options(parser, "simulate")
    >>> args = parser.parse_args(["--json", "out.json"])
    >>> args.output, args.json, args.quiet
    ('simulate.html', 'out.json', False)
    """
    add_parameter(parser, "output", command, short="-o")
    add_parameter(parser, "static_charts", action="store_true")
    parser.add_argument("--json", help="also write the results as JSON to this path")
    add_parameter(parser, "quiet", action="store_true")


def add_universe_options(parser: argparse.ArgumentParser) -> None:
    """The options that choose and shape the simulated universe (scores-only noise)."""
    group = parser.add_argument_group("simulated universe (scores only)")
    add_parameter(group, "universe", choices=UNIVERSE_NAMES)
    add_parameter(group, "classes")
    add_parameter(group, "class_shares", type=number_list(parsed_as("class_shares")))
    add_parameter(group, "residuals")
    add_parameter(group, "df")
    add_parameter(group, "kurtosis")
    add_parameter(group, "threshold")
    add_parameter(group, "spread")


def universe_options(args: argparse.Namespace) -> UniverseOptions:
    """:class:`UniverseOptions` from parsed arguments (one-line errors for bad values)."""
    return universe_from(universe=args.universe, classes=args.classes,
                         class_shares=args.class_shares, residuals=args.residuals, df=args.df,
                         threshold=args.threshold, spread=args.spread,
                         kurtosis=getattr(args, "kurtosis", None))


def internal_error(error: BaseException, inputs: list[str], debug: bool) -> str:
    """The one line for an unexpected error: what it was, and the input being read when it
    happened (the innermost :func:`~leaderboard.errors.processing`, else the command's inputs)."""
    where = getattr(error, INPUT_ATTRIBUTE, None) or ", ".join(inputs) or "the options"
    detail = str(error).strip().splitlines()[0][:160] if str(error).strip() else ""
    if isinstance(error, MemoryError):
        kind, advice = "out of memory", "; lower --max-file-size or use a larger machine"
    else:
        kind = f"internal error ({type(error).__name__}{': ' + detail if detail else ''})"
        advice = "" if debug else "; rerun with --debug for the traceback, and please report it"
    return printable(f"leaderboard: {kind} while processing {where}{advice}")


@contextmanager
def compile_notice_once(quiet: bool) -> Iterator[None]:
    """While the command runs, say once, when it starts compiling numerical kernels, why it takes
    a while: on a terminal only (like the progress bar), and only if it compiles. Every kernel
    cached (:func:`~leaderboard.resources.kernels_cached`): nothing to watch. Otherwise a listener
    on numba's ``numba:compile`` event prints the line: numba fires it for a real compilation, not
    for a kernel loaded from the cache, so a command whose kernels an earlier one compiled says
    nothing while other kernels are still uncompiled."""
    from leaderboard import KERNEL_CACHE, resources

    if quiet or not sys.stderr.isatty() or resources.kernels_cached():
        yield
        return
    from numba.core import event

    class _Notice(event.Listener):
        said = False

        def on_start(self, _event) -> None:
            if not self.said:
                self.said = True
                print(resources.compile_notice(*KERNEL_CACHE), file=sys.stderr, flush=True)

        def on_end(self, _event) -> None:
            pass

    notice = _Notice()
    event.register("numba:compile", notice)
    try:
        yield
    finally:
        event.unregister("numba:compile", notice)


def add_engine_options(parser) -> None:
    """``--workers`` / ``--scheduler``: run submissions mode's batches on a Dask cluster."""
    group = parser.add_argument_group("where the work runs (submissions mode; needs the dask "
                                      "extra: pip install \"leaderboard[dask]\")")
    where = group.add_mutually_exclusive_group()
    add_parameter(where, "workers")
    add_parameter(where, "scheduler", metavar="ADDRESS")


def engine_from_args(args: argparse.Namespace):
    """The engine ``--workers`` or ``--scheduler`` ask for (Dask), else None (this process)."""
    from leaderboard.pipelines.run import engine_for

    return engine_for(getattr(args, "workers", None), getattr(args, "scheduler", None))
