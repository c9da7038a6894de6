"""The analysis as plain JSON: strict (no NaN or Infinity tokens), Python numbers only.

Top-level keys::

    version, metric, metric_label, higher_is_better, n_test, prevalence, alpha, draws, seed,
    correlation, d95, spread_of_equals, tier_method, notes, flags, left_out, source, noise, ranks,
    guarantee_check, entries, card

``guarantee_check`` is the simultaneous family's error measured before the page was written on
null boards of the board's own shape made from its own values (issue 39;
:class:`~leaderboard.tiers.guarantee_check.GuaranteeCheck`): ``method``, ``shape``, ``boards``,
``draws``, ``rejected``, ``measured_error`` and ``mc_se``, ``falls_short``, ``reason`` (why not
run); null with scores only. ``ranks.family`` says where the tests' critical values came from
(``key``: ``sign-flip``, ``bootstrap`` or ``normal``; ``draws`` and ``guarantee`` in words).

``spread_of_equals`` is the page's headline number: how far apart chance alone spreads the
compared entries if all were equally good (``entries``; ``independent``, and
``at_correlation`` at ``correlation`` with ``correlation_source`` measured, assumed or typical;
:mod:`leaderboard.noise.spread`), null without d95.

``correlation`` is the correlation between entries' errors that the scores-only comparisons
assumed, and where it came from: ``{"value", "source", "low", "high", "used"}``. ``used`` is the
number the tiers, rank sets, P(best) and the post-mortem's noise baseline assumed (until issue 14
the top-level ``correlation`` was this number alone). ``source`` is ``"stated"`` (``--correlation
VALUE``: ``value`` and ``used`` are it), ``"estimated from N public/private pairs"``
(``--correlation auto`` on a board with both scores and both slices' sizes: ``value`` is the point
estimate, ``low``-``high`` its ``1 - alpha`` interval, and ``used`` is ``low`` rounded down to
three decimals; see :mod:`leaderboard.noise.correlation`), or ``"assumed 0 (...)"`` with the
reason in brackets (``no public/private pairs``, ``slice sizes not given``, ...; ``low`` and
``high`` null). Submissions mode assumes nothing: every field is null but ``source``, ``"measured
by the paired bootstrap"``.

``flags`` are what a reader should know first (``kind``, ``message``, ``teams``: see
:mod:`leaderboard.flags`); ``left_out`` names every entry left out of some statistics
(``statistics``, ``reason``, ``teams``), e.g. a score no model of the universe produces. Entries
without an interval have null ``ci_low``, ``ci_high``, ``sd``, ``d95``, ``tier`` and rank fields.

``entries`` are in rank order; ``tier`` is 1 for the top tier, null (as are ``d95`` and the
interval fields) when there is no noise model. A tier's anchor (its first entry in rank order) has
``is_anchor: true`` and ``p_vs_anchor: null``. With ``--tiers rank-sets`` (the default) tiers are
layers of the simultaneous family's "shown better" and need not be contiguous: ``tier`` is 1
exactly when ``rank_sim_low`` is 1. ``tier_method`` names the procedure that ran; ``ranks.tiers``
describes it (``key``, ``name``, ``test``, ``guarantee``, ``same_family_as_rank_sets`` and, for
another family, ``note``), all generated from :data:`leaderboard.tiers.methods.TIER_METHODS`.

With a noise model every entry also has ``rank_ci_low`` and ``rank_ci_high`` (its marginal rank
confidence set), ``rank_sim_low`` and ``rank_sim_high`` (simultaneous, all entries at once),
``p_best`` (share of resampled test sets on which it scores best), ``p_top`` (``{"k": share}`` for
each prize line) and ``in_best_set`` (in the confidence set for the best entry); the top-level
``ranks`` holds the tier method, the winner's-curse correction, Kendall's tau, the rank frequencies
of the top entries and the significance map (``significant[i][j]``: the simultaneous family shows
entry i better than entry j; ``family`` and ``critical_value`` say which tests).

With public and private scores (both columns, or a solution with Usage) the top-level ``shakeup``
holds the post-mortem: ``spearman``, ``kendall``, ``mean_abs_rank_change`` and
``mean_abs_rank_change_top10`` (mean |public rank - private rank| / N, over all entries and over the
private top: 10% of the entries, at least 5), ``noise_mean_abs_rank_change`` and ``noise_spearman``
(medians over competitions simulated with noise alone), ``p_shakeup`` and ``p_spearman`` (how rarely
noise alone shakes the board this much), ``p_overfit`` (the public top, the same places, beat their
private scores by more than noise and selection explain), ``drivers`` (entries flagged by Holm),
``winner`` (the private winner's public rank and ``p_jump``), ``risers``, ``fallers``,
``public_top_tiers`` and the sizes; the noise fields are null when the slice sizes are unknown
(``reason`` says why). ``overfit_shift`` is the median public-minus-private gap, oriented so
positive means better on the public board; ``overfit_detectable_sd`` and ``overfit_detectable`` the
overfit the test detects with 80% probability (every public-top entry's public score inflated by
that many gap SDs, and in score units; null when too few competitions were simulated, or when no
inflation of the top alone is detectable: the top holds the entries whose gaps set the common
shift).

Regression boards of scores carry ``tails``: how heavy the residuals' tails were taken to be
(:mod:`leaderboard.pipelines.tails`). ``how`` is ``"stated"`` (``--residuals``, ``--df`` or
``--kurtosis``), ``"gaps"`` (read from the public/private gaps: ``scale`` holds the factor
``scale`` by which normal residuals' noise was stretched, the gaps' ``spread`` in units of that
noise, its ``df``, the distinct ``pairs`` read, ``duplicates`` counted once and the
``correlation`` the tails were read at; ``beyond_heavy`` when the gaps spread more than even
heavy tails allow, and the heavy default was kept) or ``"unknown"`` (``why_unknown``; ``light``
and ``heavy`` hold ``best_set`` and ``compared`` under normal residuals and under the page's own
heavy-tailed ones). Null for every other board.

Per-item results (``--items``, a benchmark) say ``mode: "items"`` and ``source.format: "items"``
(until issue 26 both said ``"submissions"``; the paired bootstrap's fields are the same, so test
``resampling`` for a bootstrap rather than ``mode``), and every entry and file also carries
``model`` (the same name as ``team``, which stays for existing readers). With ``--cost-col`` the
top-level ``costs`` holds every model's mean cost per item and total cost with intervals from the
scores' own bootstrap replicates, ``on_frontier`` (the cost-accuracy frontier) and
``cheaper_in_top_tier`` (tier-1 models cheaper than ``best_model``: the saving and the score gap,
each with its paired interval); with ``--published``, ``published`` lists each published score
beside the measured one and its interval (``outside``), and the names matching no model
(``not_in_data``, ``not_published``). Both keys are absent unless asked for.

``card`` is the leaderboard card (issue 40; :mod:`leaderboard.pipelines.card`, words in
:mod:`leaderboard.report.card_text`): ``shape`` (models, units, outcome, the analysed matrix's
SHA-256), ``established_share``, ``resolved_positions``, ``n_eff``, ``top_pair`` (its resolution
and the units that would separate it) and ``provenance`` (version, date, command, the inputs'
SHA-256, seed); the schema's ``$defs/card`` describes every field.

Submissions mode adds ``mode: "submissions"``, ``replicates``, ``resampling`` and ``files``: every
file found, scored or not, with ``status`` (a state: ``ok``, ``rejected``, ``not selected`` or
``skipped``) and ``reason`` (why, or null). ``entries`` hold the scored entries only, each with
``file``, ``public_score``, ``private_score`` and ``identical_to`` (the better-ranked entry with
byte-identical predictions, or null): entries and files are kept apart.
"""
from __future__ import annotations

import dataclasses
import io
import json
import math
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from leaderboard.studies.noise import study_words
from leaderboard.report import categories_text
from leaderboard.report.json_entries import entries_text, entry_blocks, tier_counts
from leaderboard.report.ranks_text import ranked_rows
from leaderboard.report.numbers import json_number, spread_of
from leaderboard.report.vocabulary import is_items
from leaderboard.report.benchmark_text import costs_json, published_json
from leaderboard.report.card_text import card_json
from leaderboard.report.shakeup_text import shakeup_json
from leaderboard.tiers.methods import FAMILIES, TIER_METHODS, TierMethod
from leaderboard.safe_write import ENCODING, ERRORS, open_output

if TYPE_CHECKING:  # annotations only: keeps leaderboard.report importable from anywhere
    from leaderboard.pipelines.scores import Analysis


_num = json_number   # a finite Python float, or None for None/NaN/infinity


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def _ranks(analysis: Analysis) -> dict | None:
    """The ranks stage's board-level results."""
    ranking = analysis.ranking
    if ranking is None:
        return None
    reps, curse, sig = ranking.replicates, ranking.curse, ranking.significance
    taus = np.asarray(ranking.taus, dtype=float)
    # the names of the leading entries only (all of them: 1M strings at 1M entries)
    shown = max(len(ranking.frequencies), len(sig.significant))
    top = analysis.table["team"].iloc[ranked_rows(analysis)[:shown]].astype(str).tolist()
    return {
        "tier_method": ranking.method,
        "family": family_json(ranking.family),
        "tiers": tier_method_json(ranking.description, analysis.settings.alpha),
        "replicates": int(reps.n_replicates), "replicates_dropped": int(reps.dropped),
        "errors_from": reps.source,
        "best_set_size": int(ranking.in_best_set.sum()),
        "winners_curse": {"observed": _num(reps.sign * curse.observed),
                          "corrected": _num(ranking.corrected_leader_score),
                          "bias": _num(reps.sign * curse.bias),
                          "bound": _num(reps.sign * curse.lower_bound),
                          "bound_side": "lower" if reps.sign > 0 else "upper"},
        "kendall_tau": dict(zip(("median", "q2.5", "q97.5"),
                                (spread_of(taus) or (None,) * 3)[:3])),
        "rank_frequencies": {"teams": top[:len(ranking.frequencies)],
                             "counts": np.asarray(ranking.frequencies).tolist()},
        "significance_map": {"teams": top[:len(sig.significant)],
                             "significant": np.asarray(sig.significant, dtype=bool).tolist(),
                             "family": sig.family, "critical_value": _num(sig.critical_value),
                             "alpha": float(sig.alpha)},
    }


def family_json(key: str) -> dict:
    """Where the simultaneous family's critical values came from, in the words of
    :data:`~leaderboard.tiers.methods.FAMILIES`."""
    family = FAMILIES[key]
    return {"key": family.key, "draws": family.label, "guarantee": family.guarantee}


def tier_method_json(method: TierMethod, alpha: float) -> dict:
    """The tier method that ran, in the words of :data:`~leaderboard.tiers.methods.TIER_METHODS`."""
    return {"key": method.key, "name": method.label, "procedure": method.procedure,
            "test": method.test, "guarantee": method.words(alpha)["guarantee"],
            "same_family_as_rank_sets": method.same_family_as_rank_sets,
            "note": method.other_family_note}


def _files(analysis: Analysis) -> list[dict] | None:
    if analysis.submissions is None:
        return None
    items = is_items(analysis)
    return [{"team": str(f.team), "file": str(f.file), "status": str(f.status),
             "reason": None if not f.reason else str(f.reason),
             "rows": None if f.rows is None else int(f.rows),
             **({"model": str(f.team)} if items else {})}
            for f in analysis.submissions.files]


def _resampling(analysis: Analysis) -> dict | None:
    boot = analysis.bootstrap
    if boot is None:
        return None
    return {"method": "paired bootstrap", "resample": boot.resample,
            "replicates": int(boot.replicates.shape[1]), "rows": int(boot.n_rows),
            "units": int(boot.n_units), "seed": int(boot.seed),
            "interval": "percentile", "test": _tier_method(analysis).test}


def _tier_method(analysis: Analysis) -> TierMethod:
    """The method whose tiers the analysis holds (the ranking's, else the settings')."""
    ranking = analysis.ranking
    return TIER_METHODS[ranking.method if ranking is not None else analysis.settings.tier_method]


def _noise(analysis: Analysis) -> dict | None:
    noise, boot, leader = analysis.noise, analysis.bootstrap, analysis.leader_distribution
    if leader is None:
        return None
    draws = np.asarray(leader.draws, dtype=float)
    q = np.quantile(draws, [0.025, 0.5, 0.975]) if draws.size else [math.nan] * 3
    described: dict[str, Any]
    if noise is not None:
        described = {"universe": noise.universe, "assumptions": noise.assumptions,
                     "method": noise.method,
                     "universe_options": dataclasses.asdict(analysis.settings.universe),
                     "study": study_words(analysis.settings.metric.name, noise.universe,
                                          analysis.settings.universe.spread,
                                          getattr(analysis.tails, "how", None))}
    elif boot is not None:  # submissions mode: the leader's bootstrap replicates
        described = {"universe": "paired bootstrap", "assumptions": "test rows are a random "
                     "sample of the population", "method": f"{boot.resample} "
                     "resampling of the test rows"}
    else:   # neither: there is no leader's distribution (above)
        return None
    return {**described,
            "leader_score": _num(leader.true_score), "leader_sd": _num(leader.sd),
            "leader_exact_sd": _num(leader.exact_sd), "leader_d95": _num(leader.d95),
            "leader_at_interval_middle": bool(noise is not None and noise.leader_at_middle),
            "quantiles": {"2.5": _num(q[0]), "50": _num(q[1]), "97.5": _num(q[2])}}


def _spread_of_equals(analysis: Analysis) -> dict | None:
    """The headline's spread of equals (:func:`leaderboard.report.headline.spreads`)."""
    from leaderboard.report.headline import spreads

    s = spreads(analysis)
    if s is None:
        return None
    return {"entries": int(s["n"]), "independent": _num(s["independent"]),
            "correlation": float(s["rho"]), "correlation_source": s["kind"],
            "at_correlation": _num(s["correlated"]),
            "assumes": "normal noise scaled so that the spread of 2 equal entries is d95; the "
                       "95% quantile of the range of that many equally good scores"}


def _source(analysis: Analysis) -> dict:
    lb = analysis.leaderboard
    return {"file": str(lb.source), "format": lb.format, "score_column": lb.score_column,
            "rows_read": int(lb.rows_read), "entries": int(len(lb.entries)), "split": lb.split,
            "dropped": [{"reason": d.reason, "count": int(d.count),
                         "lines": [int(x) for x in d.lines]} for d in lb.dropped]}


def to_json_dict(analysis: Analysis) -> dict:
    """Everything the report says, as a JSON-ready dict (see the module docstring)."""
    document = _document(analysis)
    document["entries"] = [entry for rows in entry_blocks(analysis) for entry in rows]
    return document


_ROWS = object()   # the document's place for the entries, written a block at a time


def _document(analysis: Analysis) -> dict:
    """:func:`to_json_dict` with :data:`_ROWS` in place of the entries' list (in its place in
    the key order)."""
    from leaderboard import __version__

    s = analysis.settings
    n_tiers, tier1_size = tier_counts(analysis)
    return {
        "version": __version__,
        "command": "analyze",
        "metric": s.metric.name,
        "metric_label": s.metric.label,
        "higher_is_better": bool(s.higher_is_better),
        "n_test": _int(s.n_test),
        "prevalence": _num(s.prevalence),
        "alpha": float(s.alpha),
        "draws": int(s.draws),
        "seed": int(s.seed),
        "correlation": (analysis.correlation.to_json() if analysis.correlation is not None else
                        {"value": None, "source": "measured by the paired bootstrap",
                         "low": None, "high": None, "used": None}),
        "d95": _num(analysis.d95),
        "n_tiers": n_tiers,
        "tier1_size": tier1_size,
        "spread_of_equals": _spread_of_equals(analysis),
        "tier_method": analysis.tiers.method if analysis.tiers is not None else None,
        "notes": list(analysis.notes),
        "flags": [{"kind": f.kind, "message": f.message, "teams": list(f.teams)}
                  for f in analysis.flags],
        "left_out": [{"statistics": lo.statistics, "reason": lo.reason, "teams": list(lo.teams)}
                     for lo in analysis.left_out],
        "source": _source(analysis),
        "noise": _noise(analysis),
        "tails": None if analysis.tails is None else analysis.tails.to_json(),
        "mode": "items" if is_items(analysis) else analysis.mode,
        "replicates": int(s.replicates) if analysis.bootstrap is not None else None,
        "resampling": _resampling(analysis),
        "files": _files(analysis),
        "ranks": _ranks(analysis),
        "guarantee_check": _guarantee_check(analysis),
        "shakeup": (None if analysis.shakeup is None else   # every name only when needed
                    shakeup_json(analysis.shakeup, analysis.table["team"].astype(str).tolist())),
        "categories": categories_text.to_json(analysis),
        "entries": _ROWS,
        "assumptions": [a.as_json() for a in analysis.assumptions],
        "items": _items(analysis),
        "card": card_json(analysis.card),   # the leaderboard card (issue 40)
        # per-item results' extras (issue 26), written only when asked for
        **({"costs": costs_json(analysis)} if analysis.costs is not None else {}),
        **({"published": published_json(analysis)} if analysis.published is not None else {}),
    }


def _guarantee_check(analysis: Analysis) -> dict | None:
    """The self-check of the family-wise error at the board's shape (issue 39), or None when
    none was made (scores only, battles: their tests are not checked this way)."""
    ranking = analysis.ranking
    check = getattr(ranking, "guarantee_check", None) if ranking is not None else None
    return None if check is None else check.to_json()


def _items(analysis: Analysis) -> dict | None:
    """Per-item results: the items analysed and why, samples, the pairwise table (issue 26)."""
    if analysis.items is None:
        return None
    pairs = analysis.item_pairs
    return {**analysis.items.to_json(), "pairwise": None if pairs is None else pairs.to_json()}


_JSON_OPTIONS: dict[str, Any] = {"indent": 2, "ensure_ascii": False, "allow_nan": False}
_CHARS_PER_WRITE = 1 << 16  # the encoder's small strings, joined to this size


def json_text(analysis: Analysis) -> str:
    """:func:`to_json_dict` as strictly valid JSON text (what ``--json`` writes): the same
    bytes as ``json.dumps(to_json_dict(analysis), indent=2, ensure_ascii=False)`` and a
    newline, made by :func:`json_pieces`."""
    return "".join(json_pieces(analysis)) + "\n"


def json_pieces(analysis: Analysis) -> Iterator[str]:
    """The text of :func:`to_json_dict`, indented by two, in pieces, without the final newline.

    The top-level keys are written here and each value encoded on its own, its lines indented
    once more (a string's newlines are escaped, so every newline in the encoder's text is
    indentation); the entries come a block of rows at a time
    (:func:`~leaderboard.report.json_entries.entries_text`), so the rows of a large board are
    never all held (1.3 GB at 1,000,000 entries)."""
    encoder = json.JSONEncoder(**_JSON_OPTIONS)
    separator = "{\n  "
    for key, value in _document(analysis).items():
        yield separator + encoder.encode(key) + ": "
        separator = ",\n  "
        if value is _ROWS:
            yield from entries_text(analysis, encoder)
        else:
            yield from (piece.replace("\n", "\n  ") for piece in encoder.iterencode(value))
    yield "\n}"


def write_json(analysis: Analysis, path) -> None:
    """Write :func:`json_text` to ``path`` as UTF-8, the same bytes, encoded piece by piece.

    Streamed because the whole text (50 MB at 100,000 entries), the encoder's list of pieces
    before joining them and the entries' rows (:func:`json_pieces`) cost 0.3 GB at the memory
    peak of a 100,000-entry board and 1.3 GB at 1,000,000."""
    pieces = json_pieces(analysis)
    with open_output(path) as raw, io.TextIOWrapper(raw, encoding=ENCODING, errors=ERRORS,
                                                     newline="\n") as out:
        # joined up to 65,536 characters at a time: json.dump's one write per piece (390,000 for 5,000
        # entries) doubled the JSON's time on a machine's first run (0.22 against 0.11 s); a
        # block of entries is one piece of a few megabytes, written as it comes
        batch: list[str] = []
        size = 0
        for piece in pieces:
            batch.append(piece)
            size += len(piece)
            if size >= _CHARS_PER_WRITE:
                out.write("".join(batch))
                batch, size = [], 0
        out.write("".join(batch) + "\n")
