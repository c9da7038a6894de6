"""`leaderboard analyze --battles FILE`: a thin layer over :func:`leaderboard.analyze_battles`.

The options are added to ``analyze``'s parser; the run calls the Python API with them and
writes the page and the JSON. Options that belong to other inputs (a metric, a leaderboard file,
submissions, per-item results) are refused in one line.
"""
from __future__ import annotations

import argparse

from leaderboard.cli.common import echo, write_output
from leaderboard.errors import InputError, printable
from leaderboard.choices import DISCONNECTED
from leaderboard.safe_write import write_text


def add_battles_options(run: argparse.ArgumentParser) -> None:
    """The battles group of ``leaderboard analyze`` (``--category-col`` is shared with
    ``--items``; ``--replicates``, ``--alpha``, ``--seed``, ``--tiers``, ``--prizes`` and
    ``--top-k`` are the command's own)."""
    group = run.add_argument_group("pairwise battles (an arena: model_a, model_b, winner)")
    group.add_argument("--battles", help="a CSV, Parquet or JSON-lines file of battles in "
                       "LMArena's layout: model_a, model_b, winner (model_a, model_b, tie or "
                       "tie (bothbad)); rated by a Bradley-Terry fit (see docs/battles.md)")
    group.add_argument("--model-a-col", default="model_a", help="column of the first model "
                       "(default model_a)")
    group.add_argument("--model-b-col", default="model_b", help="column of the second model "
                       "(default model_b)")
    group.add_argument("--winner-col", default="winner", help="column of the outcome "
                       "(default winner)")
    group.add_argument("--judge-col", help="column of the voter or judge (found by name if "
                       "not given; shown, not modelled)")
    group.add_argument("--date-col", help="column of the date (found by name if not given)")
    group.add_argument("--anchor", help="a model whose rating is fixed at --anchor-rating "
                       "(default: the models' mean is)")
    group.add_argument("--anchor-rating", type=float, default=1000.0,
                       help="the anchor's rating (default 1000)")
    group.add_argument("--disconnected", choices=DISCONNECTED, default="largest",
                       help="models in groups that never met: rate the largest group and name "
                            "the others (default), or refuse")


def run_battles(args: argparse.Namespace):
    """Rate the battles, write the page (and the JSON), print a short summary."""
    from leaderboard.api_battles import analyze_battles

    others = [flag for flag, given in (("FILE", args.file), ("--solution", args.solution),
                                       ("--submissions", args.submissions),
                                       ("--items", args.items), ("--metric", args.metric),
                                       ("--example", args.example)) if given]
    if others:
        raise InputError(f"--battles is the whole input, rated by a Bradley-Terry fit: drop "
                         f"{others[0]}")
    result = analyze_battles(args.battles, model_a_col=args.model_a_col,
                             model_b_col=args.model_b_col, winner_col=args.winner_col,
                             judge_col=args.judge_col, category_col=args.category_col,
                             date_col=args.date_col, anchor=args.anchor,
                             anchor_rating=args.anchor_rating, alpha=args.alpha,
                             replicates=args.replicates, seed=args.seed, tiers=args.tiers,
                             top_k=tuple(sorted({args.prizes, *args.top_k})),
                             disconnected=args.disconnected, max_file_size=args.max_file_size,
                             quiet=args.quiet)
    write_output(lambda p: write_text(p, result.to_html()), args.output)
    for path, text in ((args.json, result.to_json), (args.csv, result.to_csv),
                       (args.markdown, result.to_markdown)):
        if path:
            write_output(lambda p, text=text: write_text(p, text()), path)
    if not args.quiet:
        t = result.table
        top = [printable(m) for m in t.loc[t["tier"] == 1, "model"]]
        echo(f"{len(t):,} models rated from {result.analysis.battles_rated:,} battles; "
             f"tier 1: {', '.join(top[:10])}{' ...' if len(top) > 10 else ''}\n"
             f"report: {args.output}" + "".join(f"\n{label}: {path}" for label, path in (
                 ("json", args.json), ("csv", args.csv), ("markdown", args.markdown)) if path))
    return result
