"""Does ``--correlation auto`` keep its promises? Simulated boards with a known correlation.

Each board has ``E`` entries with known true scores and public and private scores on disjoint
slices (``n_public`` and ``n_private`` rows). Within a slice, entries' errors are normal with
heterogeneous SDs and one known correlation ``rho`` (the model of :mod:`leaderboard.noise.correlation`);
the two slices' errors are independent. An entry's SD is ``m * sqrt(x (1 - x) / n)`` at score
``x``, the binomial SD times a per-entry factor ``m`` (log-uniform in [0.6, 1.7], drawn separately
for each slice, so the public/private ratio differs between entries too). As in the pipeline
(:meth:`leaderboard.pipelines.shakeup.SliceNoise.correlation`), the estimator reads both slices' SDs
at the entry's observed *private* score and the tiers the private SD there, never the truth's.

Scenarios:

- ``equal``: the model exactly;
- ``overfit``: 10% of the entries (at least one), drawn from the better third, add three public
  SDs to their public score, as entries that probed the public board do;
- ``shift``: every public score is two median public SDs better (an easier public slice, or other
  data), which the estimator projects out.

True scores: the best at 0.85, the others uniformly spread from there to ``0.25 E`` private
SEs below it (about four entries per SE at any size: dense at the top, as real boards are).

Per board it records whether the interval holds ``rho`` (``coverage``, target ``1 - alpha``),
whether its lower end, the value the comparisons use, is at most ``rho`` (``bound_holds``, target
``1 - alpha/2``), and, ranking the private board with the rank-set tiers, the size of tier 1 and
whether the truly best entry is in it (and in the confidence set of the best, which needs only the
best entry's own comparisons: a sharper check), with the lower end and with correlation 0. Rates
carry their binomial Monte Carlo SE, sizes the SE of their mean.

Examples
--------
>>> out = correlation_study(boards=20, entries=(20,), rhos=(0.6,), scenarios=("equal",), seed=1)
>>> cell = out["cells"][0]
>>> cell["boards"], cell["tier1_auto"] <= cell["tier1_zero"]
(20, True)
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from leaderboard.inert_text import markdown_text
from leaderboard.noise.correlation import estimate_correlation
from leaderboard.noise.rng import Stream, entropy_rng
from leaderboard.tiers import RankReplicates
from leaderboard.tiers.best_set import best_set
from leaderboard.tiers.ranking import tier_entries
from leaderboard.params import DEFAULT_ALPHA, DEFAULT_SEED

SCENARIOS = ("equal", "overfit", "shift")
TOP = 0.85


@dataclass(frozen=True)
class Board:
    """One simulated board. Arrays are per entry in a random order (not rank order)."""

    truth: np.ndarray
    public: np.ndarray
    private: np.ndarray
    sd_public: np.ndarray    # the public slice's SD at the observed private score (as the pipeline)
    sd_private: np.ndarray   # the private slice's SD at the observed private score


def sd_at(score: np.ndarray, n: int, factor: np.ndarray) -> np.ndarray:
    """The study's noise SD: ``factor * sqrt(x (1 - x) / n)``, ``x`` kept inside (0.01, 0.99).

    Examples
    --------
    >>> float(sd_at(np.array([0.5]), 100, np.array([2.0]))[0])
    0.1
    """
    x = np.clip(score, 0.01, 0.99)
    return factor * np.sqrt(x * (1 - x) / n)


def simulate_board(scenario: str, entries: int, rho: float, rng: np.random.Generator, *,
                   n_public: int = 500, n_private: int = 2000) -> Board:
    """A board of the study (module docstring), drawn from ``rng``.

    Examples
    --------
    >>> b = simulate_board("equal", 5, 0.5, np.random.default_rng(0))
    >>> b.public.shape, float(b.truth.max())
    ((5,), 0.85)
    """
    if scenario not in SCENARIOS:
        raise ValueError(f"unknown scenario {scenario!r}; choose from {', '.join(SCENARIOS)}")
    se = np.sqrt(TOP * (1 - TOP) / n_private)
    truth = TOP - se * np.concatenate([[0.0], rng.uniform(0, 0.25 * entries, entries - 1)])
    factor_pub, factor_priv = np.exp(rng.uniform(np.log(0.6), np.log(1.7), (2, entries)))
    true_pub, true_priv = sd_at(truth, n_public, factor_pub), sd_at(truth, n_private, factor_priv)
    shared = rng.standard_normal(2)
    own = rng.standard_normal((2, entries))
    z = np.sqrt(rho) * shared[:, None] + np.sqrt(1 - rho) * own
    public, private = truth + true_pub * z[0], truth + true_priv * z[1]
    if scenario == "overfit":
        better = np.argsort(-truth, kind="stable")[: max(1, entries // 3)]
        cheats = rng.choice(better, max(1, round(0.1 * entries)), replace=False)
        public[cheats] += 3 * true_pub[cheats]
    elif scenario == "shift":
        public += 2 * np.median(true_pub)
    return Board(truth, public, private, sd_at(private, n_public, factor_pub),
                 sd_at(private, n_private, factor_priv))


def one_board(board: Board, rho: float, *, alpha: float, replicates: int, seed: int) -> dict:
    """The estimate on one board, and the private board's tier 1 with it and with 0."""
    est = estimate_correlation(board.public, board.private, board.sd_public, board.sd_private,
                               alpha=alpha)
    used = est.low if est.ok else 0.0
    order = np.argsort(-board.private, kind="stable")
    best = int(np.flatnonzero(order == np.argmax(board.truth))[0])
    out = {"value": est.value, "low": est.low, "high": est.high,
           "coverage": bool(est.ok and est.low <= rho <= est.high),
           "bound_holds": bool(not est.ok or est.low <= rho)}
    for name, c in (("auto", used), ("zero", 0.0)):
        reps = RankReplicates.normal(board.private[order], board.sd_private[order], c, True,
                                     replicates=replicates, seed=seed)
        tier = tier_entries(reps, "rank-sets", alpha).tier
        out[f"tier1_{name}"] = int((tier == 1).sum())
        out[f"best_in_tier1_{name}"] = bool(tier[best] == 1)
        # the confidence set of the best needs only the best entry's own comparisons: a sharper
        # check that the estimate does not make the comparisons overconfident
        out[f"best_in_best_set_{name}"] = bool(best_set(reps, alpha)[best])
    return out


def correlation_study(boards: int = 200, entries: Sequence[int] = (10, 50, 200),
                      rhos: Sequence[float] = (0.0, 0.3, 0.6, 0.9),
                      scenarios: Sequence[str] = SCENARIOS, *, seed: int = DEFAULT_SEED,
                      alpha: float = DEFAULT_ALPHA, replicates: int = 1000, n_public: int = 500,
                      n_private: int = 2000) -> dict:
    """Run the study (module docstring): one cell per scenario, number of entries and ``rho``.

    Parameters
    ----------
    boards : int
        Simulated boards per cell.
    entries, rhos, scenarios : sequences
        The cells' grid.
    seed : int
        Board ``b`` of a cell draws from ``entropy_rng(seed, Stream.CORRELATION_STUDY, scenario,
        entries, rho * 1000, b)``, so a cell's numbers do not depend on which other cells run.
    alpha : float
        Error rate of the interval and of the tiers.
    replicates : int
        Normal draws behind each board's tiers.
    n_public, n_private : int
        The slices' sizes.

    Returns
    -------
    dict
        ``cells``: one dict per cell with ``scenario``, ``entries``, ``rho``, ``boards``, and each
        rate (``coverage``, ``bound_holds``, ``best_in_tier1_auto``, ``best_in_tier1_zero``,
        ``best_in_best_set_auto``, ``best_in_best_set_zero``) and
        mean (``value``, ``low``, ``tier1_auto``, ``tier1_zero``, ``tier1_ratio``: the mean of
        tier-1 size with the estimate over size with 0, ``tier1_shrink``: the mean of size with 0
        minus size with the estimate, board by board) with its Monte Carlo SE under ``<name>_se``;
        ``settings``: the arguments.
    """
    cells = []
    for scenario in scenarios:
        for n_entries in entries:
            for rho in rhos:
                rows = []
                for b in range(boards):
                    rng = entropy_rng(seed, Stream.CORRELATION_STUDY,
                                      SCENARIOS.index(scenario), n_entries, round(rho * 1000), b)
                    board = simulate_board(scenario, n_entries, rho, rng, n_public=n_public,
                                           n_private=n_private)
                    rows.append(one_board(board, rho, alpha=alpha, replicates=replicates,
                                          seed=seed + b))
                cells.append({"scenario": scenario, "entries": n_entries, "rho": rho,
                              "boards": boards, **_summarise(rows)})
    return {"cells": cells, "settings": {"boards": boards, "seed": seed, "alpha": alpha,
                                         "replicates": replicates, "n_public": n_public,
                                         "n_private": n_private}}


def _summarise(rows: list[dict]) -> dict:
    """Means of every per-board number, with their Monte Carlo SEs (binomial for rates)."""
    out = {}
    ratio = np.array([r["tier1_auto"] / r["tier1_zero"] for r in rows], dtype=float)
    columns = {k: np.array([r[k] for r in rows], dtype=float) for k in rows[0]}
    columns["tier1_ratio"] = ratio
    columns["tier1_shrink"] = columns["tier1_zero"] - columns["tier1_auto"]   # paired per board
    for name, values in columns.items():
        values = values[np.isfinite(values)]
        mean = float(values.mean()) if values.size else float("nan")
        if name in ("coverage", "bound_holds") or name.startswith("best_in"):
            se = np.sqrt(mean * (1 - mean) / max(values.size, 1))
        else:
            se = values.std(ddof=1) / np.sqrt(values.size) if values.size > 1 else float("nan")
        out[name], out[f"{name}_se"] = mean, float(se)
    return out


def _pct(cell: Mapping[str, Any], key: str) -> str:
    """A rate and its Monte Carlo SE in percent: ``95.0 ± 1.0``."""
    return f"{100 * cell[key]:.1f} ± {100 * cell[key + '_se']:.1f}"


def markdown_table(result: dict) -> str:
    """The study's cells as a Markdown table (rates in %, each with its Monte Carlo SE).

    Examples
    --------
    >>> out = correlation_study(boards=5, entries=(10,), rhos=(0.5,), scenarios=("equal",))
    >>> markdown_table(out).splitlines()[0].startswith("| scenario")
    True
    """
    head = ("| scenario | entries | rho | estimate (lower end) | interval covers rho | lower end "
            "<= rho | best in tier 1, auto | best in tier 1, 0 | best in best set, auto | "
            "tier 1, auto | tier 1, 0 |")
    lines = [head, "|" + " --- |" * 11]
    for c in result["cells"]:
        lines.append(f"| {markdown_text(c['scenario'])} | {c['entries']} | {c['rho']:g} | "
                     f"{c['value']:.3f} ({c['low']:.3f}) | {_pct(c, 'coverage')} | "
                     f"{_pct(c, 'bound_holds')} | {_pct(c, 'best_in_tier1_auto')} | "
                     f"{_pct(c, 'best_in_tier1_zero')} | {_pct(c, 'best_in_best_set_auto')} | "
                     f"{c['tier1_auto']:.1f} | {c['tier1_zero']:.1f} |")
    return "\n".join(lines)
