"""What each tier method is, in words: the one table the report, the JSON, the CLI and the README read.

Every sentence that names a tier method (the method box, "How to read", the JSON's
``tier_method`` and ``resampling.test``, the terminal summary) is generated from
:data:`TIER_METHODS`, so the words cannot drift from the method that ran: the key a run used picks
the entry, and the tier procedures stamp their :class:`~leaderboard.tiers.holm.Tiers` with the
entry's ``procedure``.

This module holds data only (no numerical imports), so anything may import it.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from leaderboard.api_words import said
from leaderboard.confidence import confidence_label


@dataclass(frozen=True)
class TierMethod:
    """One ``--tiers`` method described once.

    Attributes
    ----------
    key : str
        The ``--tiers`` value.
    label : str
        Short name in words ("tiers by ...").
    procedure : str
        The name the procedure stamps on its result (``Tiers.method``, JSON ``tier_method``).
    test : str
        The tests behind the tiers, one phrase (JSON ``resampling.test``, the method box).
    guarantee : str
        What the method guarantees, one sentence; ``{conf}`` and ``{alpha}`` are filled in.
    explanation : str
        The "How to read" paragraph; ``{conf}`` and ``{alpha}`` are filled in.
    same_family_as_rank_sets : bool
        True when the tiers come from the simultaneous family behind the rank sets and the
        significance map (so the three can never disagree).
    """

    key: str
    label: str
    procedure: str
    test: str
    guarantee: str
    explanation: str
    same_family_as_rank_sets: bool

    def words(self, alpha: float) -> dict[str, str]:
        """``guarantee`` and ``explanation`` with the error rate filled in."""
        conf, err = confidence_label(alpha), f"{100 * alpha:.3g}%"
        return {"guarantee": self.guarantee.format(conf=conf, alpha=err),
                "explanation": self.explanation.format(conf=conf, alpha=err)}

    def for_family(self, family: str) -> TierMethod:
        """This method's words when its tests read ``family``'s draws (a key of
        :data:`FAMILIES`); the method itself when the family does not change them.

        Examples
        --------
        >>> TIER_METHODS["rank-sets"].for_family("sign-flip").test[-35:]
        'paired per-item differences (exact)'
        >>> TIER_METHODS["holm"].for_family("sign-flip") is TIER_METHODS["holm"]
        True
        """
        return _FAMILY_WORDS.get((self.key, family), self)

    @property
    def other_family_note(self) -> str | None:
        """Why this method's tiers may disagree with the rank sets and the map (None if they
        cannot)."""
        if self.same_family_as_rank_sets:
            return None
        return said("These tiers are another procedure than the simultaneous rank sets and the "
                    "significance map, so an entry's tier and its rank set or map cells can "
                    "disagree (the default --tiers rank-sets reads all three from one family of "
                    "tests).")


RANK_SETS = TierMethod(
    key="rank-sets",
    label="simultaneous rank confidence sets",
    procedure="rank confidence sets (Mogstad-Romano-Shaikh-Wilhelm)",
    test=("studentised paired differences of every ordered pair of entries, one max-t step-down "
          "over all pairs at once (bootstrap critical value); tier = layers of 'shown better'"),
    guarantee=("with probability at least {conf}, every 'shown better' on the page is true at "
               "once: the truly best entries are all in tier 1 and an entry in tier t has at "
               "least t \u2212 1 entries truly better"),
    explanation=(
        "Tiers from the simultaneous rank confidence sets (Mogstad, Romano, Shaikh and Wilhelm, "
        "2023). Every ordered pair of entries is tested with a studentised paired difference "
        "against one bootstrap critical value for all pairs at once, stepped down; a rejected "
        "pair means the first entry is shown better than the second. Tier 1 is every entry that "
        "no other entry is shown to beat (exactly the entries whose simultaneous rank set starts "
        "at 1); tier 2 is the same among the entries left, and so on: an entry's tier is one more "
        "than the highest tier of the entries shown to beat it. The rank sets and the "
        "significance map read the same tests, so they never contradict a tier. Guarantee: with "
        "probability at least {conf} every 'shown better' is true at once, so the truly best "
        "entries are all in tier 1 and an entry in tier t has at least t \u2212 1 entries truly "
        "better. Tiers follow the evidence, not only the order: an entry with a wide interval "
        "can stay in tier 1 below an entry with a narrow one that the leader is shown to beat. "
        "Cost: every pair is visited once; a Bonferroni screen and bounds on the critical value "
        "skip most of the work without changing the answer."),
    same_family_as_rank_sets=True,
)

HOLM = TierMethod(
    key="holm",
    label="leader-anchored one-sided tests with Holm's correction",
    procedure="leader-anchored, Holm",
    test=("one-sided paired z-tests of each entry against its tier's anchor (difference over its "
          "standard error), Holm's step-down within each tier"),
    guarantee=("the truly best entry is left out of tier 1 at most about {alpha} of the time; "
               "with several tied best entries this holds for each of them, not for all at once"),
    explanation=(
        "Leader-anchored one-sided tests with Holm's correction. The best remaining entry anchors "
        "a tier; every entry below it is tested against it (one-sided paired test of \u201cat "
        "least as good as the anchor\u201d), and Holm's procedure decides which are shown to be "
        "worse with family-wise error at most {alpha}. A tier runs from its anchor down to the "
        "lowest-ranked entry not shown to be worse. Guarantee: the truly best entry is left out "
        "of tier 1 at most about {alpha} of the time (checked by the calibration study); when "
        "several entries tie for best, each of them is, but not necessarily all at once. Tiers "
        "after the first depend on the earlier cuts and carry no separate guarantee. These tests "
        "are not the family behind the rank sets and the significance map, so a tier can "
        "disagree with them. Cost: one test per entry and tier."),
    same_family_as_rank_sets=False,
)

SCOTT_KNOTT = TierMethod(
    key="scott-knott",
    label="Scott-Knott ESD (a heuristic)",
    procedure="Scott-Knott ESD (heuristic)",
    test=("Scott-Knott likelihood-ratio splits of the sorted scores with their standard errors, "
          "then negligible-effect merges (no error-rate control)"),
    guarantee="none (a heuristic without an error-rate guarantee)",
    explanation=(
        "Scott-Knott ESD, a heuristic. The sorted scores are split recursively where the "
        "between-group sum of squares is largest while Scott and Knott's test finds the split "
        "real, and adjacent groups whose difference is negligible (effect size below 0.2 "
        "standard errors) are merged. It uses each entry's score and standard error, not the "
        "replicates as if they were data, so the verdict does not depend on how many replicates "
        "were drawn. It carries no error-rate guarantee (the calibration study shows how often "
        "it still puts the best entry in tier 1), and it is not the family behind the rank sets "
        "and the significance map, so a tier can disagree with them."),
    same_family_as_rank_sets=False,
)

@dataclass(frozen=True)
class TestFamily:
    """Where the simultaneous family's critical values come from (:func:`family_of`).

    Attributes
    ----------
    key : str
    label : str
        In words, for the method box and the JSON (``ranks.family``).
    guarantee : str
        What holds, and under what, one sentence.
    """

    key: str
    label: str
    guarantee: str


FAMILIES: dict[str, TestFamily] = {f.key: f for f in (
    TestFamily("bootstrap", "paired bootstrap of the test rows (or items): the bootstrap "
               "quantile of the largest studentised difference",
               "family-wise error at most alpha asymptotically, when the test rows far outnumber "
               "what log(pairs) asks (many rows per pair of entries)"),
    TestFamily("sign-flip", "sign flips of the paired per-item differences: a randomization "
               "test, the identity among the draws",
               "family-wise error at most alpha exactly, for any number of items, when equally "
               "good models' values on each item are exchangeable and symmetric about their "
               "centre; otherwise (0/1 values on items of uneven difficulty) measured, in the "
               "calibration study and at the board's own shape (guarantee_check)"),
    TestFamily("normal", "normal draws with the simulated SDs and the stated correlation "
               "(scores only)",
               "family-wise error at most alpha when the simulated noise and the correlation "
               "are right"),
)}


def family_of(reps) -> str:
    """The key of :data:`FAMILIES` for a :class:`~leaderboard.tiers.replicates.RankReplicates`.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> family_of(SimpleNamespace(null=True, correlation=None))
    'sign-flip'
    """
    if getattr(reps, "null", False):
        return "sign-flip"
    return "bootstrap" if reps.correlation is None else "normal"


_SIGN_FLIP_EXPLANATION = RANK_SETS.explanation.replace(
    "against one bootstrap critical value for all pairs at once, stepped down",
    "against one critical value for all pairs at once from sign flips of the pairs' per-item "
    "differences (a randomization test: flipping an item's differences leaves their law "
    "unchanged when two models are equally good, so its level is exact with any number of "
    "items, where the bootstrap's critical value is far too small when models outnumber "
    "items), stepped down")
_FAMILY_WORDS = {
    ("rank-sets", "sign-flip"): replace(
        RANK_SETS,
        test=("studentised paired differences of every ordered pair of entries, one max-t "
              "step-down over all pairs at once; critical value from sign flips of the "
              "paired per-item differences (exact)"),
        explanation=_SIGN_FLIP_EXPLANATION),
}

# Each --tiers key with its description, the default first.
TIER_METHODS: dict[str, TierMethod] = {m.key: m for m in (RANK_SETS, HOLM, SCOTT_KNOTT)}


def method_words() -> list[str]:
    """Each tier method as ``--tiers``' help lists it: its key and label."""
    return [f"{m.key}, {m.label}" for m in TIER_METHODS.values()]

# The family the significance map and the simultaneous rank sets always use, whatever --tiers says.
MAP_FAMILY = ("the simultaneous family: studentised paired differences of all ordered pairs of "
              "entries tested at once (max-t step-down), the tests behind the simultaneous rank "
              "sets")
