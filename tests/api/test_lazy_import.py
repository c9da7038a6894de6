"""``import leaderboard`` is light: the pipelines, numba, pandas and scikit-learn load on first use
of a public name (issue 27), and every name in ``__all__`` still resolves."""
from __future__ import annotations

import json
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


# What a command line that only answers (its help, an option's error, a missing input) must not
# import: SciPy's statistics (~1 s: it pulls sparse, spatial, optimize, ndimage), Altair, and,
# for the help and an option's error, nothing of the statistics at all (issue 27).
STATISTICS = ("numpy", "pandas", "numba", "scipy", "sklearn", "leaderboard.pipelines",
              "leaderboard.metrics.registry")


def _modules_after(argv: list[str], watched: tuple[str, ...]) -> tuple[int, list[str], str]:
    """Exit status, the ``watched`` modules loaded, and stderr of ``leaderboard argv`` run in a
    fresh interpreter."""
    code = "\n".join([
        "import contextlib, io, json, sys",
        "from leaderboard.cli import main",
        "err = io.StringIO()",
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):",
        f"    status = main({argv!r})",
        f"print(json.dumps([status, [m for m in {watched!r} if m in sys.modules], err.getvalue()]))"])
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    status, loaded, stderr = json.loads(out.stdout)
    return status, loaded, stderr


def test_help_and_an_option_error_load_none_of_the_statistics():
    assert _modules_after(["--help"], STATISTICS)[:2] == (0, [])
    # a command's help lists the metrics (their registry imports every metric's code), no more
    assert _modules_after(["analyze", "--help"], ("scipy.stats", "leaderboard.pipelines", "altair",
                                                  "leaderboard.report.html"))[:2] == (0, [])
    status, loaded, stderr = _modules_after(["analyze", "board.csv", "--seed", "-3"], STATISTICS)
    assert (status, loaded) == (2, []) and "--seed must be at least 0" in stderr, stderr
    status, loaded, stderr = _modules_after(["anlyze", "board.csv"], STATISTICS)
    assert (status, loaded) == (2, []) and "invalid choice: 'anlyze'" in stderr, stderr


def test_a_missing_input_loads_neither_scipy_stats_nor_the_report(tmp_path):
    missing = str(tmp_path / "missing.csv")
    status, loaded, stderr = _modules_after(
        ["analyze", missing, "--metric", "auc", "-o", str(tmp_path / "r.html")],
        ("scipy.stats", "altair", "leaderboard.report.html", "leaderboard.report.json_out"))
    assert (status, loaded) == (2, []) and "file not found" in stderr, stderr


def test_the_metric_list_is_still_in_the_help():
    out = subprocess.run([sys.executable, "-m", "leaderboard", "analyze", "--help"],
                         capture_output=True, text=True, check=True).stdout
    words = " ".join(out.split())
    assert "one page for all): auc, auc_ovr," in words and "{metrics}" not in words


def test_a_small_board_never_imports_numba(tmp_path):
    """Every step of the bundled example (40 entries) has a numpy path, and the kernels import
    numba when one first runs (leaderboard._jit): its run loads neither numba nor llvmlite
    (issue 41: ~0.2 s of a 0.9 s warm run)."""
    status, loaded, stderr = _modules_after(
        ["analyze", "--example", "--quiet", "--draws", "200", "--replicates", "200",
         "-o", str(tmp_path / "r.html"), "--json", str(tmp_path / "r.json")],
        ("numba", "llvmlite", "scipy.stats"))
    assert (status, loaded) == (0, []), stderr


def test_a_kernel_imports_numba_on_its_first_call_and_takes_the_stand_ins_places():
    code = "\n".join([
        "import sys",
        "from leaderboard.tiers import _block_kernels as k",
        "from leaderboard.tiers._block_kernels import se_pair",
        "before = ['numba' in sys.modules, type(k.se_range).__name__, type(se_pair).__name__]",
        "low, high = k.se_range(1.0, 0.5, 2.0, 0.0)",   # compiled code calling se_pair
        "after = ['numba' in sys.modules, type(k.se_range).__name__, type(k.se_pair).__name__]",
        "print(before, after, round(1 / high, 6), se_pair(3.0, 4.0, 0.0))"])
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["[False,", "'_Kernel',", "'_Kernel']", "[True,",
                                  "'CPUDispatcher',", "'CPUDispatcher']", "1.118034", "5.0"], \
        out.stdout
