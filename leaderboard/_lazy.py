"""Public names of a package imported on first use (module ``__getattr__``, PEP 562), so that
importing the package, or any one of its submodules, does not import every module behind them."""
from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_names(package: str, where: dict[str, str], namespace: dict[str, Any]
               ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``: a name of ``where`` (name -> module)
    is imported on first use and kept in ``namespace`` (the package's globals), so later
    lookups are plain attribute reads.

    Examples
    --------
    >>> ns = {}
    >>> getattr_, dir_ = lazy_names("pkg", {"sqrt": "math"}, ns)
    >>> getattr_("sqrt")(9.0), "sqrt" in ns, dir_()
    (3.0, True, ['sqrt'])
    """
    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(where))

    return __getattr__, __dir__
