"""The leaderboard card (issue 40 item 4) in words: the JSON's ``card`` object, the page's compact
section and the Markdown export's block. The numbers are :mod:`leaderboard.pipelines.card`'s;
nothing is computed here but their formatting."""
from __future__ import annotations

import math

from leaderboard.confidence import confidence_label
from leaderboard.inert_text import markdown_text

NAMES_IN_JSON = 50   # models of the largest unresolved group listed in the JSON
NAMES_SHOWN = 6      # ... and on the page


def _num(x) -> float | None:
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def card_json(card) -> dict | None:
    """The JSON's ``card`` (leaderboard/schema/*.schema.json, ``$defs/card``)."""
    if card is None:
        return None
    s, e, r, p, v = card.shape, card.established, card.resolved, card.top_pair, card.provenance
    return {
        "mode": card.mode,
        "shape": {"models": s.models, "units": s.units, "unit": s.unit, "clusters": s.clusters,
                  "outcome": s.outcome, "matrix_sha256": s.sha256, "matrix_hashed": s.hashed},
        "established_share": {"share": _num(e.share), "shown": e.shown, "pairs": e.pairs,
                              "family": e.family, "reason": e.reason},
        "resolved_positions": {
            "tiers": r.tiers, "largest_tier": r.largest_tier, "positions_resolved": r.alone,
            "largest_unresolved_group": None if r.group is None else {
                "size": r.group, "exact": r.group_exact,
                "models": list(r.group_models[:NAMES_IN_JSON])},
            "reason": r.reason},
        "n_eff": None if p is None else {
            "value": p.n_eff, "of": p.differ_of[0], "unit": p.differ_of[1],
            "pair": list(p.models),
            "reason": p.n_eff_reason},
        "top_pair": pair_json(p),
        "provenance": {"version": v.version, "date": v.date, "date_from": v.date_from,
                       "command": v.command, "seed": v.seed,
                       "inputs": [{"role": d.role, "name": d.name, "sha256": d.sha256,
                                   "kind": d.kind, "bytes": d.bytes, "files": d.files}
                                  for d in v.inputs]},
    }


def pair_json(p, n_eff: bool = False) -> dict | None:
    """One pair's resolution (the card's ``top_pair``; ``compare``'s ``resolution``, with
    ``n_eff``, which the card keeps apart)."""
    if p is None:
        return None
    extra = {"n_eff": p.n_eff} if n_eff else {}
    return {"models": list(p.models), "gap": _num(p.gap), "sd_diff": _num(p.sd_diff),
            "sd_independent": _num(p.sd_independent), "ratio": _num(p.ratio),
            "correlation": _num(p.correlation), "current": p.current, "needed": p.needed,
            "unit": p.unit, "alpha": p.alpha, "power": p.power, **extra,
            "test": "a paired two-sided z test of this pair alone at level alpha with power "
                    f"{p.power:g}; the difference's SD scaled as 1 / sqrt(units)",
            "reason": p.reason}


def pair_sentence(p, score=lambda x: f"{x:.4g}") -> str:
    """The pair's resolution in one sentence (``compare``'s terminal and Markdown).

    Examples
    --------
    >>> from leaderboard.pipelines.card import PairResolution
    >>> p = PairResolution(("candidate", "baseline"), 0.02, 0.01, 0.03, 0.9, 120, None, 400,
    ...                    980, "item", 0.05)
    >>> print(pair_sentence(p))  # doctest: +NORMALIZE_WHITESPACE
    SD of the paired difference 0.01 against 0.03 were they scored independently (x0.33); they
    differ on 120 of 400 items; 980 items would separate them at this gap (power 80%)
    """
    if p is None or p.sd_diff is None:
        return ""
    out = (f"SD of the paired difference {score(p.sd_diff)} against {score(p.sd_independent)} "
           f"were they scored independently (x{p.ratio:.2f})")
    if p.n_eff is not None:
        out += f"; they differ on {_among(p)}"
    if p.needed is not None:
        out += (f"; {p.needed:,} {p.unit}s would separate them at this gap (power "
                f"{p.power:.0%})")
    return out


def _among(p) -> str:
    """"49 of 240 items": the units the pair differs on, among those they were counted in."""
    of, unit = p.differ_of
    return f"{p.n_eff:,} of {of:,} {unit}s" if of is not None else f"{p.n_eff:,} {unit}s"


def card_rows(card, score, entity: str = "model", name=str) -> list[tuple[str, str]]:
    """The card as (label, sentence) rows, for the page and the Markdown (``score`` formats a
    score or gap; ``name`` makes an untrusted name, path or command safe for the output)."""
    if card is None:
        return []
    s, e, r, p, v = card.shape, card.established, card.resolved, card.top_pair, card.provenance
    units = ("an unknown number of test rows" if s.units is None else
             f"{s.units:,} {s.unit}{'' if s.units == 1 else 's'}")
    rows = [("Shape", f"{s.models:,} {entity}s on {units}"
             + (f" in {s.clusters:,} clusters" if s.clusters else "")
             + (f", {s.outcome}" if s.outcome != "not known" else "")
             + (f"; matrix SHA-256 {s.sha256[:16]}…" if s.sha256 else ""))]
    if e.share is None:
        rows.append(("Established", e.reason or "not available"))
    else:
        together = ("" if e.alpha is None else
                    f", all of them right together with probability at least "
                    f"{confidence_label(e.alpha)}")
        rows.append(("Established", f"{e.shown:,} of {e.pairs:,} pairs shown different "
                                    f"({100 * e.share:.0f}%){together}"))
    if r.tiers is None:
        rows.append(("Resolved", r.reason or "not available"))
    else:
        group = ("" if r.group is None else
                 f"; the largest group no pair of which is shown different: "
                 f"{'' if r.group_exact else 'at least '}{r.group:,}"
                 + (f" ({', '.join(map(name, r.group_models[:NAMES_SHOWN]))}"
                    + (", …" if r.group > NAMES_SHOWN else "") + ")" if r.group <= 12 else ""))
        rows.append(("Resolved", f"{r.tiers:,} tier{'s' if r.tiers != 1 else ''}, the largest "
                                 f"of {r.largest_tier:,}; {r.alone:,} position"
                                 f"{'s' if r.alone != 1 else ''} resolved (a rank set of one "
                                 f"rank){group}"))
    if p is not None:
        rows.append(("Top pair", _pair_words(p, score, name)))
    inputs = "; ".join(f"{d.role} {name(d.name)}: SHA-256 {d.sha256[:16]}… ({d.kind})"
                       for d in v.inputs) or "none recorded"
    rows.append(("Provenance", f"leaderboard {v.version}, {v.date} "
                               f"({'SOURCE_DATE_EPOCH' if v.date_from != 'clock' else 'UTC'}), "
                               f"seed {v.seed}; {name(v.command)}; inputs: {inputs}"))
    return rows


def _pair_words(p, score, name=str) -> str:
    conf = confidence_label(p.alpha)
    head = f"{name(p.models[0])} ahead of {name(p.models[1])} by {score(p.gap)}"
    if p.sd_diff is not None and p.sd_independent:
        head += (f"; SD of their paired difference {score(p.sd_diff)}, against "
                 f"{score(p.sd_independent)} were they scored independently")
    if p.n_eff is not None:
        head += (f"; they differ on {_among(p)}"
                 if p.unit != "battle" else f"; {p.n_eff:,} battles between the two")
    if p.needed is not None:
        head += (f"; {p.needed:,} {p.unit}s would separate them at this gap (a paired test "
                 f"of this pair alone, {conf} level, power {p.power:.0%}; now {p.current:,})")
    elif p.reason:
        head += f"; no size to separate them: {p.reason}"
    return head


def card_context(card, score, entity: str = "model") -> dict | None:
    """The page's compact card section."""
    if card is None:
        return None
    return {"rows": [{"label": label, "value": value}
                     for label, value in card_rows(card, score, entity)],
            "sha": card.shape.sha256}


def card_markdown(card, score, entity: str = "model") -> str:
    """The Markdown export's card block (every name inert)."""
    if card is None:
        return ""
    lines = ["", "**Leaderboard card**"]   # paragraphs: a comment's one table stays the tier table
    lines += [f"\n*{label}*: {value}"
              for label, value in card_rows(card, score, entity, name=markdown_text)]
    return "\n".join(lines) + "\n"
