"""Pieces every command shares: the one-line-error parser and the universe options."""
from __future__ import annotations

import argparse

from leaderboard.errors import InputError
from leaderboard.noise.universes import RESIDUALS, UNIVERSE_NAMES, UniverseOptions


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit status 2, like every input error."""

    def error(self, message: str) -> None:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def add_universe_options(parser: argparse.ArgumentParser) -> None:
    """The options that choose and shape the simulated universe (scores-only noise)."""
    group = parser.add_argument_group("simulated universe (scores only)")
    group.add_argument("--universe", choices=UNIVERSE_NAMES,
                       help="universe that simulates the metric (default: linspace for AUC as the "
                            "seeds build it, binomial for accuracy, binormal for other binary "
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
