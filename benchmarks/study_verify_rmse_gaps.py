"""Independent check of issue 39's second "Done when": RMSE boards of scores with public and
private columns, analysed by :func:`leaderboard.analyze` as a user runs it (defaults, slice
sizes given), against known true RMSEs.

Each board: ``--entries`` entries, entry j's residuals ``sigma_j * e`` with ``sigma_j`` evenly
from 1 to 1.5 (the true RMSE, since every family has unit variance), ``e`` independent between
rows and entries from one family: ``normal``; ``t3`` (Student t, 3 df, over sqrt 3);
``outliers`` (95% N(0, 1), 5% N(0, 5^2), over its SD). Public and private scores are the RMSE on
disjoint slices of ``--public`` and ``--private`` rows; the private one ranks.

Printed per family: coverage of the true RMSE by the private interval (share of entries,
binomial SE over entries, and the share of boards where every interval held), and the mean
ratio of the interval's width to the exact one under normal residuals
(``RMSE * sqrt(n / chi2_{n, q})``, q = 0.975 and 0.025).

    nice -n 10 python benchmarks/study_verify_rmse_gaps.py --boards 100
"""
from __future__ import annotations

import argparse
import math

import numpy as np
import pandas as pd
from scipy import stats


def residuals(rng, family: str, size) -> np.ndarray:
    if family == "normal":
        return rng.standard_normal(size)
    if family == "t3":
        return rng.standard_t(3, size) / math.sqrt(3)
    if family == "outliers":
        big = rng.random(size) < 0.05
        e = rng.standard_normal(size) * np.where(big, 5.0, 1.0)
        return e / math.sqrt(0.95 + 0.05 * 25)
    raise ValueError(family)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--boards", type=int, default=100)
    ap.add_argument("--entries", type=int, default=30)
    ap.add_argument("--public", type=int, default=1000)
    ap.add_argument("--private", type=int, default=3000)
    ap.add_argument("--families", default="normal,t3,outliers")
    a = ap.parse_args()
    import leaderboard
    sig = np.linspace(1.0, 1.5, a.entries)
    names = [f"e{j:02d}" for j in range(a.entries)]
    print(f"{a.entries} entries, public {a.public} rows, private {a.private} rows, {a.boards} boards")
    print("| residuals | coverage % (entries) | all held % (boards) | width / exact normal | "
          "scale read (mean) |")
    print("|---|---|---|---|---|")
    for fam in a.families.split(","):
        rng = np.random.default_rng(391)
        hit, allh, ratio, scales = [], [], [], []
        for b in range(a.boards):
            pub = sig * np.sqrt((residuals(rng, fam, (a.entries, a.public)) ** 2).mean(1))
            pri = sig * np.sqrt((residuals(rng, fam, (a.entries, a.private)) ** 2).mean(1))
            df = pd.DataFrame({"team": names, "public": pub, "private": pri})
            r = leaderboard.analyze(df, metric="rmse", public_col="public", private_col="private",
                                    n_public=a.public, n_private=a.private)
            t = r.table.set_index("team").loc[names]
            h = (t.ci_low.to_numpy() <= sig) & (sig <= t.ci_high.to_numpy())
            hit.extend(h)
            allh.append(h.all())
            n = a.private
            lo = pri * math.sqrt(n / stats.chi2.ppf(0.975, n))
            hi = pri * math.sqrt(n / stats.chi2.ppf(0.025, n))
            ratio.extend((t.ci_high.to_numpy() - t.ci_low.to_numpy()) / (hi - lo))
            tails = getattr(r.analysis, "tails", None)
            sc = getattr(getattr(tails, "scale", None), "scale", math.nan)
            scales.append(sc)
        p = np.mean(hit)
        se = math.sqrt(p * (1 - p) / len(hit))
        print(f"| {fam} | {100 * p:.1f} ± {100 * se:.1f} | {100 * np.mean(allh):.1f} | "
              f"{np.mean(ratio):.2f} | {np.nanmean(scales):.2f} |", flush=True)


if __name__ == "__main__":
    main()
