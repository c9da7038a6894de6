"""Freed memory handed back to the system between the large stages (issue 41).

glibc keeps freed blocks in its heaps for reuse when they are smaller than its mmap threshold,
which rises (up to 32 MB) as larger arrays are freed. After a stage that makes and drops many
such arrays, the memory stays resident: the correlation sweep's three sets of draws and block
layouts left ~170 MB behind at 100,000 entries, held through the ranking after it, whose larger
arrays the heap could not serve. :func:`release` asks glibc to return whole free pages
(``malloc_trim(0)``); on another C library it does nothing. Nothing computed depends on it.
"""
from __future__ import annotations

import functools
import sys


@functools.cache
def _malloc_trim():
    """glibc's ``malloc_trim``, or None where the process's C library has none."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        trim = ctypes.CDLL(None).malloc_trim   # the C library the process already runs on
    except (OSError, AttributeError):
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return trim


def release() -> None:
    """Return the heaps' free pages to the system (glibc; a no-op elsewhere).

    Examples
    --------
    >>> release()   # never an error, whatever the platform
    """
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
