"""Where the shipped templates and bundled example data are, installed or run from a checkout."""
from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path

_REPO_ROOT = Path(__file__).resolve().parent.parent


def _folder(package: str, checkout_dir: str) -> Path:
    # Installed (editable or not): templates/ and data/ are the namespace packages
    # leaderboard._templates and leaderboard._data (see pyproject.toml), so ask the import system
    # where that package's folder is. From a bare checkout on sys.path they are plain folders.
    try:
        spec = find_spec(package)
    except ModuleNotFoundError:
        spec = None
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            if Path(location).is_dir():
                return Path(location)
    return _REPO_ROOT / checkout_dir


def templates_dir() -> Path:
    """Folder of the Jinja2 templates."""
    return _folder("leaderboard._templates", "templates")


def data_dir() -> Path:
    """Folder of the bundled example data."""
    return _folder("leaderboard._data", "data")
