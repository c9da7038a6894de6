"""Where the shipped templates and bundled example data are, installed or run from a checkout."""
from __future__ import annotations

from importlib import resources
from pathlib import Path

_REPO_ROOT = Path(__file__).resolve().parent.parent


def _folder(package: str, checkout_dir: str) -> Path:
    # Installed (editable or not): templates/ and data/ are the packages leaderboard._templates and
    # leaderboard._data (see pyproject.toml). From a bare checkout on sys.path they are plain folders.
    try:
        return Path(str(resources.files(package)))
    except ModuleNotFoundError:
        return _REPO_ROOT / checkout_dir


def templates_dir() -> Path:
    """Folder of the Jinja2 templates."""
    return _folder("leaderboard._templates", "templates")


def data_dir() -> Path:
    """Folder of the bundled example data."""
    return _folder("leaderboard._data", "data")
