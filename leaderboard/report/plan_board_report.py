"""``leaderboard plan --from`` in words: the terminal text, the JSON
(leaderboard/schema/plan_from.schema.json) and a small self-contained page (no scripts).

JSON keys: ``version``, ``command`` ("plan"), ``from`` (the board read), ``mode``, ``unit``,
``models``, ``leader`` (the current leader), ``power``, ``separate`` (k), ``current`` (the board's
units and the share of simulated boards meeting each goal at that size), ``needed`` (the units
for each goal, null with ``reasons``), ``shares_at_needed``, ``curve`` (every size simulated),
``boards``, ``replicates``, ``tier_method``, ``alpha``, ``seed``, ``method`` and ``assumes``.
"""
from __future__ import annotations

import json
import math

from leaderboard.api_words import said
from leaderboard.confidence import confidence_label
from leaderboard.report.render import render_page
from leaderboard.safe_write import write_text

TEMPLATE = "plan_from.html.j2"
MODES = {"scores": "a board of scores", "submissions": "submissions", "items": "per-item results",
         "battles": "battles"}
METHOD = ("The board is taken as the truth: its scores as the true ones, and the covariance of "
          "their estimates as its analysis measured it (the bootstrap's replicates; scores only, "
          "the simulated SDs and the correlation the comparisons assumed), shrinking as one over "
          "the square root of the number of units. Boards of each size are drawn from that truth "
          "and cut into tiers by the same tier method and error rate as the analysis; a size is "
          "enough when the share of boards meeting the goal reaches the power asked. Sizes are "
          "searched by doubling from the board's own size and then bisecting, with the same "
          "simulated boards at every size.")
ASSUMES = ("More units of the same kind (independent, drawn like these); the true scores equal "
           "the observed ones, so the answer is optimistic when the current leader's lead is "
           "partly luck (the winner's curse; the more so the smaller the board); normal errors; "
           "each simulated board's standard errors known rather than estimated.")


def _units(n: int | None, unit: str) -> str:
    return "\u2014" if n is None else f"{n:,} {unit}{'' if n == 1 else 's'}"


def _share(x: float | None) -> str:
    """A share to a tenth of a percent: 0.795 is 79.5%, never rounded up to the goal."""
    return "\u2014" if x is None else f"{100 * x:.1f}%"


def _goal_words(goal, p, what: str) -> str:
    if goal.needed is None:
        return f"{what}: no size found ({goal.reason})."
    now = _share(goal.current_share)
    if goal.needed <= p.current:
        return (f"{what}: {_units(goal.needed, p.unit)} are enough, and the board has "
                f"{p.current:,} (at its size, {now} of simulated boards meet it).")
    factor = goal.needed / p.current   # a tenth where it reads, whole where it is large
    return (f"{what}: {_units(goal.needed, p.unit)}, {factor:,.{1 if factor < 100 else 0}f} "
            f"times the board's {p.current:,} (at its size, {now} of simulated boards meet it).")


def terminal_text(p) -> str:
    """The answers, one line each."""
    lead = p.models[0]
    top = ", ".join(p.models[:p.top.k])
    return "\n".join([
        f"plan from {p.source}: {len(p.models):,} models on {_units(p.current, p.unit)}; "
        f"power {_share(p.power)}, {p.method} tiers at alpha {p.alpha:g}",
        _goal_words(p.leader, p, f"{lead} alone in tier 1"),
        _goal_words(p.top, p, f"the top {p.top.k} ({top}) each alone in its tier"),
        *p.notes,
        f"({p.boards:,} simulated boards per size; a share's Monte Carlo SE is about "
        f"{_mc(p):.2f}. "
        + said("Assumes the board's scores are the true ones: see --json's assumes.)")])


def _mc(p) -> float:
    return math.sqrt(p.power * (1 - p.power) / p.boards)


def to_json_dict(p) -> dict:
    """The ``--json`` output (module docstring)."""
    from leaderboard import __version__

    return {"version": __version__, "command": "plan", "from": p.source, "mode": p.mode,
            "unit": p.unit, "models": len(p.models), "leader": p.models[0], "power": p.power,
            "separate": p.top.k, "current": {
                "units": p.current, "share_leader_alone": float(p.leader.current_share),
                "share_top_separate": float(p.top.current_share)},
            "needed": {"leader_alone": p.leader.needed, "top_separate": p.top.needed},
            "reasons": {"leader_alone": p.leader.reason, "top_separate": p.top.reason},
            "shares_at_needed": {"leader_alone": _float(p.leader.needed_share),
                                 "top_separate": _float(p.top.needed_share)},
            "curve": [{"units": n, "share_leader_alone": float(a),
                       "share_top_separate": _float(b)} for n, a, b in p.curve],
            "boards": p.boards, "replicates": p.replicates, "tier_method": p.method,
            "alpha": p.alpha, "seed": p.seed, "monte_carlo_se": _mc(p), "method": METHOD,
            "assumes": ASSUMES, "notes": list(p.notes)}


def _float(x) -> float | None:
    return None if x is None else float(x)


def json_text(p) -> str:
    """The JSON ``leaderboard plan --from FILE --json`` writes."""
    return json.dumps(to_json_dict(p), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def write_json(p, path) -> None:
    write_text(path, json_text(p))


def context(p) -> dict:
    """The page's words and table."""
    from leaderboard import __version__

    rows = [{"units": f"{n:,}", "leader": _share(a), "top": _share(b),
             "marks": ", ".join(m for m, hit in (("now", n == p.current),
                                                 ("leader alone", n == p.leader.needed),
                                                 (f"top {p.top.k}", n == p.top.needed)) if hit)}
            for n, a, b in p.curve]
    return {"title": f"Plan from {p.source}", "source": p.source,
            "headline": _goal_words(p.leader, p, f"{p.models[0]} alone in tier 1"),
            "second": _goal_words(p.top, p, f"The top {p.top.k} ({', '.join(p.models[:p.top.k])})"
                                            " each alone in its tier"),
            "facts": [("Board", f"{p.source}: {len(p.models):,} models on "
                                f"{_units(p.current, p.unit)} ({MODES[p.mode]})"),
                      ("Goal", f"met on at least {_share(p.power)} of boards of the size"),
                      ("Tiers", f"{p.method} at alpha {p.alpha:g}, as the analysis cut them "
                                f"({confidence_label(p.alpha)})"),
                      ("Simulation", f"{p.boards:,} boards per size, {p.replicates:,} "
                                     f"replicates each, seed {p.seed}; a share's Monte Carlo "
                                     f"SE about {_mc(p):.2f}")],
            "rows": rows, "k": p.top.k, "notes": list(p.notes), "unit": p.unit, "method": METHOD,
            "assumes": ASSUMES,
            "version": __version__, "seed": p.seed}


def render_html(p) -> str:
    """The page ``leaderboard plan --from FILE -o`` writes."""
    return render_page(TEMPLATE, context(p))


def write_html(p, path) -> None:
    write_text(path, render_html(p))
