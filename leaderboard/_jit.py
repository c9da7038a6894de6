"""numba's ``njit``, with numba imported when a compiled kernel first runs (issue 41).

Importing numba (and llvmlite under it) costs about 0.2 s of CPU, a tenth of a warm run of the
bundled example, which calls no kernel at all: every step of a small board has a numpy path
(:mod:`~leaderboard.tiers.small_ranks`, :mod:`~leaderboard.tiers.closed_small`). So the
package's kernels are decorated with :func:`njit` from here: it takes numba's options and
returns a stand-in. The first call of any stand-in imports numba, turns every stand-in made
so far into numba's dispatcher with the same options (``cache=True`` caches exactly as
before: same function, same source file) and puts the dispatchers in place of the stand-ins in
the namespaces of the package's modules, so that compiled code calling another kernel finds
numba's object there, as it always did. From then on :func:`njit` is numba's own decorator.

A stand-in answers everything else a dispatcher does (``signatures``, ``py_func``, ...) by
making the dispatchers first.
"""
from __future__ import annotations

import functools
import sys
import threading

_PACKAGE = __name__.split(".")[0]
_LOCK = threading.RLock()
_waiting: list[_Kernel] = []
_numba_njit = None   # numba.njit, once imported


class _Kernel:
    """A kernel not compiled yet: a function and numba's options for it."""

    def __init__(self, func, options: dict) -> None:
        self.func, self.options, self.dispatcher = func, options, None
        functools.update_wrapper(self, func)

    def __call__(self, *args, **kwargs):
        return (self.dispatcher or _dispatch(self))(*args, **kwargs)

    def __getattr__(self, name: str):
        if name.startswith("__") or name in ("func", "options", "dispatcher"):
            raise AttributeError(name)
        return getattr(self.dispatcher or _dispatch(self), name)

    def __repr__(self) -> str:
        return f"<kernel {self.func.__module__}.{self.func.__qualname__}, not compiled yet>"

    def __reduce__(self):   # pickled by name (a Dask worker): the kernel its module holds there
        return _named, (self.func.__module__, self.func.__qualname__)


def _named(module: str, name: str):
    import importlib
    return getattr(importlib.import_module(module), name)


def njit(*args, **options):
    """``numba.njit`` (its options, used as ``@njit(...)`` or ``@njit``), numba imported on the
    first call of a kernel (see the module's docstring).

    Examples
    --------
    >>> @njit(cache=False)
    ... def twice(x):
    ...     return 2 * x
    >>> twice(21)
    42
    """
    if args and callable(args[0]) and len(args) == 1:
        return njit(**options)(args[0])
    if args:
        raise TypeError("njit takes keyword options only (numba's eager signatures are not used)")

    def decorate(func):
        with _LOCK:
            if _numba_njit is not None:
                return _numba_njit(**options)(func)
            kernel = _Kernel(func, options)
            _waiting.append(kernel)
            return kernel

    return decorate


def _dispatch(kernel: _Kernel):
    """Import numba, make every waiting kernel's dispatcher, put them in place; ``kernel``'s."""
    global _numba_njit
    with _LOCK:
        if _numba_njit is None:
            from numba import njit as numba_njit
            _numba_njit = numba_njit
        if kernel.dispatcher is None and kernel not in _waiting:   # a copy (pickled)
            kernel.dispatcher = _numba_njit(**kernel.options)(kernel.func)
        if _waiting:
            for waiting in _waiting:
                waiting.dispatcher = _numba_njit(**waiting.options)(waiting.func)
            _waiting.clear()
            for name, module in list(sys.modules.items()):
                if name == _PACKAGE or name.startswith(_PACKAGE + "."):
                    space = getattr(module, "__dict__", {})
                    for key, value in list(space.items()):
                        if isinstance(value, _Kernel) and value.dispatcher is not None:
                            space[key] = value.dispatcher
        return kernel.dispatcher
