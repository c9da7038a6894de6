"""Which options the command line gave, and the one refusal of an option its mode does not read.

argparse fills every option it was not given with its default, so ``--draws 2000`` (the default)
and no ``--draws`` at all parse to the same namespace: a check on values lets an option given at
its default through, silently ignored (issue 40: "every ignored option refused"). So the command
line is parsed a second time by the same parser with every default set to
:data:`argparse.SUPPRESS`: what that namespace holds, the user wrote (abbreviations,
``--option=value``, repeats and mutually exclusive flags resolved by argparse itself, not by a
second reading of ``argv``).

The modes of ``leaderboard analyze`` and what each reads are listed here, once
(:data:`ANALYZE_READS`); :func:`refuse_unread` is called by every mode before any input is read.
"""
from __future__ import annotations

import argparse
from collections.abc import Sequence

from leaderboard.errors import InputError

#: The attribute of the parsed namespace that holds the destinations given on the command line.
GIVEN = "given_options"

# What every mode of analyze reads: the outputs, the level, the seed, the tiers, the caps.
_EVERY_MODE = frozenset({
    "command", "debug", "example", "output", "json", "csv", "markdown", "quiet", "alpha", "seed",
    "tiers", "prizes", "top_k", "max_file_size", "max_name_length", "max_columns", "max_rows",
    "max_memory", "max_expansion"})
# static_charts: a page of Vega charts (the arena's page draws its one chart without a script)
_SCORED = frozenset({"metric", "higher", "beta", "costs", "replicates", "exclude_flagged",
                     "static_charts"})

#: The options (argparse destinations) each mode of ``leaderboard analyze`` reads; any other
#: given on the command line, even at its default value, is refused in one line.
ANALYZE_READS: dict[str, frozenset[str]] = {
    "scores": _EVERY_MODE | _SCORED | {
        "file", "n_test", "prevalence", "team_col", "score_col", "public_col", "private_col",
        "split", "n_public", "n_private", "public_fraction", "two_stage", "draws", "correlation",
        "max_entries", "universe", "classes", "class_shares", "residuals", "df", "kurtosis",
        "threshold", "spread"},
    "submissions": _EVERY_MODE | _SCORED | {
        "solution", "submissions", "id_col", "target_col", "pred_col", "group_col", "split",
        "resample", "workers", "scheduler"},
    "items": (_EVERY_MODE | _SCORED | {
        "items", "items_format", "instances", "missing_instances", "model_col", "item_col",
        "value_col", "target_col", "cluster_col", "category_col", "category_intervals",
        "harness_filter", "sample_col", "items_policy", "cost_col", "published",
        "published_col", "published_model_col", "resample"}) - {"beta", "costs"},
    "battles": _EVERY_MODE | {
        "battles", "model_a_col", "model_b_col", "winner_col", "judge_col", "date_col",
        "category_col", "cluster_col", "anchor", "anchor_rating", "disconnected", "replicates",
        "max_models"},
}
#: How each mode is named in a refusal, and what it reads instead.
_MODE_WORDS = {
    "scores": "a board of scores (its noise is simulated from --metric, --n-test and "
              "--prevalence)",
    "submissions": "submissions mode (predictions rescored on resampled rows of the solution)",
    "items": "--items (per-item results: the paired bootstrap of items)",
    "battles": "--battles (an arena is rated from its battles alone, by a Bradley-Terry fit)",
}
#: How a user asks for each mode, to say where a refused option belongs.
_MODE_FLAGS = {"scores": "a board of scores", "submissions": "--solution and --submissions",
               "items": "--items", "battles": "--battles"}
#: What an option refused in a mode is for, where that helps: (mode or None, dest) -> words.
_HINTS: dict[tuple[str | None, str], str] = {
    (None, "workers"): "; --workers and --scheduler run submissions mode on a Dask cluster",
    (None, "scheduler"): "; --workers and --scheduler run submissions mode on a Dask cluster",
    (None, "group_col"): "; clusters of items or battles: --cluster-col",
    ("battles", "static_charts"): "; its page draws its chart without JavaScript already",
    **{("submissions", dest): "; the sizes come from the solution file (its Usage column)"
       for dest in ("n_test", "prevalence", "n_public", "n_private", "public_fraction",
                    "two_stage")},
}


def given_options(parser: argparse.ArgumentParser, argv: Sequence[str]) -> frozenset[str]:
    """The destinations ``argv`` gives explicitly, whatever their values (``argv`` must parse).

    Examples
    --------
    >>> p = argparse.ArgumentParser()
    >>> _ = p.add_argument("--draws", type=int, default=2000)
    >>> _ = p.add_argument("--seed", type=int, default=0)
    >>> sorted(given_options(p, ["--draws", "2000"])), sorted(given_options(p, ["--dr=5"]))
    (['draws'], ['draws'])
    """
    saved = []
    for each in _parsers(parser):
        saved.append((each, each._defaults, [(a, a.default) for a in each._actions]))
        each._defaults = {}
        for action in each._actions:
            action.default = argparse.SUPPRESS
    try:
        return frozenset(vars(parser.parse_args(list(argv))))
    finally:
        for each, defaults, actions in saved:
            each._defaults = defaults
            for action, default in actions:
                action.default = default


def _parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """The parser and its subcommands' parsers, depth first."""
    found = [parser]
    for action in parser._actions:   # noqa: SLF001 - argparse keeps no public list
        if isinstance(action, argparse._SubParsersAction):   # noqa: SLF001
            for sub in dict.fromkeys(action.choices.values()):
                found += _parsers(sub)
    return found


def given(args: argparse.Namespace, parser: argparse.ArgumentParser) -> frozenset[str]:
    """The destinations given: as recorded by the entry point (:data:`GIVEN`), else (a namespace
    built by a caller's own ``parse_args``) every one whose value differs from its default."""
    recorded = getattr(args, GIVEN, None)
    if recorded is not None:
        return recorded
    return frozenset(a.dest for a in _actions(parser) if hasattr(args, a.dest)
                     and getattr(args, a.dest) != a.default)


def _actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for each in _parsers(parser) for a in each._actions]   # noqa: SLF001


def analyze_mode(args: argparse.Namespace) -> str:
    """The mode a parsed ``analyze`` command line runs: battles, items, submissions or scores."""
    example = getattr(args, "example", None)
    if getattr(args, "battles", None) is not None or example == "battles":
        return "battles"
    if getattr(args, "items", None) is not None or example == "items":
        return "items"
    if (getattr(args, "solution", None) is not None or getattr(args, "submissions", None)
            is not None or example == "submissions"):
        return "submissions"
    return "scores"


def refuse_unread(args: argparse.Namespace, mode: str,
                  parser: argparse.ArgumentParser | None = None) -> None:
    """One line, exit 2, naming the first option given that ``mode`` of ``analyze`` does not
    read, even when it was given at its default value (it would be ignored). ``parser``:
    ``leaderboard``'s parser with ``analyze`` (built when not given).

    Examples
    --------
    >>> ns = argparse.Namespace(**{GIVEN: frozenset({"command", "items", "draws"})})
    >>> try:
    ...     refuse_unread(ns, "items")
    ... except InputError as error:
    ...     print(str(error)[:40])
    --draws does not apply to --items (per-i
    """
    if parser is None:   # the command line's parser (the one that parsed ``args``)
        from leaderboard.cli import build_parser

        parser = build_parser(only="analyze")
    reads, shown = ANALYZE_READS[mode] | {"help"}, given(args, parser)
    for action in _actions(parser):
        if action.dest in shown and action.dest not in reads:
            hint = _HINTS.get((mode, action.dest)) or _HINTS.get((None, action.dest), "")
            elsewhere = [_MODE_FLAGS[m] for m, read in ANALYZE_READS.items() if action.dest in read]
            where = f" (it is read with {' or '.join(elsewhere)})" if elsewhere else ""
            raise InputError(f"{_flag(action, args)} does not apply to {_MODE_WORDS[mode]}"
                             f"{hint}: drop it{where}")


def _flag(action: argparse.Action, args: argparse.Namespace) -> str:
    """The option's name as the user knows it (the positional board: FILE)."""
    if not action.option_strings:
        return "FILE"
    if isinstance(action, argparse._StoreConstAction):   # noqa: SLF001 - --higher/--lower-is-better
        value = getattr(args, action.dest, None)
        return ("--higher-is-better" if value else "--lower-is-better") if \
            action.dest == "higher" else action.option_strings[-1]
    return action.option_strings[-1]
