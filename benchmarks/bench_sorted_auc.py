"""Benchmark: the binormal universe's AUC without sorting, against the general weighted kernel (issue 27).

The scores-only calibration study (``leaderboard calibrate --scores-only``) spends its time in the
binormal universe: solving each level's true AUC (about 20 models a level) and scoring the simulated
test sets. :mod:`leaderboard.noise.universes.sorted_auc` does both from the classes' order (a merge
for the truth; the drawn positives' places among the negatives' cumulative counts for a test set).
The *baseline* here is the same code with the binormal universe sent back to the general path
(:meth:`CalibratedUniverse._truth_of_rows` sorts every model's rows; :meth:`CalibratedUniverse.simulate`
runs the weighted rank kernel over all 16,384 rows per model and test set) and the logistic family
rebuilt from all its draws, both in this process, alternating, best of ``--rounds``. Every scenario's
output must be the same bit for bit (rows of the study, the noise study's rows, the real boards'
JSON reports), which the script checks and prints.

    python benchmarks/bench_sorted_auc.py [--rounds 1] [--only study-quick]
"""
from __future__ import annotations

import argparse
import contextlib
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from leaderboard.noise.universes import _calibrated_universe
from leaderboard.noise.universes.binary import BinormalUniverse
from leaderboard.noise.universes.finite import CalibratedUniverse
from leaderboard.studies import noise as noise_study
from leaderboard.studies.scores_calibration import (BoardDesign, default_board_designs,
                                                    run_board_design)

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "kaggle_public_private"


def _old_logistic(noise_sd: float) -> noise_study.Population:
    """The logistic family as it was built: every draw scored, the kept rows selected after."""
    rng = np.random.default_rng(20261123)
    z = rng.standard_normal(40 * noise_study.ROWS)
    y = rng.random(z.size) < 1.0 / (1.0 + np.exp(3.0 - 6.0 * z))
    noise = rng.standard_normal(z.size)
    score = z + noise_sd * noise
    return noise_study.Population("logistic", score[~y][:noise_study.ROWS],
                                  score[y][:noise_study.ROWS])


@contextlib.contextmanager
def baseline():
    """The general paths (the code before the sorted-AUC change), restored on exit."""
    saved = (BinormalUniverse.__dict__["_truth_of_rows"], BinormalUniverse.__dict__["simulate"],
             noise_study._logistic)
    BinormalUniverse._truth_of_rows = CalibratedUniverse._truth_of_rows
    BinormalUniverse.simulate = CalibratedUniverse.simulate
    noise_study._logistic = _old_logistic
    try:
        yield
    finally:
        BinormalUniverse._truth_of_rows, BinormalUniverse.simulate, noise_study._logistic = saved


def _fresh() -> None:
    """Forget remembered universes and populations: each run solves its own."""
    _calibrated_universe.cache_clear()
    noise_study.auc_population.cache_clear()


def _real_board(name: str, args: list[str]):
    def run() -> str:
        from leaderboard.cli import main
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "report.json"
            status = main(["analyze", str(DATA / name), *args, "--quiet", "-o",
                           str(Path(tmp) / "report.html"), "--json", str(out)])
            assert status == 0
            return out.read_text(encoding="utf-8")
    return run


SCENARIOS = {
    # the study's --quick designs: every family, 2 competitions of 6 entries
    "study-quick": lambda: json.dumps([run_board_design(d) for d in default_board_designs(True)]),
    # tests/studies/test_scores_study.py's known-truth cell
    "study-spread-cell": lambda: json.dumps(run_board_design(
        BoardDesign("minority spread", 10, 6, draws=200, replicates=600))),
    # one cell of the full study's 50-entry boards (1000 draws, 1000 replicates), 1 competition
    "study-full-cell": lambda: json.dumps(run_board_design(BoardDesign("logistic", 50, 1))),
    "noise-study-quick": lambda: json.dumps(noise_study.auc_study(
        cells=((1000, 0.1),), aucs=(0.85,), draws=100, universe_draws=100)),
    "real-mlsp-2014-mri": _real_board("mlsp-2014-mri__public_private.csv",
                                      ["--metric", "auc", "--n-public", "30", "--n-private", "90",
                                       "--prevalence", "0.5"]),
    "real-prostate-cancer": _real_board("prostate-cancer__public_private.csv",
                                        ["--metric", "auc", "--n-test", "200",
                                         "--public-fraction", "0.3", "--prevalence", "0.5"]),
}


def timed(run) -> tuple[float, str]:
    _fresh()
    start = time.perf_counter()
    out = run()
    return time.perf_counter() - start, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args()
    names = [n for n in SCENARIOS if args.only is None or n in args.only]
    if not DATA.exists():
        names = [n for n in names if not n.startswith("real-")]
    # compile and import once, outside the timings (the report too: the real boards write one)
    SCENARIOS["study-quick"]()
    if any(n.startswith("real-") for n in names):
        SCENARIOS["real-prostate-cancer"]()
    print(f"{'scenario':22} {'baseline s':>11} {'new s':>8} {'ratio':>6}  same output")
    for name in names:
        base = new = np.inf
        for _ in range(args.rounds):
            with baseline():
                seconds, old_out = timed(SCENARIOS[name])
            base = min(base, seconds)
            seconds, new_out = timed(SCENARIOS[name])
            new = min(new, seconds)
        print(f"{name:22} {base:11.2f} {new:8.2f} {base / new:6.2f}  {old_out == new_out}")


if __name__ == "__main__":
    main()
