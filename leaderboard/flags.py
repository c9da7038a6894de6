"""Sanity flags: what about a board deserves a sentence before any number is read.

A leak gives perfect scores, a sample submission gives one score to dozens of teams, a broken file
scores a hundred times worse than the rest, and a test set with a handful of positives makes every
interval rough. None of these is an error, and the statistics still run, but a reader should learn
of them first: each :class:`Flag` is one plain sentence for the report's headline and the JSON.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
import unicodedata
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from leaderboard.api_words import said
from leaderboard.ingest.text_rules import invisible as _invisible
from leaderboard.ingest.text_rules import look_alike_groups
from leaderboard.metrics import Metric

SHARED_MIN = 5          # entries sharing one score before it is flagged ...
SHARED_SHARE = 0.01     # ... and at least this share of the board
FAR_OUT = 3.0           # Tukey's far-out fence: this many interquartile ranges past the quartile
FEW_ROWS = 10           # fewer rows of a class than this makes the noise rough
NAMES_SHOWN = 3


@dataclass(frozen=True)
class Flag:
    """One thing about the board a reader should know first.

    Attributes
    ----------
    kind : str
        ``perfect``, ``tie_at_top``, ``shared_score``, ``far_out``, ``worse_than_no_skill``,
        ``no_interval``, ``few_rows``, ``look_alike``, ``undeclared_groups`` (per-item results: a
        column groups the items and no --cluster-col was given) or ``few_clusters`` (fewer than 30 clusters,
        or one holding a quarter of the items: the t correction of leaderboard.noise.clusters).
    message : str
        One plain sentence (names are the board's own, unescaped: the page escapes them).
    teams : tuple of str
        The entries concerned (empty when the flag is about the test set).
    """

    kind: str
    message: str
    teams: tuple[str, ...] = ()


def no_skill_score(metric: Metric, prevalence: float | None,
                   class_shares: tuple[float, ...] | None = None) -> float | None:
    """The score of predicting the class shares for every row, where the metric has one: log loss
    is the entropy of the shares, Brier ``p (1 - p)``, AUC and Gini their chance values.

    Examples
    --------
    >>> from leaderboard.metrics import get_metric
    >>> round(no_skill_score(get_metric("logloss"), 0.26), 5)
    0.57306
    >>> no_skill_score(get_metric("auc"), None)
    0.5
    """
    shares = (np.asarray(class_shares, dtype=float) if class_shares is not None
              else None if prevalence is None else np.array([1 - prevalence, prevalence]))
    if metric.name == "auc":
        return 0.5
    if metric.name == "gini":
        return 0.0
    if shares is None:
        return None
    if metric.name == "logloss":
        return float(-(shares * np.log(shares)).sum())
    if metric.name == "brier" and shares.size == 2:
        return float(shares[0] * shares[1])
    return None


def board_flags(teams, scores, metric: Metric, higher_is_better: bool, *, split: str = "",
                n_test: int | None = None, prevalence: float | None = None,
                class_shares: tuple[float, ...] | None = None,
                no_interval: tuple[str, ...] = (),
                same_as: Sequence[str | None] | None = None,
                items: bool = False, values: np.ndarray | None = None) -> list[Flag]:
    """The flags of one board's scores (``split`` names it, e.g. ``"public board"``).

    ``items``: a benchmark's per-item results, worded as such (models and runs, not submissions).
    ``values`` (per-item results): each entry's value on each item, rows in ``teams`` order; the
    far-out flag then says what kind of entry each is (:func:`leaderboard.row_kinds.item_kinds`).
    Without them, an entry whose score is what a constant prediction scores is named as one.

    ``same_as`` (submissions and items mode, where the predictions are known): per entry, the
    first entry whose predictions are identical to its own, else None. Entries sharing a score
    are then called the same submission only when their predictions are identical; with scores
    alone (``same_as`` None) a large group sharing one score is the same submission *most likely*.

    Examples
    --------
    >>> from leaderboard.metrics import get_metric
    >>> flags = board_flags(["a", "b", "c"], [1.0, 1.0, 0.7], get_metric("f1"), True)
    >>> [f.kind for f in flags]
    ['perfect']
    >>> print(flags[0].message)  # doctest: +NORMALIZE_WHITESPACE
    2 entries have a perfect F1 score (1): leaked test labels, or a solved task; a perfect score says nothing
    about its noise (exclude_flagged='perfect' sets them aside).

    The option is named in the words of the interface in use (:func:`leaderboard.api_words.said`):
    ``--exclude-flagged perfect`` on the command line.
    """
    teams = [str(t) for t in teams]
    scores = np.asarray(scores, dtype=float)
    finite = np.isfinite(scores)
    where = f" on the {split}" if split else ""
    label = metric.label
    sign = 1.0 if higher_is_better else -1.0
    flags: list[Flag] = [] if split else look_alike_flags(teams, spelling=items)
    if finite.sum() == 0:
        return flags
    best_possible = metric.upper_bound if higher_is_better else metric.lower_bound
    perfect = finite & (scores == best_possible) if math.isfinite(best_possible) else finite & False
    if perfect.any():
        flags.append(Flag("perfect", f"{_entries(perfect.sum())} {_have(perfect.sum())} a perfect "
                                     f"{label} ({best_possible:g}){where}: "
                                     + ("answers seen in training, or a solved task"
                                        if items else "leaked test labels, or a solved task")
                                     + "; a perfect score says nothing about its noise "
                                     + said(f"(--exclude-flagged perfect sets "
                                            f"{_them(perfect.sum())} aside)."),
                          _names(teams, perfect)))
    top = finite & (scores == np.nanmax(sign * scores) * sign)
    if top.sum() > 1 and not perfect.any():
        flags.append(Flag("tie_at_top", f"{_entries(top.sum())} tie for first{where} at "
                                        f"{_g(scores[top][0])}: no score can order them.",
                          _names(teams, top)))
    q1, q3 = np.percentile(sign * scores[finite], [25, 75])
    if q3 > q1:
        fence = q1 - FAR_OUT * (q3 - q1)
        far = finite & (sign * scores < fence)
        if far.any():
            kinds = _far_kinds(teams, far, scores, values, metric, prevalence, class_shares,
                               items)
            flags.append(Flag("far_out", f"{_entries(far.sum())} {_verb(far.sum(), 'score')} far "
                                         f"worse than the rest{where} (beyond "
                                         f"{_g(sign * fence)}, three interquartile ranges past "
                                         f"the quartile): {kinds} "
                                         + said(f"(--exclude-flagged junk sets {_them(far.sum())} "
                                                "aside)."), _names(teams, far)))
    chance = no_skill_score(metric, prevalence, class_shares)
    if chance is not None:
        worse = finite & (sign * scores < sign * chance)
        if worse.any():
            flags.append(Flag("worse_than_no_skill",
                              f"{_entries(worse.sum())} {_verb(worse.sum(), 'score')} worse "
                              "than predicting the class "
                              f"shares for every row ({label} {_g(chance)}){where}.",
                              _names(teams, worse)))
    if no_interval:
        flags.append(Flag("no_interval", f"{_entries(len(no_interval))} {_have(len(no_interval))} "
                                         f"no interval{where}: no model of the universe gives "
                                         "such a score, so they are left out of every comparison.",
                          tuple(no_interval)))
    levels, counts = np.unique(scores[finite & ~top], return_counts=True)
    if levels.size:
        common = int(counts.argmax())
        if counts[common] >= max(SHARED_MIN, SHARED_SHARE * finite.sum()):
            same = finite & (scores == levels[common])
            what = _constant_model(metric, float(levels[common]), prevalence, class_shares)
            head = (f"{_entries(counts[common])} share the score {_g(levels[common])}{where}"
                    + (f" (the score of {what})" if what else ""))
            words = (": the same submission, most likely (a public notebook, a sample or a "
                     "constant prediction)." if same_as is None else
                     _same_predictions(_names(teams, same), _names(list(same_as), same), items))
            flags.append(Flag("shared_score", head + words, _names(teams, same)))
    return flags


def _same_predictions(teams: tuple[str, ...], same_as: tuple[str | None, ...],
                      items: bool = False) -> str:
    """What entries sharing a score are, from their predictions (``same_as`` as in
    :func:`board_flags`; ``items``: a benchmark's per-item results).

    Examples
    --------
    >>> print(_same_predictions(("a", "b", "c"), (None, "a", "a")))  # doctest: +NORMALIZE_WHITESPACE
    : all submitted identical predictions, the same submission (a public notebook, a sample or a constant
    prediction).
    >>> print(_same_predictions(("a", "b", "c", "d"), (None, None, "a", None)))
    ... # doctest: +NORMALIZE_WHITESPACE
    : 3 different predictions among them, so not one submission (equal scores from different predictions; a
    score on a finite test set takes finitely many values); identical predictions: a = c.
    """
    groups: dict[str, list[str]] = {}
    for team, first in zip(teams, same_as):
        groups.setdefault(first if first is not None else team, []).append(team)
    alike = [" = ".join(members) for members in groups.values() if len(members) > 1]
    if items:
        if len(groups) == 1:
            return (": all have identical per-item results, the same run (a model listed twice, "
                    "or a constant answer).")
        return (f": {len(groups)} different sets of per-item results among them, so not one run "
                "(equal scores from different results; a mean over a finite set of items takes "
                "finitely many values)" + (f"; identical per-item results: {'; '.join(alike)}."
                                           if alike else "."))
    if len(groups) == 1:
        return (": all submitted identical predictions, the same submission (a public notebook, "
                "a sample or a constant prediction).")
    return (f": {len(groups)} different predictions among them, so not one submission (equal "
            "scores from different predictions; a score on a finite test set takes finitely "
            "many values)" + (f"; identical predictions: {'; '.join(alike)}." if alike else "."))


def visible(name: str) -> str:
    """``name`` with every character a reader could not see or tell apart (invisible, or changed
    by NFKC) written as its code point, e.g. ``te[U+200B]am``, ``[U+FB01]le``.

    Examples
    --------
    >>> visible("te\u200bam"), visible("\ufb01le"), visible("team")
    ('te[U+200B]am', '[U+FB01]le', 'team')
    """
    return "".join(f"[U+{ord(ch):04X}]" if _invisible(ch) or
                   unicodedata.normalize("NFKC", ch) != ch else ch for ch in str(name))


def look_alike_flags(teams, *, spelling: bool = False) -> list[Flag]:
    """One flag per group of distinct names that look the same
    (:func:`~leaderboard.ingest.text_rules.look_alike_groups`; with ``spelling``, model ids of
    per-item results, also names that differ only in case or spaces): they stay separate
    entries, and the flag spells out how each differs.

    Examples
    --------
    >>> flags = look_alike_flags(["team", "te\u200bam", "other"])
    >>> flags[0].kind, flags[0].teams
    ('look_alike', ('team', 'te\u200bam'))
    >>> print(flags[0].message)  # doctest: +NORMALIZE_WHITESPACE
    2 entries have names that look alike: 'team', 'te[U+200B]am' differ only by invisible characters or
    character forms; they are separate entries.
    >>> names = ["GPT-4", "gpt-4"]
    >>> [f.teams for f in look_alike_flags(names)], look_alike_flags(names, spelling=True)[0].teams
    ([], ('GPT-4', 'gpt-4'))
    """
    how = ("in case, spaces, invisible characters or character forms" if spelling
           else "by invisible characters or character forms")
    flags = []
    for names in look_alike_groups(teams, spelling=spelling):
        shown = ", ".join(repr(visible(n)) for n in names[:NAMES_SHOWN])
        more = f" and {len(names) - NAMES_SHOWN:,} more" if len(names) > NAMES_SHOWN else ""
        flags.append(Flag("look_alike", f"{_entries(len(names))} have names that look alike: "
                                        f"{shown}{more} differ only {how}; they are separate "
                                        "entries.", tuple(names)))
    return flags


def class_count_flags(n_test: int | None, prevalence: float | None,
                      class_shares: tuple[float, ...] | None = None,
                      class_counts: dict | None = None) -> list[Flag]:
    """A test set with fewer than :data:`FEW_ROWS` rows of some class: counts from the solution
    (``class_counts``) or from the size and the shares."""
    if class_counts is None:
        if n_test is None:
            return []
        shares = (class_shares if class_shares is not None
                  else None if prevalence is None else (1 - prevalence, prevalence))
        if shares is None:
            return []
        class_counts = {f"class {k}" if len(shares) > 2 else ("negatives", "positives")[k]:
                        round(n_test * s) for k, s in enumerate(shares)}
    few = {name: int(c) for name, c in class_counts.items() if int(c) < FEW_ROWS}
    if not few:
        return []
    listed = ", ".join(f"{c:,} {name}" for name, c in few.items())
    return [Flag("few_rows", f"The test set holds only {listed}: scores move in coarse steps, "
                             "and intervals, tiers and the normal approximations behind them are "
                             "rough.")]


# What the per-item values show of a far-out model (leaderboard.row_kinds.item_kinds)
_ITEM_KINDS = {
    "constant": "the same value on every item (a constant baseline, or a run that failed on "
                "every item)",
    "no_signal": "values that do not follow the other models' across items (no signal: a random "
                 "baseline, or a failed run)",
    "follows": "values that follow the other models' across items, lower (a weaker model or a "
               "baseline, not a failed run)"}


def _far_kinds(teams: list[str], far: np.ndarray, scores: np.ndarray, values: np.ndarray | None,
               metric: Metric, prevalence: float | None, class_shares, items: bool) -> str:
    """What the entries far worse than the rest are, named, from what the data show: per-item
    values (constant, no signal, following the others), else the score a constant prediction
    gets; otherwise the scores do not say whether a weak baseline or a broken run.

    Examples
    --------
    >>> from leaderboard.metrics import get_metric
    >>> far = np.array([False, True, True])
    >>> print(_far_kinds(["a", "everyone died", "c"], far, np.array([0.8, 0.622, 0.67]), None,
    ...                  get_metric("accuracy"), 0.378, None, False))  # doctest: +NORMALIZE_WHITESPACE
    'everyone died' scores what predicting the majority class for every row scores (a baseline); 'c' is a
    weak baseline or a broken submission: its score alone does not say which
    """
    rows = np.flatnonzero(far)
    groups: dict[str, list[str]] = {}
    if values is not None:
        from leaderboard.row_kinds import item_kinds

        for k, kind in zip(rows, item_kinds(values, rows)):
            groups.setdefault(kind, []).append(teams[k])
        return "; ".join(f"{_listed(groups[kind])} {_have(len(groups[kind]))} {words}"
                         for kind, words in _ITEM_KINDS.items() if kind in groups)
    for k in rows:
        groups.setdefault(_constant_model(metric, float(scores[k]), prevalence, class_shares),
                          []).append(teams[k])
    parts = [f"{_listed(names)} {_verb(len(names), 'score')} what {what} scores (a baseline)"
             for what, names in groups.items() if what]
    other = groups.get("", [])
    if other:
        one = len(other) == 1
        run = "a failed run" if items else "a broken submission"
        kind = "is a weak baseline or" if one else "are weak baselines or"
        parts.append(f"{_listed(other)} {kind} {run if one else run[2:] + 's'}: "
                     f"{'its score alone does' if one else 'their scores alone do'} not say which")
    return "; ".join(parts)


def _listed(names: list[str]) -> str:
    """Up to :data:`NAMES_SHOWN` names, quoted as a reader sees them, and how many more."""
    shown = ", ".join(repr(visible(n)) for n in names[:NAMES_SHOWN])
    return shown + (f" and {len(names) - NAMES_SHOWN:,} more" if len(names) > NAMES_SHOWN else "")


def _verb(count, verb: str) -> str:
    """``verb`` agreeing with ``count`` entries: "1 entry scores", "2 entries score"."""
    return verb + "s" if int(count) == 1 else verb


def _entries(count) -> str:
    count = int(count)
    return f"{count:,} entr{'y' if count == 1 else 'ies'}"


def _have(count) -> str:
    return "has" if int(count) == 1 else "have"


def _them(count) -> str:
    return "it" if int(count) == 1 else "them"


_T = TypeVar("_T")


def _names(teams: Sequence[_T], mask: np.ndarray) -> tuple[_T, ...]:
    return tuple(t for t, m in zip(teams, mask) if m)


def _g(value: float) -> str:
    return f"{value:.6g}"


def _constant_model(metric: Metric, value: float, prevalence: float | None,
                    class_shares) -> str:
    """The constant prediction whose score this is, when it is one (to 5 decimals), else "".

    Examples
    --------
    >>> from leaderboard.metrics import get_metric
    >>> _constant_model(get_metric("accuracy"), 0.62201, 0.378, None)
    'predicting the majority class for every row'
    >>> _constant_model(get_metric("logloss"), 0.69315, None, None)
    'predicting 0.5 for every row'
    """
    candidates = {}
    if metric.name == "logloss":
        candidates["predicting 0.5 for every row"] = math.log(2)
    if metric.name in ("auc", "gini"):
        candidates["a constant or random prediction"] = 0.5 if metric.name == "auc" else 0.0
    chance = no_skill_score(metric, prevalence, class_shares)
    if chance is not None and metric.name in ("logloss", "brier"):
        candidates["predicting the class shares for every row"] = chance
    shares = (np.asarray(class_shares, dtype=float) if class_shares is not None
              else None if prevalence is None else np.array([1 - prevalence, prevalence]))
    if metric.name == "accuracy" and shares is not None:   # one class for every row
        for k in np.argsort(-shares, kind="stable"):
            which = ("the majority class" if k == np.argmax(shares) else
                     "the minority class" if shares.size == 2 else f"class {k}")
            candidates.setdefault(f"predicting {which} for every row", float(shares[k]))
    for words, score in candidates.items():
        if abs(value - score) < 1.5e-5:   # Kaggle prints 5 decimals, rounded or cut
            return words
    return ""


# --exclude-flagged: which flags a user may set aside, by the word the option takes
EXCLUDABLE = {"perfect": "perfect", "junk": "far_out", "shared": "shared_score"}
