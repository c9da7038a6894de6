"""Every option a mode of ``analyze`` does not read is refused, even at its default value (issue
40: "every ignored option refused"; ``--draws 2000`` was accepted silently with --battles,
--items and submissions). The cases come from the parser and the modes' lists
(leaderboard.cli.given.ANALYZE_READS), so an option added tomorrow is covered the day it is added.
Parse only: the refusal comes before any input is read, and no analysis runs here."""
from __future__ import annotations

import argparse

import pytest

from leaderboard.cli import build_parser, main
from leaderboard.cli.given import (ANALYZE_READS, GIVEN, analyze_mode, given_options,
                                   refuse_unread)
from leaderboard.errors import InputError

MODES = {"scores": ["board.csv"], "submissions": ["--solution", "s.csv", "--submissions", "d"],
         "items": ["--items", "i.csv"], "battles": ["--battles", "b.csv"]}
#: the options that choose the mode (each is refused in the others: FILE below)
CHOOSERS = {"file", "solution", "submissions", "items", "battles", "help", "command", "debug"}


@pytest.fixture(scope="module")
def parser():
    return build_parser(only="analyze")


def _analyze_actions(parser) -> list[argparse.Action]:
    command = next(a for a in parser._actions if a.dest == "command").choices["analyze"]
    return [a for a in command._actions if a.dest not in CHOOSERS]


def _at_default(action: argparse.Action) -> list[str]:
    """Command-line words giving ``action`` explicitly, at its default value where it has one."""
    flag = action.option_strings[-1]
    if action.nargs == 0:   # --two-stage, --quiet, --higher-is-better: given is all there is
        return [flag]
    if action.default not in (None, ()):
        return [flag, str(action.default)]
    if action.choices:
        return [flag, str(next(iter(action.choices)))]
    for value in ("2", "0.25", "perfect", "0,1;1,0", "x.csv"):
        try:
            action.type is None or action.type(value)
            return [flag, value]
        except Exception:   # noqa: BLE001 - the next candidate
            continue
    raise AssertionError(f"no value parses for {flag}")


def _refusal(parser, argv: list[str]) -> str | None:
    args = parser.parse_args(argv)
    setattr(args, GIVEN, given_options(parser, argv))
    try:
        refuse_unread(args, analyze_mode(args), parser)
    except InputError as error:
        return str(error)
    return None


def test_every_unread_option_at_its_default_is_refused_in_every_mode(parser):
    refused = {mode: [] for mode in MODES}
    for mode, words in MODES.items():
        for action in _analyze_actions(parser):
            given = _at_default(action)
            message = _refusal(parser, ["analyze", *words, *given])
            if action.dest in ANALYZE_READS[mode]:
                assert message is None, (mode, given, message)
                continue
            assert message is not None and "\n" not in message, (mode, given)
            assert message.startswith(f"{given[0]} does not apply to "), (mode, message)
            refused[mode].append(given[0])
    # the ones issue 40 found ignored, and --draws at its default in the three bootstrap modes
    assert {"--draws", "--published", "--exclude-flagged", "--cost-col", "--sample-col",
            "--category-intervals", "--workers"} <= set(refused["battles"])
    assert "--draws" in refused["items"] and "--draws" in refused["submissions"]
    assert {"--resample", "--model-col", "--max-models"} <= set(refused["scores"])
    assert {"--n-test", "--prevalence", "--correlation"} <= set(refused["submissions"])
    assert all(len(names) >= 10 for names in refused.values()), refused


def test_given_tells_explicit_defaults_from_absent_ones(parser):
    base = ["analyze", "--battles", "b.csv"]
    assert given_options(parser, base) == {"command", "battles"}
    assert given_options(parser, [*base, "--dra=2000"]) == {"command", "battles", "draws"}
    assert given_options(parser, [*base, "--lower-is-better"]) == {"command", "battles", "higher"}
    assert _refusal(parser, [*base, "--lower-is-better"]).startswith("--lower-is-better ")
    # the parser keeps its defaults afterwards
    assert parser.parse_args(base).draws == 2000


@pytest.mark.parametrize("mode", ["battles", "items", "submissions"])
def test_the_command_line_refuses_draws_at_its_default(mode, capsys):
    """Through the entry point: one line, exit 2, before the (absent) files are read."""
    status = main(["analyze", *MODES[mode], "--draws", "2000"])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and "--draws does not apply to" in err, err


def test_a_board_given_with_another_mode_is_refused(parser):
    for mode in ("items", "battles"):
        assert _refusal(parser, ["analyze", *MODES[mode], "board.csv"]).startswith(
            "FILE does not apply to")


@pytest.mark.parametrize("command, unread, needed", [
    ("compare", {"--max-entries", "--max-models"}, ["--baseline", "a", "--candidate", "b"]),
    ("choose", {"--max-models"}, [])])
def test_commands_do_not_offer_caps_they_never_read(command, unread, needed, capsys):
    """compare reads no board and no battles, choose no battles: their caps on a board's entries
    or an arena's models were accepted and ignored. Now argparse refuses them (exit 2, one
    line), and the caps the command does read are still offered."""
    offered = {s for a in build_parser(only=command)._subparsers._group_actions[0]
               .choices[command]._actions for s in a.option_strings}
    assert not unread & offered and {"--max-rows", "--max-file-size", "--max-memory"} <= offered
    err = capsys.readouterr().err
    for option in sorted(unread):
        assert main([command, *needed, option, "5"]) == 2
        err = capsys.readouterr().err
        assert option in err and err.count("\n") == 1


def test_choose_draws_and_plan_separate_take_the_tables_bounds(capsys):
    """The command line's bounds are the Python API's: choose --draws was at least 1,000 on the
    command line and 100 in choose_finals; plan --separate at most 10^6 against 10^9."""
    from leaderboard.params import PARAMETERS

    parse = build_parser().parse_args
    assert parse(["choose", "--example", "--draws", str(PARAMETERS["draws"].low)]).draws == 100
    top = PARAMETERS["separate"].high
    assert parse(["plan", "--from", "b.csv", "--separate", str(top)]).separate == top
    with pytest.raises(InputError, match=r"separate= must be .* at most 1000000"):
        from leaderboard.params import check
        check("separate", top + 1)
    with pytest.raises(SystemExit):
        parse(["plan", "--from", "b.csv", "--separate", str(top + 1)])
    assert "at most 1000000" in capsys.readouterr().err
