"""The noise study: does a universe's noise match the noise of real models' scores?

A universe gives every entry of a leaderboard the sampling noise of *its* model at the entry's
score. Real models score differently: their score distributions are skewed, tied, more spread in
one class than the other. This study builds *families* of such models with known truth, computes
the exact standard deviation of their observed score on test sets of a given size and class
balance, and compares each universe's SD at the same true score, size and balance. It also draws
observed scores from every family and counts how often each universe's 95% interval holds the
family's true score. ``leaderboard calibrate --noise-study`` writes the tables to
``docs/noise_study.md``; the defaults of :mod:`leaderboard.noise.universes` follow from them.

AUC families (negatives' and positives' scores; each class is a population of :data:`ROWS`
evenly spaced quantiles, or a fixed random sample):

``binormal``          normal scores with equal SDs (the binormal universe's own shape);
``minority spread``   the rarer class's scores twice as spread (binormal b = 0.5 at low prevalence:
                      the shape ROC studies most often fit);
``majority spread``   the commoner class's scores twice as spread;
``exponential``       exponential scores, Hanley and McNeil's model;
``tree-like ties``    binormal scores cut into 10 levels (many tied scores, as a small tree's);
``logistic``          a latent signal z with P(y = 1 | z) = expit(-3 + 6 z), scored as z plus
                      normal model noise (20 such models share z on a real board).

The exact SD of a family's AUC is the U-statistic variance over its populations
(:func:`~leaderboard.noise.universes.exact.auc_sd`); the universes' are their own exact SDs.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from collections.abc import Mapping, Sequence
from functools import lru_cache

import numpy as np
import pandas as pd
from scipy.special import ndtri   # norm.ppf(q) is ndtri(q), bit for bit, without scipy.stats

from leaderboard.metrics import get_metric
from leaderboard.noise.grid import build_noise_model
from leaderboard.noise.rng import Stream, block_rng
from leaderboard.noise.universes import UniverseOptions, class_counts, get_universe
from leaderboard.noise.universes.exact import auc_sd
from leaderboard.params import DEFAULT_SEED

ROWS = 4096
AUC_FAMILIES = ("binormal", "minority spread", "majority spread", "exponential", "tree-like ties",
                "logistic")
AUC_UNIVERSES = {"linspace": UniverseOptions(name="linspace"),
                 "binormal": UniverseOptions(name="binormal", spread=1.0),
                 "binormal, minority spread 2": UniverseOptions(name="binormal", spread=2.0)}
CELLS = ((1000, 0.01), (3000, 0.1), (10000, 0.2), (500, 0.5))
AUCS = (0.7, 0.85, 0.95)
_STREAM = int(Stream.NOISE_STUDY)
_QUANTILES = (np.arange(ROWS) + 0.5) / ROWS


@dataclass(frozen=True)
class Population:
    """A family member: its classes' scores and its true AUC (ties count one half)."""

    family: str
    neg: np.ndarray
    pos: np.ndarray

    @property
    def auc(self) -> float:
        neg = np.sort(self.neg)
        below = np.searchsorted(neg, self.pos, "left")
        tied = np.searchsorted(neg, self.pos, "right") - below
        return float((below + 0.5 * tied).sum() / (neg.size * self.pos.size))

    def sd(self, n_test: int, prevalence: float) -> float:
        """Exact SD of the AUC of a test set drawn from it (fixed class counts, as the universes)."""
        m, k = class_counts(n_test, prevalence)
        return auc_sd(self.neg, self.pos, m, k)

    def observed(self, n_test: int, prevalence: float, draws: int, seed: int) -> np.ndarray:
        """AUCs of ``draws`` test sets drawn from it with replacement, class counts fixed."""
        m, k = class_counts(n_test, prevalence)
        impl = get_metric("auc").impl
        y = np.r_[np.zeros(self.neg.size, int), np.ones(self.pos.size, int)]
        prepared = impl.prepare(y, [np.r_[self.neg, self.pos]])
        rng = block_rng(seed, _STREAM, 0)
        weights = np.hstack([rng.multinomial(k, np.full(self.neg.size, 1 / self.neg.size), draws),
                             rng.multinomial(m, np.full(self.pos.size, 1 / self.pos.size), draws)])
        return impl.evaluate(prepared, weights.astype(float))[0]


@lru_cache(maxsize=4096)
def auc_population(family: str, auc: float, prevalence: float) -> Population:
    """The member of ``family`` whose true AUC is ``auc`` (to about 1e-3 for the tied family).

    Examples
    --------
    >>> p = auc_population("exponential", 0.8, 0.1)
    >>> round(p.auc, 3)
    0.8
    """
    z = ndtri(_QUANTILES)
    rarer_first = prevalence <= 0.5   # which class is the minority
    if family == "binormal":
        mu = np.sqrt(2) * ndtri(auc)
        return Population(family, z, mu + z)
    if family in ("minority spread", "majority spread"):
        spread_pos = (family == "minority spread") == rarer_first
        sd_neg, sd_pos = (1.0, 2.0) if spread_pos else (2.0, 1.0)
        mu = np.sqrt(sd_neg ** 2 + sd_pos ** 2) * ndtri(auc)
        return Population(family, sd_neg * z, mu + sd_pos * z)
    if family == "exponential":   # P(pos > neg) = 1 / (1 + r) for rates 1 and r
        r = 1.0 / auc - 1.0
        from scipy.stats import expon   # lazily: scipy.stats takes ~1 s to import
        return Population(family, expon.ppf(_QUANTILES), expon.ppf(_QUANTILES) / r)
    if family == "tree-like ties":
        mu = _solve(lambda m: _tied(m).auc - auc, 0.0, 8.0)
        return _tied(mu)
    if family == "logistic":
        sd = _solve(lambda s: -(_logistic(s).auc - auc), 0.0, 30.0)
        return _logistic(sd)
    raise ValueError(f"unknown family {family!r}")


def _tied(mu: float) -> Population:
    z = ndtri(_QUANTILES)
    neg, pos = z, mu + z
    edges = np.quantile(np.r_[neg, pos], np.linspace(0, 1, 11)[1:-1])
    return Population("tree-like ties", np.digitize(neg, edges).astype(float),
                      np.digitize(pos, edges).astype(float))


def _logistic(noise_sd: float) -> Population:
    (z_neg, noise_neg), (z_pos, noise_pos) = _logistic_draws()
    return Population("logistic", z_neg + noise_sd * noise_neg, z_pos + noise_sd * noise_pos)


@lru_cache(maxsize=1)
def _logistic_draws() -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """The logistic family's fixed draws, made once: (latent value, noise) of the first
    :data:`ROWS` negatives and of the first ``ROWS`` positives among ``40 * ROWS`` draws (read-only
    arrays). The bisection for its noise SD evaluates the family 50 times, and scores only these
    rows: the same values as scoring every draw and keeping these, at a fortieth of the work."""
    rng = np.random.default_rng(20261123)
    z = rng.standard_normal(40 * ROWS)
    y = rng.random(z.size) < 1.0 / (1.0 + np.exp(3.0 - 6.0 * z))
    noise = rng.standard_normal(z.size)
    negatives, positives = ((z[rows][:ROWS], noise[rows][:ROWS]) for rows in (~y, y))
    for array in (*negatives, *positives):
        array.flags.writeable = False
    return negatives, positives


def _solve(f, lo: float, hi: float, rounds: int = 50) -> float:
    """Bisection for a function that rises from negative to positive on [lo, hi]."""
    for _ in range(rounds):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
    return 0.5 * (lo + hi)


def auc_study(cells: Sequence[tuple[int, float]] = CELLS, aucs: Sequence[float] = AUCS,
              families: Sequence[str] = AUC_FAMILIES,
              universes: Mapping[str, UniverseOptions] = AUC_UNIVERSES, *,
              draws: int = 400, universe_draws: int = 1000, seed: int = DEFAULT_SEED) -> list[dict]:
    """One row per (cell, AUC, family, universe): the universe's SD over the family's exact SD,
    and the share of ``draws`` observed AUCs whose interval holds the family's true AUC.

    Examples
    --------
    A binormal family against the binormal universe: the same noise, so the ratio is 1 and the
    coverage about 95% (a small run: 200 draws, so within a few binomial SEs).

    >>> rows = auc_study(cells=((3000, 0.1),), aucs=(0.85,), families=("binormal",),
    ...                  universes={"binormal": UniverseOptions(name="binormal", spread=1.0)},
    ...                  draws=200, universe_draws=500)
    >>> row = rows[0]
    >>> bool(abs(row["sd_ratio"] - 1) < 0.01 and abs(row["coverage"] - 0.95) < 4 * 0.016)
    True
    """
    metric = get_metric("auc")
    rows = []
    for c, (n_test, prevalence) in enumerate(cells):
        for a, target in enumerate(aucs):
            for f, family in enumerate(families):
                population = auc_population(family, target, prevalence)
                truth, exact = population.auc, population.sd(n_test, prevalence)
                observed = population.observed(n_test, prevalence, draws,
                                               seed=seed * 1_000 + c * 100 + a * 10 + f)
                for name, options in universes.items():
                    universe_sd = get_universe(metric, n_test, prevalence,
                                               options).exact_sd(truth, n_test, prevalence)
                    if universe_sd is None:   # every AUC universe has the U-statistic's SD
                        raise ValueError(f"universe {name!r} has no exact SD for AUC")
                    model = build_noise_model(metric, observed, leader_score=float(observed.max()),
                                              n_test=n_test, prevalence=prevalence,
                                              draws=universe_draws, seed=seed, options=options)
                    low, high = model.interval(observed)
                    rows.append({"n_test": n_test, "prevalence": prevalence, "auc": truth,
                                 "family": family, "universe": name,
                                 "sd_ratio": universe_sd / exact,
                                 "coverage": float(np.mean((low <= truth) & (truth <= high))),
                                 "draws": draws})
    return rows


def auc_summary(rows: list[dict]) -> pd.DataFrame:
    """Per family and universe, over the cells: the range of the SD ratio, and the mean and the
    lowest coverage with the lowest one's binomial standard error."""
    frame = pd.DataFrame(rows)
    out = []
    for (family, universe), g in frame.groupby(["family", "universe"], sort=False):
        worst = g.loc[g["coverage"].idxmin()]
        out.append({"family": family, "universe": universe,
                    "sd_ratio_min": g["sd_ratio"].min(), "sd_ratio_max": g["sd_ratio"].max(),
                    "coverage_mean": g["coverage"].mean(), "coverage_min": worst["coverage"],
                    "coverage_min_se": np.sqrt(worst["coverage"] * (1 - worst["coverage"])
                                               / worst["draws"])})
    return pd.DataFrame(out)


def study_words(metric: str, universe: str, spread: float | None,
                tails_how: str | None = None) -> str:
    """One sentence for the report: how the universe behaved in the study (data/noise_study.json,
    written by ``leaderboard calibrate --scores-only``), or that the study did not cover it.
    ``tails_how``: how a regression board's tails were chosen (``"gaps"``: read from its
    public/private scores, :mod:`leaderboard.pipelines.tails`).

    Examples
    --------
    >>> "families" in study_words("auc", "binormal", None)
    True
    """
    from leaderboard.noise.universes import DEFAULT_SPREAD
    from leaderboard.resources import data_dir

    label = {"seeds-linspace": "linspace"}.get(universe, universe)
    if label == "binormal" and (DEFAULT_SPREAD if spread is None else spread) == 2.0:
        label = "binormal, minority spread 2"
    if universe.startswith("residuals-"):
        return _regression_words(metric, "gaps" if tails_how == "gaps" else universe)
    path = data_dir() / "noise_study.json"
    quoted = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    if metric != "auc" or label not in quoted:
        return ("The noise study (docs/scores_only.md) compared the universes with real models' "
                "score distributions for AUC only; this universe has not been compared for this "
                "metric and these options.")
    q = quoted[label]
    return (f"In the noise study (docs/scores_only.md: {q['families']} families of real models' "
            "score distributions, true AUC 0.7 to 0.95, 1% to 50% positives) this universe's SD "
            f"was {q['sd_ratio_min']:.2f} to {q['sd_ratio_max']:.2f} times the families' exact SD, "
            f"and its 95% intervals held the true AUC for {100 * q['coverage_mean']:.1f}% of "
            f"observed scores on average ({100 * q['coverage_min']:.1f}% in the worst cell).")


def _regression_words(metric: str, universe: str) -> str:
    """The regression study's sentence (data/regression_study.json) for a residual universe."""
    from leaderboard.resources import data_dir

    label = {"residuals-normal": "normal", "residuals-t(df=3)": "t, 3 df",
             "gaps": "gaps"}.get(universe)
    path = data_dir() / "regression_study.json"
    quoted = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    found = quoted.get(label, {})
    if not found:
        return ("The regression study (docs/scores_only_regression.md) tried the default t "
                "(3 degrees of freedom) and normal residuals only; this shape has not been "
                "checked against other residual families.")
    words = []
    # the board's own metric when the study measured it, else every metric it measured
    for name, q in ({metric: found[metric]} if metric in found else found).items():
        ratio = q.get("width_ratio_on_normal", {})
        price = (" (on truly normal residuals its intervals were " + " to ".join(
            f"{v:.1f}" for v in ratio.values()) + " times as wide as needed)") if ratio else ""
        words.append(f"{name.upper()} {100 * q['coverage_mean']:.1f}% on average and "
                     f"{100 * q['coverage_min']:.1f}% for {q['worst_family']} residuals{price}")
    checked = "" if metric in found else (f" ({metric.upper()} itself was not in the study; "
                                          "it uses the same residual shape)")
    what = ("the noise read from boards' public/private gaps, entries independent, gave 95% "
            "intervals that held" if universe == "gaps" else "this universe's 95% intervals held")
    return (f"In the regression study (docs/scores_only_regression.md: {q['families']} residual "
            "families, normal, Laplace, t with 3 df, 4% gross outliers and skewed log-normal), "
            f"{what} the true score for {'; '.join(words)}{checked}.")
