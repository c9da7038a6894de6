"""What the user chose, one frozen options object per concern, each checked once on creation.

- :class:`NoiseOptions`: how chance is measured (metric, direction, prevalence, universe, draws,
  seed, correlation between entries);
- :class:`RankOptions`: how entries are compared (alpha, replicates, resampling, tier method,
  prize lines);
- :class:`SliceOptions`: the sizes of the test slices (a leaderboard file carries scores, not
  sizes);
- :class:`ReadOptions`: how inputs are read (columns, size cap);
- :class:`ArenaOptions`: how an arena's ratings are placed (battles mode: the anchor, groups
  that never met);
- :class:`AnalyzeOptions`: the four together, what ``leaderboard analyze`` and
  :func:`leaderboard.analyze` hand to :func:`leaderboard.pipelines.run.run_analysis`.

Every field is checked against the one table of constraints, :data:`leaderboard.params.PARAMETERS`
(``alpha`` once, there), in ``__post_init__``; numpy scalars come out as Python numbers. The
command line builds these objects from its parsed arguments, the Python API from its keywords, so
both run the same pipeline with the same values.

:func:`~leaderboard.confidence.confidence_label` (re-exported here) is the one formatter of
``"95%"``.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from collections.abc import Sequence
from typing import Any

from leaderboard.noise.universe_options import (DEFAULT_DF, DEFAULT_RESIDUALS, UniverseOptions,
                                               residuals_for_kurtosis)
from leaderboard.confidence import confidence_label  # noqa: F401 - the one formatter, here too
from leaderboard.errors import InputError
from leaderboard.params import (DEFAULT_ALPHA, DEFAULT_DRAWS, DEFAULT_REPLICATES, DEFAULT_SEED,
                                check, default)
from leaderboard.ingest.safe_read import DEFAULT_MAX_BYTES
from leaderboard.params import DEFAULT_TIERS

# Fields whose table entry has another name (the command line's option).
_PARAMETER_OF = {"method": "tiers"}


def _checked(options: Any, skip: tuple[str, ...] = ()) -> None:
    """Check and normalise every field of a frozen dataclass through the table."""
    for f in fields(options):
        if f.name in skip:
            continue
        name = _PARAMETER_OF.get(f.name, f.name)
        value = check(name, getattr(options, f.name))
        object.__setattr__(options, f.name, value)


@dataclass(frozen=True)
class NoiseOptions:
    """How much a score moves by chance: the metric and the simulated universe.

    Attributes
    ----------
    metric : str or None
        The metric's name (several comma separated on the command line); None until an example
        presets it.
    higher_is_better : bool or None
        Overrides the metric's direction.
    prevalence : float or None
        Share of positives in the test set (binary metrics).
    draws : int
        Simulated test sets per score level.
    seed : int
        The seed of every random stream (:class:`leaderboard.noise.rng.Stream`).
    correlation : float or "auto"
        Correlation between entries' scores assumed by the comparisons.
    beta, costs : optional
        The fbeta metrics' beta, expected_cost's matrix (``"0,1;5,0"``).
    universe : UniverseOptions
        The universe's shape (``--universe``, ``--spread``, ...).

    Examples
    --------
    >>> import numpy as np
    >>> NoiseOptions(metric="auc", prevalence=np.float64(0.2)).prevalence
    0.2
    >>> NoiseOptions(metric="auc", seed=-1)
    Traceback (most recent call last):
    ...
    leaderboard.errors.InputError: seed= must be at least 0 and at most 4294967295 (a whole number), got -1
    """

    metric: str | None = None
    higher_is_better: bool | None = None
    prevalence: float | None = None
    draws: int = DEFAULT_DRAWS
    seed: int = DEFAULT_SEED
    correlation: float | str = default("correlation")
    beta: float | None = None
    costs: str | None = None
    universe: UniverseOptions = field(default_factory=UniverseOptions)

    def __post_init__(self) -> None:
        _checked(self, skip=("universe",))


@dataclass(frozen=True)
class RankOptions:
    """How entries are compared: error rate, replicates, tiers and prize lines.

    Attributes
    ----------
    alpha : float
        Error rate of every interval and tier.
    replicates : int
        Bootstrap replicates (or normal draws behind the ranks with scores only; the
        unchecked correlation's sweep takes as many, at most 1,000).
    resample : str
        The paired bootstrap's resampling (plain, stratified, grouped, poisson).
    method : str
        How tiers are cut (``--tiers``).
    prizes : int
        Prize places: each entry's chance of finishing in the top ``prizes``.
    top_k : tuple of int
        More P(top k) lines.
    category_intervals : {"marginal", "simultaneous"}
        Per-item results with categories: the intervals the page shows, marginal (each holds
        its own model's score in its category at ``1 - alpha / C``; together they do not) or
        simultaneous (every model in every category at once, ``1 - alpha``). The JSON has both.

    Examples
    --------
    >>> RankOptions(prizes=3, top_k=(10, 3)).prize_lines
    (3, 10)
    """

    alpha: float = DEFAULT_ALPHA
    replicates: int = DEFAULT_REPLICATES
    resample: str = default("resample")
    method: str = DEFAULT_TIERS
    prizes: int = default("prizes")
    top_k: Sequence[int] = ()   # a tuple once checked
    category_intervals: str = default("category_intervals")

    def __post_init__(self) -> None:
        _checked(self)

    @property
    def prize_lines(self) -> tuple[int, ...]:
        """The P(top k) lines: the prizes and every ``top_k``, sorted, each once."""
        return tuple(sorted({self.prizes, *self.top_k}))


@dataclass(frozen=True)
class SliceOptions:
    """The test slices' sizes as given (:func:`leaderboard.slices.resolve_sizes` reconciles
    them): ``n_test`` alone is the ranking split's rows; ``n_public``/``n_private`` or
    ``public_fraction`` of ``n_test`` give both slices; ``split`` is the one that ranks."""

    n_test: int | None = None
    n_public: int | None = None
    n_private: int | None = None
    public_fraction: float | None = None
    two_stage: bool = False
    split: str = default("split")

    def __post_init__(self) -> None:
        _checked(self)


@dataclass(frozen=True)
class ReadOptions:
    """Which columns hold what, in each kind of input, and the size cap of every file;
    ``items_policy`` (``common``, ``drop-items``, ``drop-models`` or ``pairwise``): which items
    and models per-item results analyse when the models were scored on different item sets;
    ``cost_col``: per-item results' cost of each item (``--cost-col``); ``published_col`` and
    ``published_model_col``: the score and model columns of ``--published`` (default: found)."""

    team_col: str | None = None
    score_col: str | None = None
    public_col: str | None = None
    private_col: str | None = None
    id_col: str | None = None
    target_col: str | Sequence[str] | None = None   # a tuple once checked
    pred_col: str | Sequence[str] | None = None
    group_col: str | None = None
    model_col: str = default("model_col")
    item_col: str = default("item_col")
    value_col: str = default("value_col")
    cluster_col: str | None = None
    category_col: str | None = None
    harness_filter: str | None = None
    sample_col: str | None = None
    items_policy: str = default("items_policy")
    items_format: str = default("items_format")
    instances: str | None = None
    missing_instances: str = default("missing_instances")
    cost_col: str | None = None
    published_col: str | None = None
    published_model_col: str | None = None
    max_file_size: int = DEFAULT_MAX_BYTES

    def __post_init__(self) -> None:
        _checked(self)


@dataclass(frozen=True)
class ArenaOptions:
    """How battles mode places an arena's ratings: ``anchor``, a model whose rating is fixed at
    ``anchor_rating`` (None: the models' mean is), and ``disconnected``, what to do with groups
    of models that never met (``all``: rate each on its own; ``largest``: that one alone;
    ``error``: refuse).

    Examples
    --------
    >>> ArenaOptions().anchor_rating, ArenaOptions().disconnected
    (1000.0, 'all')
    >>> ArenaOptions(disconnected="some")
    Traceback (most recent call last):
    ...
    leaderboard.errors.InputError: disconnected= must be one of 'all', 'largest', 'error', got 'some'
    """

    anchor: str | None = None
    anchor_rating: float = default("anchor_rating")
    disconnected: str = default("disconnected")

    def __post_init__(self) -> None:
        _checked(self)


@dataclass(frozen=True)
class AnalyzeOptions:
    """Everything ``leaderboard analyze`` is told besides its inputs and outputs.

    ``workers``/``scheduler`` run submissions mode on a Dask cluster (same numbers).
    ``exclude_flagged`` (``--exclude-flagged``): flags whose entries leave the board before the
    ranking, in every mode (``perfect``, ``junk``, ``shared``; :mod:`leaderboard.set_aside`).
    """

    noise: NoiseOptions = field(default_factory=NoiseOptions)
    ranks: RankOptions = field(default_factory=RankOptions)
    slices: SliceOptions = field(default_factory=SliceOptions)
    read: ReadOptions = field(default_factory=ReadOptions)
    workers: int | None = None
    scheduler: str | None = None
    exclude_flagged: Sequence[str] = ()   # a tuple once checked

    def __post_init__(self) -> None:
        _checked(self, skip=("noise", "ranks", "slices", "read"))


class OptionShorthands:
    """Read-only shorthands for a settings object holding ``metric`` (a Metric), ``noise``
    (:class:`NoiseOptions`) and ``ranks`` (:class:`RankOptions`): ``settings.seed`` reads
    ``settings.noise.seed``; each value still lives in its options object alone."""

    metric: Any   # what the settings object holds (a Metric: not imported here, to stay light)
    noise: NoiseOptions
    ranks: RankOptions

    @property
    def higher_is_better(self) -> bool:
        """The metric's direction unless ``noise`` overrides it."""
        given = self.noise.higher_is_better
        return self.metric.higher_is_better if given is None else given

    prevalence = property(lambda self: self.noise.prevalence)
    draws = property(lambda self: self.noise.draws)
    seed = property(lambda self: self.noise.seed)
    universe = property(lambda self: self.noise.universe)
    alpha = property(lambda self: self.ranks.alpha)
    replicates = property(lambda self: self.ranks.replicates)


def universe_from(*, universe: str | None = None, classes: int | None = None,
                  class_shares: str | Sequence[float] | None = None, residuals: str = DEFAULT_RESIDUALS,
                  df: float = DEFAULT_DF, threshold: float = default("threshold"),
                  spread: float | None = None, kurtosis: float | None = None) -> UniverseOptions:
    """:class:`UniverseOptions` from the universe's parameters, each checked by the table:
    ``classes`` equally common classes or ``class_shares`` (text such as ``"0.5,0.3,0.2"`` or
    numbers); two classes are the binary universes (with the prevalence). ``kurtosis`` states
    the residuals' tails instead of ``residuals`` and ``df``
    (:func:`~leaderboard.noise.universe_options.residuals_for_kurtosis`).

    Examples
    --------
    >>> universe_from(kurtosis=6.0).df
    6.0
    >>> universe_from(classes=3).class_shares
    (0.3333333333333333, 0.3333333333333333, 0.3333333333333333)
    >>> universe_from(classes=2, class_shares="0.5,0.3,0.2")
    Traceback (most recent call last):
    ...
    leaderboard.errors.InputError: --classes 2 disagrees with the 3 --class-shares
    """
    universe, classes, residuals, df, threshold, spread, kurtosis = (
        check(name, value) for name, value in (
            ("universe", universe), ("classes", classes), ("residuals", residuals), ("df", df),
            ("threshold", threshold), ("spread", spread), ("kurtosis", kurtosis)))
    if kurtosis is not None:   # the tails stated once: a kurtosis, or a shape, not both
        if (residuals, df) != (DEFAULT_RESIDUALS, DEFAULT_DF):
            raise InputError("--kurtosis states the residuals' tails; drop --residuals and --df "
                             "(or drop --kurtosis)")
        residuals, df = residuals_for_kurtosis(kurtosis)
    shares = None
    if class_shares is not None:
        try:
            shares = check("class_shares", class_shares)
        except InputError:
            raise InputError(f"--class-shares {class_shares!r}: give numbers like "
                             "0.5,0.3,0.2") from None
        if classes is not None and classes != len(shares):
            raise InputError(f"--classes {classes} disagrees with the {len(shares)} "
                             "--class-shares")
    elif classes is not None:
        shares = (1.0 / classes,) * classes
    if shares is not None and len(shares) == 2:
        shares = None  # two classes: the binary universes, with --prevalence
    return UniverseOptions(name=universe, class_shares=shares, residuals=residuals, df=df,
                           threshold=threshold, spread=spread, kurtosis=kurtosis)
