"""What ``leaderboard analyze`` writes once one analysis is done: its warnings on standard error,
the page (``-o``), the JSON (``--json``), the tier table as CSV and Markdown (``--csv``,
``--markdown``) and the summary on the terminal.

The report is the last stage: this module imports it (Altair, ~1 s) only when the analysis has
run, so the options are parsed and the inputs read before any of it loads.
"""
from __future__ import annotations

import argparse
import sys
from functools import partial
from typing import TYPE_CHECKING, TextIO

from leaderboard.choices import ITEM_FLAGS
from leaderboard.cli.common import echo, write_output
from leaderboard.cli.outputs import text_writer
from leaderboard.cli.summary import summary
from leaderboard.errors import printable

if TYPE_CHECKING:
    from leaderboard.pipelines.scores import Analysis

#: flags said on standard error too (issue 25: groups of items found, few clusters, published
#: scores outside their intervals) when the summary does not reach a terminal
WARNED = ("undeclared_groups", "few_clusters", "published_outside", "published_unmatched")


def write_analysis(result: Analysis, args: argparse.Namespace) -> None:
    """Write every output ``args`` names for ``result``, and say what was written.

    The page is always written (``args.output``); the JSON, CSV and Markdown when their paths
    are given. Unless ``--quiet``: the flags of :data:`WARNED` and the per-item flags go to
    standard error when standard output is no terminal (on a terminal the summary lists every
    flag before the numbers), and the summary is printed.
    """
    from leaderboard.report import exports, write_html, write_json

    if not args.quiet and not _is_terminal(sys.stdout):
        for flag in result.flags:
            if flag.kind in WARNED or flag.kind in ITEM_FLAGS:
                print(f"warning: {printable(flag.message)}", file=sys.stderr)
    write_output(partial(write_html, result, static_charts=args.static_charts), args.output)
    if args.json:
        write_output(partial(write_json, result), args.json)
    for path, text in ((args.csv, exports.to_csv), (args.markdown, exports.to_markdown)):
        if path:
            write_output(text_writer(partial(text, result)), path)
    if not args.quiet:
        echo(summary(result, args.output, args.json, args.csv, args.markdown))


def _is_terminal(stream: TextIO) -> bool:
    """Whether ``stream`` is a terminal (a replaced stream without ``isatty`` is not).

    Examples
    --------
    >>> import io
    >>> _is_terminal(io.StringIO())
    False
    """
    return bool(getattr(stream, "isatty", lambda: False)())
