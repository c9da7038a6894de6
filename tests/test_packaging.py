"""The wheel ships every subpackage: a package folder missing from pyproject's list installs fine
editable and breaks a user's (and CI's) non-editable install with ModuleNotFoundError."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_folder_is_listed_in_pyproject() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    on_disk = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "leaderboard").rglob("__init__.py")
    }
    missing = sorted(on_disk - listed)
    assert not missing, f"add to [tool.setuptools] packages in pyproject.toml: {missing}"
