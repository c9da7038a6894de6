"""``leaderboard compare``'s outputs: the terminal's one-line verdict, the pull-request comment
(Markdown) and the JSON (leaderboard/schema/compare.schema.json)."""
from __future__ import annotations

import json
import math

from leaderboard.api_words import said
from leaderboard.confidence import confidence_label
from leaderboard.pipelines.compare import Comparison, Gate
from leaderboard.inert_text import markdown_text as _text   # untrusted names, inert
from leaderboard.report.card_text import pair_json, pair_sentence


def json_dict(r: Comparison, metric: str, baseline: str, candidate: str, version: str) -> dict:
    """The ``--json`` output (leaderboard/schema/compare.schema.json): the two entries as given,
    their scores apart from their names, and the paired difference.

    Examples
    --------
    >>> r = Comparison(0.7, 0.8, 0.1, 0.05, 0.04, 0.16, 0.03, 0.001, True, 0.05, 1000, False)
    >>> d = json_dict(r, "auc", "main.csv", "pr.csv", "0")
    >>> d["baseline"], d["baseline_score"], d["candidate_score"], d["better"]
    ('main.csv', 0.7, 0.8, True)
    """
    def num(x: float) -> float | None:
        return float(x) if math.isfinite(x) else None

    return {"version": version, "command": "compare", "metric": metric,
            "baseline": baseline, "candidate": candidate,
            "baseline_score": num(r.baseline), "candidate_score": num(r.candidate),
            "difference": num(r.difference), "lower": num(r.lower), "low": num(r.low),
            "high": num(r.high), "sd": num(r.sd), "p_value": num(r.p_value),
            "better": bool(r.better), "alpha": float(r.alpha), "replicates": int(r.replicates),
            "identical": bool(r.identical)}


def gate_json(gate: Gate, version: str) -> dict:
    """The ``--json`` output of a whole gate: :func:`json_dict`, then its flags (cluster flags,
    then the gate's own) as objects and the assumptions."""
    data = json_dict(gate.comparison, gate.metric.name, gate.baseline, gate.candidate, version)
    data["flags"] = ([{"kind": f.kind, "message": f.message} for f in gate.flags]
                     + [{"kind": kind, "message": message} for kind, message in gate.gate_flags])
    data["assumptions"] = [a.as_json() for a in gate.assumptions]
    data["resolution"] = pair_json(gate.comparison.resolution, n_eff=True)
    return data


def gate_json_text(gate: Gate) -> str:
    """The JSON ``leaderboard compare --json`` writes: :func:`gate_json` of this version."""
    from leaderboard import __version__

    return json.dumps(gate_json(gate, __version__), indent=2, allow_nan=False) + "\n"


def gate_verdict(gate: Gate) -> str:
    """:func:`verdict`, saying when a flag held a gate the test alone would pass."""
    grouped = any(kind == "undeclared_groups_held" for kind, _ in gate.gate_flags)
    return verdict(gate.comparison, gate.metric.label) + (
        "" if not gate.held else
        " (the test alone would pass it; held: not shown better with related items resampled "
        "together, see below)" if grouped else
        said(" (the test alone would pass it; flagged, see below; --allow-perfect when a perfect "
             "score is expected)"))


def gate_markdown(gate: Gate) -> str:
    """:func:`markdown` of a whole gate, every flag listed."""
    return markdown(gate.comparison, candidate=gate.candidate, baseline=gate.baseline,
                    label=gate.metric.label, items=gate.items, clustered=gate.clustered,
                    seed=gate.seed,
                    flags=[f.message for f in gate.flags] + [m for _, m in gate.gate_flags])


def verdict(r: Comparison, label: str) -> str:
    """One line: the scores, the difference, its bound, and what the gate decided."""
    conf = confidence_label(r.alpha)
    if r.identical:
        return (f"{label} {_n(r.candidate)} for both: the predictions are identical; not shown "
                "better")
    decision = ("shown better" if r.better else "not shown better")
    return (f"{label} {_n(r.candidate)} vs {_n(r.baseline)}, difference {r.difference:+.4g} "
            f"(one-sided {conf} lower bound {r.lower:+.4g}; SE {r.sd:.2g}; p {r.p_value:.3g}, "
            f"{r.replicates:,} paired replicates): {decision} at alpha {r.alpha:g}")


def markdown(r: Comparison, *, candidate: str, baseline: str, label: str, items: bool,
             clustered: bool, seed: int, flags: tuple[str, ...] | list[str] = ()) -> str:
    """A pull-request comment: the verdict first, then the numbers (``items``: the bootstrap
    resampled items, else test rows; ``clustered``: whole clusters or groups; ``flags``: what
    to know first, e.g. an undeclared grouping column or a perfect score)."""
    conf = confidence_label(r.alpha)
    head = ("✅ **Shown better**" if r.better else "➖ **Not shown better**")
    return "\n".join([
        f"{head}: {_text(candidate)} vs {_text(baseline)} ({_text(label)})", "",
        "| | score |", "|---|---:|",
        f"| candidate | {_n(r.candidate)} |", f"| baseline | {_n(r.baseline)} |",
        f"| difference (positive: better) | {r.difference:+.4g} |",
        # the interval of the test that decides: one-sided, so the verdict and it always agree
        f"| one-sided {conf} interval (what the gate tests) | {r.lower:+.4g} and above |",
        f"| bootstrap SE | {r.sd:.2g} |", "",
        *([f"Resolution: {pair_sentence(r.resolution)}.", ""] if r.resolution is not None
          and r.resolution.sd_diff is not None else []),
        *[f"⚠️ {_text(f)}" for f in flags], *([""] if flags else []),
        f"Paired bootstrap of the {'items' if items else 'test rows'}"
        f"{' (whole clusters)' if clustered else ''}, "
        f"{r.replicates:,} replicates, seed {seed}. The "
        f"candidate is shown better when the lower bound is above zero (a one-sided test at "
        f"alpha {r.alpha:g}).", ""])


def _n(value: float) -> str:
    return "—" if not math.isfinite(value) else f"{value:.5g}"
