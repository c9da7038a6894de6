"""The package's build backend: setuptools', plus the Vega JavaScript bundle made before a wheel.

Pages inline the JavaScript of Vega, Vega-Lite and vega-embed, which vl-convert builds in ~1 s of
CPU; built on a user's first run it was that run's largest cost (docs/benchmarks.md). So, as
plotly.py ships plotly.min.js and Bokeh ships BokehJS built at build time, the wheel carries it:
before a wheel or an editable install is built, vl-convert (a build requirement, as is Altair,
whose Vega-Lite version picks the bundle's) writes it into ``leaderboard/report/vega/_bundle/``
(git-ignored, package data; the licences are in ``leaderboard/report/vega/VEGA_NOTICES.txt``).
Every other hook is setuptools' own. The sdist does not carry the bundle: a wheel built from it
makes its own.

When vl-convert cannot build it here (no vl-convert in a ``--no-build-isolation`` environment, no
address space for its engine), the wheel is built without it and says so on standard error: the
package then builds the bundle on its first run, as it did before.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F401,F403 - every hook not defined below

_SHIPPED = Path(__file__).resolve().parents[1] / "leaderboard" / "report" / "vega" / "shipped.py"


def _ship_bundle() -> None:
    """Write the bundle into the package's data (``shipped.write_bundle``), loaded by its path:
    importing the package would import numpy, pandas and the rest, which the build lacks."""
    spec = importlib.util.spec_from_file_location("_leaderboard_shipped", _SHIPPED)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {_SHIPPED}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    try:
        path = module.write_bundle()
    except Exception as error:   # the package still works: it builds the bundle on first use
        sys.stderr.write(f"leaderboard build: the Vega bundle was not shipped ({error}); the "
                         "package will build it on its first run\n")
        return
    sys.stderr.write(f"leaderboard build: shipping {path.name} ({path.stat().st_size:,} bytes)\n")


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    _ship_bundle()
    return _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    _ship_bundle()
    return _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)
