"""``leaderboard compare``: a CI gate. Exit 0 when the candidate is shown better, 1 when not, 2 on
bad input; the paired difference with its confidence bound, on the terminal and as Markdown.

A gate that can be fooled is worse than none, so: the solution file given as an entry is refused;
an entry whose predictions are the solution's targets, or that scores perfectly while the other
does not, is flagged (on the terminal, in the Markdown and the JSON's ``flags``) and the gate does
not pass unless ``--allow-perfect`` says a perfect score is expected; options of the other mode
(``--group-col`` with ``--items``, ``--cluster-col`` with ``--solution``, ...) are refused rather
than ignored.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import sys
from pathlib import Path

import numpy as np

from leaderboard.cli.common import (DRAWS_MAX, FRACTION, add_max_file_size, add_seed,
                                    add_solution_columns, count, echo, write_output)
from leaderboard.pipelines.compare import Comparison, compare_pair
from leaderboard.errors import InputError, printable
from leaderboard.metrics import get_metric, items_metric
from leaderboard.report.compare_report import json_dict, markdown, verdict
from leaderboard.ingest.safe_read import Unreadable, read_file
from leaderboard.ingest.submissions.table import Rejected

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
    p.add_argument("--split", choices=("private", "public"),
                   help="solution rows compared on, by Usage (default private; every row when "
                        "the solution has no Usage)")
    add_solution_columns(p)
    p.add_argument("--model-col", help="--items: model column (default model)")
    p.add_argument("--item-col", help="--items: item column (default item)")
    p.add_argument("--value-col", help="--items: value column (default value)")
    p.add_argument("--cluster-col", help="--items: items of one cluster resampled together")
    p.add_argument("--alpha", type=FRACTION, default=0.05, help="level of the one-sided test "
                   "(default 0.05)")
    p.add_argument("--replicates", type=count(100, DRAWS_MAX), default=2000,
                   help="bootstrap replicates (default 2000)")
    add_seed(p)
    p.add_argument("--allow-perfect", action="store_true", help="let the gate pass when an entry "
                   "scores perfectly while the other does not (by default that is flagged as a "
                   "likely leak of the solution and the gate does not pass)")
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
    _refuse_other_mode(args)
    if args.items is not None:
        metric, y, base, cand, groups, solution = _from_items(args)
        bounds = _item_bounds(base, cand)
    else:
        metric, y, base, cand, groups, solution = _from_files(args)
        bounds = (metric.lower_bound, metric.upper_bound)
    result = compare_pair(metric, y, base, cand, alpha=args.alpha, replicates=args.replicates,
                          seed=args.seed, resample="grouped" if groups is not None else "plain",
                          groups=groups, unit="item" if args.items else "test row")
    flags = cluster_flags(solution, result.clusters)   # issue 25: groups found, few clusters
    found = gate_flags(result, metric, bounds, None if args.items else (y, base, cand))
    held = bool(found and result.better and not args.allow_perfect)
    if held:   # shown better only by a perfect score: the gate does not pass on a likely leak
        result = dataclasses.replace(result, better=False)
    words = verdict(result, metric.label) + (
        " (the test alone would pass it; flagged, see below; --allow-perfect when a perfect "
        "score is expected)" if held else "")
    if not args.quiet:
        for flag in flags:
            print(f"warning: {printable(flag.message)}", file=sys.stderr)
        echo(f"{printable(args.candidate)} vs {printable(args.baseline)}: {words}")
        for _, message in found:
            echo(f"flagged: {message}")
    if args.markdown:
        text = markdown(result, candidate=args.candidate, baseline=args.baseline,
                        label=metric.label, items=args.items is not None,
                        clustered=bool(args.cluster_col or args.group_col), seed=args.seed,
                        flags=[f.message for f in flags] + [m for _, m in found])
        write_output(lambda p: Path(p).write_text(text, encoding="utf-8"), args.markdown)
    if args.json:
        from leaderboard import __version__

        data = json_dict(result, metric.name, args.baseline, args.candidate, __version__)
        data["flags"] = ([{"kind": f.kind, "message": f.message} for f in flags]
                         + [{"kind": kind, "message": message} for kind, message in found])
        data["assumptions"] = [a.as_json() for a in comparison_assumptions(
            result, solution, items=args.items is not None)]
        write_output(lambda p: Path(p).write_text(json.dumps(data, indent=2, allow_nan=False)
                                                  + "\n", encoding="utf-8"), args.json)
    return SHOWN_BETTER if result.better else NOT_SHOWN


# Options that belong to one mode only: given in the other they would be silently ignored.
_FILES_ONLY = (("--split", "split"), ("--id-col", "id_col"), ("--target-col", "target_col"),
               ("--pred-col", "pred_col"), ("--group-col", "group_col"))
_ITEMS_ONLY = (("--model-col", "model_col"), ("--item-col", "item_col"),
               ("--value-col", "value_col"), ("--cluster-col", "cluster_col"))


def _refuse_other_mode(args: argparse.Namespace) -> None:
    """One-line error for an option of the other mode; then the mode's defaults."""
    wrong, mode = (_FILES_ONLY, "--items") if args.items is not None else (_ITEMS_ONLY,
                                                                           "--solution")
    for option, name in wrong:
        if getattr(args, name) is not None:
            hint = " (clusters of items: --cluster-col)" if option == "--group-col" else (
                " (groups of rows: --group-col)" if option == "--cluster-col" else "")
            raise InputError(f"{option} does not apply with {mode}{hint}")
    defaults = {"split": "private", "model_col": "model", "item_col": "item",
                "value_col": "value"}
    for name, value in defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, value)


def _item_bounds(base: np.ndarray, cand: np.ndarray) -> tuple[float, float]:
    """The mean's range: [0, 1] when every per-item value is in it (correct/incorrect, a
    score), else unbounded (no perfect score to flag)."""
    values = np.concatenate([np.ravel(base), np.ravel(cand)]).astype(float)
    inside = values.size and values.min() >= 0 and values.max() <= 1
    return (0.0, 1.0) if inside else (-math.inf, math.inf)


def gate_flags(r: Comparison, metric, bounds: tuple[float, float],
          rows: tuple[np.ndarray, np.ndarray, np.ndarray] | None) -> list[tuple[str, str]]:
    """What makes this comparison untrustworthy as a gate: an entry whose predictions are the
    solution's targets (``rows`` = truth, baseline, candidate; files mode), or that scores the
    metric's perfect value while the other does not.

    Examples
    --------
    >>> from leaderboard.metrics import get_metric, items_metric
    >>> r = Comparison(0.98, 1.0, 0.02, 0.01, 0.0, 0.04, 0.01, 0.001, True, 0.05, 1000, False)
    >>> gate_flags(r, get_metric("auc"), (0.0, 1.0), None)
    [('perfect_score', 'the candidate scores a perfect ROC AUC (1) while the baseline scores 0.98: a leak of the solution until shown otherwise')]
    """
    out = []
    if rows is not None:
        truth = rows[0]
        for role, pred in (("baseline", rows[1]), ("candidate", rows[2])):
            if np.shape(pred) == np.shape(truth) and np.array_equal(pred, truth):
                out.append(("solution_targets", f"the {role}'s predictions are the solution's "
                                                "targets on every compared row: the solution "
                                                "itself, or a leak of it"))
    perfect = bounds[1] if metric.higher_is_better else bounds[0]
    if math.isfinite(perfect) and not out:
        at_best = {role: math.isfinite(score) and abs(score - perfect) <= 1e-12
                   for role, score in (("baseline", r.baseline), ("candidate", r.candidate))}
        for role, other in (("candidate", "baseline"), ("baseline", "candidate")):
            if at_best[role] and not at_best[other]:
                out.append(("perfect_score", f"the {role} scores a perfect {metric.label} "
                                             f"({perfect:g}) while the {other} scores "
                                             f"{getattr(r, other):.5g}: a leak of the solution "
                                             "until shown otherwise"))
    return out


def _from_items(args):
    from leaderboard.ingest.items import read_items

    metric, binary = items_metric(args.metric or "mean")
    if metric.name != "mean" and not binary:
        raise InputError("--items: the metric is the mean of the per-item values (--metric "
                         "mean; accuracy, pass@1 or resolved for 0/1 values)")
    solution, models = read_items(args.items, model_col=args.model_col, item_col=args.item_col,
                                  value_col=args.value_col, cluster_col=args.cluster_col,
                                  items_policy="pairwise", binary=metric.name if binary else None,
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
    both = np.isfinite(preds[0]) & np.isfinite(preds[1])   # the two models' shared items
    if not both.any():
        raise InputError("--baseline and --candidate share no item", file=args.items)
    groups = None if solution.groups is None else solution.groups[both]
    return metric, solution.target[both], preds[0][both], preds[1][both], groups, solution


def _same_file(a: str, b: str) -> bool:
    try:
        one, two = os.stat(a), os.stat(b)
    except OSError:
        return False
    return (one.st_dev, one.st_ino) == (two.st_dev, two.st_ino)


def _from_files(args):
    from leaderboard.ingest.submissions import read_solution
    from leaderboard.ingest.submissions.validate import make_plan, validate

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
    for option, path in (("--baseline", args.baseline), ("--candidate", args.candidate)):
        if _same_file(path, args.solution):
            raise InputError(f"{option} is the solution file ({printable(path)}): a gate "
                             "compares models, not the answers", file=path)
        try:
            prediction, _ = validate(read_file(path, max_bytes=args.max_file_size), plan)
        except Unreadable as err:
            raise InputError(str(err), file=path) from None
        except Rejected as err:
            raise InputError(str(err), file=path) from None
        preds.append(prediction[mask])
    groups = solution.groups[mask] if solution.groups is not None else None
    return metric, solution.target[mask], preds[0], preds[1], groups, solution

