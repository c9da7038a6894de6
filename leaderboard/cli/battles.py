"""`leaderboard analyze --battles FILE`: a thin layer over :func:`leaderboard.analyze_battles`.

The options are added to ``analyze``'s parser; the run calls the Python API with them and
writes the page and the JSON. Every option of ``analyze`` that battles mode does not read (a
metric, a leaderboard file, submissions, per-item results, the engine, universes) is refused in
one line, even at its default value, before this runs (:mod:`leaderboard.cli.given`).
"""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from leaderboard.cli.common import add_parameter, echo, write_output
from leaderboard.cli.outputs import text_writer
from leaderboard.errors import printable
from leaderboard.safe_write import write_text

if TYPE_CHECKING:
    from leaderboard.api_battles import BattlesResult

GROUPS_PRINTED = 5

def add_battles_options(run: argparse.ArgumentParser) -> None:
    """The battles group of ``leaderboard analyze`` (``--category-col`` is shared with
    ``--items``; ``--replicates``, ``--alpha``, ``--seed``, ``--tiers``, ``--prizes`` and
    ``--top-k`` are the command's own)."""
    group = run.add_argument_group("pairwise battles (an arena: model_a, model_b, winner)")
    group.add_argument("--battles", help="a CSV, Parquet or JSON-lines file of battles in "
                       "LMArena's layout: model_a, model_b, winner (model_a, model_b, tie or "
                       "tie (bothbad)); rated by a Bradley-Terry fit (see docs/battles.md)")
    for name in ("model_a_col", "model_b_col", "winner_col"):
        add_parameter(group, name)
    add_parameter(group, "judge_col", "analyze")
    add_parameter(group, "date_col", "analyze")
    add_parameter(group, "anchor", "analyze")
    add_parameter(group, "anchor_rating", type=float)   # out of range: the table's one line
    add_parameter(group, "disconnected")


def run_battles(args: argparse.Namespace) -> BattlesResult:
    """Rate the battles, write the page (and the JSON), print a short summary."""
    from leaderboard.api_battles import analyze_battles

    result = analyze_battles(args.battles, model_a_col=args.model_a_col,
                             model_b_col=args.model_b_col, winner_col=args.winner_col,
                             judge_col=args.judge_col, category_col=args.category_col,
                             date_col=args.date_col, cluster_col=args.cluster_col,
                             anchor=args.anchor,
                             anchor_rating=args.anchor_rating, alpha=args.alpha,
                             replicates=args.replicates, seed=args.seed, tiers=args.tiers,
                             top_k=tuple(sorted({args.prizes, *args.top_k})),
                             disconnected=args.disconnected, max_file_size=args.max_file_size,
                             quiet=args.quiet)
    write_output(lambda p: write_text(p, result.to_html()), args.output)
    for path, text in ((args.json, result.to_json), (args.csv, result.to_csv),
                       (args.markdown, result.to_markdown)):
        if path:
            write_output(text_writer(text), path)
    if not args.quiet:
        echo(summary_lines(result.analysis) + f"\nreport: {args.output}" + "".join(
            f"\n{label}: {path}" for label, path in (
                ("json", args.json), ("csv", args.csv), ("markdown", args.markdown)) if path))
    return result


def summary_lines(analysis) -> str:
    """One line per rated group (battles, models, tier 1), then the warnings a reader needs
    before the numbers (undeclared clusters, repeated battles, look-alike names)."""
    from leaderboard.pipelines.battles import group_sentence

    lines = []
    several = len(analysis.groups) > 1
    for k, g in enumerate(analysis.groups[:GROUPS_PRINTED], start=1):
        t = g.table
        top = [printable(m) for m in t.loc[t["tier"] == 1, "model"]]
        lines.append((f"group {k} of {len(analysis.groups)}: " if several else "")
                     + f"{group_sentence(g)}; tier 1: {', '.join(top[:10])}"
                     + (" ..." if len(top) > 10 else "")
                     + (f"; too few battles to place: {', '.join(printable(m) for m in g.thin[:5])}"
                        if g.thin else ""))
    if len(analysis.groups) > GROUPS_PRINTED:
        rest = analysis.groups[GROUPS_PRINTED:]
        lines.append(f"and {len(rest):,} more groups ({sum(len(g.table) for g in rest):,} "
                     f"models, {sum(g.battles for g in rest):,} battles): every group is in the "
                     "report")
    for note in analysis.notes:
        if note.startswith(("Column", "Battles of one")) or "counted once" in note or \
                "differ only in case" in note:
            lines.append(f"note: {printable(note)}")
    return "\n".join(lines)
