"""``leaderboard compare``: a CI gate. Exit 0 when the candidate is shown better, 1 when not, 2 on
bad input; the paired difference with its confidence bound, on the terminal and as Markdown."""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from leaderboard.cli.common import (DRAWS_MAX, FRACTION, add_max_file_size, add_seed,
                                    add_solution_columns, count, echo, write_output)
from leaderboard.pipelines.compare import Comparison, compare_pair
from leaderboard.errors import InputError, printable
from leaderboard.metrics import get_metric
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
    from leaderboard.pipelines.assumptions import comparison_assumptions
    from leaderboard.pipelines.submissions import cluster_flags

    if (args.solution is None) == (args.items is None):
        raise InputError("give --solution (baseline and candidate are files) or --items "
                         "(they are model names), one of them")
    if args.items is not None:
        metric, y, base, cand, groups, solution = _from_items(args)
    else:
        metric, y, base, cand, groups, solution = _from_files(args)
    result = compare_pair(metric, y, base, cand, alpha=args.alpha, replicates=args.replicates,
                          seed=args.seed, resample="grouped" if groups is not None else "plain",
                          groups=groups)
    flags = cluster_flags(solution, result.clusters)
    words = verdict(result, metric.label)
    if not args.quiet:
        for flag in flags:
            print(f"warning: {printable(flag.message)}", file=sys.stderr)
        echo(f"{printable(args.candidate)} vs {printable(args.baseline)}: {words}")
    if args.markdown:
        write_output(lambda p: Path(p).write_text(markdown(result, args, metric.label, flags),
                                                  encoding="utf-8"), args.markdown)
    if args.json:
        from leaderboard import __version__

        data = json_dict(result, metric.name, args.baseline, args.candidate, __version__)
        data["flags"] = [{"kind": f.kind, "message": f.message} for f in flags]
        data["assumptions"] = [a.as_json() for a in comparison_assumptions(
            result, solution, items=args.items is not None)]
        write_output(lambda p: Path(p).write_text(json.dumps(data, indent=2, allow_nan=False)
                                                  + "\n", encoding="utf-8"), args.json)
    return SHOWN_BETTER if result.better else NOT_SHOWN


def json_dict(r: Comparison, metric: str, baseline: str, candidate: str, version: str) -> dict:
    """The ``--json`` output (leaderboard/schema/compare.schema.json): the two entries as given,
    their scores apart from their names, and the paired difference.

    Examples
    --------
    >>> r = Comparison(0.7, 0.8, 0.1, 0.05, 0.04, 0.16, 0.03, 0.001, True, 0.05, 1000, False)
    >>> d = json_dict(r, "auc", "main.csv", "pr.csv", "0")
    >>> d["baseline"], d["baseline_score"], d["candidate_score"], d["better"]
    ('main.csv', 0.7, 0.8, True)
    """
    def num(x: float) -> float | None:
        return float(x) if math.isfinite(x) else None

    return {"version": version, "command": "compare", "metric": metric,
            "baseline": baseline, "candidate": candidate,
            "baseline_score": num(r.baseline), "candidate_score": num(r.candidate),
            "difference": num(r.difference), "lower": num(r.lower), "low": num(r.low),
            "high": num(r.high), "sd": num(r.sd), "p_value": num(r.p_value),
            "better": bool(r.better), "alpha": float(r.alpha), "replicates": int(r.replicates),
            "identical": bool(r.identical)}


def verdict(r: Comparison, label: str) -> str:
    """One line: the scores, the difference, its bound, and what the gate decided."""
    conf = f"{100 * (1 - r.alpha):.3g}%"
    if r.identical:
        return (f"{label} {_n(r.candidate)} for both: the predictions are identical; not shown "
                "better")
    decision = ("shown better" if r.better else "not shown better")
    return (f"{label} {_n(r.candidate)} vs {_n(r.baseline)}, difference {r.difference:+.4g} "
            f"(one-sided {conf} lower bound {r.lower:+.4g}; SE {r.sd:.2g}; p {r.p_value:.3g}, "
            f"{r.replicates:,} paired replicates): {decision} at alpha {r.alpha:g}")


def markdown(r: Comparison, args: argparse.Namespace, label: str, flags=()) -> str:
    """A pull-request comment: the verdict first, then the numbers."""
    from leaderboard.report.exports import markdown_text as _text   # untrusted names escaped

    conf = f"{100 * (1 - r.alpha):.3g}%"
    head = ("✅ **Shown better**" if r.better else "➖ **Not shown better**")
    return "\n".join([
        f"{head}: {_text(args.candidate)} vs {_text(args.baseline)} ({_text(label)})", "",
        "| | score |", "|---|---:|",
        f"| candidate | {_n(r.candidate)} |", f"| baseline | {_n(r.baseline)} |",
        f"| difference (positive: better) | {r.difference:+.4g} |",
        f"| one-sided {conf} lower bound | {r.lower:+.4g} |",
        f"| two-sided {conf} interval | {r.low:+.4g} to {r.high:+.4g} |",
        f"| bootstrap SE | {r.sd:.2g} |", "",
        *[f"⚠️ {_text(f.message)}" for f in flags], *([""] if flags else []),
        f"Paired bootstrap of the {'items' if args.items else 'test rows'}"
        f"{' (whole clusters)' if args.cluster_col or args.group_col else ''}, "
        f"{r.replicates:,} replicates, seed {args.seed}. The "
        f"candidate is shown better when the lower bound is above zero (a one-sided test at "
        f"alpha {r.alpha:g}).", ""])


def _n(value: float) -> str:
    return "—" if not math.isfinite(value) else f"{value:.5g}"


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
    return metric, solution.target, preds[0], preds[1], solution.groups, solution


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
    return metric, solution.target[mask], preds[0], preds[1], groups, solution

