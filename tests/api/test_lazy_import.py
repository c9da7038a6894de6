"""``import leaderboard`` is light: the pipelines, numba, pandas and scikit-learn load on first use
of a public name (issue 27), and every name in ``__all__`` still resolves."""
from __future__ import annotations

import subprocess
import sys

import leaderboard

HEAVY = ("numba", "pandas", "sklearn", "scipy", "leaderboard.api", "leaderboard.pipelines")


def test_import_loads_no_pipeline_and_no_heavy_library():
    """Then, in the same fresh interpreter, the command line's --help builds every command's
    options without the report package (its Altair costs ~0.4 s): the report loads when a page
    or a study's table is written."""
    code = "\n".join([
        "import contextlib, io, sys, leaderboard",
        f"print([m for m in {HEAVY!r} if m in sys.modules])",
        "from leaderboard.cli import main",
        "out = io.StringIO()",
        "with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):",
        "    main(['--help'])",
        "print('usage' in out.getvalue(), "
        "[m for m in ('altair', 'leaderboard.report') if m in sys.modules])"])
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines() == ["[]", "True []"], out.stdout


def test_every_exported_name_resolves_and_dir_lists_it():
    for name in leaderboard.__all__:
        assert getattr(leaderboard, name) is not None
        assert name in dir(leaderboard)
    from leaderboard.api import analyze
    from leaderboard.pipelines.scores import Settings
    assert leaderboard.analyze is analyze and leaderboard.Settings is Settings


def test_unknown_name_is_an_attribute_error_and_submodules_still_import():
    try:
        leaderboard.no_such_name  # noqa: B018
    except AttributeError as error:
        assert "no_such_name" in str(error)
    else:
        raise AssertionError("an unknown name resolved")
    from leaderboard import resources
    assert resources.data_dir().is_dir()
