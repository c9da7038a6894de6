"""What issue 39's regression tails and the post-mortem's re-read power cost, in CPU seconds.

Each pair runs in this process, alternating, the same inputs both ways:

* ``one column``: a regression board of scores analysed with the bracket (the best set counted
  under normal residuals too) against the same analysis without it (``with_bracket`` patched out);
* ``two columns``: a regression board with public and private scores, its noise read from the
  gaps (four slice simulations, a check against t(3)) against the old default (``--residuals t``
  stated: two);
* ``post-mortem``: the bundled example's (and the ultrasound board's, when ../shared/data is
  there) post-mortem with the power statement's honest draws and re-reads against without.

Usage::

    python benchmarks/bench_tails.py [--rounds 3] [--sberbank]

``--sberbank`` adds the 3,265-entry Sberbank download (one column, RMSLE, 7,662 rows) when
../shared/data is there. docs/benchmarks.md quotes the output.
"""
from __future__ import annotations

import argparse
import time
from unittest.mock import patch
from pathlib import Path

import numpy as np
import pandas as pd

import leaderboard.pipelines.scores as scores_module
from leaderboard.noise.universe_options import UniverseOptions
from leaderboard.options import AnalyzeOptions, NoiseOptions, RankOptions, SliceOptions
from leaderboard.pipelines.run import Inputs, run_analysis

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def regression_board(entries: int, rows: int, public_rows: int | None, seed: int = 0):
    rng = np.random.default_rng(seed)
    scale = 1.0 + 0.5 * np.linspace(0, 1, entries)
    frame = {"team": [f"t{i}" for i in range(entries)]}

    def rmse(n):
        return np.sqrt(np.mean((scale[:, None] * rng.standard_t(5, (entries, n))) ** 2, axis=1))
    if public_rows is None:
        frame["score"] = rmse(rows)
    else:
        frame["public_score"], frame["private_score"] = rmse(public_rows), rmse(rows)
    return pd.DataFrame(frame)


def cpu(run) -> float:
    start = time.process_time()
    run()
    return time.process_time() - start


def pair(label: str, new, old, rounds: int) -> None:
    new(), old()   # warm: kernels compiled, modules imported
    a, b = [], []
    for _ in range(rounds):
        a.append(cpu(new))
        b.append(cpu(old))
    print(f"| {label} | {np.median(a):.2f} s | {np.median(b):.2f} s | x{np.median(a) / np.median(b):.2f} |",
          flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sberbank", action="store_true")
    args = parser.parse_args()
    print("| case | issue 39 | without | ratio |\n|---|---|---|---|")

    def analysis(board, metric="rmse", universe=UniverseOptions(), **slices):
        options = AnalyzeOptions(noise=NoiseOptions(metric=metric, universe=universe),
                                 slices=SliceOptions(**slices), ranks=RankOptions())
        return lambda: run_analysis(Inputs(board=board), options)

    one = analysis(regression_board(300, 2000, None), n_test=2000)

    def no_bracket():
        with patch.object(scores_module, "with_bracket", lambda tails, *a, **k: tails):
            one()
    pair("one column, RMSE, 300 entries, 2,000 rows", one, no_bracket, args.rounds)
    two = regression_board(100, 1500, 500)
    pair("two columns, RMSE, 100 entries, 500 + 1,500 rows",
         analysis(two, n_public=500, n_private=1500),
         analysis(two, universe=UniverseOptions(residuals="t", df=3.000001), n_public=500,
                  n_private=1500), args.rounds)
    example = run_analysis(Inputs(example="scores"), AnalyzeOptions()).leaderboard.entries

    def post_mortem(board, metric, **kw):
        options = AnalyzeOptions(noise=NoiseOptions(metric=metric, prevalence=kw.pop("prevalence", None)),
                                 slices=SliceOptions(**kw))
        return lambda: run_analysis(Inputs(board=board), options)

    import leaderboard.pipelines.shakeup as shakeup_module
    plain = shakeup_module.shakeup_from_scores

    def without_power(run):
        def go():
            with patch.object(shakeup_module, "shakeup_from_scores",
                         lambda *a, **k: plain(*a, **{**k, "estimated": None})):
                with patch.object(scores_module, "shakeup_from_scores",
                             lambda *a, **k: plain(*a, **{**k, "estimated": None})):
                    run()
        return go
    frame = example[["team", "public_score", "private_score"]]
    run = post_mortem(frame, "auc", prevalence=0.1, n_public=900, n_private=2100)
    pair("post-mortem, the example (40 entries)", run, without_power(run), args.rounds)
    ultrasound = DATA / "kaggle_public_private" / "ultrasound-nerve-segmentation__public_private.csv"
    if ultrasound.is_file():
        run = post_mortem(str(ultrasound), "dice", n_test=5508, public_fraction=0.2)
        pair("post-mortem, ultrasound (922 entries, Dice)", run, without_power(run), args.rounds)
    sberbank = DATA / "kaggle_lb_downloads" / "sberbank-russian-housing-market__publicleaderboard.csv"
    if args.sberbank and sberbank.is_file():
        board = analysis(str(sberbank), metric="rmsle", n_test=7662)

        def board_without():
            with patch.object(scores_module, "with_bracket", lambda tails, *a, **k: tails):
                board()
        pair("one column, Sberbank (3,265 entries, RMSLE)", board, board_without, args.rounds)


if __name__ == "__main__":
    main()
