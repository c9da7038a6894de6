"""Benchmark: battles mode on 1M synthetic battles against arena-rank (LMArena's package), arenakit
and the LMArena notebook's logistic regression (issue 26).

Generates a deterministic arena (``--models`` models with normal strengths, uneven popularity,
15% ties of which a third are ``tie (bothbad)``), then times:

* ours: the pair counts and the Newton fit; the sandwich covariance; ``--replicates`` bootstrap
  refits; and ``leaderboard.analyze_battles`` end to end on the DataFrame (reading, fit,
  bootstrap, rank sets, tiers);
* the LMArena notebook's ``compute_mle_elo`` (scikit-learn's unpenalised logistic regression on
  the pair design: a win weighs 2, a tie 1 each way), in this process;
* arena-rank's ``BradleyTerry`` fit with its sandwich intervals (timed twice: the first call
  includes jax's compilation), its bootstrap (``--foreign-replicates``, multiprocessing over the
  machine's cores; off by default) and arenakit's unpenalised ``fit_bt``, each in a subprocess
  on the same battles, run by ``--compare-python PY`` (default: this interpreter). Neither is a
  dependency of this project; arena-rank pins jax 0.8.1 and numpy 2.3.3, but runs with this
  project's numpy when installed with ``pip install --no-deps arena-rank`` plus
  ``pip install jax==0.8.1 optax jaxtyping`` (arenakit: ``--no-deps`` plus pydantic). A method
  whose package is missing is reported as not run.

It prints each method's time, its ratio to ours (counting, fit and sandwich), the largest
difference of its ratings from ours (rating points,
every method anchored at the models' mean = 1000), and the largest relative difference of the
interval half-widths where a method gives them.

    python benchmarks/bench_battles.py [--battles 1000000] [--models 100] [--replicates 1000]
        [--compare-python /path/to/venv/bin/python]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import expit

from leaderboard.noise.bradley_terry import (SCALE, PairCounts, bootstrap_fits, fit,
                                             sandwich_covariance)

WINNERS = np.array(["model_a", "model_b", "tie", "tie (bothbad)"])

FOREIGN = textwrap.dedent("""
    import json, sys, time
    import numpy as np, pandas as pd


    def main():
        data = np.load(sys.argv[1], allow_pickle=False)
        names, a, b, code = data["names"], data["a"], data["b"], data["code"]
        replicates = int(sys.argv[2])
        out = {}
        try:
            from arena_rank.models.bradley_terry import BradleyTerry
            from arena_rank.utils.data_utils import PairDataset
            df = pd.DataFrame({"model_a": names[a], "model_b": names[b],
                               "winner": np.array(["model_a", "model_b", "tie", "both_bad"])[code]})
            t = time.perf_counter()
            ds = PairDataset.from_pandas(df)
            prepared = time.perf_counter() - t
            for run in ("first call: jax compiles", "second call"):
                t = time.perf_counter()
                model = BradleyTerry(n_competitors=len(ds.competitors))
                res = model.compute_ratings_and_cis(ds, significance_level=0.05)
                seconds = time.perf_counter() - t
                order = [list(res["competitors"]).index(n) for n in names]
                out[f"arena-rank fit + sandwich ({run})"] = {
                    "seconds": seconds,
                    "ratings": np.asarray(res["ratings"])[order].tolist(),
                    "half_width": ((np.asarray(res["rating_upper"])
                                    - np.asarray(res["rating_lower"])) / 2)[order].tolist()}
            out["arena-rank PairDataset.from_pandas (counting)"] = {
                "seconds": prepared, "ratings": out[f"arena-rank fit + sandwich ({run})"]["ratings"]}
            if replicates:
                t = time.perf_counter()
                # its pool forks by default, after jax has started threads, and deadlocked here
                # (jax warns that it will): spawned workers instead, each importing jax again
                import multiprocessing
                multiprocessing.set_start_method("spawn", force=True)
                boot = BradleyTerry(n_competitors=len(ds.competitors))
                res = boot.compute_ratings_and_cis(ds, ci_method="bootstrap",
                                                   num_bootstrap=replicates, seed=0)
                out[f"arena-rank (fit + {replicates} bootstrap refits)"] = {
                    "seconds": time.perf_counter() - t,
                    "ratings": np.asarray(res["ratings"])[order].tolist(),
                    "half_width": ((np.asarray(res["rating_upper"])
                                    - np.asarray(res["rating_lower"])) / 2)[order].tolist()}
        except ImportError as error:
            out["arena-rank"] = {"error": str(error)}
        try:
            from arenakit.bt import fit_bt, to_elo
            from arenakit.schema import _counts
            t = time.perf_counter()
            fitted = fit_bt(_counts(a, b, np.minimum(code, 2), len(names)), prior=0.0)
            out["arenakit (fit, no prior)"] = {"seconds": time.perf_counter() - t,
                                               "ratings": to_elo(fitted.scores).tolist()}
        except ImportError as error:
            out["arenakit"] = {"error": str(error)}
        print(json.dumps(out))


    if __name__ == "__main__":   # spawned workers import this file: run nothing
        main()
""")


def arena(battles: int, models: int, seed: int = 0):
    """Model codes a, b and outcome codes (0 a won, 1 b won, 2 tie, 3 tie (bothbad))."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, 1.0, models)
    popularity = rng.uniform(0.2, 3.0, models)
    a = rng.choice(models, size=battles, p=popularity / popularity.sum())
    b = rng.integers(0, models - 1, size=battles)
    b = np.where(b >= a, b + 1, b)
    tie = rng.random(battles) < 0.15
    won = rng.random(battles) < expit(theta[a] - theta[b])
    code = np.where(tie, np.where(rng.random(battles) < 1 / 3, 3, 2), np.where(won, 0, 1))
    names = np.array([f"model-{k:03d}" for k in range(models)])
    return names, a, b, code


def lmarena_notebook(pc: PairCounts) -> np.ndarray:
    """``compute_mle_elo`` of LMArena's notebook on the same counts (its weights: a win 2, a tie
    1 each way; scikit-learn, no penalty, no intercept), mean-anchored at 1000."""
    import warnings

    from sklearn.linear_model import LogisticRegression

    p, m = len(pc.pairs), pc.n_models
    x = np.zeros((2 * p, m))
    rows = np.arange(p)
    for block in (0, 1):
        x[block * p + rows, pc.pairs[:, 0]] = np.log(10.0)
        x[block * p + rows, pc.pairs[:, 1]] = -np.log(10.0)
    y = np.r_[np.ones(p), np.zeros(p)]
    w = np.r_[2 * pc.counts[:, 0] + pc.counts[:, 2], 2 * pc.counts[:, 1] + pc.counts[:, 2]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = LogisticRegression(fit_intercept=False, C=np.inf, tol=1e-6).fit(x, y,
                                                                              sample_weight=w)
    return 1000 + 400 * (model.coef_[0] - model.coef_[0].mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--battles", type=int, default=1_000_000)
    parser.add_argument("--models", type=int, default=100)
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--compare-python", default=sys.executable,
                        help="an interpreter with arena-rank and arenakit (default: this one)")
    parser.add_argument("--foreign-replicates", type=int, default=0,
                        help="arena-rank bootstrap refits (default 0: slow; its pool of spawned "
                             "workers took 111 s for 10 refits of 5,000 battles here)")
    args = parser.parse_args()
    names, a, b, code = arena(args.battles, args.models)
    print(f"{args.battles:,} battles, {args.models} models, {int((code >= 2).sum()):,} ties")
    results = {}

    for run in ("first call", "second call"):    # the first pays scipy's imports
        t = time.perf_counter()
        pc = PairCounts.from_battles(a, b, np.minimum(code, 2), args.models)
        theta = fit(pc)
        fit_seconds = time.perf_counter() - t
        ours = 1000 + SCALE * theta
        t = time.perf_counter()
        half = 1.959964 * SCALE * np.sqrt(np.diag(sandwich_covariance(pc, theta)))
        results[f"ours: counts + Newton fit ({run})"] = {"seconds": fit_seconds, "ratings": ours}
        results[f"ours: sandwich covariance ({run})"] = {
            "seconds": time.perf_counter() - t, "ratings": ours, "half_width": half}
    t = time.perf_counter()
    boot = 1000 + SCALE * bootstrap_fits(pc, theta, args.replicates, seed=0)
    seconds = time.perf_counter() - t
    low, high = np.nanpercentile(boot, [2.5, 97.5], axis=1)
    results[f"ours: {args.replicates} bootstrap refits"] = {
        "seconds": seconds, "ratings": ours, "half_width": (high - low) / 2,
        "note": f"{int(np.isnan(boot).any(axis=0).sum())} unbounded redraws"}

    import leaderboard

    frame = pd.DataFrame({"model_a": names[a], "model_b": names[b], "winner": WINNERS[code]})
    t = time.perf_counter()
    result = leaderboard.analyze_battles(frame, replicates=args.replicates)
    by_name = dict(zip(result.table["model"], result.table["rating"]))
    results[f"ours: analyze_battles end to end ({args.replicates} replicates, rank sets, "
            "tiers)"] = {"seconds": time.perf_counter() - t,
                         "ratings": np.array([by_name[n] for n in names])}

    t = time.perf_counter()
    results["LMArena notebook (scikit-learn logistic regression)"] = {
        "ratings": lmarena_notebook(pc), "seconds": time.perf_counter() - t}

    if args.compare_python:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "arena.npz"
            np.savez(path, names=names, a=a, b=b, code=code)
            script = Path(folder) / "foreign.py"
            script.write_text(FOREIGN, encoding="utf-8")
            done = subprocess.run([args.compare_python, str(script), str(path),
                                   str(args.foreign_replicates)], capture_output=True,
                                  text=True, check=False)
        if done.returncode != 0:
            print("foreign run failed:", done.stderr.strip().splitlines()[-1:], file=sys.stderr)
        else:
            for name, row in json.loads(done.stdout.strip().splitlines()[-1]).items():
                results[name] = {k: np.asarray(v) if isinstance(v, list) else v
                                 for k, v in row.items()}

    base = results["ours: counts + Newton fit (second call)"]["seconds"] + \
        results["ours: sandwich covariance (second call)"]["seconds"]
    print(f"{'method':<78} {'seconds':>8} {'x ours':>8} {'max |rating - ours|':>20} "
          f"{'max rel. half-width':>20}")
    for name, row in results.items():
        if "error" in row:
            print(f"{name:<78} not run: {row['error']}")
            continue
        diff = np.abs(np.asarray(row["ratings"]) - ours).max()
        width = (f"{np.abs(row['half_width'] / half - 1).max():.3f}" if "half_width" in row
                 else "")
        print(f"{name:<78} {row['seconds']:>8.2f} {row['seconds'] / base:>8.1f} {diff:>20.2e} "
              f"{width:>20} {row.get('note', '')}")
    print(f"x ours: seconds over ours for counting, fitting and the sandwich, second call "
          f"({base:.2f} s); "
          "half-widths are compared with our sandwich interval's")


if __name__ == "__main__":
    main()
