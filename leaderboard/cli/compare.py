"""``leaderboard compare``: a CI gate. Exit 0 when the candidate is shown better, 1 when not, 2 on
bad input; the paired difference with its confidence bound, on the terminal and as Markdown.

A gate that can be fooled is worse than none, so: the solution file given as an entry is refused;
an entry whose predictions are the solution's targets, or that scores perfectly while the other
does not, is flagged (on the terminal, in the Markdown and the JSON's ``flags``) and the gate does
not pass unless ``--allow-perfect`` says a perfect score is expected; options of the other mode
(``--group-col`` with ``--items``, ``--cluster-col`` with ``--solution``, ...) are refused rather
than ignored.

argparse -> :func:`~leaderboard.pipelines.compare.gate_options` ->
:func:`~leaderboard.pipelines.compare.run_compare` (which reads the inputs), the pipeline
:func:`leaderboard.compare` runs too; the report words it.
"""
from __future__ import annotations

import argparse
import sys

from leaderboard.cli.common import (COMMANDS, add_max_file_size, add_parameter,
                                    add_solution_columns, echo, write_output, wrote)
from leaderboard.errors import printable
from leaderboard.pipelines.compare import Gate, gate_options, one_mode, run_compare
from leaderboard.safe_write import write_text

SHOWN_BETTER, NOT_SHOWN = 0, 1


def add_parser(commands) -> None:
    p = commands.add_parser("compare", help=COMMANDS["compare"])
    p.add_argument("--baseline", required=True, help="the baseline: a submission file (with "
                   "--solution) or a model name (with --items)")
    p.add_argument("--candidate", required=True, help="the candidate, as --baseline")
    p.add_argument("--solution", help="solution CSV (id, target, optional Usage)")
    p.add_argument("--items", help="per-item results: one row per model and item")
    add_parameter(p, "metric", "compare")
    add_parameter(p, "split", "compare")
    add_solution_columns(p)
    for name in ("model_col", "item_col", "value_col"):
        add_parameter(p, name, "compare")
    add_parameter(p, "cluster_col", "compare")
    for name in ("alpha", "replicates", "seed"):
        add_parameter(p, name, "compare")
    add_parameter(p, "allow_perfect", "compare", action="store_true")
    p.add_argument("--markdown", help="also write the result as Markdown (a pull-request comment)")
    p.add_argument("--json", help="also write the result as JSON")
    add_parameter(p, "quiet", "compare", action="store_true")
    add_max_file_size(p, unread=("max_entries", "max_models"))   # reads no board, no battles


def run(args: argparse.Namespace) -> int:
    """Compare; print and write the result; return 0 (shown better) or 1 (not)."""
    from leaderboard.report.compare_report import gate_json_text, gate_markdown, gate_verdict

    one_mode(args.solution, args.items)
    options = gate_options(
        items=args.items is not None, metric=args.metric, alpha=args.alpha,
        replicates=args.replicates, seed=args.seed, allow_perfect=args.allow_perfect,
        max_file_size=args.max_file_size, split=args.split, id_col=args.id_col,
        target_col=args.target_col, pred_col=args.pred_col, group_col=args.group_col,
        model_col=args.model_col, item_col=args.item_col, value_col=args.value_col,
        cluster_col=args.cluster_col)
    gate: Gate = run_compare(args.baseline, args.candidate, options, solution=args.solution,
                             items=args.items)
    if not args.quiet:
        for flag in gate.flags:
            print(f"warning: {printable(flag.message)}", file=sys.stderr)
        echo(f"{printable(args.candidate)} vs {printable(args.baseline)}: {gate_verdict(gate)}")
        if gate.comparison.resolution is not None and gate.comparison.resolution.sd_diff:
            from leaderboard.report.card_text import pair_sentence

            echo(f"resolution: {pair_sentence(gate.comparison.resolution)}")
        for _, message in gate.gate_flags:
            echo(f"flagged: {message}")
    if args.markdown:
        text = gate_markdown(gate)
        write_output(lambda p: write_text(p, text), args.markdown)
    if args.json:
        text_json = gate_json_text(gate)
        write_output(lambda p: write_text(p, text_json), args.json)
    if not args.quiet and (args.markdown or args.json):
        echo(wrote((args.markdown, args.json)))
    return SHOWN_BETTER if gate.better else NOT_SHOWN
