"""Generate the small example boards the manual's commands read, one per kind of board.

Run ``python data/make_board_examples.py [out_dir]`` (default: this folder). Deterministic (fixed
seed; the same numpy gives byte-identical files); committed next to this script. Each board is a
look-alike of a kind of real board, simulated: every team has a true score, and each split shows it
plus the noise of that split's size (a normal draw with the SD a test set of that size gives).

``example_rmsle.csv``
    ``team,score``: a regression board, RMSLE on 3,000 rows (lower is better), 15 teams.
``example_logloss.csv``
    ``team,public_score,private_score``: a two-stage binary competition scored by log loss, 26%
    positives; the public board was a stage-1 test set of 198 patients, the private one 506 others.
    12 teams; the last submitted the prevalence as every probability (a constant baseline).
``example_dice.csv``
    ``team,public_score,private_score``: mean Dice on 5,508 images, 20% of them public; a few teams
    tuned to the public board (their public scores are higher than their true ones).
``example_f1_macro.csv``
    ``team,score``: macro F1 on 2,000 rows of three classes (50%, 30%, 20%), 12 teams.
``example_candidates.csv``
    ``name,score``: one team's 12 submissions in the order made, each with its public accuracy on
    1,000 rows (``leaderboard choose --public-scores``).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

SEED = 20261208
_FIRST = ["Aurora", "Basalt", "Cobalt", "Delta", "Ember", "Fjord", "Granite", "Harbor", "Indigo",
          "Juniper", "Kelp", "Lichen", "Meridian", "Nebula", "Obsidian", "Prism", "Quartz",
          "Riverbend", "Saffron", "Tundra", "Umber", "Vesper", "Willow", "Xenon", "Yarrow",
          "Zephyr", "Alder", "Birch", "Cedar", "Dune"]


def _names(n: int, suffix: str) -> list[str]:
    return [f"{_FIRST[i]} {suffix}" for i in range(n)]


def _observed(rng: np.random.Generator, truth: np.ndarray, sd: float) -> np.ndarray:
    return np.round(truth + rng.normal(0.0, sd, truth.size), 5)


def boards(seed: int = SEED) -> dict[str, list[list]]:
    """Every example board: file name -> rows (the header first)."""
    rng = np.random.default_rng(seed)
    out: dict[str, list[list]] = {}
    # RMSLE: residuals' SD ~ the score; the SE of an RMSE on n rows is about score / sqrt(2 n)
    truth = np.sort(rng.uniform(0.309, 0.36, 15))
    out["example_rmsle.csv"] = [["team", "score"]] + [
        [t, s] for t, s in zip(_names(15, "Housing"), _observed(rng, truth, 0.31 / np.sqrt(2 * 3000)))]
    # binary log loss at 26% positives: per-row SD about 0.6, public 198 rows, private 506
    truth = np.sort(rng.uniform(0.42, 0.55, 11))
    public = _observed(rng, truth, 0.6 / np.sqrt(198))
    private = _observed(rng, truth, 0.6 / np.sqrt(506))
    rows = [[t, p, q] for t, p, q in zip(_names(11, "Lung"), public, private)]
    constant = round(-(0.26 * np.log(0.26) + 0.74 * np.log(0.74)), 5)
    rows.append(["Prevalence baseline", constant, constant])
    out["example_logloss.csv"] = [["team", "public_score", "private_score"]] + rows
    # mean Dice: per-image SD about 0.35; 1,102 public images, 4,406 private; the last five teams
    # tuned to the public board by 0.01-0.02
    truth = np.sort(rng.uniform(0.56, 0.71, 25))[::-1]
    public = _observed(rng, truth, 0.35 / np.sqrt(1102))
    public[-5:] += np.round(rng.uniform(0.01, 0.02, 5), 5)
    private = _observed(rng, truth, 0.35 / np.sqrt(4406))
    out["example_dice.csv"] = [["team", "public_score", "private_score"]] + [
        [t, p, q] for t, p, q in zip(_names(25, "Nerve"), np.round(public, 5), private)]
    # macro F1 of three classes: SE about 0.5 / sqrt(n)
    truth = np.sort(rng.uniform(0.6, 0.75, 12))[::-1]
    out["example_f1_macro.csv"] = [["team", "score"]] + [
        [t, s] for t, s in zip(_names(12, "Forest"), _observed(rng, truth, 0.5 / np.sqrt(2000)))]
    # one team's submissions: true accuracy creeping up by small steps, public SE sqrt(pq / 1000)
    truth = 0.80 + np.cumsum(rng.uniform(0.0, 0.004, 12))
    out["example_candidates.csv"] = [["name", "score"]] + [
        [f"submission {k + 1:02d}", s] for k, s in
        enumerate(_observed(rng, truth, np.sqrt(0.8 * 0.2 / 1000)))]
    return out


def main(out_dir: str | Path | None = None) -> list[Path]:
    """Write every example board into ``out_dir`` (default: this folder)."""
    folder = Path(out_dir) if out_dir is not None else Path(__file__).parent
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, rows in boards().items():
        path = folder / name
        path.write_text("".join(",".join(str(v) for v in row) + "\n" for row in rows),
                        encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for path in main(sys.argv[1] if len(sys.argv) > 1 else None):
        print(path)
