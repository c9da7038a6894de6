"""``leaderboard compare``: a CI gate. Exit 0 when the candidate is shown better, 1 when not, 2 on
bad input; the paired difference with its confidence bound, on the terminal and as Markdown."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from leaderboard.cli.common import (DRAWS_MAX, FRACTION, add_max_file_size, add_seed,
                                    add_solution_columns, count, echo, write_output)
from leaderboard.pipelines.compare import compare_pair
from leaderboard.errors import InputError, printable
from leaderboard.metrics import get_metric
from leaderboard.report.compare_report import json_dict, markdown, verdict
from leaderboard.safe_read import Unreadable, read_file
from leaderboard.submissions.table import Rejected

SHOWN_BETTER, NOT_SHOWN = 0, 1


def add_parser(commands) -> None:
    p = commands.add_parser("compare", help="CI gate: is the candidate shown better than the "
                            "baseline? exit 0 yes, 1 no, 2 bad input")
    p.add_argument("--baseline", required=True, help="the baseline: a submission file (with "
                   "--solution) or a model name (with --items)")
    p.add_argument("--candidate", required=True, help="the candidate, as --baseline")
    p.add_argument("--solution", help="solution CSV (id, target, optional Usage)")
    p.add_argument("--items", help="per-item results: one row per model and item")
    p.add_argument("--metric", help="the metric (default: mean with --items)")
    p.add_argument("--split", choices=("private", "public"), default="private",
                   help="solution rows compared on, by Usage (default private; every row when "
                        "the solution has no Usage)")
    add_solution_columns(p)
    p.add_argument("--model-col", default="model", help="--items: model column (default model)")
    p.add_argument("--item-col", default="item", help="--items: item column (default item)")
    p.add_argument("--value-col", default="value", help="--items: value column (default value)")
    p.add_argument("--cluster-col", help="--items: items of one cluster resampled together")
    p.add_argument("--alpha", type=FRACTION, default=0.05, help="level of the one-sided test "
                   "(default 0.05)")
    p.add_argument("--replicates", type=count(100, DRAWS_MAX), default=2000,
                   help="bootstrap replicates (default 2000)")
    add_seed(p)
    p.add_argument("--markdown", help="also write the result as Markdown (a pull-request comment)")
    p.add_argument("--json", help="also write the result as JSON")
    p.add_argument("--quiet", action="store_true", help="print nothing (the exit status says it)")
    add_max_file_size(p)


def run(args: argparse.Namespace) -> int:
    """Compare; print and write the result; return 0 (shown better) or 1 (not)."""
    if (args.solution is None) == (args.items is None):
        raise InputError("give --solution (baseline and candidate are files) or --items "
                         "(they are model names), one of them")
    if args.items is not None:
        metric, y, base, cand, groups = _from_items(args)
    else:
        metric, y, base, cand, groups = _from_files(args)
    result = compare_pair(metric, y, base, cand, alpha=args.alpha, replicates=args.replicates,
                          seed=args.seed, resample="grouped" if groups is not None else "plain",
                          groups=groups)
    words = verdict(result, metric.label)
    if not args.quiet:
        echo(f"{printable(args.candidate)} vs {printable(args.baseline)}: {words}")
    if args.markdown:
        text = markdown(result, candidate=args.candidate, baseline=args.baseline,
                        label=metric.label, items=args.items is not None,
                        clustered=bool(args.cluster_col or args.group_col), seed=args.seed)
        write_output(lambda p: Path(p).write_text(text, encoding="utf-8"), args.markdown)
    if args.json:
        from leaderboard import __version__

        data = json_dict(result, metric.name, args.baseline, args.candidate, __version__)
        write_output(lambda p: Path(p).write_text(json.dumps(data, indent=2, allow_nan=False)
                                                  + "\n", encoding="utf-8"), args.json)
    return SHOWN_BETTER if result.better else NOT_SHOWN


def _from_items(args):
    from leaderboard.submissions.items import read_items

    metric = get_metric(args.metric or "mean")
    if metric.name != "mean":
        raise InputError("--items: the metric is the mean of the per-item values (--metric mean)")
    solution, models = read_items(args.items, model_col=args.model_col, item_col=args.item_col,
                                  value_col=args.value_col, cluster_col=args.cluster_col,
                                  max_bytes=args.max_file_size)
    by_name = {f.team: f for f in models.files}
    preds = []
    for option, name in (("--baseline", args.baseline), ("--candidate", args.candidate)):
        found = by_name.get(name.strip())
        if found is None:
            raise InputError(f"{option}: no model {printable(name)!r} in the results",
                             file=args.items)
        if not found.ok:
            raise InputError(f"{option}: model {printable(name)!r}: {found.reason}",
                             file=args.items)
        preds.append(found.prediction)
    return metric, solution.target, preds[0], preds[1], solution.groups


def _from_files(args):
    from leaderboard.submissions import read_solution
    from leaderboard.submissions.validate import make_plan, validate

    if args.metric is None:
        raise InputError("--metric is required with --solution")
    metric = get_metric(args.metric)
    solution = read_solution(args.solution, id_col=args.id_col, target_cols=args.target_col,
                             group_col=args.group_col, kind=metric.kind,
                             max_bytes=args.max_file_size)
    plan = make_plan(solution, metric.kind, pred_cols=args.pred_col, id_col=args.id_col)
    mask = solution.usage == args.split
    if not mask.any():
        raise InputError(f"the solution has no {args.split} rows", file=args.solution)
    preds = []
    for path in (args.baseline, args.candidate):
        try:
            prediction, _ = validate(read_file(path, max_bytes=args.max_file_size), plan)
        except Unreadable as err:
            raise InputError(str(err), file=path) from None
        except Rejected as err:
            raise InputError(str(err), file=path) from None
        preds.append(prediction[mask])
    groups = solution.groups[mask] if solution.groups is not None else None
    return metric, solution.target[mask], preds[0], preds[1], groups

