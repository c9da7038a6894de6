"""The Vega JavaScript bundle shipped inside the package, made when the wheel is built.

Every page with charts inlines the JavaScript of Vega, Vega-Lite and vega-embed, which
:func:`vl_convert.javascript_bundle` builds (about 0.9 MB, ~1 s of CPU, the same bytes for a
given vl-convert and Vega-Lite version). Building it on a fresh install's first run was that
run's largest cost (docs/benchmarks.md, "The first run against the warm run"), so the build
backend (``_build/backend.py``, wrapping setuptools') builds it with vl-convert before it builds a
wheel or an editable install, into :data:`FOLDER` (package data, git-ignored: it is generated,
never committed), with its digest beside it. Their licences are in ``VEGA_NOTICES.txt`` beside
this module. At run time :func:`leaderboard.report.vega.bundle_cache.shipped_bundle` takes it only
when its name says the running vl-convert and Vega-Lite versions and it passes the cache's checks;
else the page's bundle comes from the user's cache or is built, as before.

This module imports nothing but the standard library at its top: the build backend loads it by
its path, in an environment that has vl-convert and Altair but not the package's other
dependencies.
"""
from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Iterable
from pathlib import Path

FOLDER = Path(__file__).with_name("_bundle")
PREFIX = "vega-bundle-"


def bundle_name(version: str, vl_version: str | None) -> str:
    """The bundle's file name for vl-convert ``version`` and Vega-Lite ``vl_version`` (None:
    vl-convert's default), the same in the user's cache and in the package.

    Examples
    --------
    >>> bundle_name("1.9.0", "6.4")
    'vega-bundle-1.9.0-6.4.js'
    >>> bundle_name("1.9.0", None)
    'vega-bundle-1.9.0-default.js'
    """
    return f"{PREFIX}{version}-{vl_version or 'default'}.js"


def vega_lite_version(schema_version: str, available: Iterable[str]) -> str | None:
    """The Vega-Lite version Altair writes specifications for (its ``SCHEMA_VERSION``, major and
    minor) when vl-convert has it (``available``), else None (vl-convert's newest).

    Examples
    --------
    >>> vega_lite_version("v6.4.1", ["5.20", "6.1", "6.4"])
    '6.4'
    >>> vega_lite_version("v7.0.0", ["5.20", "6.4"]) is None
    True
    """
    wanted = ".".join(schema_version.lstrip("v").split(".")[:2])
    return wanted if wanted in available else None


def digest_text(data: bytes) -> str:
    """The digest file's text, in :func:`leaderboard.disk_cache.digest`'s format (SHA-256 and
    length; tests/report/test_shipped_bundle.py reads a written bundle through that module)."""
    return f"sha256 {hashlib.sha256(data).hexdigest()} {len(data)}\n"


def write_bundle(folder: Path = FOLDER) -> Path:
    """Build the bundle with the installed vl-convert, for the Vega-Lite version the installed
    Altair writes, into ``folder`` with its digest (``<name>.sha256``); other versions' bundles
    there are removed, and a bundle already there whose digest matches is kept as it is (a
    rebuild of the same versions costs nothing). Returns the bundle's path.

    Called by the build backend (``_build/backend.py``); raises what vl-convert raises.
    """
    import altair
    import vl_convert

    vl_version = vega_lite_version(altair.SCHEMA_VERSION, vl_convert.get_vegalite_versions())
    name = bundle_name(getattr(vl_convert, "__version__", "unknown"), vl_version)
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob(PREFIX + "*"):
        if old.name not in (name, name + ".sha256"):
            old.unlink()
    target, record = folder / name, folder / (name + ".sha256")
    if target.is_file() and record.is_file() and \
            record.read_text(encoding="ascii") == digest_text(target.read_bytes()):
        return target
    kw = {"vl_version": vl_version} if vl_version else {}
    data = vl_convert.javascript_bundle(**kw).encode("utf-8")
    for path, content in ((target, data), (record, digest_text(data).encode("ascii"))):
        partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
        partial.write_bytes(content)
        partial.chmod(0o644)   # read by every user of an installed package, written by none
        os.replace(partial, path)
    return target


if __name__ == "__main__":   # python leaderboard/report/vega/shipped.py: (re)make it by hand
    sys.stdout.write(f"{write_bundle()}\n")
