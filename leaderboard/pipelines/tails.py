"""Regression boards, scores only: which residual tails the noise assumes, and what hinges on them.

The noise of a regression score depends on how heavy its residuals' tails are, which scores alone
do not show (:mod:`leaderboard.noise.tails`). Three cases, decided before anything is simulated:

- **stated** (``--residuals``, ``--df`` or ``--kurtosis`` away from the default): used as stated.
- **gaps**: the board has public and private scores and both slices' sizes. Its gaps show its
  own noise: the universe becomes normal residuals whose noise is stretched by the factor the gaps
  show (:func:`~leaderboard.noise.tails.read_noise_scale`), and every number follows from it.
- **unknown** (one score per entry, or no slice sizes): the page keeps the heavy-tailed default
  (Student t, 3 df) and also counts the entries that could be the best under normal residuals
  (:func:`with_bracket`), so that the first screen says how far the verdict hinges on the tails.

Nothing here imports the report.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from leaderboard.api_words import said
from leaderboard.noise.tails import NoiseScale, read_noise_scale
from leaderboard.noise.universes import DEFAULT_DF, default_universe, not_simulable_reason

if TYPE_CHECKING:   # annotations only: scores.py imports this module
    from leaderboard.pipelines.analysis import Settings
    from leaderboard.pipelines.shakeup import SliceNoise

# The light end of the bracket is a sensitivity display, like the correlation sweep: at most
# this many simulated test sets per level and normal draws behind its counts.
BRACKET_DRAWS = 1000
HOWS = ("stated", "gaps", "unknown")


@dataclass(frozen=True)
class Tails:
    """How the residuals' tails were chosen for a regression board of scores.

    Attributes
    ----------
    how : str
        ``"stated"``, ``"gaps"`` or ``"unknown"`` (module docstring).
    residuals : str
        The shape simulated: ``"normal"``, ``"laplace"`` or ``"t"``.
    df : float
        Its degrees of freedom (t residuals).
    kurtosis : float or None
        The kurtosis stated with ``--kurtosis``.
    scale : NoiseScale or None
        ``gaps``: the noise read from the public/private gaps. ``unknown``: when the gaps could
        not be read, why (``scale.reason``).
    why_unknown : str or None
        ``unknown``: why the gaps were not read, in words.
    light, heavy : dict or None
        ``unknown``: the verdict under normal residuals and under the page's own heavy tails:
        ``{"best_set": int, "compared": int}`` (None until :func:`with_bracket`).
    metric : str
        The metric's name (the kurtosis equivalent is said for squared errors).
    two_stage : bool
        ``gaps``: the public board was scored on other data.
    beyond_heavy : bool or None
        ``gaps`` with a scale above 1: the gaps spread more than even heavy-tailed residuals
        (Student t, 3 df) of independent entries allow, beyond doubt, so something besides
        sampling noise moves them; the noise is then the heavy-tailed default's, the most
        sampling noise can be (None: not checked).
    """

    how: str
    residuals: str
    df: float
    kurtosis: float | None = None
    scale: NoiseScale | None = None
    why_unknown: str | None = None
    light: dict | None = None
    heavy: dict | None = None
    metric: str = ""
    two_stage: bool = False
    beyond_heavy: bool | None = None

    def __post_init__(self) -> None:
        if self.how not in HOWS:
            raise ValueError(f"how must be one of {HOWS}, got {self.how!r}")

    @property
    def shape_words(self) -> str:
        """The simulated shape in words: ``normal``, ``Student t with 3 degrees of freedom``."""
        return ("normal" if self.residuals == "normal" else "Laplace"
                if self.residuals == "laplace" else
                f"Student t with {self.df:g} degrees of freedom")

    def fact(self) -> str:
        """The value for the report's "What was analysed" facts."""
        if self.how == "stated":
            return self.shape_words + (f" (stated: kurtosis {self.kurtosis:g})"
                                       if self.kurtosis is not None else " (stated)")
        c = self.scale
        if self.how == "gaps":
            assert c is not None   # the gaps were read
            pairs = (f"{c.n_pairs:,} distinct public/private pairs"
                     + (f" ({c.duplicates:,} identical pairs counted once)" if c.duplicates
                        else ""))
            if c.floored:
                return (f"normal: the gaps of {pairs} spread no more than normal residuals' "
                        "noise allows")
            if self.beyond_heavy:
                return (f"heavy ({self.shape_words}): the gaps of {pairs} spread more than even "
                        "heavy-tailed residuals allow, so not from sampling noise alone")
            kurtosis = c.kurtosis(self.metric)
            return (f"read from {pairs}: every score's noise is {c.scale:.3g} times normal "
                    "residuals'" + (f", as residuals of kurtosis about {kurtosis:.3g} would give "
                                    "(normal: 3)" if kurtosis is not None else ""))
        counts = ""
        if self.light is not None and self.heavy is not None:   # filled together (with_bracket)
            counts = (f"; under normal residuals {self.light['best_set']:,} of "
                      f"{self.light['compared']:,} could be the best instead of "
                      f"{self.heavy['best_set']:,}")
        return (f"not known ({self.why_unknown}): the page assumes heavy tails "
                f"({self.shape_words}){counts}; " + said("--kurtosis states them"))

    def note(self) -> str:
        """The report's note on the tails: what each number rests on."""
        if self.how == "stated":
            return (f"The residuals' tails were stated ({self.shape_words}): if the real ones "
                    "are heavier, squared-error metrics are noisier than shown.")
        if self.how == "unknown":
            counts = ("" if self.light is None or self.heavy is None else
                      f" With normal residuals {self.light['best_set']:,} entries could be the "
                      f"best; with heavy-tailed ones ({self.shape_words}, shown here) "
                      f"{self.heavy['best_set']:,}.")
            return ("How heavy the residuals' tails are, scores cannot show, and the noise of a "
                    "regression score grows with them." + counts
                    + said(" State the residuals' kurtosis (--kurtosis: 3 for normal residuals, "
                           "more for heavier tails; from a validation set's residuals), or give "
                           "public and private scores with both slices' sizes, whose gaps show "
                           "the noise."))
        c = self.scale
        assert c is not None   # "gaps": the gaps were read
        read = ("0, the lightest tails that explain them" if c.correlation == 0 else
                f"{c.correlation:g}, as stated")
        if self.beyond_heavy:
            return (f"The public-minus-private gaps of {c.n_pairs:,} distinct entries spread "
                    f"{np.sqrt(c.spread):.3g} times as much as normal residuals' noise would "
                    f"make them (at a correlation between entries of {read}): more than even "
                    f"heavy-tailed residuals ({self.shape_words}) of independent entries allow. "
                    "Something besides sampling noise moves them (entries that over-fitted the "
                    "public board, a public slice unlike the private one, or slices smaller "
                    "than stated), so the noise here is that of heavy-tailed residuals, the most "
                    "sampling noise can be, and the rest is left to the post-mortem."
                    + (" In a two-stage competition the public board is other data."
                       if self.two_stage else ""))
        text = (f"The residuals' tails were read from the public and private scores: the "
                f"public-minus-private gaps of {c.n_pairs:,} distinct entries spread "
                f"{np.sqrt(c.spread):.3g} times as much as normal residuals' noise would make "
                f"them (at a correlation between entries of {read}), so every score's noise is "
                f"taken as {c.scale:.3g} times normal residuals'"
                + (" (never less)" if c.floored else
                   f" (with the t quantile of {c.df:,} degrees of freedom)") + ". The tiers, "
                "the best set and the post-mortem rest on the noise of differences between "
                "entries, which the gaps show whatever the tails. Each entry's own interval "
                "assumes the entries' errors are independent: entries that share their largest "
                "errors (rows every model gets badly wrong) can have heavier tails than the "
                "gaps show, and then those intervals are too narrow. Anything besides sampling "
                "noise that moves the gaps (entries that over-fitted the public board, public "
                "scores of other submissions) makes the noise wider, the cautious side.")
        if self.two_stage:
            text += (" In a two-stage competition the public board is other data, whose "
                     "differences widen the gaps too.")
        return text

    def to_json(self) -> dict:
        """The ``tails`` object of the JSON (leaderboard/schema/analyze.schema.json)."""
        return {"how": self.how, "residuals": self.residuals,
                "df": self.df if self.residuals == "t" else None, "kurtosis": self.kurtosis,
                "scale": None if self.scale is None else self.scale.to_json(),
                "why_unknown": self.why_unknown, "light": self.light, "heavy": self.heavy,
                "beyond_heavy": self.beyond_heavy}


def is_regression(settings: Settings) -> bool:
    """Whether the board's noise is simulated by the residual universe."""
    o = settings.universe
    return ((o.name or default_universe(settings.metric, o)) == "residuals"
            and not_simulable_reason(settings.metric, o) is None)


def choose_tails(public: np.ndarray | None, private: np.ndarray | None, settings: Settings, *,
                 progress_for=None) -> tuple[Settings, Tails | None, SliceNoise | None]:
    """The settings the analysis runs with, the tails chosen, and (when the gaps were read and
    normal residuals' noise was kept, scale 1) the slices' simulated noise, which the correlation
    estimate may reuse.

    ``public`` and ``private``: the board's two score columns (None without them);
    ``progress_for``: a callable giving a progress bar for a label (or None for none).
    Non-regression boards come back unchanged with ``None``.
    """
    from leaderboard.pipelines.shakeup import slice_noise

    if not is_regression(settings):
        return settings, None, None
    o = settings.universe
    if o.tails_stated:
        return settings, Tails("stated", o.residuals, o.df, o.kurtosis,
                               metric=settings.metric.name), None
    why = _why_not_read(public, private, settings)
    if why is not None or public is None or private is None:   # (both given when why is None)
        return settings, Tails("unknown", o.residuals, o.df, why_unknown=why,
                               metric=settings.metric.name), None
    normal = _with_universe(settings, replace(o, residuals="normal", df=DEFAULT_DF))
    progress = progress_for("simulating both slices") if progress_for else None
    try:
        sliced = slice_noise(public, private, normal, progress=progress)
    finally:
        if progress is not None:
            progress.close()
    at = np.where(np.isfinite(public), private, np.nan)   # both SDs at the private score
    read_at = 0.0 if settings.correlation == "auto" else float(settings.correlation)
    scale = read_noise_scale(public, private, sliced.models[0].interval_sd(at),
                             sliced.models[1].interval_sd(at), correlation=read_at,
                             alpha=settings.alpha)
    if not scale.ok:
        return settings, Tails("unknown", o.residuals, o.df, scale=scale,
                               why_unknown=f"the public/private gaps could not be read: "
                                           f"{scale.reason}", metric=settings.metric.name), None
    beyond = None if scale.floored else _beyond_heavy(public, private, settings, read_at)
    if beyond:   # not sampling noise alone: the most sampling noise can be, the rest left over
        return settings, Tails("gaps", o.residuals, o.df, scale=scale,
                               metric=settings.metric.name, two_stage=bool(settings.two_stage),
                               beyond_heavy=True), None
    chosen = _with_universe(settings, replace(normal.universe, noise_scale=scale.scale))
    return chosen, Tails("gaps", "normal", DEFAULT_DF, scale=scale, metric=settings.metric.name,
                         two_stage=bool(settings.two_stage), beyond_heavy=beyond), (
        sliced if scale.floored else None)


def _beyond_heavy(public, private, settings: Settings, correlation: float) -> bool:
    """Whether the gaps spread more than even heavy-tailed residuals (the default t, 3 df) of
    entries at ``correlation`` allow, beyond doubt (the chi-square's ``1 - alpha/2`` bound):
    then something besides sampling noise moves them. Simulated with at most
    :data:`BRACKET_DRAWS` test sets per level: a check, not the page's noise."""
    from leaderboard.noise.correlation import estimate_correlation
    from leaderboard.pipelines.shakeup import slice_noise

    heavy = replace(settings, noise=replace(settings.noise, draws=min(settings.draws,
                                                                      BRACKET_DRAWS)))
    sliced = slice_noise(public, private, heavy)
    at = np.where(np.isfinite(public), private, np.nan)
    est = estimate_correlation(public, private, sliced.models[0].interval_sd(at),
                               sliced.models[1].interval_sd(at), alpha=settings.alpha,
                               distinct=True)
    return bool(est.ok and est.spread / (1 - correlation) * est.df
                > _chi2_upper(est.df, settings.alpha))


def _chi2_upper(df: int, alpha: float) -> float:
    from scipy.special import gammaincinv   # chi2.ppf(q, df) = 2 gammaincinv(df / 2, q)

    return float(2 * gammaincinv(df / 2, 1 - alpha / 2))


def with_bracket(tails: Tails, settings: Settings, scores: np.ndarray, correlation: float,
                 heavy: dict) -> Tails:
    """``unknown`` tails with the verdict under normal residuals beside the page's own.

    ``scores``: the compared entries, best first; ``heavy``: the page's ``{"best_set",
    "compared"}``. The light end simulates normal residuals at the test set's size (at most
    :data:`BRACKET_DRAWS` test sets per level, as many normal draws behind its count) and counts
    the confidence set of the best at the same correlation (the first sentence's number; the
    tiers are the page's own).
    """
    from leaderboard.noise.grid import build_noise_model
    from leaderboard.tiers import RankReplicates
    from leaderboard.tiers.best_set import best_set

    s = settings
    light_options = replace(s.universe, residuals="normal", df=DEFAULT_DF)
    model = build_noise_model(s.metric, scores, leader_score=float(scores[0]), n_test=s.n_test,
                              prevalence=s.prevalence, draws=min(s.draws, BRACKET_DRAWS),
                              seed=s.seed, alpha=s.alpha, options=light_options)
    sd = model.interval_sd(scores)
    keep = np.isfinite(sd)
    reps = RankReplicates.normal(scores[keep], sd[keep], float(correlation), s.higher_is_better,
                                 replicates=min(s.replicates, BRACKET_DRAWS), seed=s.seed)
    light = {"best_set": int(best_set(reps, s.alpha).sum()), "compared": int(keep.sum())}
    return replace(tails, light=light, heavy=dict(heavy))


def _why_not_read(public, private, settings: Settings) -> str | None:
    if public is None or private is None:
        return "the board has one score per entry"
    if settings.n_public is None or settings.n_private is None:
        return said("the sizes of the public and private slices were not given (--n-public and "
                    "--n-private, or --n-test with --public-fraction)")
    return None


def _with_universe(settings: Settings, universe) -> Settings:
    return replace(settings, noise=replace(settings.noise, universe=universe))
