"""Published scores checked against the models' own per-item data (``--published``, issue 26
item 7).

A published headline should agree with the per-item results published beside it: recomputed from
those items, the score is the analysis's point estimate, and a number outside the model's
``1 - alpha`` interval for its true score is not explained by which items were drawn (one
SWE-bench entry published 52.8% while its per-instance data scores 10.2%). Each published score is
allowed its own rounding (half a unit of its last written decimal) before it is called outside.

Scale: a value written with ``%`` is a percentage. When none is, every measured score lies in
[0, 1] and the published ones lie in [0, 100] with one above 1, the file is read as percentages
and the page says so. Nothing here imports the report.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from leaderboard.flags import Flag
from leaderboard.ingest.published import Published
from leaderboard.ingest.toolkit.messages import quote, show


@dataclass(frozen=True)
class PublishedRow:
    """One published score beside the model's measured score and interval (all fractions when
    the scale is percent)."""

    model: str
    published: float
    measured: float
    low: float
    high: float
    outside: bool


@dataclass(frozen=True)
class PublishedCheck:
    """Every published score matched to the data, and what could not be matched.

    Attributes
    ----------
    source : str
    rows : tuple of PublishedRow
        Published models found among the analysed ones, in the file's order.
    not_in_data : tuple of str
        Published names with no analysed results (absent from the data, or rejected: the reason
        in brackets; a name equal to a model's ignoring case says so, never matched to it).
    not_published : tuple of str
        Analysed models without a published score.
    percent_assumed : bool
        The file's plain numbers were read as percentages (see the module's docstring).
    alpha : float
    how : str
        How the file was read, in words: its board, model and score columns, names repeated or
        without a model (for the page and the JSON).
    items : str
        What each measured score is a mean over (the analysed items), in words.
    rows_read : int
        Rows (records) of the file, all accounted for: matched, not in the data, repeated names
        kept once, or without a name.
    """

    source: str
    rows: tuple[PublishedRow, ...]
    not_in_data: tuple[str, ...]
    not_published: tuple[str, ...]
    percent_assumed: bool
    alpha: float
    how: str = ""
    items: str = ""
    rows_read: int = 0

    @property
    def outside(self) -> tuple[PublishedRow, ...]:
        """The published scores outside their model's interval."""
        return tuple(r for r in self.rows if r.outside)


def check_published(published: Published, table, rejected: dict[str, str],
                    alpha: float, items: str = "") -> PublishedCheck:
    """Match published scores to the analysed models by exact name (issue 43: never ignoring
    case, which mapped two published names onto one model) and flag each outside the model's
    interval, beyond its rounding.

    Parameters
    ----------
    published : Published
    table : DataFrame
        The analysis table (``team``, ``score``, ``ci_low``, ``ci_high``).
    rejected : dict
        Models read but not analysed, with why.
    alpha : float
    items : str
        What the measured scores are means over, in words (the page says it beside the check).

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"team": ["a", "b"], "score": [0.102, 0.4],
    ...                       "ci_low": [0.08, 0.35], "ci_high": [0.13, 0.45]})
    >>> pub = Published("p.csv", ("a", "B", "z"), np.array([52.8, 41.0, 9.0]),
    ...                 np.zeros(3, bool), (2, 3, 4), np.array([0.05, 0.5, 0.5]))
    >>> check = check_published(pub, table, {}, 0.05)
    >>> [(r.model, r.outside) for r in check.rows], check.not_in_data, check.percent_assumed
    ([('a', True)], ('B (not matched: equals model b ignoring case)', 'z'), True)
    """
    names = table["team"].astype(str).tolist()
    scores = table["score"].to_numpy(float)
    position = {name: k for k, name in enumerate(names)}
    lower: dict[str, list[str]] = {}
    for name in names:
        lower.setdefault(name.lower(), []).append(name)
    values, resolution = published.values.copy(), published.resolution.copy()
    found = np.array([m in position for m in published.models], dtype=bool)
    plain = ~published.percent & found     # decided on the matched scores, which must parse
    percent_assumed = bool(
        plain.any() and np.all((scores >= 0) & (scores <= 1))
        and np.all((values[plain] >= 0) & (values[plain] <= 100)) and values[plain].max() > 1)
    if percent_assumed:
        values[~published.percent] /= 100
        resolution[~published.percent] /= 100
    rows, missing, matched = [], [], set()
    for model, value, half in zip(published.models, values, resolution):
        k = position.get(model)
        if k is None:
            why = rejected.get(model)
            near = [n for n in lower.get(model.lower(), []) if n != model]
            missing.append(model if why is None and not near else
                           f"{model} (not analysed: {why})" if why is not None else
                           f"{model} (not matched: equals model {show(near[0])} ignoring case)")
            continue
        matched.add(k)
        low, high = float(table["ci_low"].iloc[k]), float(table["ci_high"].iloc[k])
        outside = bool(np.isfinite(low) and np.isfinite(high)
                       and (value + half < low or value - half > high))
        rows.append(PublishedRow(model=names[k], published=float(value),
                                 measured=float(scores[k]), low=low, high=high, outside=outside))
    return PublishedCheck(source=published.source, rows=tuple(rows), not_in_data=tuple(missing),
                          not_published=tuple(n for k, n in enumerate(names) if k not in matched),
                          percent_assumed=percent_assumed, alpha=float(alpha),
                          how=read_words(published), items=items,
                          rows_read=published.rows or len(published.models))


def read_words(published: Published) -> str:
    """How the file was read, in one sentence (the page's and the JSON's ``read``).

    Examples
    --------
    >>> pub = Published("p.csv", ("a",), np.array([0.5]), np.zeros(1, bool), (2,),
    ...                 np.array([0.05]), model_column="folder", score_column="resolved",
    ...                 board="Verified", repeated=(("Warp", 2),), rows=3, how="x")
    >>> read_words(pub)  # doctest: +NORMALIZE_WHITESPACE
    "Board 'Verified', models from column 'folder' (x), scores from column 'resolved'; 3 rows:
    1 name given more than once, kept once (Warp 2 times)."
    """
    p = published
    parts = [f"Board {quote(p.board)}, models" if p.board else "Models",
             f" from column {quote(p.model_column)}", f" ({p.how})" if p.how else "",
             f", scores from column {quote(p.score_column)}"]
    extra = []
    if p.repeated:
        shown = ", ".join(f"{show(name)} {n} times" for name, n in p.repeated[:5])
        more = f" and {len(p.repeated) - 5:,} more" if len(p.repeated) > 5 else ""
        extra.append(f"{len(p.repeated):,} name{'s' if len(p.repeated) > 1 else ''} given more "
                     f"than once, kept once ({shown}{more})")
    if p.skipped:
        extra.append(f"{len(p.skipped):,} row{'s' if len(p.skipped) > 1 else ''} without a "
                     f"model name skipped (line {', '.join(map(str, p.skipped[:5]))})")
    rows = f"; {p.rows:,} rows" if p.rows else ""
    return "".join(parts) + rows + (": " + "; ".join(extra) if extra else "") + "."


def published_flags(check: PublishedCheck, fmt) -> list[Flag]:
    """The flags of a check: each published score outside its interval, and the names that do
    not match (``fmt`` formats a score, e.g. as a percentage)."""
    from leaderboard.confidence import confidence_label

    conf = confidence_label(check.alpha)
    flags = [Flag(kind="published_outside", teams=(r.model,), message=(
        f"{r.model}: published {fmt(r.published)}, but its own per-item data score "
        f"{fmt(r.measured)} ({conf} interval {fmt(r.low)} to {fmt(r.high)}); which items were "
        "drawn does not explain the published number.")) for r in check.outside]
    if check.not_in_data:
        flags.append(Flag(kind="published_unmatched", teams=check.not_in_data, message=(
            f"{len(check.not_in_data):,} published name{'s' if len(check.not_in_data) > 1 else ''}"
            f" not found in the per-item data, not checked: {_names(check.not_in_data)}.")))
    if check.not_published:
        flags.append(Flag(kind="published_unmatched", teams=check.not_published, message=(
            f"{len(check.not_published):,} model{'s' if len(check.not_published) > 1 else ''} "
            f"of the per-item data without a published score: {_names(check.not_published)}.")))
    return flags


def _names(names: tuple[str, ...], shown: int = 8) -> str:
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f" and {more:,} more" if more > 0 else "")
