"""Which draws the simultaneous family reads, and its self-check at the board's shape (issue 39).

Submissions and per-item results are resampled by the paired bootstrap, which gives every
entry's interval, P(best) and stability. The tests behind the rank sets, the rank-set tiers, the
best set and the significance map read, when the metric is a mean of per-row (per-item) values,
the sign flips of :mod:`leaderboard.tiers.sign_flips` instead: a randomization test whose
family-wise error holds with any number of items, where the bootstrap's max-t over thousands of
pairs fails when models outnumber items (docs/calibration.md). Other metrics (AUC, F1, R²: not a
mean of per-row values) keep the bootstrap's critical values.

Before anything is printed the family's error is measured on null boards made from the board's own
values (:mod:`leaderboard.tiers.guarantee_check`); the result goes to the page and the JSON
(``ranks.guarantee_check``).
"""
from __future__ import annotations

from leaderboard.engine.work import flips_apply, mean_direction
import numpy as np

from leaderboard.tiers.bootstrap_check import check_bootstrap
from leaderboard.tiers.guarantee_check import GuaranteeCheck, check_sign_flips
from leaderboard.tiers.sign_flips import from_flips


def uses_flips(metric) -> bool:
    """Whether the ranking split's sign flips are drawn for ``metric``."""
    return flips_apply(metric)


def family_tests(scored, order, plan, settings, unit: str, *, y=None, factor: float = 1.0):
    """``(tests, check)``: the sign-flip draws of the ranked entries (None: the bootstrap's
    replicates are the tests) and the self-check of whichever family runs.

    Parameters
    ----------
    scored : Scored
        The engine's output (``flips`` and ``totals`` of the ranking split, or None).
    order : ndarray of int
        The ranked entries' indices into ``scored``, best first.
    plan
        The ranking split's resampling plan (its units: rows, items or clusters).
    settings : Settings
    unit : str
        "item", "cluster", "test row" or "group", for the words.
    y : ndarray, optional
        The ranking rows' truth (the bootstrap's check scores its null boards).
    factor : float
        The few-clusters stretch applied to the bootstrap (its check applies it too).
    """
    models, alpha = len(order), settings.alpha
    units = plan.n_groups if plan.resample == "grouped" else plan.n_rows
    if scored.flips is None:
        kept = scored.kept
        if kept is None or y is None or any(kept[k] is None for k in order):
            return None, GuaranteeCheck("bootstrap", models, units, unit, 0, 0, 0, alpha, reason=(
                f"{models:,} entries \u00d7 {units:,} {unit}s is too large to keep for the "
                "check"))
        return None, check_bootstrap(np.stack([kept[k] for k in order]), y, settings.metric,
                                     plan, alpha, seed=int(settings.seed), unit=unit,
                                     factor=factor)
    tests = from_flips(scored.flips[order], mean_direction(settings.metric,
                                                           settings.higher_is_better))
    if models < 2:
        return tests, GuaranteeCheck("sign-flip", models, units, unit, 0, 0, 0, alpha,
                                     reason="one entry: nothing to compare")
    if scored.totals is None:
        return tests, GuaranteeCheck("sign-flip", models, units, unit, 0, 0, 0, alpha, reason=(
            f"{models:,} entries \u00d7 {units:,} {unit}s is too large to keep for the check"))
    return tests, check_sign_flips(scored.totals[order], plan.n_rows, alpha,
                                   seed=int(settings.seed), unit=unit)
