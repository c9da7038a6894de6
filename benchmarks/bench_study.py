"""Benchmark: the calibration studies' quick runs, before and after this round's speed-ups (issue 27).

``leaderboard calibrate --scores-only --quick`` (tests/studies/test_scores_study.py runs it) spends
its time solving the binormal universe's true AUC at each level (about 6 models a level), scoring
simulated test sets, the seeds universe's placements and scikit-learn's cross-validated residuals.
The *baseline* is the code before this round, kept below and patched in for the run (the per-model
binary searches of :mod:`leaderboard.noise.universes.sorted_auc` and of the seeds universe's
placements, the binormal classes' quantiles scaled afresh for every model, and calibration's
final scoring of every answer again); the new code is what the package holds now. Both run in this process, alternating, best of ``--rounds``, each from fresh caches.
Every scenario's output must be the same bit for bit (the page, the JSON and the regression page
of the quick calibration; the rows of the studies the tests run), which the script checks and
prints.

    python benchmarks/bench_study.py [--rounds 1] [--only calibrate-quick]
"""
from __future__ import annotations

import argparse
import contextlib
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from leaderboard.noise.universes import UniverseOptions, _calibrated_universe, sorted_auc
from leaderboard.noise.universes.binary import ROWS_PER_CLASS, BinormalUniverse
from leaderboard.noise.universes.finite import CalibratedUniverse
from leaderboard.noise.universes.seeds import SeedsAUCUniverse
from leaderboard.studies import noise as noise_study
from leaderboard.studies.scores_calibration import BoardDesign, run_board_design


# --- the code before this round ------------------------------------------------------------------

def _old_places(neg: np.ndarray, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    below = np.searchsorted(neg, pos, side="left")
    tied = neg[np.minimum(below, neg.size - 1)] == pos
    return below, (np.searchsorted(neg, pos, side="right") if tied.any() else below)


def _old_sorted_classes_auc(neg: np.ndarray, pos: np.ndarray) -> float:
    neg, pos = (sorted_auc._ascending(np.asarray(a, dtype=float)) for a in (neg, pos))
    if neg is None or pos is None or neg.size == 0 or pos.size == 0:
        return float("nan")
    below, up_to = _old_places(neg, pos)
    twice = int(below.sum(dtype=np.int64)) + int(up_to.sum(dtype=np.int64))
    return twice / (2 * neg.size * pos.size)


def _old_truth_of_rows(self, models):
    if self.metric.name != "auc":
        return CalibratedUniverse._truth_of_rows(self, models)
    out = np.array([_old_sorted_classes_auc(m[:ROWS_PER_CLASS], m[ROWS_PER_CLASS:])
                    for m in models], dtype=float)
    if np.isnan(out).any():
        return CalibratedUniverse._truth_of_rows(self, models)
    return out


_new_solve = CalibratedUniverse._solve


def _old_solve(self, levels):
    """The same rounds; then, as before, every answer scored once more for the final check."""
    best = _new_solve(self, levels)
    self.truth(best)
    return best


def _old_classes(self, mu: float):
    return self._sd[0] * self._quantiles, mu + self._sd[1] * self._quantiles


def _old_placements(self, auc: float):
    neg, pos = self._grids(auc)
    return np.searchsorted(neg, pos, "left"), np.searchsorted(neg, pos, "right")


@contextlib.contextmanager
def baseline():
    """The code before this round, restored on exit."""
    saved = (sorted_auc.merge_places, BinormalUniverse.__dict__["_truth_of_rows"],
             SeedsAUCUniverse.__dict__["_placements"], BinormalUniverse.__dict__["_classes"])
    sorted_auc.merge_places = _old_places
    BinormalUniverse._truth_of_rows, BinormalUniverse._classes = _old_truth_of_rows, _old_classes
    CalibratedUniverse._solve = _old_solve
    SeedsAUCUniverse._placements = _old_placements
    try:
        yield
    finally:
        (sorted_auc.merge_places, BinormalUniverse._truth_of_rows,
         SeedsAUCUniverse._placements, BinormalUniverse._classes) = saved
        CalibratedUniverse._solve = _new_solve


def _fresh() -> None:
    """Forget remembered universes and populations: each run solves its own."""
    _calibrated_universe.cache_clear()
    noise_study.auc_population.cache_clear()


# --- the scenarios -------------------------------------------------------------------------------

def _calibrate_quick() -> str:
    """tests/studies/test_scores_study.py's command: the three files it writes, as one string."""
    from leaderboard.cli import main
    with tempfile.TemporaryDirectory() as tmp:
        page, out = Path(tmp) / "scores_only.md", Path(tmp) / "scores_only.json"
        assert main(["calibrate", "--scores-only", "--quick", "--quiet", "-o", str(page),
                     "--json", str(out)]) == 0
        return "\n".join(p.read_text(encoding="utf-8")
                         for p in (page, out, Path(tmp) / "scores_only_regression.md"))


SCENARIOS = {
    "calibrate-quick": _calibrate_quick,
    # test_scores_only_boards_keep_their_promise_on_a_spread_family
    "spread-cell": lambda: json.dumps(run_board_design(
        BoardDesign("minority spread", 10, 6, draws=200, replicates=600))),
    # test_equal_sds_understate_a_spread_minority_and_the_default_does_not
    "noise-study-test": lambda: json.dumps(noise_study.auc_study(
        cells=((3000, 0.1),), aucs=(0.85,), families=("binormal", "minority spread"),
        universes={"binormal": UniverseOptions(name="binormal", spread=1.0),
                   "spread 2": UniverseOptions(name="binormal", spread=2.0)},
        draws=400, universe_draws=600)),
}


def best_of(rounds: int, run) -> dict:
    """Process seconds of the baseline and of the new code (best of ``rounds``, alternating,
    each from fresh caches) and whether their outputs are the same bytes."""
    seconds = {"baseline": np.inf, "new": np.inf}
    outputs = {}
    for _ in range(rounds):
        for which in ("baseline", "new"):
            _fresh()
            with baseline() if which == "baseline" else contextlib.nullcontext():
                start = time.process_time()
                outputs[which] = run()
                seconds[which] = min(seconds[which], time.process_time() - start)
    return {**seconds, "same": outputs["baseline"] == outputs["new"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args()
    SCENARIOS["spread-cell"]()    # compile and import once, outside the timings
    print(f"{'scenario':18} {'baseline s':>11} {'new s':>8} {'ratio':>6}  same bytes")
    for name, run in SCENARIOS.items():
        if args.only is None or name in args.only:
            r = best_of(args.rounds, run)
            print(f"{name:18} {r['baseline']:11.2f} {r['new']:8.2f} "
                  f"{r['baseline'] / r['new']:6.2f}  {r['same']}", flush=True)


if __name__ == "__main__":
    main()
