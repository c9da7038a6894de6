"""Benchmark: ``analyze`` on the slowest real boards, baseline vs this tree in one process (issue 27).

The changes timed against the code they replaced, kept here as the baseline:

- ``row_major``: a simulated block of test sets that touches few universe rows is a sparse count
  matrix, and scipy's sparse times dense product ravels the dense features in C order: the
  baseline handed it the Fortran-ordered features, copied whole on every block (prostate2021:
  32,766 rows x 650 columns, 88 ms a copy against 16 ms for the product); now one C-ordered copy
  per prepared plan;
- ``labels``: the multi-class universe's label models (QWK here), built class-major, so that each
  of the column-by-column passes that pick the most probable class is contiguous, and the class
  picked as the one logit that clears the near-tie floor (a sum of small integers) rather than
  by a masked assignment per column;
- ``cells``: a label metric counted from whole numbers is simulated on each model's ``K x K``
  cells (true class, predicted class) weighted by their drawn rows' counts, rather than on
  features of every universe row (181 models x 32,766 rows x 8 columns for prostate2021).

Per board, the whole ``analyze`` run (the CLI, statistics and report) is timed with the baseline
patched in and with this tree's, each from a fresh universe cache, alternating ``--rounds`` times
so both share the machine's load; the best of the rounds is kept. Both runs' JSON and HTML must
be the same bytes, or the script fails. The boards' arguments are
tests/pipelines/test_real_boards.py's; ``--draws`` replaces its 100 draws (the tests' value by
default; the CLI's default is 2,000).

    python benchmarks/bench_real_boards.py [--rounds 2] [--draws 100] [--only prostate2021,sberbank]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from contextlib import contextmanager, nullcontext
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"
PP = "kaggle_public_private"
BOARDS = {
    "uninadmc": (PP, "uninadmc-bls-2__public_private.csv", "--metric", "f1", "--n-test", "500",
                 "--public-fraction", "0.5", "--prevalence", "0.5"),
    "nlp": ("kaggle_lb_downloads", "nlp-getting-started__publicleaderboard.csv", "--metric", "f1",
            "--n-test", "3263", "--prevalence", "0.43"),
    "herbarium2022": ("mle_dojo_leaderboards", "herbarium-2022-fgvc9__private_leaderboard.csv",
                      "--team-col", "rank", "--metric", "f1", "--n-test", "5000",
                      "--prevalence", "0.1"),
    "prostate2021": (PP, "2021-prostate__public_private.csv", "--metric", "qwk", "--classes",
                     "6", "--n-test", "1000", "--public-fraction", "0.5"),
    "rsna-ich": (PP, "2021-rsna-intracranial__public_private.csv", "--metric", "logloss",
                 "--prevalence", "0.14", "--two-stage", "--n-public", "78545", "--n-private",
                 "121232"),
    "sberbank": ("kaggle_lb_downloads", "sberbank-russian-housing-market__publicleaderboard.csv",
                 "--metric", "rmsle", "--n-test", "7662"),
}


def baseline_labels(universe, mu: float, temperature: float) -> np.ndarray:
    """``MulticlassUniverse._labels`` before: the row-major model of ``_model``, then
    the labels of its ``(rows, k)`` logits."""
    llr = np.multiply(universe._own, mu)
    np.multiply(np.add(llr, universe._noise, out=llr), mu, out=llr)
    if np.isinf(temperature):
        return (llr.argmax if temperature > 0 else llr.argmin)(axis=1)
    np.add(np.multiply(llr, temperature, out=llr), universe._log_shares, out=llr)
    return baseline_most_probable(llr)


def baseline_most_probable(logits: np.ndarray) -> np.ndarray:
    """``_most_probable`` before (up to 7 classes, no NaN): the first column at the maximum by a
    masked assignment per column, then the close rows' softmax."""
    from scipy.special import softmax

    from leaderboard.noise.universes.multiclass import _TIE, _column_max

    k = logits.shape[1]
    top = _column_max(logits)
    pick = np.full(logits.shape[0], k - 1, dtype=np.intp)
    for j in range(k - 2, -1, -1):
        pick[logits[:, j] == top] = j
    floor = top - _TIE * np.maximum(np.abs(top), 1.0)
    count = (logits[:, 0] >= floor).astype(np.intp)
    for j in range(1, k):
        count += logits[:, j] >= floor
    close = count > 1
    if close.any():
        pick[close] = softmax(logits[close], axis=1).argmax(axis=1)
    return pick


@contextmanager
def baseline_code():
    """The baseline patched in where the pipeline calls it."""
    from leaderboard.metrics import base
    from leaderboard.noise.universes.finite import CalibratedUniverse
    from leaderboard.noise.universes.multiclass import MulticlassUniverse

    saved = (base._SumsPlan.__dict__["row_major"], MulticlassUniverse._labels,
             CalibratedUniverse._cell_labels)
    # a property (a data descriptor) wins over a cached value in the instance
    base._SumsPlan.row_major = property(lambda plan: plan.features)
    MulticlassUniverse._labels = baseline_labels
    CalibratedUniverse._cell_labels = lambda universe, models: None   # every row's features
    try:
        yield
    finally:
        (base._SumsPlan.row_major, MulticlassUniverse._labels,
         CalibratedUniverse._cell_labels) = saved


def run_board(name: str, folder: Path, draws: int) -> tuple[float, bytes, bytes]:
    """Seconds of one ``analyze`` run of board ``name``, and its JSON and HTML."""
    from bench_boards import fresh_caches

    from leaderboard.cli import main as cli

    sub, file, *args = BOARDS[name]
    out = folder / f"{name}.json"
    html = folder / f"{name}.html"
    folder.mkdir(exist_ok=True)
    fresh_caches()
    start = time.perf_counter()
    code = cli(["analyze", str(DATA / sub / file), *args, "--draws", str(draws),
                "--replicates", "200", "--quiet", "-o", str(html), "--json", str(out)])
    seconds = time.perf_counter() - start
    if code != 0:
        raise SystemExit(f"{name}: analyze exited {code}")
    return seconds, out.read_bytes(), html.read_bytes()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--draws", type=int, default=100)
    parser.add_argument("--only", help="comma-separated board names")
    args = parser.parse_args()
    sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]
    names = args.only.split(",") if args.only else list(BOARDS)
    print(f"{'run (--draws ' + str(args.draws) + ')':32} {'baseline':>9} {'this':>9} {'ratio':>8}")
    with tempfile.TemporaryDirectory(prefix="bench-real-") as tmp:
        run_board("sberbank", Path(tmp), 100)   # untimed: imports, the chart renderer's start
        for name in names:   # (the label boards first: the cells' path is also checked there)
            best = {"baseline": np.inf, "this": np.inf}
            outputs = {}
            for _ in range(args.rounds):   # alternating, so both see the same load
                for label, code in (("baseline", baseline_code), ("this", nullcontext)):
                    with code():
                        seconds, *outputs[label] = run_board(name, Path(tmp) / label,
                                                             args.draws)
                    best[label] = min(best[label], seconds)
            if outputs["baseline"] != outputs["this"]:
                raise SystemExit(f"{name}: the JSON or HTML differs from the baseline's")
            print(f"{'analyze ' + name:32} {best['baseline']:9.2f} {best['this']:9.2f} "
                  f"{best['baseline'] / best['this']:7.2f}x  (s; same JSON and HTML bytes)")


if __name__ == "__main__":
    main()
