"""Study: test sets above MULTINOMIAL_ROWS rows, drawn as multinomial counts, against the direct
draws (a uniform pick per row, counted) that the universes used before (issue 43).

Above :data:`leaderboard.noise.rng.MULTINOMIAL_ROWS` (n0 = 10^6) a test set's counts per universe
row are drawn as one multinomial per test set. That is the distribution of the picks' counts
exactly, so the two must agree within Monte Carlo error, with no scaling law assumed. This script
checks it at 4 n0 and 16 n0 for AUC (binormal), accuracy (binormal, labels) and RMSE (t(3)
residuals), one true score each: the SD, the 2.5% and 97.5% quantiles and d95 of the observed
score, each with a tolerance of three Monte Carlo standard errors of the difference (bootstrap
of each sample's draws), and the exact SD where the universe has one. It also prints each path's
CPU seconds. Slow by design (the direct draws cost ~5 s of CPU per million rows per 5,000 test
sets); run with ``nice -n 10 python benchmarks/study_large_tests.py [draws]``.
"""
from __future__ import annotations

import sys
import time
from unittest import mock

import numpy as np

from leaderboard.metrics import get_metric
from leaderboard.noise import rng as rng_module
from leaderboard.noise.d95 import d95_of
from leaderboard.noise.universes import UniverseOptions, get_universe
from leaderboard.noise.universes import regression

CASES = [("auc", 0.8, 0.1, UniverseOptions()),
         ("accuracy", 0.95, 0.1, UniverseOptions(name="binormal")),
         ("rmse", 1.0, None, UniverseOptions())]


def summary(sample: np.ndarray) -> np.ndarray:
    """SD, 2.5% and 97.5% quantiles and d95 of one sample of observed scores."""
    low, high = np.quantile(sample, [0.025, 0.975])
    return np.array([np.std(sample, ddof=1), low, high, d95_of(sample)])


def bootstrap_se(sample: np.ndarray, resamples: int = 100) -> np.ndarray:
    """Monte Carlo standard error of each summary, from resampling the draws."""
    generator = np.random.default_rng(0)
    stats = [summary(sample[generator.integers(0, sample.size, sample.size)])
             for _ in range(resamples)]
    return np.std(stats, axis=0, ddof=1)


def run(metric: str, score: float, prevalence, options, n_test: int, draws: int, direct: bool):
    universe = get_universe(get_metric(metric), n_test, prevalence, options)
    threshold = 10**18 if direct else rng_module.MULTINOMIAL_ROWS
    start = time.process_time()
    with mock.patch.object(rng_module, "MULTINOMIAL_ROWS", threshold), \
            mock.patch.object(regression, "MULTINOMIAL_ROWS", threshold):
        sample = universe.simulate(np.array([score]), n_test, prevalence, draws, seed=7)[0]
    return sample, time.process_time() - start, universe.exact_sd(score, n_test, prevalence)


def main(draws: int = 2000) -> bool:
    names = ["sd", "q2.5", "q97.5", "d95"]
    ok = True
    for factor in (4, 16):
        n_test = factor * rng_module.MULTINOMIAL_ROWS
        for metric, score, prevalence, options in CASES:
            direct, t_direct, exact = run(metric, score, prevalence, options, n_test, draws, True)
            counted, t_counted, _ = run(metric, score, prevalence, options, n_test, draws, False)
            a, b = summary(direct), summary(counted)
            tolerance = 3 * np.hypot(bootstrap_se(direct), bootstrap_se(counted))
            print(f"{metric} true {score} n_test {n_test:,} draws {draws}: CPU direct "
                  f"{t_direct:.1f} s, multinomial {t_counted:.2f} s"
                  + (f"; exact SD {exact:.6g}" if exact is not None else "; no exact SD"))
            for name, x, y, tol in zip(names, a, b, tolerance):
                good = abs(x - y) <= tol
                ok &= bool(good)
                print(f"  {name:6s} direct {x:.6g}  multinomial {y:.6g}  diff {y - x:+.3g}  "
                      f"tolerance {tol:.3g}  {'ok' if good else 'OUTSIDE'}")
            if exact is not None:
                for label, sample in (("direct", direct), ("multinomial", counted)):
                    sd = np.std(sample, ddof=1)
                    # SE of a sample SD: sd * sqrt((kurtosis - 1) / (4 draws)), kurtosis measured
                    kurt = np.mean((sample - sample.mean()) ** 4) / np.var(sample) ** 2
                    tol = 3 * sd * np.sqrt((kurt - 1) / (4 * draws))
                    good = abs(sd - exact) <= tol
                    ok &= bool(good)
                    print(f"  {label} SD vs exact: {sd:.6g} vs {exact:.6g}, tolerance {tol:.3g}  "
                          f"{'ok' if good else 'OUTSIDE'}")
            sys.stdout.flush()
    print("all within tolerance" if ok else "SOME OUTSIDE TOLERANCE")
    return ok


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
