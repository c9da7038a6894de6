"""Benchmark: the paired bootstrap's self-check (issue 41), per metric, and the submissions example.

Two parts, each alternating an old tree and this one (``--base``: a ``git archive`` copy of the
code before, put first on ``PYTHONPATH`` of a child process; this tree's own code in the other):

* ``example``: ``leaderboard analyze --example submissions`` from the command line (HTML and
  JSON written), the CPU seconds (user + system) of the child and of what it waited for
  (``os.wait4``). The first round warms both trees' compiled kernels and is not reported.
* ``table``: for each metric the bootstrap's self-check scores (one of every implementation
  in the registry; a mean of per-row values, as accuracy or log loss, is checked by the sign
  flips instead) and each board shape, the CPU of :func:`check_bootstrap` on
  :data:`MIN_BOARDS` null boards per board, the null boards the check runs at that shape (its
  budget), and so what the check costs there. In a child per tree and round.

    nice -n 10 python benchmarks/bench_self_check.py --base /tmp/base [--parts example,table]
        [--rounds 3] [--shapes 5x300,11x2100,40x2100,100x500] [--metrics auc,...]
        [--resample plain|stratified|poisson]

docs/benchmarks.md quotes its output.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
METRICS = ("auc,auc_ovr,auc_ovo,gini,cap_ar,average_precision,f1,f1_macro,mcc,qwk,"
           "balanced_accuracy,precision_samples,r2,medae,ari,ami,nmi")


def board(metric: str, e: int, n: int, seed: int = 0):
    """Truth and ``e`` entries' predictions on ``n`` rows, of the metric's kind, equally good
    entries with noise (the check's cost does not depend on how good they are)."""
    import numpy as np

    from leaderboard.metrics import get_metric

    rng = np.random.default_rng(seed)
    kind = get_metric(metric).kind
    if kind == "scores" and metric.startswith(("auc_ov",)):
        y = rng.integers(0, 3, n)
        return y, np.eye(3)[y][None] + rng.normal(0, 1.5, (e, n, 3))
    if kind == "scores" and metric == "gini":   # a claim amount: the Lorenz path
        y = rng.exponential(1, n) * (rng.random(n) < 0.3)
        return y, y + rng.normal(0, 1.5, (e, n))
    if kind == "scores":
        y = (rng.random(n) < 0.1).astype(int)
        return y, np.round(y + rng.normal(0, 1.5, (e, n)), 3)   # some ties, as real files
    if kind == "labels":
        k = 2 if metric in ("f1", "mcc", "balanced_accuracy") else 4
        y = rng.integers(0, k, n)
        return y, np.where(rng.random((e, n)) < 0.7, y, rng.integers(0, k, (e, n)))
    if kind == "multilabel":
        y = (rng.random((n, 4)) < 0.3).astype(int)
        return y, np.where(rng.random((e, n, 4)) < 0.8, y, 1 - y)
    if kind == "values":
        y = rng.normal(0, 1, n)
        return y, y + rng.normal(0, 1, (e, n))
    y = rng.integers(0, 5, n)   # clusters
    return y, np.where(rng.random((e, n)) < 0.7, y, rng.integers(0, 5, (e, n)))


def table(metrics: list[str], shapes: list[tuple[int, int]], resample: str = "plain"
          ) -> list[dict]:
    """One row per metric and shape: CPU per null board, and the boards the budget gives."""
    from leaderboard.metrics import get_metric
    from leaderboard.noise.weights import resampling
    from leaderboard.tiers.guarantee_check import MIN_BOARDS
    try:
        from leaderboard.tiers.bootstrap_check import check_bootstrap
        unlimited = {"budget": float("inf"), "work": float("inf")}
    except ImportError:   # the code before
        from leaderboard.tiers.guarantee_check import check_bootstrap
        unlimited = {"budget": float("inf")}

    def cpu() -> float:
        t = os.times()
        return t.user + t.system

    warm = board("auc", 5, 300)
    check_bootstrap(warm[1], warm[0], get_metric("auc"), resampling(warm[0], "plain"), 0.05,
                    boards=MIN_BOARDS)   # imports and compiled kernels, outside
    rows = []
    for metric in metrics:
        m = get_metric(metric)
        for e, n in shapes:
            y, preds = board(metric, e, n)
            plan = resampling(y, resample)
            check_bootstrap(preds[:2, :50], y[:50], m, resampling(y[:50], "plain"), 0.05,
                            boards=MIN_BOARDS)   # this metric's kernels, outside
            start = cpu()
            check_bootstrap(preds, y, m, plan, 0.05, boards=MIN_BOARDS, **unlimited)
            per_board = (cpu() - start) / MIN_BOARDS
            rows.append({"metric": metric, "shape": f"{e}x{n}", "ms_per_board": 1e3 * per_board,
                         "boards": _budget_boards(m, preds, y)})
    return rows


def _budget_boards(metric, preds, y) -> int:
    """The null boards the check's budget gives this board (0: not checked)."""
    import leaderboard.tiers.guarantee_check as gc

    try:
        from leaderboard.tiers.bootstrap_check import boot_boards
    except ImportError:   # the code before: entries x rows x replicates
        e, n = preds.shape[0], preds.shape[1]
        boards = int(min(gc.BOOT_BOARDS, gc.BOOT_BUDGET // max(1, e * n * (
            gc.BOOT_DRAWS + gc.BOOT_SE_DRAWS))))
    else:
        boards = boot_boards(metric, preds, y)
    return boards if boards >= gc.MIN_BOARDS else 0


def child(tree: Path, argv: list[str], stdout=subprocess.DEVNULL) -> tuple[float, str]:
    """CPU seconds of a child run on ``tree``'s code (and its output)."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(argv, env=env, stdout=out, cwd=tempfile.gettempdir())
        _, status, usage = os.wait4(proc.pid, 0)
        if status != 0:
            raise SystemExit(f"failed (status {status}) on {tree}: {' '.join(argv)}")
        out.seek(0)
        return usage.ru_utime + usage.ru_stime, out.read().decode()


def example_cpu(tree: Path, folder: Path) -> float:
    return child(tree, [sys.executable, "-m", "leaderboard", "analyze", "--example",
                        "submissions", "--quiet", "-o", str(folder / "report.html"),
                        "--json", str(folder / "report.json")])[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", type=Path, required=True, help="the old tree (git archive copy)")
    ap.add_argument("--parts", default="example,table")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--shapes", default="5x300,11x2100,40x2100,100x500")
    ap.add_argument("--metrics", default=METRICS)
    ap.add_argument("--resample", default="plain", help="the table's resampling scheme")
    ap.add_argument("--table-child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    shapes = [tuple(int(v) for v in s.split("x")) for s in args.shapes.split(",")]
    if args.table_child:
        print(json.dumps(table(args.metrics.split(","), shapes, args.resample)))
        return
    trees = {"before": args.base.resolve(), "after": ROOT}
    print(f"load {os.getloadavg()[0]:.1f} at start; {args.rounds} rounds, the first not counted")
    if "example" in args.parts.split(","):
        times: dict[str, list[float]] = {"before": [], "after": []}
        with tempfile.TemporaryDirectory() as tmp:
            for r in range(args.rounds + 1):
                for name, tree in trees.items():
                    spent = example_cpu(tree, Path(tmp))
                    if r:
                        times[name].append(spent)
        b, a = statistics.median(times["before"]), statistics.median(times["after"])
        print(f"\nanalyze --example submissions, CPU s per run: before "
              f"{', '.join(f'{t:.2f}' for t in times['before'])}; after "
              f"{', '.join(f'{t:.2f}' for t in times['after'])}; medians {b:.2f} -> {a:.2f} "
              f"({a / b:.2f}x)")
    if "table" in args.parts.split(","):
        argv = [sys.executable, str(ROOT / "benchmarks" / "bench_self_check.py"), "--base",
                str(args.base), "--table-child", "--shapes", args.shapes, "--metrics",
                args.metrics, "--resample", args.resample]
        runs: dict[str, list[list[dict]]] = {"before": [], "after": []}
        for _ in range(max(1, args.rounds - 1)):
            for name, tree in trees.items():
                runs[name].append(json.loads(child(tree, argv, subprocess.PIPE)[1]))
        print(f"\nself-check per metric and shape (load {os.getloadavg()[0]:.1f}): CPU ms per "
              "null board (median of rounds), null boards the budget gives, the check's CPU s")
        print("| metric | entries x rows | before ms/board | after ms/board | before boards | "
              "after boards | before check s | after check s |")
        print("|---|---|---|---|---|---|---|---|")
        for k, row in enumerate(runs["after"][0]):
            per = {name: statistics.median(run[k]["ms_per_board"] for run in runs[name])
                   for name in trees}
            old, new = runs["before"][0][k], row
            print(f"| {row['metric']} | {row['shape']} | {per['before']:.1f} | "
                  f"{per['after']:.1f} | {old['boards']} | {new['boards']} | "
                  f"{old['boards'] * per['before'] / 1e3:.2f} | "
                  f"{new['boards'] * per['after'] / 1e3:.2f} |", flush=True)
    print(f"\nload {os.getloadavg()[0]:.1f} at the end ({time.strftime('%H:%M')})")


if __name__ == "__main__":
    main()
