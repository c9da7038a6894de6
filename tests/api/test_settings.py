"""Settings in one place (issue 42 item 3): the shared defaults are written once, in the parameter
table (:mod:`leaderboard.params`), and every command-line option of a table parameter takes its
default and help from there."""
from __future__ import annotations

import argparse
import ast
import re
from functools import lru_cache
from pathlib import Path

import pytest

from leaderboard import params
from leaderboard.cli import build_parser

PACKAGE = Path(params.__file__).parent
#: The defaults many signatures share, by parameter name, and the constant that holds each.
SHARED = {"alpha": (0.05, "DEFAULT_ALPHA"), "level": (0.95, "DEFAULT_LEVEL"),
          "seed": (0, "DEFAULT_SEED"), "replicates": (2000, "DEFAULT_REPLICATES"),
          "draws": (2000, "DEFAULT_DRAWS"), "tiers": ("rank-sets", "DEFAULT_TIERS"),
          "tier_method": ("rank-sets", "DEFAULT_TIERS"), "method": ("rank-sets", "DEFAULT_TIERS"),
          "resample": ("plain", "DEFAULT_RESAMPLE"), "threshold": (0.5, "DEFAULT_THRESHOLD"),
          "power": (0.8, "DEFAULT_POWER"), "residuals": ("t", "DEFAULT_RESIDUALS"),
          "df": (3.0, "DEFAULT_DF")}


def default_literals(source: str, path: str = "") -> list[tuple[str, int, str]]:
    """``(path, line, name)`` of every literal shared default in ``source``: a parameter's default
    in a signature (``alpha: float = 0.05``), a field's (``seed: int = 0``), a keyword argument
    (``rank_board(..., alpha=0.05)``) and an argparse option's (``"--alpha", default=0.05``)."""
    found = []

    def literal(name: str, node: ast.AST | None) -> None:
        value = SHARED[name][0] if name in SHARED else None
        if isinstance(node, ast.Constant) and type(node.value) in (int, float, str) and \
                isinstance(node.value, str) == isinstance(value, str) and node.value == value:
            found.append((path, node.lineno, name))

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            given = node.args.posonlyargs + node.args.args
            for arg, value in zip(given[len(given) - len(node.args.defaults):],
                                  node.args.defaults):
                literal(arg.arg, value)
            for arg, default in zip(node.args.kwonlyargs, node.args.kw_defaults):
                literal(arg.arg, default)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            literal(node.target.id, node.value)
        elif isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg:
                    literal(keyword.arg, keyword.value)
            first = node.args[0] if node.args else None
            option = first.value if isinstance(first, ast.Constant) else None
            if isinstance(option, str) and option.startswith("--"):
                for keyword in node.keywords:
                    if keyword.arg == "default":
                        literal(option[2:].replace("-", "_"), keyword.value)
    return found


def test_the_counter_finds_each_way_of_writing_a_default():
    source = ("def f(x, alpha=0.05, *, seed: int = 0, level=0.9): g(replicates=2000)\n"
              "class O:\n    draws: int = 2000\n"
              "p.add_argument('--alpha', default=0.05)\nalpha = 0.05\n"
              "def h(method='rank-sets', resample='poisson', df=3, residuals=3.0): pass\n")
    assert sorted((line, name) for _, line, name in default_literals(source)) == [
        (1, "alpha"), (1, "replicates"), (1, "seed"), (3, "draws"), (4, "alpha"), (6, "df"),
        (6, "method")]
    assert all(_MAYBE.search(line) for line in source.splitlines()[:-1] if "(" in line)


#: A line that may write one (parsing only the files that have one keeps the test fast).
_MAYBE = re.compile(r"\b(alpha|level|seed|replicates|draws|tiers|tier_method|method|resample|"
                    r"threshold|power|residuals|df|default)\b[^=\n]{0,30}=\s*"
                    r"(0\.05|0\.95|0|2000|0\.5|0\.8|3\.0|3|['\"](rank-sets|plain|t)['\"])")


def test_the_shared_defaults_are_written_once_in_the_table():
    texts = {path: path.read_text(encoding="utf-8") for path in sorted(PACKAGE.rglob("*.py"))}
    found = [hit for path, text in texts.items() if _MAYBE.search(text)
             for hit in default_literals(text, str(path.relative_to(PACKAGE)))]
    assert found == [], "name the constant of leaderboard.params instead: " + ", ".join(
        f"{path}:{line} {name}" for path, line, name in found)
    for name, (value, constant) in SHARED.items():
        assert getattr(params, constant) == value, name


@lru_cache(maxsize=1)
def _command_parsers() -> dict[str, argparse.ArgumentParser]:
    top = build_parser()
    (commands,) = [a for a in top._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(commands.choices)


#: Options of table parameters that keep a default or help of their own, and why (issue 42: 19
#: before; the help of every option of a table parameter is the table's now).
OWN: dict[tuple[str, str], str] = {}
#: Options of the command line with a default not taken from the table (issue 42: 40 before,
#: among them the caps, --max-file-size, --residuals, --df, --tiers, --top-k, --output).
OWN_DEFAULT: set[tuple[str, str]] = set()


@pytest.mark.parametrize("command", ["analyze", "simulate", "plan", "calibrate", "choose",
                                     "compare"])
def test_every_option_of_a_table_parameter_takes_default_and_help_from_the_table(command):
    parser = _command_parsers()[command]
    checked = 0
    for action in parser._actions:
        name, own = action.dest, (command, action.dest) in OWN
        described = f"{command}:{name}" in params.OPTIONS or name in params.OPTIONS
        if described and not own and not (command == "plan" and name in _plan_from_reading()):
            table = params.option(name, command)
            assert (action.default, action.help) == (table.default, table.help), action.option_strings
            checked += 1
        elif name in params.PARAMETERS and action.default not in (None, False, argparse.SUPPRESS):
            assert own, f"{command} {action.option_strings}: give its default and help to " \
                        "leaderboard.params.OPTIONS"
    assert checked >= 2   # every command has alpha or seed at least


def _plan_from_reading() -> tuple[str, ...]:
    """``plan --from``'s reading options: analyze's, copied (default None, help said)."""
    from leaderboard.cli.plan_from import READING

    return READING


def test_an_option_parses_within_the_table_bounds():
    parser = argparse.ArgumentParser()
    from leaderboard.cli.common import add_parameter

    add_parameter(parser, "prizes")
    with pytest.raises(SystemExit):
        parser.parse_args(["--prizes", "0"])
    assert parser.parse_args(["--prizes", "2"]).prizes == 2
    assert parser.parse_args([]).prizes == params.default("prizes") == 3


def _options():
    """``(command, action)`` of every option of every command (not --help, --version)."""
    for command, parser in _command_parsers().items():
        for action in parser._actions:
            if action.option_strings and not isinstance(
                    action, (argparse._HelpAction, argparse._VersionAction)):
                yield command, action


def _from_table(command: str, action: argparse.Action) -> bool:
    name = action.dest
    if f"{command}:{name}" not in params.OPTIONS and name not in params.OPTIONS:
        return False
    table = params.option(name, command)
    return (action.default, action.help) == (table.default, table.help)


def test_no_option_of_the_command_line_has_a_default_of_its_own():
    """Issue 42: an option's default is the parameter table's (leaderboard.params.OPTIONS, through
    add_parameter); a new option declared with ``add_argument(..., default=...)`` fails here. Its
    help comes with it, and its bounds with a table parameter's constraint."""
    own = {(command, action.dest) for command, action in _options()
           if action.default not in (None, False, argparse.SUPPRESS)
           and not _from_table(command, action)}
    assert own - OWN_DEFAULT == set(), "give the default and help to leaderboard.params.OPTIONS " \
                                       "and declare the option with add_parameter"
    assert own == OWN_DEFAULT   # an exception that is gone leaves the list
    assert sum(_from_table(c, a) for c, a in _options()) >= 83   # 43 before issue 42's move


def test_the_counter_of_own_defaults_sees_one():
    parser = argparse.ArgumentParser()
    parser.add_argument("--alpha", type=float, default=0.1, help="error rate")
    (action,) = [a for a in parser._actions if a.dest == "alpha"]
    assert action.default not in (None, False, argparse.SUPPRESS)
    assert not _from_table("analyze", action)
    from leaderboard.cli.common import add_parameter

    parser = argparse.ArgumentParser()
    add_parameter(parser, "alpha")
    assert _from_table("analyze", [a for a in parser._actions if a.dest == "alpha"][0])


def test_the_python_api_hands_values_to_the_options_objects_without_casts():
    """The options objects take sequences and normalise them (to tuples) in one place."""
    from leaderboard.options import AnalyzeOptions, RankOptions, ReadOptions, universe_from

    assert RankOptions(top_k=[10, 3]).top_k == (10, 3)
    assert ReadOptions(target_col="y", pred_col=["a", "b"]).target_col == ("y",)
    assert AnalyzeOptions(exclude_flagged=["junk"]).exclude_flagged == ("junk",)
    assert universe_from(class_shares=[0.5, 0.3, 0.2]).class_shares == (0.5, 0.3, 0.2)
    casts = [path.name for path in PACKAGE.glob("api*.py")
             if "cast(" in path.read_text(encoding="utf-8")]
    assert casts == []


def test_every_settings_shape_is_composed_of_the_options_objects():
    """Issue 42: a settings class holds the options objects and the values of its own question,
    never a copy of an options object's field (BattlesSettings had repeated RankOptions'; a
    field of an options object read through the settings is a read-only property)."""
    import dataclasses

    from leaderboard import options
    from leaderboard.api_battles import BattlesSettings
    from leaderboard.pipelines.analysis import Settings
    from leaderboard.pipelines.choose import ChooseSettings
    from leaderboard.pipelines.compare import GateOptions
    from leaderboard.pipelines.plan import PlanSettings

    objects = (options.NoiseOptions, options.RankOptions, options.SliceOptions,
               options.ReadOptions, options.ArenaOptions)
    # ``metric``: the settings' configured Metric, made from NoiseOptions' name (and beta, costs)
    theirs = {f.name for cls in objects for f in dataclasses.fields(cls)} - {"metric"}
    for shape in (Settings, BattlesSettings, GateOptions, PlanSettings, ChooseSettings):
        own = {f.name for f in dataclasses.fields(shape) if f.type not in
               {cls.__name__ for cls in objects}}
        assert own & theirs == set(), shape.__name__
        assert any(f.type in {cls.__name__ for cls in objects} for f in dataclasses.fields(shape))


def test_every_option_of_a_table_parameter_is_declared_from_the_table():
    """Issue 42: default, bounds and help of every option whose parameter the table holds come
    from the table (118 options of table parameters were declared by hand before; plan --from's
    reading options are analyze's, copied, their help said with '(with --from)')."""
    by_hand = [(command, action.option_strings[-1]) for command, action in _options()
               if action.dest in params.PARAMETERS and not _from_table(command, action)
               and not (command == "plan" and action.dest in _plan_from_reading())]
    assert by_hand == [], "declare them with add_parameter, their help in the table"
