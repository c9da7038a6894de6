"""Issue 41, item 3: the Vega bundle shipped in the package (made when the wheel is built,
``_build/backend.py``) is the bundle vl-convert builds, byte for byte, and a page takes it only
when it is this vl-convert's and Vega-Lite's and passes the cache's checks; otherwise the page
falls back to the user's cache or a build, as before (tests/engine/test_hostile_engine.py plants
and damages the user's cache)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from leaderboard.disk_cache import digest
from leaderboard.report.vega import bundle_cache, embed, shipped

SHIPPED = "window.vegaEmbed = function () {};\n" + "// the shipped bundle's body\n" * 2000
BUILT = "window.vegaEmbed = function () {};\n" + "// built on this machine\n" * 2000


def _name() -> str:
    return shipped.bundle_name(getattr(embed.vlc, "__version__", "unknown"), embed.VL_VERSION)


def _ship(folder: Path, text: str, name: str | None = None) -> Path:
    """``text`` as the package would ship it: the bundle and its digest file."""
    folder.mkdir(mode=0o755, exist_ok=True)
    path = folder / (name or _name())
    data = text.encode("utf-8")
    path.write_bytes(data)
    Path(str(path) + ".sha256").write_text(digest(data), encoding="ascii")
    return path


@pytest.fixture
def package(tmp_path, monkeypatch):
    """A stand-in for the package's bundle folder, an empty user cache, and a counted build."""
    folder = tmp_path / "_bundle"
    monkeypatch.setattr(shipped, "FOLDER", folder)
    monkeypatch.setenv("LEADERBOARD_CACHE_DIR", str(tmp_path / "cache"))
    calls: list[int] = []
    monkeypatch.setattr(embed, "_build_bundle", lambda: calls.append(1) or BUILT)
    embed.bundle.cache_clear()
    yield folder, calls
    embed.bundle.cache_clear()


def test_the_shipped_bundle_is_the_one_vl_convert_builds():
    """The package's own bundle (the one the build backend made) is byte-identical to what the
    renderer builds for the running vl-convert and the page's Vega-Lite version, and the page
    takes it through the verified reader."""
    path = shipped.FOLDER / _name()
    if not path.exists():
        pytest.skip(f"{path} is absent: this tree was not installed through _build/backend.py "
                    "(pip install -e . makes it; .ci/run checks that the installed wheel has it)")
    built = embed._build_bundle()   # the one vl-convert call (~1 s of CPU, in the renderer)
    assert built is not None and path.read_bytes() == built.encode("utf-8")
    assert embed._shipped_bundle() == built


def test_a_valid_shipped_bundle_is_taken_without_building(package):
    folder, calls = package
    _ship(folder, SHIPPED)
    assert str(embed.bundle()) == SHIPPED and calls == []
    assert not (Path(os.environ["LEADERBOARD_CACHE_DIR"]) / _name()).exists()   # nothing written


@pytest.mark.parametrize("damage", ["bit flipped", "truncated", "no digest", "another version",
                                    "group-writable", "a link", "not a bundle"])
def test_a_damaged_or_mismatched_shipped_bundle_is_not_used(package, tmp_path, damage):
    """Each damage makes the page fall back to the build (and the user's cache), never inline
    the package's file (on the old code the package's file was never read: this checks the
    new reader's refusals)."""
    folder, calls = package
    path = _ship(folder, SHIPPED)
    data = path.read_bytes()
    if damage == "bit flipped":
        path.write_bytes(data[:100] + bytes([data[100] ^ 1]) + data[101:])
    elif damage == "truncated":
        path.write_bytes(data[:-10])
    elif damage == "no digest":
        Path(str(path) + ".sha256").unlink()
    elif damage == "another version":   # a package built with another vl-convert
        for p in (path, Path(str(path) + ".sha256")):
            p.rename(p.with_name(p.name.replace(_name(), shipped.bundle_name("0.0.1", "5.8"))))
    elif damage == "group-writable":
        os.chmod(path, 0o664)
    elif damage == "a link":
        elsewhere = _ship(tmp_path / "elsewhere", SHIPPED)
        path.unlink()
        path.symlink_to(elsewhere)
    elif damage == "not a bundle":   # recorded as it is, but it could close the script element
        _ship(folder, SHIPPED + "</script><script>alert(1)</script>")
    assert embed._shipped_bundle() is None
    assert str(embed.bundle()) == BUILT and calls == [1]
    assert (Path(os.environ["LEADERBOARD_CACHE_DIR"]) / _name()).read_text(encoding="utf-8") == BUILT


def test_a_bundle_as_writable_as_its_package_is_taken(package, tmp_path):
    """A user's install under umask 002 leaves the package's folder and files group-writable (the
    user's own group): the bundle is then no more writable than the code beside it, and is read
    (the user cache's own rule, the user's and writable by no one else, refused it)."""
    folder, calls = package
    path = _ship(folder, SHIPPED)
    for p in (tmp_path, folder):   # tmp_path stands for leaderboard/report/vega/
        os.chmod(p, 0o775)
    for p in (path, Path(str(path) + ".sha256")):
        os.chmod(p, 0o664)
    assert embed._shipped_bundle() == SHIPPED
    os.chmod(tmp_path, 0o755)      # the package's folder is not group-writable: the bundle is more
    assert embed._shipped_bundle() is None
    assert str(embed.bundle()) == BUILT and calls == [1]


def test_write_bundle_makes_one_verified_bundle(tmp_path, monkeypatch):
    """The build backend's step: the bundle of the installed vl-convert for Altair's Vega-Lite
    version, its digest beside it (read back by the page's verified reader), other versions'
    files removed, and not rebuilt while its digest holds."""
    import vl_convert

    calls: list[dict] = []
    monkeypatch.setattr(vl_convert, "javascript_bundle", lambda **kw: calls.append(kw) or SHIPPED)
    folder = tmp_path / "_bundle"
    stale = _ship(folder, "window.vegaEmbed = 0;", shipped.bundle_name("0.0.1", "5.8"))
    path = shipped.write_bundle(folder)
    assert path.name == _name() and calls == [{"vl_version": embed.VL_VERSION} if embed.VL_VERSION
                                               else {}]
    assert sorted(p.name for p in folder.iterdir()) == [_name(), _name() + ".sha256"]
    assert not stale.exists()
    version = getattr(vl_convert, "__version__", "unknown")
    assert bundle_cache.shipped_bundle(version, embed.VL_VERSION, folder) == SHIPPED
    assert oct(path.stat().st_mode & 0o777) == "0o644"
    shipped.write_bundle(folder)
    assert len(calls) == 1                            # kept: its digest holds
    path.write_bytes(b"window.vegaEmbed = 'damaged';")
    shipped.write_bundle(folder)
    assert len(calls) == 2 and bundle_cache.shipped_bundle(version, embed.VL_VERSION, folder) == SHIPPED


def _backend(tmp_path, monkeypatch):
    """``_build/backend.py`` loaded by its path, making the bundle in a copy of ``shipped.py``
    under ``tmp_path`` (so its folder is ``tmp_path/_bundle``), over a stand-in for setuptools'
    backend whose hooks record whether the bundle was there when they ran (no setuptools needed:
    Python 3.12's venvs have none)."""
    import importlib.util
    import shutil
    import sys
    import types

    hooks: list[tuple[str, bool]] = []

    def hook(kind: str):
        def run(*args):
            hooks.append((kind, (tmp_path / "_bundle" / _name()).exists()))
            return f"{kind}.whl"
        return run

    build_meta = types.ModuleType("setuptools.build_meta")
    names = ["build_wheel", "build_editable", "build_sdist", "get_requires_for_build_wheel"]
    for name in names:
        setattr(build_meta, name, hook(name))
    build_meta.__all__ = names
    setuptools = types.ModuleType("setuptools")
    setuptools.build_meta = build_meta
    monkeypatch.setitem(sys.modules, "setuptools", setuptools)
    monkeypatch.setitem(sys.modules, "setuptools.build_meta", build_meta)
    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("_backend_under_test",
                                                  root / "_build" / "backend.py")
    backend = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(backend)
    copy = tmp_path / "shipped.py"
    shutil.copy(shipped.__file__, copy)
    monkeypatch.setattr(backend, "_SHIPPED", copy)
    return backend, hooks


def test_the_build_backend_makes_the_bundle_before_the_wheel(tmp_path, monkeypatch, capfd):
    import vl_convert

    backend, hooks = _backend(tmp_path, monkeypatch)
    monkeypatch.setattr(vl_convert, "javascript_bundle", lambda **kw: SHIPPED)
    assert backend.build_wheel(str(tmp_path)) == "build_wheel.whl"
    assert backend.build_editable(str(tmp_path)) == "build_editable.whl"
    assert backend.build_sdist(str(tmp_path)) == "build_sdist.whl"   # setuptools' own hook
    assert hooks == [("build_wheel", True), ("build_editable", True), ("build_sdist", True)]
    assert (tmp_path / "_bundle" / _name()).read_text(encoding="utf-8") == SHIPPED
    assert f"shipping {_name()}" in capfd.readouterr().err


def test_the_build_backend_builds_the_wheel_without_a_bundle_it_cannot_make(tmp_path, monkeypatch,
                                                                            capfd):
    """vl-convert failing (no engine here) costs the wheel its bundle, not the build: the
    package then builds the bundle on its first run, as before."""
    import vl_convert

    def fails(**kw):
        raise RuntimeError("no address space for V8")

    backend, hooks = _backend(tmp_path, monkeypatch)
    monkeypatch.setattr(vl_convert, "javascript_bundle", fails)
    assert backend.build_wheel(str(tmp_path)) == "build_wheel.whl" and hooks == [("build_wheel", False)]
    err = capfd.readouterr().err
    assert "the Vega bundle was not shipped (no address space for V8)" in err
