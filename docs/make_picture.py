"""Draw the README's picture from the bundled example: ``python docs/make_picture.py``.

The example is analysed as ``leaderboard analyze --example`` analyses it (AUC, 900 public and
2,100 private rows, 10% positives, seed 0), and its scores-and-intervals chart (the report's first
chart: every entry's score, its 95% interval and its tier) is written as a static SVG to
``docs/img/example.svg``. Same code and seed, same picture: rerun it when the chart changes.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

import leaderboard
from leaderboard.resources import data_dir

OUT = Path(__file__).resolve().parent / "img" / "example.svg"


def main() -> None:
    board = pd.read_csv(data_dir() / "example_leaderboard.csv")
    result = leaderboard.analyze(board, metric="auc", n_public=900, n_private=2100,
                                 prevalence=0.1, seed=0, quiet=True)
    result.save(OUT)
    print(f"wrote {OUT} ({OUT.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
