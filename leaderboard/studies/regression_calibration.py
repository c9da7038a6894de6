"""Scores-only regression with known truth: do RMSE and MAE intervals hold under real residuals?

Five residual families (each scaled to unit root mean square, so an entry's true RMSE is its
scale): ``normal``; ``laplace``; ``t3`` (Student t with 3 degrees of freedom: infinite kurtosis);
``outliers`` (a normal whose rows are, with probability 4%, five times as spread: a few gross
errors, kurtosis about 20); ``lognormal`` (a centred log-normal with log-SD 0.5: skew 1.75,
kurtosis 8.9). Real models' held-out residuals on scikit-learn's bundled data sets have excess
kurtosis -0.8 to 6 (kurtosis up to 9) and skew -1.6 to 1.8 (:func:`real_residual_shapes`): the
log-normal matches the most skewed of them, and t(3) and the outliers are heavier tailed than any.

Each competition: ``entries`` entries with true RMSEs from 1 up to about 1.5, each scored on its
own ``n_test`` residuals of the family (entries independent, so each entry's interval is one
independent coverage trial). The scores go to :func:`leaderboard.analyze` with the chosen
universe options; measured: the share of entries whose interval holds the true RMSE (or MAE),
the true best's place in tier 1, and the interval's width relative to the truth.

Boards with public and private columns (issue 39, ``public_rows``): each entry is scored on a
public slice and a disjoint private one, and the default analysis reads the noise from the gaps
(:mod:`leaderboard.noise.tails`). With ``shared`` above 0 the entries share one test set: each
entry's residual on a row is ``sqrt(shared)`` times the row's own residual (the same for every
entry: rows every model gets wrong) plus ``sqrt(1 - shared)`` times its own, both of the family,
so the entries' errors are correlated as on a real board. Measured besides: the interval's width
over the exact one on normal residuals (RMSE: the chi-square interval of ``n MSE / sigma^2``;
MAE: the normal interval of a mean of half-normals) and the scale read from the gaps.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import ndtr   # norm.cdf(x) is ndtr(x), bit for bit, without scipy.stats

from leaderboard.noise.rng import Stream, entropy_rng
from leaderboard.params import DEFAULT_ALPHA, DEFAULT_DF, DEFAULT_RESIDUALS, DEFAULT_SEED

FAMILIES = ("normal", "laplace", "t3", "outliers", "lognormal")
METRICS = ("rmse", "mae", "rmsle", "mape", "r2")
HIGHER_IS_BETTER = ("r2",)
# Each metric's error scale for the entries (the first entry's; the last is 1.5 times it): R2
# from 0.91 down to 0.80 on a unit-variance truth, RMSLE 0.3 to 0.45, MAPE 10% to 15% on average.
_FIRST_SCALE = {"rmse": 1.0, "mae": 1.0, "rmsle": 0.3, "mape": 0.1, "r2": 0.3}
_OUTLIER_SHARE, _OUTLIER_SCALE = 0.04, 5.0
_LOG_SD = 0.5


def unit_residuals(family: str, size, rng: np.random.Generator) -> np.ndarray:
    """Residuals of ``family`` with mean 0 and unit mean square (population values).

    Examples
    --------
    >>> e = unit_residuals("laplace", 200_000, np.random.default_rng(0))
    >>> round(float(np.mean(e * e)), 1)
    1.0
    """
    if family == "normal":
        return rng.standard_normal(size)
    if family == "laplace":
        return rng.laplace(size=size) / np.sqrt(2.0)
    if family == "t3":
        return rng.standard_t(3.0, size) / np.sqrt(3.0)
    if family == "outliers":
        wide = rng.random(size) < _OUTLIER_SHARE
        spread = np.sqrt(1 - _OUTLIER_SHARE + _OUTLIER_SHARE * _OUTLIER_SCALE ** 2)
        return rng.standard_normal(size) * np.where(wide, _OUTLIER_SCALE, 1.0) / spread
    if family == "lognormal":
        s2 = _LOG_SD ** 2
        return (rng.lognormal(0.0, _LOG_SD, size) - np.exp(s2 / 2)) / np.sqrt(
            (np.exp(s2) - 1) * np.exp(s2))
    raise ValueError(f"unknown residual family {family!r}")


def mean_absolute(family: str) -> float:
    """E|e| of the unit family: an entry's true MAE over its true RMSE (closed forms).

    Examples
    --------
    >>> round(mean_absolute("normal"), 6) == round(float(np.sqrt(2 / np.pi)), 6)
    True
    """
    half_normal = np.sqrt(2.0 / np.pi)
    if family == "normal":
        return float(half_normal)
    if family == "laplace":
        return float(1.0 / np.sqrt(2.0))
    if family == "t3":
        return float(2.0 / np.pi)   # E|T_3| = 2 sqrt(3) / pi, over the SD sqrt(3)
    if family == "outliers":
        spread = np.sqrt(1 - _OUTLIER_SHARE + _OUTLIER_SHARE * _OUTLIER_SCALE ** 2)
        return float(half_normal * (1 - _OUTLIER_SHARE + _OUTLIER_SHARE * _OUTLIER_SCALE) / spread)
    if family == "lognormal":   # mean absolute deviation of a log-normal about its mean
        s2 = _LOG_SD ** 2
        mad = 2.0 * np.exp(s2 / 2) * (2.0 * ndtr(_LOG_SD / 2) - 1.0)
        return float(mad / np.sqrt((np.exp(s2) - 1) * np.exp(s2)))
    raise ValueError(f"unknown residual family {family!r}")


def scores_and_truth(metric: str, family: str, entries: int, n_test: int,
                     rng: np.random.Generator, shared: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """One board's observed and true scores: each entry's errors are ``scale x`` residuals of the
    family on the metric's own error scale, on its own test set of ``n_test`` rows.

    ``shared``: the share of each row's residual common to every entry (0: each entry on its own
    test set).

    ``rmse``, ``mae``: additive errors (true RMSE the scale; MAE the scale times
    :func:`mean_absolute`). ``r2``: a standard normal truth plus additive errors (true R2
    ``1 - scale^2``). ``rmsle``: errors on the log1p scale of a log-normal truth (true RMSLE the
    scale). ``mape``: relative errors, prediction ``y (1 + scale e)`` (true MAPE the scale times
    :func:`mean_absolute`).

    Examples
    --------
    >>> s, t = scores_and_truth("r2", "normal", 3, 20_000, np.random.default_rng(0))
    >>> bool(np.allclose(s, t, atol=0.01)), round(float(t[0]), 2)
    (True, 0.91)
    """
    scale = _FIRST_SCALE[metric] * (1.0 + 0.5 * np.linspace(0.0, 1.0, entries) ** 1.3)
    own = unit_residuals(family, (entries, n_test), rng)
    if shared:   # one test set: part of every row's residual is the same for every entry
        own = np.sqrt(shared) * unit_residuals(family, n_test, rng) + np.sqrt(1 - shared) * own
    e = scale[:, None] * own   # dense at the top
    if metric in ("rmse", "rmsle"):   # RMSLE: log1p(pred) - log1p(y) is the error itself
        return np.sqrt(np.mean(e * e, axis=1)), scale
    if metric in ("mae", "mape"):     # MAPE: |pred - y| / y is |error| itself
        return np.mean(np.abs(e), axis=1), scale * mean_absolute(family)
    if metric == "r2":
        y = rng.standard_normal((entries, n_test))
        total = np.sum((y - y.mean(axis=1, keepdims=True)) ** 2, axis=1)
        return 1.0 - np.sum(e * e, axis=1) / total, 1.0 - scale ** 2
    raise ValueError(f"unknown metric {metric!r}")


@dataclass(frozen=True)
class RegressionDesign:
    """One cell: a residual family, a metric, the universe that analyses it, and the boards."""

    family: str
    metric: str
    competitions: int
    residuals: str = DEFAULT_RESIDUALS      # the universe's residual shape (the analysis' setting)
    df: float = DEFAULT_DF
    entries: int = 30
    n_test: int = 1000
    draws: int = 1000
    public_rows: int | None = None   # a public slice too (n_test rows are the private one)
    shared: float = 0.0              # share of each row's residual common to every entry


def _one(design: RegressionDesign, seed: int, alpha: float) -> dict:
    from leaderboard.ingest.leaderboards import Leaderboard
    from leaderboard.metrics import get_metric
    from leaderboard.noise.universes import UniverseOptions
    from leaderboard.options import NoiseOptions, RankOptions
    from leaderboard.pipelines.scores import Settings, analyze
    from leaderboard.slices import SliceSizes

    rng = entropy_rng(seed, Stream.REGRESSION_CALIBRATION_STUDY, FAMILIES.index(design.family))
    columns = {}
    if design.public_rows is not None:
        columns["public_score"], _ = scores_and_truth(design.metric, design.family,
                                                      design.entries, design.public_rows, rng,
                                                      design.shared)
    scores, truth = scores_and_truth(design.metric, design.family, design.entries,
                                     design.n_test, rng, design.shared)
    if columns:
        columns["private_score"] = scores
    board = Leaderboard(entries=pd.DataFrame({"team": np.arange(truth.size).astype(str),
                                              "score": scores, **columns,
                                              "line": np.arange(2, truth.size + 2)}),
                        source="simulated", format="table", score_column="score",
                        split="private" if columns else None, rows_read=truth.size)
    settings = Settings(
        get_metric(design.metric),
        NoiseOptions(higher_is_better=design.metric in HIGHER_IS_BETTER, draws=design.draws,
                     seed=seed, correlation="auto" if columns else 0.0,
                     universe=UniverseOptions(residuals=design.residuals, df=design.df)),
        RankOptions(alpha=alpha, replicates=500),
        SliceSizes(ranking=design.n_test, public=design.public_rows,
                   private=design.n_test if columns else None))
    result = analyze(board, settings)
    t = result.table
    held = truth[t["team"].astype(int).to_numpy()]
    low, high = t["ci_low"].to_numpy(float), t["ci_high"].to_numpy(float)
    best = held == (truth.max() if design.metric in HIGHER_IS_BETTER else truth.min())
    exact = exact_width(design.metric, t["score"].to_numpy(float), design.n_test, alpha)
    tails = result.tails
    out = {"score_cover": float(np.mean((low <= held) & (held <= high))),
           "no_interval": float(np.mean(~np.isfinite(low))),
           "relative_width": float(np.nanmean((high - low) / held)),
           "width_over_exact": (float(np.nanmean((high - low) / exact))
                                if np.isfinite(exact).any() else float("nan")),
           "best_in_tier1": float(np.all(t["tier"].to_numpy()[best] == 1)),
           "scale": (tails.scale.scale if tails is not None and tails.how == "gaps"
                     and tails.scale is not None else float("nan"))}   # gaps: always a scale
    # one column each: the verdict's bracket (with_bracket sets both ends together)
    if tails is not None and tails.light is not None and tails.heavy is not None:
        out.update({"best_set_light": tails.light["best_set"] / truth.size,
                    "best_set_heavy": tails.heavy["best_set"] / truth.size})
    return out


def exact_width(metric: str, observed: np.ndarray, n: int, alpha: float) -> np.ndarray:
    """The exact interval's width for the true score on normal residuals, from the observed one:
    RMSE from ``n MSE / sigma^2 ~ chi2(n)``; MAE from the normal law of a mean of ``n``
    half-normals (mean ``sqrt(2/pi) sigma``, SD ``sigma sqrt((1 - 2/pi) / n)``, solved for the
    true MAE); NaN for other metrics.

    Examples
    --------
    >>> w = exact_width("rmse", np.array([1.0]), 1000, 0.05)[0]
    >>> round(float(w), 3)   # about 2 x 1.96 / sqrt(2 x 1000)
    0.088
    """
    from scipy.special import chdtri, ndtri

    observed = np.asarray(observed, dtype=float)
    if metric == "rmse":
        low, high = (np.sqrt(n * observed ** 2 / chdtri(n, q)) for q in (alpha / 2, 1 - alpha / 2))
        return high - low
    if metric == "mae":
        z, ratio = -ndtri(alpha / 2), np.sqrt((np.pi / 2 - 1) / n)   # SD over the mean
        return observed / (1 - z * ratio) - observed / (1 + z * ratio)
    return np.full(observed.shape, np.nan)


def run_regression_design(design: RegressionDesign, *, alpha: float = DEFAULT_ALPHA,
                          seed: int = DEFAULT_SEED) -> dict:
    """One cell's competitions: the mean of every measure and its Monte Carlo SE.

    The SE of the coverage is over the cell's ``competitions x entries`` independent entries
    (binomial); the others' over the competitions.

    Examples
    --------
    >>> out = run_regression_design(RegressionDesign("normal", "rmse", 2, entries=6,
    ...                                              draws=300))
    >>> 0 <= out["score_cover"] <= 1
    True
    """
    frame = pd.DataFrame([_one(design, seed * 100_003 + c, alpha)
                          for c in range(design.competitions)])
    universe = design_label(design)
    out = {"family": design.family, "metric": design.metric, "universe": universe,
           "residuals": design.residuals, "df": design.df, "entries": design.entries,
           "competitions": design.competitions, "n_test": design.n_test,
           "public_rows": design.public_rows, "shared": design.shared}
    for column in frame.columns:
        out[column] = float(frame[column].mean())
        out[f"se:{column}"] = float(frame[column].std(ddof=1) / np.sqrt(len(frame)))
    if not design.shared:   # entries independent: each interval one trial (else: by board)
        trials = design.competitions * design.entries
        cover = float(frame["score_cover"].mean())
        out["se:score_cover"] = float(np.sqrt(max(cover * (1 - cover), 1.0 / trials) / trials))
    return out


def design_label(design: RegressionDesign) -> str:
    """The universe column of the study's tables: the one-column boards' universe, or the noise
    read from the public/private gaps (with the share of residuals the entries have in common).

    Examples
    --------
    >>> design_label(RegressionDesign("t3", "rmse", 1, public_rows=300, shared=0.5))
    'gaps, 50% shared'
    """
    if design.public_rows is not None:
        return "gaps" + (f", {design.shared:.0%} shared" if design.shared else "")
    return "normal" if design.residuals == "normal" else (
        f"t, {design.df:g} df" if design.residuals == "t" else design.residuals)


def default_regression_designs(quick: bool = False) -> list[RegressionDesign]:
    """Every family and metric under the default universe (t, 3 df) at 1,000 and 5,000 rows
    (RMSE and MAE also at 20,000), and RMSE and MAE under normal residuals (the default before
    issue 25, and the width a truly normal board would need); then boards with public and
    private columns (issue 39): RMSE, MAE and RMSLE, public slices of 300 and 1,500 rows beside
    private ones of 1,000 and 5,000, entries independent or sharing 50% or 90% of each row's
    residual."""
    if quick:
        return ([RegressionDesign(f, "rmse", 2, entries=10, draws=100) for f in FAMILIES]
                + [RegressionDesign(f, "rmse", 2, entries=10, draws=100, public_rows=300)
                   for f in ("normal", "t3")])
    sizes = {m: ((1000, 6), (5000, 3)) + (((20000, 2),) if m in ("rmse", "mae") else ())
             for m in METRICS}
    return ([RegressionDesign(f, m, c, n_test=n) for m in METRICS for n, c in sizes[m]
             for f in FAMILIES]
            + [RegressionDesign(f, m, c, residuals="normal", n_test=n) for m in ("rmse", "mae")
               for n, c in ((1000, 4), (5000, 2)) for f in FAMILIES]
            + [RegressionDesign(f, m, 6, n_test=n, public_rows=p, shared=share)
               for share in (0.0, 0.5, 0.9) for m in ("rmse", "mae", "rmsle")
               for p, n in ((300, 1000), (1500, 5000)) for f in FAMILIES])


def summary(rows: list[dict]) -> dict:
    """Per universe and metric: coverage averaged over the families (each family's sizes pooled,
    with its SE), in the worst family, and in the worst single cell (family and size); and the
    interval's width on normal residuals over the normal universe's (where both were run).

    Examples
    --------
    >>> rows = [{"universe": "t, 3 df", "metric": "rmse", "family": f, "score_cover": c,
    ...          "se:score_cover": 0.01, "n_test": 1000, "relative_width": 0.3}
    ...         for f, c in (("normal", 0.99), ("t3", 0.9))]
    >>> summary(rows)["t, 3 df"]["rmse"]["coverage_min"]
    0.9
    """
    frame = pd.DataFrame(rows)
    out: dict = {}
    for (universe, metric), g in frame.groupby(["universe", "metric"], sort=False):
        by_family = g.groupby("family", sort=False)
        cover = by_family["score_cover"].mean()
        se = np.sqrt(by_family["se:score_cover"].apply(lambda s: float(np.mean(s ** 2)))
                     / by_family.size())
        cell = g.loc[g["score_cover"].idxmin()]
        out.setdefault(universe, {})[metric] = {
            "coverage_mean": round(float(cover.mean()), 4),
            "coverage_mean_se": round(float(np.sqrt(np.sum(se ** 2)) / len(cover)), 4),
            "coverage_min": round(float(cover.min()), 4),
            "coverage_min_se": round(float(se[cover.idxmin()]), 4),
            "worst_family": str(cover.idxmin()), "families": int(len(cover)),
            "family_coverage": {str(f): [round(float(cover[f]), 4), round(float(se[f]), 4)]
                                for f in cover.index},
            "worst_cell": {"family": str(cell["family"]), "n_test": int(cell["n_test"]),
                           "coverage": round(float(cell["score_cover"]), 4),
                           "coverage_se": round(float(cell["se:score_cover"]), 4)}}
    normal = frame[(frame["family"] == "normal") & (frame["universe"] == "normal")]
    for universe, metrics in out.items():
        for metric, q in metrics.items():
            mine = frame[(frame["family"] == "normal") & (frame["universe"] == universe)
                         & (frame["metric"] == metric)]
            both = mine.merge(normal[normal["metric"] == metric], on="n_test")
            if universe != "normal" and len(both):
                q["width_ratio_on_normal"] = {
                    str(int(r.n_test)): round(float(r.relative_width_x / r.relative_width_y), 2)
                    for r in both.itertuples()}
            if "width_over_exact" in mine and mine["width_over_exact"].notna().any():
                q["width_over_exact_on_normal"] = {
                    str(int(r.n_test)): round(float(r.width_over_exact), 2)
                    for r in mine.itertuples() if np.isfinite(r.width_over_exact)}
    return out


def real_residual_shapes(seed: int = DEFAULT_SEED, *, rows: int = 2000, trees: int = 100) -> pd.DataFrame:
    """Held-out residuals of five scikit-learn models (linear, ridge, gradient boosting, random
    forest, 10-nearest neighbours; 5-fold cross-validation) on the bundled regression data sets
    (diabetes, the three linnerud targets, make_friedman1/2/3 with ``rows`` rows): their excess
    kurtosis and skew. The evidence for the default universe's shape (the study's defaults;
    ``calibrate --quick``, a smoke run, asks for fewer rows and ``trees`` in the ensembles)."""
    from scipy.stats import kurtosis, skew
    from sklearn.datasets import (load_diabetes, load_linnerud, make_friedman1, make_friedman2,
                                  make_friedman3)
    from sklearn.ensemble import GradientBoostingRegressor, RandomForestRegressor
    from sklearn.linear_model import LinearRegression, Ridge
    from sklearn.model_selection import KFold, cross_val_predict
    from sklearn.neighbors import KNeighborsRegressor
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    sets = {"diabetes": load_diabetes(return_X_y=True)}
    x, y = load_linnerud(return_X_y=True)
    sets.update({f"linnerud {name}": (x, y[:, j])
                 for j, name in enumerate(("weight", "waist", "pulse"))})
    sets["friedman1"] = make_friedman1(rows, noise=1.0, random_state=seed)
    sets["friedman2"] = make_friedman2(rows, noise=50.0, random_state=seed)
    sets["friedman3"] = make_friedman3(rows, noise=0.1, random_state=seed)
    models = {"linear": LinearRegression(),
              "ridge": make_pipeline(StandardScaler(), Ridge(1.0)),
              "gradient boosting": GradientBoostingRegressor(n_estimators=trees,
                                                             random_state=seed),
              "random forest": RandomForestRegressor(trees, random_state=seed, n_jobs=1),
              "10-NN": make_pipeline(StandardScaler(), KNeighborsRegressor(10))}
    shapes = []
    for data, (features, target) in sets.items():
        folds = KFold(5 if len(target) > 20 else 4, shuffle=True, random_state=seed)
        for name, model in models.items():
            e = target - cross_val_predict(model, features, target, cv=folds)
            shapes.append({"data": data, "model": name, "rows": len(target),
                           "excess_kurtosis": float(kurtosis(e)), "skew": float(skew(e))})
    return pd.DataFrame(shapes)
