"""``leaderboard plan --from FILE``: the board read as ``leaderboard analyze`` reads it, then
:func:`leaderboard.plan_from` (issue 40 item 5).

The reading options are ``analyze``'s own: their definitions (help, types, defaults) are taken from
its parser, so that ``--model-col`` or ``--team-col`` mean here what they mean there. The board is
a scores board, per-item results or battles, recognised by its header (or a folder: a benchmark's
per-item results), or as ``--from-as`` says.
"""
from __future__ import annotations

import argparse
import copy
import json
from functools import partial
from pathlib import Path

from leaderboard.cli.common import add_parameter, echo, write_output, wrote
from leaderboard.errors import InputError

#: analyze's options that ``plan --from`` reads the board with (their ``dest``).
READING = ("team_col", "score_col", "items_format", "instances", "missing_instances",
           "model_col", "item_col", "value_col", "cluster_col", "sample_col", "items_policy",
           "harness_filter", "model_a_col", "model_b_col", "winner_col", "replicates", "tiers",
           "higher")
MODES = ("scores", "items", "battles")


def add_from_options(parser: argparse.ArgumentParser) -> None:
    """``--from`` and its options; the reading ones copied from ``analyze``'s parser."""
    from leaderboard.cli import analyze

    group = parser.add_argument_group("plan from a board (--from): how many units until the "
                                      "leader stands alone, by simulation from the board")
    group.add_argument("--from", dest="from_file", metavar="FILE", help="a board to plan from, "
                       "read as analyze reads it: a leaderboard of scores (with --metric, "
                       "--n-test, --prevalence), per-item results or battles: how many test rows, "
                       "items or battles until its current leader stands alone in tier 1 with "
                       "probability --power, and until the top --separate separate")
    group.add_argument("--from-as", choices=MODES, help="what --from is (default: recognised "
                       "by its header: model and item columns are per-item results, model_a and "
                       "model_b battles, else a board of scores; a folder is per-item results)")
    add_parameter(group, "separate", "plan")
    add_parameter(group, "boards", "plan")
    throwaway = argparse.ArgumentParser(add_help=False)
    commands = throwaway.add_subparsers()
    analyze.add_parser(commands)
    source = commands.choices["analyze"]
    reading = parser.add_argument_group("reading the --from board (as analyze; see analyze "
                                        "--help)")
    formatter = argparse.HelpFormatter(parser.prog)
    for action in source._actions:   # noqa: SLF001 - argparse keeps no public list
        if action.dest in READING:
            mine = copy.copy(action)
            mine.default = None           # given or not: analyze's default fills it later
            shown = formatter._expand_help(action) if action.help else ""   # noqa: SLF001
            mine.help = shown.replace("%", "%%") + " (with --from)"   # analyze's default, said
            reading._add_action(mine)     # noqa: SLF001


#: Options that apply only with ``--from`` (refused without it): (option, dest).
FROM_ONLY = (("--from-as", "from_as"), ("--separate", "separate"), ("--boards", "boards"),
             *((f"--{dest.replace('_', '-')}", dest) for dest in READING if dest != "higher"))


def run_from(args: argparse.Namespace):
    """Read the board as analyze would, plan from it, write and print the answers."""
    from leaderboard.api_plan import plan_from
    from leaderboard.report.plan_board_report import terminal_text, write_html, write_json

    for option, value in (("--score", args.score), ("--delta", args.delta),
                          ("--public-fraction", args.public_fraction)):
        if value is not None:
            raise InputError(f"{option} asks the two-entry question; --from plans from a board: "
                             "give one or the other")
    mode = args.from_as or detect(args.from_file, args)
    result = _analysed(args, mode)
    planned = plan_from(result, power=args.power, separate=args.separate or 3,
                        boards=args.boards or 200, seed=args.seed, quiet=args.quiet)
    for writer, path in ((write_html, args.output), (write_json, args.json)):
        if path:
            write_output(partial(writer, planned), path)
    if not args.quiet or not (args.output or args.json):
        echo(terminal_text(planned))
    if not args.quiet and (args.output or args.json):   # every file written is said (issue 43)
        echo(wrote((args.output, args.json)))
    return planned


def _analysed(args: argparse.Namespace, mode: str):
    """The board's analysis, through analyze's own path (scores, items) or the battles API."""
    from leaderboard.cli import analyze
    from leaderboard.cli.analyze_args import analysis_from_args
    from leaderboard.cli.common import Parser

    throwaway = Parser(prog="leaderboard")
    analyze.add_parser(throwaway.add_subparsers())
    ns = throwaway.parse_args(["analyze"])
    for dest in (*READING, "metric", "n_test", "prevalence", "alpha", "draws", "seed", "universe",
                 "classes", "class_shares", "residuals", "df", "threshold", "spread"):
        if getattr(args, dest, None) is not None:
            setattr(ns, dest, getattr(args, dest))
    ns.correlation = "auto" if args.correlation is None else args.correlation
    ns.quiet, ns.output = True, None
    if mode == "battles":
        if args.metric is not None:
            raise InputError("--metric does not apply to battles (rated by a Bradley-Terry fit)")
        from leaderboard.api_battles import analyze_battles

        return analyze_battles(args.from_file, model_a_col=ns.model_a_col,
                               model_b_col=ns.model_b_col, winner_col=ns.winner_col,
                               alpha=ns.alpha, replicates=ns.replicates, seed=ns.seed,
                               tiers=ns.tiers, max_file_size=ns.max_file_size)
    if mode == "items":
        ns.items = args.from_file
    else:
        ns.file = args.from_file
    return analysis_from_args(ns)


def detect(path: str, args: argparse.Namespace) -> str:
    """What a ``--from`` path is: a folder is per-item results; a CSV or JSON-lines file by its
    first line (model and item columns: per-item results; model_a and model_b: battles)."""
    target = Path(path)
    if target.is_dir():
        return "items"
    try:
        with target.open("rb") as handle:
            head = handle.read(1 << 16)
    except OSError as error:
        raise InputError(f"cannot read it: {error.strerror or error}", file=path) from None
    if head[:2] in (b"\x1f\x8b", b"PK", b"BZ", b"\xfd7") or head[:4] == b"PAR1":
        raise InputError("a compressed or Parquet file: say what it holds with --from-as "
                         f"{'|'.join(MODES)}", file=path)
    first = head.decode("utf-8", "replace").lstrip("\ufeff").splitlines()[:1]
    line = first[0] if first else ""
    if line.lstrip().startswith("{"):
        try:
            columns = [str(k).strip().lower() for k in json.loads(line)]
        except (ValueError, TypeError):
            columns = []
    else:
        columns = [c.strip().strip('"').lower() for c in line.split(",")]

    def has(*names: str | None) -> bool:
        return all(name is not None and name.strip().lower() in columns for name in names)

    if has(args.model_a_col or "model_a", args.model_b_col or "model_b"):
        return "battles"
    if has(args.model_col or "model", args.item_col or "item"):
        return "items"
    return "scores"
