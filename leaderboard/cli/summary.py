"""The terminal summary of ``leaderboard analyze``: a few plain, printable lines."""
from __future__ import annotations

from typing import TYPE_CHECKING

from leaderboard.cli.common import wrote
from leaderboard.confidence import confidence_label
from leaderboard.errors import printable
from leaderboard.tiers.methods import TIER_METHODS

if TYPE_CHECKING:
    from leaderboard.pipelines.scores import Analysis


def _names(teams) -> str:
    from leaderboard.report.headline import name_list   # quoted when a name holds a comma

    return name_list([printable(t) for t in teams], limit=10)


def _best_and_tier_one(result: Analysis) -> list[str]:
    """Who could be the best (the confidence set of the best), then tier 1 and how it differs."""
    table, conf = result.table, confidence_label(result.settings.alpha)
    method = TIER_METHODS[result.ranking.method if result.ranking is not None
                          else result.settings.tier_method]
    tier_one = table.loc[table["tier"] == 1, "team"]
    k = len(tier_one)
    lines = []
    if "in_best_set" in table.columns:
        best = table.loc[table["in_best_set"].astype(bool), "team"]
        compared = int((table["tier"] > 0).sum())   # entries without a noise model: tier 0
        lines.append(f"could be the best ({conf} confidence set of the best): {len(best)} of "
                     f"{compared} {'compared ' if compared < len(table) else ''}"
                     f"entr{'y' if compared == 1 else 'ies'}: {_names(best)}")
    if method.same_family_as_rank_sets:
        why = ("no entry shown to beat them while all rank sets hold at once, a wider, "
               "simultaneous guarantee")
    else:
        why = f"by {method.label}, another procedure than the rank sets"
    lines.append(f"tier 1 ({why}): {k} entr{'y' if k == 1 else 'ies'}: {_names(tier_one)}")
    check = getattr(result.ranking, "guarantee_check", None)
    if check is not None and check.ran and method.same_family_as_rank_sets:
        lines.append(f"guarantee checked at this shape ({check.models:,} \u00d7 {check.units:,} "
                     f"{check.unit}s, {check.boards} null boards): some pair declared different "
                     f"on {100 * check.error:.1f}% \u00b1 {100 * check.se:.1f}% (promised at most "
                     f"{100 * check.alpha:g}%){'; it falls short here' if check.falls_short else ''}")
    return lines


def summary(result: Analysis, html_path: str | None = None, json_path: str | None = None,
            *more_paths: str | None) -> str:
    """A few plain lines for the terminal; the last names every file written (``more_paths``:
    the CSV and Markdown exports)."""
    board, settings, table = result.leaderboard, result.settings, result.table
    direction = "higher" if settings.higher_is_better else "lower"
    lines = [f"{board.source}: {len(table)} entries ranked by {board.score_column} "
             f"({settings.metric.label}, {direction} is better)"]
    lines += [f"flag: {printable(f.message)}" for f in result.flags]
    leader = result.leader_distribution    # there whenever d95 is (the model's or bootstrap's)
    if result.d95 is not None and leader is not None:
        level = leader.true_score
        where = (f"{level:.6g}, the middle of the leader's interval"
                 if result.noise is not None and result.noise.leader_at_middle
                 else f"the leader's score {table['score'].iloc[0]:.6g}")
        lines.append(f"d95 at {where}: {result.d95:.4g} " + (
            "(two equally good models differ by more than this one time in twenty)"
            if result.d95 > 0 else "(the leader's score is the same on every resample of the "
            "test set, as a perfect score is: its noise cannot be measured)"))
        lines += _best_and_tier_one(result)
        from leaderboard.report.headline import spreads

        spread = spreads(result)
        if spread is not None and spread["n"] > 2:
            lines.append(f"spread of {spread['n']:,} equally good entries (best to worst, 19 times "
                         f"in 20, independent): {spread['independent']:.4g}; at correlation "
                         f"{spread['rho']:.3g} ({spread['kind']}): {spread['correlated']:.4g}")
        if result.correlation is not None:
            lines.append(f"correlation between entries: {result.correlation.fact()}")
        tails = getattr(result, "tails", None)
        if tails is not None:
            lines.append(f"residuals' tails: {tails.fact()}")
    sk = result.shakeup
    if sk is not None:
        from leaderboard.report.numbers import number
        from leaderboard.report.words import pct

        line = (f"public vs private: Spearman {number(sk.stats.spearman, '.2f')}, entries "
                f"moved {pct(sk.stats.mean_abs_rank_change)} of the board on average")
        if sk.baseline is not None and sk.overfit is not None:   # made together
            cover = sk.compared if sk.compared is not None else sk.stats
            over = ("" if cover is sk.stats else
                    f" over the {cover.n_entries:,} of {sk.stats.n_entries:,} entries whose noise "
                    "is known")
            line += (f" (noise alone{over}: Spearman {number(sk.baseline.noise_spearman, '.2f')}, "
                     f"{pct(sk.baseline.noise_mean_abs_rank_change)}); "
                     f"p_overfit {number(sk.overfit.p_overfit, '.3g')}")
        lines.append(line)
    if result.tiers is None and result.notes:
        lines.append(result.notes[0])  # why there are no intervals
    if result.submissions is not None:
        lines.append(files_line(result.submissions, len(table)))
    if result.costs is not None:   # --cost-col: the decision, in the page's own sentence
        from leaderboard.report.benchmark_text import costs_context

        context = costs_context(result, lambda x: f"{x:.4g}")
        if context is not None:
            lines.append("cost: " + printable(context["answer"]))
    if any((html_path, json_path, *more_paths)):
        lines.append(wrote((html_path, json_path, *more_paths)))
    return "\n".join(lines)


def files_line(submissions, scored: int) -> str:
    """The account of the models (or submission files): found, scored, rejected, set aside;
    files of the folder that are not results (a SWE-bench system's metadata.yaml) are counted
    apart, never as models found.

    Examples
    --------
    >>> from types import SimpleNamespace as F
    >>> files = [F(status="ok", file="a"), F(status="ok", file="b"),
    ...          F(status="skipped", file="a/metadata.yaml", reason="not the results read")]
    >>> files_line(F(files=files, layout="items"), 2)
    'models: 2 found, 2 scored, 0 rejected; 1 other file skipped (not the results read)'
    """
    files = submissions.files
    skipped = [f for f in files if f.status == "skipped"]
    bad = [f for f in files if f.status == "rejected"]
    aside = sum(f.status == "set aside" for f in files)
    what = "models" if submissions.layout == "items" else "submission files"
    line = (f"{what}: {len(files) - len(skipped):,} found, {scored:,} scored, {len(bad):,} "
            "rejected" + (f" (first: {printable(bad[0].file)}: {printable(bad[0].reason)})"
                          if bad else "") + (f", {aside:,} set aside" if aside else ""))
    if skipped:
        line += (f"; {len(skipped):,} other file{'s' if len(skipped) > 1 else ''} skipped "
                 f"({printable(skipped[0].reason)})")
    return line
