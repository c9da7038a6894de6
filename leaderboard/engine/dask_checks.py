"""Checks before the Dask engine starts: a scheduler address that cannot leak a password or hang
the run, and a local cluster the machine can hold.

- An address holding a user or password (``tcp://user:secret@host:8786``) is refused without
  echoing them: Dask addresses take none (TLS certificates are Dask's way), and the address would
  otherwise reach the terminal and the report's notes.
- A ``tcp://`` scheduler is probed before Dask connects: the connection must open within the
  time-out, and the scheduler, which speaks first, must send a frame of Dask's shape (an 8-byte
  length, then that many bytes, at most 1 MiB) within the same time-out. A server that accepts and
  never answers, an HTTP server, or anything else fails with one line instead of hanging or
  reading a reply as a frame length.
- ``--workers`` is at most one per usable core and one per :data:`WORKER_BYTES` of memory.
"""
from __future__ import annotations

import os
import re
import socket
import struct
import time

from leaderboard.errors import InputError

WORKER_BYTES = 512 * 2**20   # a worker process with numpy, pandas and leaderboard loaded
_MAX_HANDSHAKE = 2**20
_CREDENTIALS = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)?(?P<user>[^@/]*)@")


def redact(address: str) -> str:
    """``address`` with any ``user:password@`` replaced by ``***@``.

    Examples
    --------
    >>> redact("tcp://alice:s3cret@host:8786"), redact("tcp://host:8786")
    ('tcp://***@host:8786', 'tcp://host:8786')
    """
    return _CREDENTIALS.sub(lambda m: (m.group("scheme") or "") + "***@", address, count=1)


def check_address(address: str) -> None:
    """One-line error when the address carries credentials (never echoed)."""
    if _CREDENTIALS.match(address.strip()):
        raise InputError(f"--scheduler {redact(address)}: a Dask address takes no user or "
                         "password (they would be echoed and stored); secure the scheduler with "
                         "TLS (tls://) instead")


def _host_port(address: str) -> tuple[str, int] | None:
    """Host and port of a ``tcp://`` (or scheme-less) address, else None (not probed)."""
    rest = address.strip()
    if "://" in rest:
        scheme, rest = rest.split("://", 1)
        if scheme.lower() != "tcp":
            return None
    rest = rest.split("/", 1)[0]
    match = re.fullmatch(r"\[(?P<h6>[^\]]+)\]:(?P<p6>\d+)|(?P<h>[^:]+):(?P<p>\d+)", rest)
    if match is None:
        return None
    host = match.group("h6") or match.group("h")
    return host, int(match.group("p6") or match.group("p"))


def probe_scheduler(address: str, timeout: float) -> None:
    """One-line error unless the ``tcp://`` scheduler at ``address`` connects and sends a
    Dask-shaped first frame within ``timeout`` seconds each (other schemes are left to Dask)."""
    where = _host_port(address)
    if where is None:
        return
    shown = redact(address)
    try:
        sock = socket.create_connection(where, timeout=timeout)
    except OSError as err:
        raise InputError(f"--scheduler {shown}: cannot connect ({err.strerror or err})") \
            from None
    with sock:
        deadline = time.monotonic() + timeout
        head = _read(sock, 8, deadline, shown, timeout)
        (length,) = struct.unpack("<Q", head)
        if not 8 <= length <= _MAX_HANDSHAKE:
            raise InputError(f"--scheduler {shown}: not a Dask scheduler (its first answer is "
                             "not a Dask message)")
        _read(sock, length, deadline, shown, timeout)


def _read(sock: socket.socket, size: int, deadline: float, shown: str, timeout: float) -> bytes:
    data = b""
    while len(data) < size:
        left = deadline - time.monotonic()
        try:
            if left <= 0:
                raise TimeoutError
            sock.settimeout(left)
            chunk = sock.recv(min(size - len(data), 65536))
        except TimeoutError:   # socket.timeout is TimeoutError since Python 3.10
            raise InputError(f"--scheduler {shown}: connected, but no Dask answer within "
                             f"{timeout:g} s (not a Dask scheduler, or not answering)") from None
        except OSError as err:
            raise InputError(f"--scheduler {shown}: the connection failed ({err.strerror or err})"
                             ) from None
        if not chunk:
            raise InputError(f"--scheduler {shown}: not a Dask scheduler (it closed the "
                             "connection without a Dask answer)")
        data += chunk
    return data


def usable_cores() -> int:
    """Cores this process may run on (its CPU affinity where the system has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def memory_bytes() -> int | None:
    """The machine's physical memory, or None where the system does not say."""
    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, OSError, ValueError):
        return None


def check_workers(workers: int) -> None:
    """One-line error when a local cluster of ``workers`` processes would oversubscribe the
    machine: more than one per usable core, or than one per :data:`WORKER_BYTES` of memory."""
    cores, memory = usable_cores(), memory_bytes()
    cap = cores if memory is None else min(cores, max(1, memory // WORKER_BYTES))
    if workers > cap:
        held = "" if memory is None else f" and {memory / 2**30:.1f} GiB of memory"
        raise InputError(f"--workers {workers}: this machine has {cores} usable core"
                         f"{'s' if cores != 1 else ''}{held}: at most {cap} local workers (one "
                         f"per core, {WORKER_BYTES // 2**20} MiB each); for more, start a "
                         "cluster and give --scheduler")
