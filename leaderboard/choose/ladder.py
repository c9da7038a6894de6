"""How much of a team's public climb is real: the Ladder's margin rule, applied after the fact.

Blum and Hardt's Ladder (A. Blum and M. Hardt, "The Ladder: A Reliable Leaderboard for Machine
Learning Competitions", ICML 2015) reports a new best score only when a submission beats the
current best by more than a margin; their parameter-free version sets the margin to one standard
error of the paired difference. Here the margin is ``z_{1 - alpha}`` standard errors of the
difference (a one-sided test at level ``alpha``; ``alpha = 0.16`` recovers one standard error), and
the rule is replayed over a team's submission history: the improvements that pass are real steps,
the rest of the climb of its best public score is within noise.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri   # norm.ppf(q) is ndtri(q), bit for bit, without scipy.stats

from leaderboard.params import DEFAULT_ALPHA, check_alpha


@dataclass(frozen=True)
class Ladder:
    """A submission history replayed with the Ladder's margin rule.

    Climbs are improvements in the metric's units (positive = better, also for lower-is-better).

    Attributes
    ----------
    is_step : ndarray of bool, shape (T,)
        Whether submission ``t`` beat the ladder best at that time by more than the margin (the
        first submission only sets the starting point and is not a step).
    ladder_best : ndarray, shape (T,)
        The ladder best after submission ``t``: the public score of the last submission that
        passed (raw units).
    best_index : ndarray of int, shape (T,)
        Which submission that is.
    margin : ndarray, shape (T,)
        The margin submission ``t`` had to clear (0 for the first).
    climb : float
        Best public score minus the first submission's.
    climb_beyond_noise : float
        The final ladder best minus the first submission's: the part of the climb made of steps.
    share_within_noise : float
        ``1 - climb_beyond_noise / climb``; 0 when there was no climb.
    n_steps : int
    alpha : float
    """

    is_step: np.ndarray
    ladder_best: np.ndarray
    best_index: np.ndarray
    margin: np.ndarray
    climb: float
    climb_beyond_noise: float
    share_within_noise: float
    n_steps: int
    alpha: float


def _ladder_iv(scores, sd_diff, alpha):
    s = np.asarray(scores, dtype=float)
    if s.ndim != 1 or s.size < 1 or not np.isfinite(s).all():
        raise ValueError("scores must be a non-empty 1-D array of finite numbers")
    sd = np.asarray(sd_diff, dtype=float)
    t = s.size
    if sd.ndim == 0:
        sd = np.full((t, t), float(sd))
    elif sd.shape == (t,):
        sd = np.repeat(sd[:, None], t, axis=1)
    elif sd.shape != (t, t):
        raise ValueError(f"sd_diff must be a number, shape ({t},) or ({t}, {t}); got {sd.shape}")
    off = ~np.eye(t, dtype=bool)
    if not (np.isfinite(sd[off]).all() and (sd[off] >= 0).all()):
        raise ValueError("sd_diff must be finite and >= 0")
    check_alpha(alpha)   # the one check of an error rate (a ValueError)
    return s, sd


def ladder_check(scores: np.ndarray, sd_diff: float | np.ndarray, higher_is_better: bool, *,
                 alpha: float = DEFAULT_ALPHA) -> Ladder:
    """Replay a submission history with the Ladder's margin rule (Blum and Hardt 2015).

    Submission ``t`` is a real step when its public score beats the current ladder best ``b`` by
    more than ``z_{1-alpha} * sd_diff[t, b]``; it then becomes the ladder best.

    Guarantees and assumptions: if submission ``t`` is truly no better than the ladder best and
    their score difference is normal with standard deviation ``sd_diff``, it is counted as a step
    with probability at most ``alpha`` (at most, because the ladder best, having passed its own
    test, tends to be lucky). It is a per-submission test, not a familywise one: over many
    submissions, some false steps are expected. Submissions are taken in the order given.

    Parameters
    ----------
    scores : ndarray, shape (T,)
        Public scores in submission order.
    sd_diff : float or ndarray, shape (T,) or (T, T)
        Standard deviation of the difference between submission ``t`` and the ladder best: one
        number; one per submission (against whichever is the best at the time); or the full matrix,
        ``sd_diff[t, b]`` against submission ``b`` (e.g. from paired bootstrap replicates). For
        scores with equal SD ``sd`` and correlation ``rho``: ``sqrt(2 (1 - rho)) * sd``.
    higher_is_better : bool
    alpha : float
        One-sided level of each step's test.

    Returns
    -------
    Ladder

    Examples
    --------
    Five submissions, SE of a difference 0.004: the first two improvements are real, the small
    gains after them are not.

    >>> res = ladder_check(np.array([0.80, 0.82, 0.84, 0.843, 0.845]), 0.004, True)
    >>> res.is_step.tolist(), round(res.climb, 3), round(res.share_within_noise, 2)
    ([False, True, True, False, False], 0.045, 0.11)
    """
    s, sd = _ladder_iv(scores, sd_diff, alpha)
    sign = 1.0 if higher_is_better else -1.0
    s_or = sign * s
    z = ndtri(1 - alpha)
    t_n = s.size
    is_step = np.zeros(t_n, dtype=bool)
    best_index = np.zeros(t_n, dtype=int)
    margin = np.zeros(t_n)
    best = 0
    # A loop over submissions: each test depends on which submission is the best at the time, and
    # histories are short.
    for t in range(1, t_n):
        margin[t] = z * sd[t, best]
        if s_or[t] - s_or[best] > margin[t]:
            is_step[t], best = True, t
        best_index[t] = best
    climb = float(s_or.max() - s_or[0])
    beyond = float(s_or[best] - s_or[0])
    return Ladder(is_step=is_step, ladder_best=s[best_index], best_index=best_index, margin=margin,
                  climb=climb, climb_beyond_noise=beyond,
                  share_within_noise=0.0 if climb <= 0 else float(1 - beyond / climb),
                  n_steps=int(is_step.sum()), alpha=float(alpha))
