"""The leading entries' curves for the submissions pipeline: their predictions read again (the
files are streamed, so none is kept), then ROC, precision-recall, CAP and cost curves with bands
from the paired bootstrap's own replicates (:mod:`leaderboard.noise.curves`).

Work and memory are bounded: the predictions of at most :data:`PREDICTION_VALUES` values are
held (fewer entries on very large test sets, never fewer than the banded ones), and the bands use
at most :data:`WALK_STEPS` row visits (fewer replicates on very large test sets; the page says how
many). Nothing here imports the report.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from leaderboard.errors import processing
from leaderboard.noise.curves import BANDED, SHOWN, Curves, board_curves, curves_note
from leaderboard.noise.rng import BLOCK
from leaderboard.ingest.submissions.files import SubmissionFile, read_one
from leaderboard.ingest.submissions.find import close_archives

PREDICTION_VALUES = 40_000_000   # values of the leading entries' predictions held at once
WALK_STEPS = 4_000_000_000       # row visits of the bands' walks (about a minute on one core)


def curve_budget(n_rows: int, replicates: int) -> tuple[int, int]:
    """How many entries get curves and how many replicates their bands use, for ``n_rows``
    test rows.

    Examples
    --------
    >>> curve_budget(3_000, 2_000), curve_budget(10_000_000, 2_000)
    ((20, 2000), (5, 64))
    """
    shown = int(max(BANDED, min(SHOWN, PREDICTION_VALUES // max(n_rows, 1))))
    reps = min(int(replicates), WALK_STEPS // max(n_rows * BANDED, 1))
    return shown, int(max(BLOCK, reps // BLOCK * BLOCK)) if reps < replicates else int(replicates)


def leading_curves(items: Sequence, positions: Sequence[int], *, plan, solution, source: str,
                   rows: np.ndarray, kind: str, layout: str, settings, strata, groups
                   ) -> tuple[Curves | None, str | None]:
    """The curves of the entries at ``positions`` of ``items`` (best first) on the ``rows`` of
    the ranking split, or None and why not (:func:`~leaderboard.noise.curves.curves_note`)."""
    y = solution.target[rows]
    note = curves_note(kind, y, layout)
    if note is not None:
        return None, note
    shown, replicates = curve_budget(int(rows.sum()), settings.replicates)
    preds = []
    try:
        for k in list(positions)[:shown]:
            item = items[k]
            if isinstance(item, SubmissionFile):        # already in memory
                prediction = item.prediction
            else:                                       # streamed: read it again
                with processing(f"{source}: {item.file}"):
                    prediction = read_one(item, plan, solution)[4]
            if prediction is None or np.ndim(prediction) != 1:
                return None, "ROC, precision-recall, CAP and cost curves need one score per row."
            preds.append(np.asarray(prediction)[rows])
    finally:
        close_archives()
    curves = board_curves(y, preds, replicates=replicates, seed=settings.seed,
                          resample=settings.resample, strata=strata, groups=groups,
                          alpha=settings.alpha)
    return curves, None
