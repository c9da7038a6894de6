"""Which items and models of per-item results are analysed when models are scored on different
item sets (issue 26 item 4, issue 40), and the account of it the report gives.

:func:`item_coverage`: ``common`` (default): a complete table, by dropping the items some model
lacks or the models that lack some item, whichever keeps more (model, item) cells (issue 40:
HELM's 91 models on 10 scenarios, one model lacking one, keep 90 models on all 10 rather than 91
on 9), saying which and naming the models that shrink the shared set most; ``drop-items`` and
``drop-models`` force one side; ``pairwise``: every item, each model's score on its own items
(the pairwise table compares each pair on the items they share). :class:`ItemCoverage` is its
account, so that no model or item disappears without a reason in the report.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from leaderboard.api_words import said
from leaderboard.choices import ITEMS_POLICIES
from leaderboard.errors import InputError
from leaderboard.ingest.item_sets import NAMED, SampleSpread
from leaderboard.ingest.toolkit.messages import show


@dataclass(frozen=True)
class ItemCoverage:
    """Which items were analysed, and why (the JSON's ``items``).

    Attributes
    ----------
    policy : str
        As asked: ``"common"`` (a complete table: items or models dropped, whichever keeps more
        cells), ``"drop-items"`` (the items every kept model has), ``"drop-models"`` (the models
        that have every item) or ``"pairwise"`` (every item; a model's score is its mean on its
        own items).
    items_in_file : int
    used : tuple of str
        The items analysed (``common``: the shared ones; ``pairwise``: all).
    shrinkers : tuple of (str, int)
        Models whose absence would add the most items to the common set, with how many.
    items_per_model : tuple of (str, int)
        Items each kept model has, in file order.
    merged : tuple of str
        Models listed twice with identical rows (kept once).
    samples : SampleSpread or None
    dropped_models : tuple of (str, int)
        Models left out so that every analysed model has every item (``drop-models``, or
        ``common`` when that kept more cells), each with the items it has.
    cells : tuple of (int, int, int, int)
        ``(models, items)`` kept by dropping items, then by dropping models: the comparison
        behind ``common``'s choice (empty when the item sets do not differ, or ``pairwise``).
    """

    policy: str
    items_in_file: int
    used: tuple[str, ...]
    shrinkers: tuple[tuple[str, int], ...]
    items_per_model: tuple[tuple[str, int], ...]
    merged: tuple[str, ...] = ()
    samples: SampleSpread | None = None
    dropped_models: tuple[tuple[str, int], ...] = ()
    cells: tuple[int, ...] = ()

    @property
    def complete(self) -> bool:
        """Every analysed model is scored on every analysed item (any policy but pairwise)."""
        return self.policy != "pairwise"

    @property
    def ragged(self) -> bool:
        """Whether the kept models (before any was dropped) have different item sets."""
        return bool(self.dropped_models) or len({n for _, n in self.items_per_model}) > 1 or any(
            n != self.items_in_file for _, n in self.items_per_model)

    @property
    def dropped(self) -> str | None:
        """What was dropped to make the table complete: ``"items"``, ``"models"`` or None."""
        if not self.complete or not self.ragged:
            return None
        return "models" if self.dropped_models else "items"

    def fact(self) -> str:
        """The page's "Items" line when the item sets differ."""
        if self.dropped == "models":
            n = len(self.dropped_models)
            return (f"{len(self.used):,}, every item of the file (the {n:,} model"
                    f"{'s' if n > 1 else ''} lacking some {'were' if n > 1 else 'was'} left "
                    "out)")
        if self.complete:
            return (f"{len(self.used):,} of the file's {self.items_in_file:,} (those every "
                    "model analysed has)")
        counts = [n for _, n in self.items_per_model]
        return (f"{self.items_in_file:,}; each model scored on its own ({min(counts):,} to "
                f"{max(counts):,} per model), each pair compared on the items both have")

    def sentences(self) -> list[str]:
        """What a reader should know about the items (stderr, the page's flags)."""
        out = []
        if self.merged:
            out.append(f"Listed twice with identical rows, kept once: {_names(self.merged)}.")
        if self.dropped == "models":
            n = len(self.dropped_models)
            named = ", ".join(f"{show(name)} ({k:,} items)" for name, k in
                              self.dropped_models[:NAMED]) + (
                f" and {n - NAMED:,} more" if n > NAMED else "")
            out.append(f"The models were scored on different item sets: {n:,} model"
                       f"{'s' if n > 1 else ''} lacking some of the {len(self.used):,} items "
                       f"{'were' if n > 1 else 'was'} left out ({named}), so that every model "
                       f"analysed is compared on every item" + self._cells_words() + ".")
        elif self.dropped == "items":
            out.append(f"The models were scored on different item sets: {len(self.used):,} of "
                       f"the file's {self.items_in_file:,} items are shared by every model "
                       "analysed, and only those are used" + self._cells_words()
                       + said(" (--items-policy pairwise compares each pair on the items they "
                              "share)")
                       + self.shrink_words() + ".")
        elif self.ragged:
            out.append(f"The models were scored on different item sets "
                       f"({min(n for _, n in self.items_per_model):,} to "
                       f"{max(n for _, n in self.items_per_model):,} of {self.items_in_file:,} "
                       + said("items; --items-policy pairwise)")
                       + ": each model's score, interval, rank and tier are its mean over its "
                       "own items, resampled with the items it shares with others (paired "
                       "there); models on easier items look better by that alone. The pairwise "
                       "table compares each pair on the items they share only.")
        if self.samples is not None:
            out.append(self.samples.sentence())
        return out

    def _cells_words(self) -> str:
        """Why this side was dropped: the (model, item) cells each choice keeps."""
        if len(self.cells) != 4:
            return ""
        (ma, ia, mb, ib), chosen = self.cells, self.dropped
        items_side = f"{ma:,} models x {ia:,} items = {ma * ia:,} cells"
        models_side = f"{mb:,} x {ib:,} = {mb * ib:,}"
        if self.policy != "common":
            forced = "drop-models" if chosen == "models" else "drop-items"
            return said(f" (--items-policy {forced})")
        if chosen == "models":
            return (f": {mb:,} models x {ib:,} items = {mb * ib:,} cells, against {ma:,} x "
                    f"{ia:,} = {ma * ia:,} keeping every model on the shared items "
                    + said("(--items-policy drop-items keeps them instead)"))
        return (f": {items_side}, against {models_side} keeping only the models that have "
                "every item " + said("(--items-policy drop-models)"))

    def shrink_words(self) -> str:
        """Which models shrink the common set most, as the end of a sentence (or "")."""
        if self.shrinkers:
            named = ", ".join(f"{show(name)} (+{gain:,})" for name, gain in self.shrinkers)
            return f"; without one model the shared set would grow most for {named}"
        fewest = sorted(self.items_per_model, key=lambda pair: pair[1])
        short = [pair for pair in fewest if pair[1] == fewest[0][1]] if fewest else []
        if not short or len(short) == len(fewest):
            return ""
        named = _names(tuple(name for name, _ in short))
        return (f"; no single model's absence would add an item; the {len(short):,} models with "
                f"the fewest ({short[0][1]:,} items) are {named}")

    def to_json(self) -> dict:
        """The JSON's ``items`` object."""
        return {"policy": self.policy, "items_in_file": self.items_in_file,
                "items_used": len(self.used), "used": list(self.used), "dropped": self.dropped,
                "dropped_models": [{"model": name, "items": n}
                                   for name, n in self.dropped_models],
                "cells_compared": None if len(self.cells) != 4 else {
                    "dropping_items": {"models": self.cells[0], "items": self.cells[1]},
                    "dropping_models": {"models": self.cells[2], "items": self.cells[3]}},
                "shrinkers": [{"model": name, "items_gained": gain}
                              for name, gain in self.shrinkers],
                "items_per_model": [{"model": name, "items": n}
                                    for name, n in self.items_per_model],
                "merged_duplicates": list(self.merged),
                "samples": None if self.samples is None else self.samples.to_json()}


def item_coverage(present: np.ndarray, kept: np.ndarray, models: pd.Index, items: pd.Index,
                  policy: str, merged: tuple[str, ...] = (),
                  samples: SampleSpread | None = None) -> tuple[np.ndarray, ItemCoverage]:
    """The items to analyse (indices into ``items``) and the account of them.

    ``present`` is (models, items); ``kept`` the indices of the models analysed. When their item
    sets differ, ``common`` keeps a complete table the larger of two ways, counted in (model,
    item) cells: every kept model on the items all of them have, or every item (that any kept
    model has) with the models that have them all (at least two); a tie keeps the models.
    ``drop-items`` and ``drop-models`` force one way. The models left out are in
    ``coverage.dropped_models`` (the reader marks them rejected, with why). No item shared, or
    fewer than two complete models with ``drop-models``: one error naming the models that shrink
    the shared set most and the other policies.

    Examples
    --------
    >>> present = np.array([[1, 1, 1, 1], [1, 1, 1, 0], [0, 1, 1, 1]], dtype=bool)
    >>> used, cov = item_coverage(present, np.arange(3), pd.Index(list("abc")),
    ...                           pd.Index(["q1", "q2", "q3", "q4"]), "common")
    >>> used.tolist(), cov.shrinkers, cov.dropped     # 3 x 2 = 6 cells beat 1 x 4
    ([1, 2], (('b', 1), ('c', 1)), 'items')
    >>> present = np.ones((5, 4), dtype=bool)
    >>> present[1, 3] = False                         # b lacks q4: 4 x 4 = 16 beat 5 x 3
    >>> used, cov = item_coverage(present, np.arange(5), pd.Index(list("abcde")),
    ...                           pd.Index(["q1", "q2", "q3", "q4"]), "common")
    >>> used.tolist(), cov.dropped_models
    ([0, 1, 2, 3], (('b', 3),))
    """
    if policy not in ITEMS_POLICIES:
        raise InputError(f"--items-policy must be one of {', '.join(ITEMS_POLICIES)}, got "
                         f"{policy!r}")
    have = present[kept]
    per_model = tuple((str(models[k]), int(n)) for k, n in zip(kept, have.sum(axis=1)))
    every = have.all(axis=0)
    anywhere = have.any(axis=0)
    shrinkers = _shrinkers(have, every, [models[k] for k in kept])
    complete = have[:, anywhere].all(axis=1)
    cells: tuple[int, ...] = ()
    drop_models = False
    if policy != "pairwise" and not every[anywhere].all():   # the item sets differ
        cells = (int(have.shape[0]), int(every.sum()), int(complete.sum()), int(anywhere.sum()))
        by_models = cells[2] >= 2 and cells[2] * cells[3] > cells[0] * cells[1]
        drop_models = policy == "drop-models" or (policy == "common" and by_models)
        if policy == "drop-models" and cells[2] < 2:
            raise InputError(f"--items-policy drop-models: only {cells[2]:,} of the "
                             f"{cells[0]:,} models {'has' if cells[2] == 1 else 'have'} every "
                             "item; give --items-policy drop-items (the items all models have) "
                             "or pairwise (each pair on the items it shares)")
    if policy == "pairwise":
        used = np.flatnonzero(anywhere)
    elif drop_models:
        used = np.flatnonzero(anywhere)
    else:
        used = np.flatnonzero(every)
    dropped = tuple((name, n) for (name, n), ok in zip(per_model, complete)
                    if drop_models and not ok)
    coverage = ItemCoverage(policy=policy, items_in_file=len(items),
                            used=tuple(str(items[i]) for i in used), shrinkers=shrinkers,
                            items_per_model=tuple(p for p, ok in zip(per_model, complete)
                                                  if ok or not drop_models),
                            merged=merged, samples=samples, dropped_models=dropped, cells=cells)
    if used.size == 0:
        raise InputError(f"no item is shared by all {len(kept):,} models"
                         + coverage.shrink_words() + "; drop those models or give "
                         "--items-policy pairwise (each pair compared on the items it shares)")
    return used, coverage


def _shrinkers(have: np.ndarray, every: np.ndarray, names: list) -> tuple[tuple[str, int], ...]:
    """The models whose absence would add the most items to the common set (at most three)."""
    if every.all() or have.shape[0] < 2:
        return ()
    # an item outside the common set returns without model k when k is its only model lacking it
    missing = ~have
    only = missing & (missing.sum(axis=0) == 1)[None, :]
    gains = only.sum(axis=1)
    order = np.argsort(-gains, kind="stable")
    return tuple((str(names[k]), int(gains[k])) for k in order[:NAMED] if gains[k] > 0)


def _names(names: tuple[str, ...]) -> str:
    shown = ", ".join(show(n) for n in names[:5])
    return shown + (f" and {len(names) - 5:,} more" if len(names) > 5 else "")
