"""Pieces every command shares: the one-line-error parser, the output and universe options, and
writing an output file."""
from __future__ import annotations

import argparse
from collections.abc import Callable

from leaderboard.errors import InputError
from leaderboard.noise.universes import RESIDUALS, UNIVERSE_NAMES, UniverseOptions


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit status 2, like every input error."""

    def error(self, message: str) -> None:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def add_output_options(parser: argparse.ArgumentParser, html_default: str) -> None:
    """``-o/--output`` (the HTML report, ``html_default`` unless given), ``--json`` and ``--quiet``.

    Examples
    --------
    >>> parser = Parser(prog="leaderboard simulate")
    >>> add_output_options(parser, "simulate.html")
    >>> args = parser.parse_args(["--json", "out.json"])
    >>> args.output, args.json, args.quiet
    ('simulate.html', 'out.json', False)
    """
    parser.add_argument("-o", "--output", default=html_default, help="HTML report path "
                        f"(default {html_default})")
    parser.add_argument("--json", help="also write the results as JSON to this path")
    parser.add_argument("--quiet", action="store_true", help="no progress bar or summary")


def printable(text) -> str:
    """Untrusted names with control characters replaced, so they cannot drive the terminal.

    Examples
    --------
    >>> printable("team\x1b[31m")
    'team?[31m'
    """
    return "".join(ch if ch.isprintable() else "?" for ch in str(text))


def write_output(writer: Callable[[str], object], path: str) -> None:
    """Call ``writer(path)``; a file that cannot be written is a one-line :class:`InputError`.

    Examples
    --------
    >>> from pathlib import Path
    >>> write_output(lambda path: Path(path).write_text("<html>"), "/no/such/dir/r.html")
    Traceback (most recent call last):
    ...
    leaderboard.errors.InputError: cannot write /no/such/dir/r.html: No such file or directory
    """
    try:
        writer(path)
    except OSError as error:
        raise InputError(f"cannot write {path}: {error.strerror or error}") from None


def add_universe_options(parser: argparse.ArgumentParser) -> None:
    """The options that choose and shape the simulated universe (scores-only noise)."""
    group = parser.add_argument_group("simulated universe (scores only)")
    group.add_argument("--universe", choices=UNIVERSE_NAMES,
                       help="universe that simulates the metric (default: linspace for AUC as the "
                            "seeds build it, binomial for accuracy, bounded for mean Dice and IoU "
                            "(the largest noise a mean of [0, 1] values can have), binormal for other binary "
                            "metrics, multiclass with --classes, residuals for regression)")
    group.add_argument("--classes", type=int, help="multi-class: number of classes, equally common")
    group.add_argument("--class-shares", help="multi-class: each class's share of the test set, "
                       "e.g. 0.5,0.3,0.2")
    group.add_argument("--residuals", choices=RESIDUALS, default="normal",
                       help="regression: distribution of the residuals (default normal)")
    group.add_argument("--df", type=float, default=5.0, help="degrees of freedom of t residuals "
                       "(default 5)")
    group.add_argument("--threshold", type=float, default=0.5, help="binary label metrics: "
                       "probability at which a row is predicted positive (default 0.5)")


def universe_options(args: argparse.Namespace) -> UniverseOptions:
    """:class:`UniverseOptions` from parsed arguments (one-line errors for bad values)."""
    shares = None
    if args.class_shares is not None:
        try:
            shares = tuple(float(x) for x in args.class_shares.split(","))
        except ValueError:
            raise InputError(f"--class-shares {args.class_shares!r}: give numbers like "
                             "0.5,0.3,0.2") from None
        if args.classes is not None and args.classes != len(shares):
            raise InputError(f"--classes {args.classes} disagrees with the {len(shares)} "
                             "--class-shares")
    elif args.classes is not None:
        if args.classes < 2:
            raise InputError(f"--classes must be at least 2, got {args.classes}")
        shares = (1.0 / args.classes,) * args.classes
    if shares is not None and len(shares) == 2:
        shares = None  # two classes: the binary universes, with --prevalence
    return UniverseOptions(name=args.universe, class_shares=shares, residuals=args.residuals,
                           df=args.df, threshold=args.threshold)
