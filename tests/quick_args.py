"""Little simulation for a test's ``leaderboard analyze`` run, in the words its mode reads.

``--draws`` (the universes simulated for a board of scores) is refused by the other modes, even
at its default value (leaderboard.cli.given): it is added only where the command line runs a
board of scores; ``--replicates`` every mode reads."""
from __future__ import annotations

from collections.abc import Sequence


def quick(argv: Sequence[object], draws: int | str = 200,
          replicates: int | str = 200) -> list[str]:
    """The words to add to ``argv`` (``analyze``'s arguments, with or without ``analyze``)."""
    from leaderboard.cli import build_parser
    from leaderboard.cli.given import analyze_mode

    words = [str(word) for word in argv]
    words = words[1:] if words[:1] == ["analyze"] else words
    args = build_parser(only="analyze").parse_args(["analyze", *words])
    return (["--draws", str(draws)] if analyze_mode(args) == "scores" else []) + [
        "--replicates", str(replicates)]
