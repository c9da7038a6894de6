"""Entries set aside before the statistics: rows that are not entries, and ``--exclude-flagged``.

Two ways an entry leaves a board before anything is ranked, the same in every mode (a board of
scores, submissions, per-item results):

* **not an entry** (always): a row whose values lie far outside the typical rows' range, a count
  or a metadata line among the results (:func:`leaderboard.row_kinds.foreign_rows`). It would
  otherwise be ranked first by orders of magnitude. :func:`not_entries` finds them and words the
  flag (``not_an_entry``) that names them.
* **flagged** (``--exclude-flagged perfect,junk,shared``): the entries a sanity flag names
  (:func:`set_aside`).

The pipelines drop them (scores: rows dropped; submissions and per-item results: files with the
status "set aside"), so they are in no tier, no rank set and not in the best set, and every page
and JSON says which and why.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import pandas as pd

from leaderboard.api_words import said
from leaderboard.errors import InputError
from leaderboard.flags import EXCLUDABLE, FAR_OUT, NAMES_SHOWN, Flag, board_flags, visible
from leaderboard.ingest.records import DroppedRows
from leaderboard.metrics import Metric
from leaderboard.row_kinds import foreign_rows, typical_range


def not_entries(teams, values: np.ndarray, higher_is_better: bool | None,
                items: bool = False) -> tuple[np.ndarray, Flag | None]:
    """The rows that are not entries (:func:`leaderboard.row_kinds.foreign_rows`) and the flag
    that names them, or ``(all False, None)``.

    ``values``: one row per entry, its per-item values (NaN where it has none) or its one score
    (``higher_is_better`` given: only rows far on the better side are judged, where they would
    be ranked first).

    Examples
    --------
    >>> rows = np.array([[x] for x in (0.31, 0.42, 0.38, 0.45, 0.29, 14250.0)])
    >>> mask, flag = not_entries(list("abcde") + ["Number of Mutants"], rows, True)
    >>> mask.tolist(), flag.teams
    ([False, False, False, False, False, True], ('Number of Mutants',))
    >>> print(flag.message)  # doctest: +NORMALIZE_WHITESPACE
    1 row is not an entry, most likely: 'Number of Mutants' (14,250) lies far outside the typical rows' scores
    (0.31 to 0.42): a count, a total or a metadata line among the results. It is set aside: not ranked, in no
    tier and not in the best set.
    """
    teams = [str(t) for t in teams]
    values = np.asarray(values, dtype=float).reshape(len(teams), -1)
    mask = foreign_rows(values, higher_is_better)
    if not mask.any():
        return mask, None
    # the range of the rows kept; with fewer than FOREIGN_MIN_ROWS of them, the range the rows
    # were judged by (over all rows: never None once foreign_rows found one outside it)
    typical = typical_range(values[~mask]) or typical_range(values)
    assert typical is not None
    low, high, _ = typical
    shown = []
    for k in np.flatnonzero(mask)[:NAMES_SHOWN]:
        v = values[k][np.isfinite(values[k])]
        span = _num(v.min()) if v.min() == v.max() else f"{_num(v.min())} to {_num(v.max())}"
        shown.append(f"{visible(teams[k])!r} ({span})")
    count = int(mask.sum())
    more = f" and {count - NAMES_SHOWN:,} more" if count > NAMES_SHOWN else ""
    what = "models' values" if items else "rows' scores" if higher_is_better is not None \
        else "rows' values"
    message = (f"{'1 row is' if count == 1 else f'{count:,} rows are'} not "
               f"{'a model' if items else 'an entry'}, most likely: "
               f"{', '.join(shown)}{more} {'lies' if count == 1 else 'lie'} far outside the "
               f"typical {what} ({_num(low)} to {_num(high)}): a count, a total or a metadata "
               f"line among the results. {'It is' if count == 1 else 'They are'} set aside: not "
               "ranked, in no tier and not in the best set.")
    return mask, Flag("not_an_entry", message, tuple(t for t, m in zip(teams, mask) if m))


def _num(x: float) -> str:
    """A value as the flag prints it: whole numbers and numbers from 1,000 up with thousands
    separators, else 4 significant figures.

    Examples
    --------
    >>> _num(70430.24), _num(63.0), _num(-0.0348812)
    ('70,430', '63', '-0.03488')
    """
    x = float(x)
    return f"{x:,.0f}" if abs(x) >= 1000 or (x == round(x) and abs(x) >= 1) else f"{x:.4g}"


# --exclude-flagged: why each word's entries leave the board
_EXCLUDED_WHY = {"perfect": "a perfect score (leaked test labels, most likely)",
                 "junk": "far worse than the rest (weak baselines or broken runs)",
                 "shared": "the board's most shared score (one public notebook or sample, most "
                           "likely)"}


def set_aside(entries, words: Sequence[str], metric: Metric, higher_is_better: bool, *,
              prevalence: float | None = None):
    """Split a board's entries into those kept and, per word of ``--exclude-flagged``
    (``perfect``, ``junk``, ``shared``), those set aside by that flag.

    Parameters
    ----------
    entries : DataFrame
        A leaderboard's entries (columns ``team``, ``score`` and ``line``).
    words : tuple of str
        Keys of :data:`EXCLUDABLE`.

    Returns
    -------
    kept : DataFrame
        The entries no chosen flag names, in their order.
    aside : list of (str, str, DataFrame)
        For each word whose flag named entries: the word, why, and the entries set aside.

    Examples
    --------
    >>> import pandas as pd
    >>> from leaderboard.metrics import get_metric
    >>> board = pd.DataFrame({"team": list("abcd"), "score": [1.0, 1.0, 0.8, 0.7],
    ...                       "line": [2, 3, 4, 5]})
    >>> kept, aside = set_aside(board, ("perfect",), get_metric("f1"), True)
    >>> kept["team"].tolist(), [(w, len(e)) for w, _, e in aside]
    (['c', 'd'], [('perfect', 2)])
    """
    flags = board_flags(entries["team"], entries["score"], metric, higher_is_better,
                        prevalence=prevalence)
    by_kind = {f.kind: f for f in flags}
    drop = np.zeros(len(entries), dtype=bool)
    aside = []
    scores = entries["score"].to_numpy(dtype=float)
    for word in words:
        flag = by_kind.get(EXCLUDABLE[word])
        if flag is None:
            continue
        mask = _flag_mask(word, flag, entries, scores, metric, higher_is_better)
        mask &= ~drop
        if mask.any():
            aside.append((word, _EXCLUDED_WHY[word], entries[mask]))
            drop |= mask
    return entries[~drop].reset_index(drop=True), aside


def _flag_mask(word: str, flag: Flag, entries, scores: np.ndarray, metric: Metric,
               higher_is_better: bool) -> np.ndarray:
    """The rows a flag names (by score, not by name: team names may repeat)."""
    finite = np.isfinite(scores)
    if word == "perfect":
        best = metric.upper_bound if higher_is_better else metric.lower_bound
        return finite & (scores == best)
    if word == "shared":
        named = entries["team"].astype(str).isin(set(flag.teams)).to_numpy() & finite
        values, counts = np.unique(scores[named], return_counts=True)
        return finite & (scores == values[counts.argmax()])
    sign = 1.0 if higher_is_better else -1.0
    q1, q3 = np.percentile(sign * scores[finite], [25, 75])
    return finite & (sign * scores < q1 - FAR_OUT * (q3 - q1))


def set_aside_files(subs, point: np.ndarray, settings, exclude: Sequence[str],
                    prevalence: float | None, rows: np.ndarray, items: bool = False):
    """Submissions and per-item results: the files set aside before the ranking, with the flags
    that say why.

    Per-item values (``items`` with a per-item metric): a model whose values lie far outside the
    typical models' is not an entry (:func:`not_entries`). Then ``exclude``
    (``--exclude-flagged``): the entries the chosen flags name, judged on the ranking scores
    ``point`` (one per file, NaN for files not scored), as on a board of scores
    (:func:`set_aside`). Each file set aside keeps its scores out of everything after: its
    status is "set aside" and its reason says why.

    Returns
    -------
    SubmissionSet, list of Flag
    """
    ok = [k for k, f in enumerate(subs.files) if f.status == "ok"]
    reasons: dict[int, str] = {}
    flags: list[Flag] = []
    if items and settings.metric.kind == "values" and all(subs.files[k].prediction is not None
                                                           for k in ok):
        values = np.stack([np.asarray(subs.files[k].prediction, dtype=float)[rows] for k in ok])
        mask, flag = not_entries([subs.files[k].label for k in ok], values,
                                 settings.higher_is_better, items=True)
        if flag is not None:
            flags.append(flag)
            for k in np.asarray(ok)[mask]:
                reasons[int(k)] = ("set aside: not a model's results (its values lie far outside "
                                   "the typical models'; a count or a metadata line, most likely)")
    left = [k for k in ok if k not in reasons]
    if exclude and left:
        frame = pd.DataFrame({"team": [subs.files[k].label for k in left],
                              "score": np.asarray(point, dtype=float)[left], "line": left})
        _, aside = set_aside(frame, exclude, settings.metric, settings.higher_is_better,
                             prevalence=prevalence)
        for word, why, entries in aside:
            for k in entries["line"]:
                reasons[int(k)] = said(f"set aside (--exclude-flagged {word})") + f": {why}"
    if not reasons:
        return subs, flags
    if len(reasons) == len(ok):
        raise InputError("--exclude-flagged: every entry is flagged; nothing is left to analyse"
                         if exclude else "no entry is left: every row's values lie far outside "
                         "the others'", file=subs.source)
    files = tuple(dataclasses.replace(f, status="set aside", reason=reasons[k])
                  if k in reasons else f for k, f in enumerate(subs.files))
    return dataclasses.replace(subs, files=files), flags


def board_not_entries(board, metric, higher: bool):
    """Rows whose score lies far outside the typical rows' on the better side (a count or a
    metadata line, :func:`leaderboard.set_aside.not_entries`) leave the board, counted among the
    rows dropped; with the flag that names them. Only where the metric puts no bound on the
    better side (``mean``): a score within a bounded metric's range may be an entry's, and one
    outside it is left for the analysis to refuse (is --metric right?)."""
    scores = board.entries["score"].to_numpy(dtype=float)
    if np.isfinite(metric.upper_bound if higher else metric.lower_bound):
        return board, None
    mask, flag = not_entries(board.entries["team"], scores[:, None], higher)
    if flag is None:
        return board, None
    if mask.all():
        raise InputError("no entry is left: every row's score lies far outside the others'")
    rows = board.entries[mask]
    dropped = DroppedRows("set aside: not an entry (a score far outside the typical rows', a "
                          "count or a metadata line, most likely)", len(rows),
                          tuple(int(x) for x in rows["line"].head(20)))
    return dataclasses.replace(board, entries=board.entries[~mask].reset_index(drop=True),
                               dropped=board.dropped + (dropped,)), flag


def board_set_aside(board, words: Sequence[str], metric, higher: bool,
                    prevalence: float | None):
    """--exclude-flagged: the flagged entries leave the board, counted among the rows dropped."""
    kept, aside = set_aside(board.entries, words, metric, higher, prevalence=prevalence)
    if len(kept) < 1:
        raise InputError("--exclude-flagged: every entry is flagged; nothing is left to analyse")
    dropped = tuple(DroppedRows(said(f"set aside (--exclude-flagged {word})") + f": {why}", len(rows),
                                tuple(int(x) for x in rows["line"].head(20)))
                    for word, why, rows in aside)
    return dataclasses.replace(board, entries=kept, dropped=board.dropped + dropped)
