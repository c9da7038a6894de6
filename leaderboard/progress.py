"""A small progress bar on stderr: silent with --quiet or when stderr is not a terminal."""
from __future__ import annotations

import sys
import time


class Progress:
    """Counts steps towards a total and redraws one line on stderr at most ten times a second."""

    def __init__(self, label: str, total: int = 0, *, quiet: bool = False, stream=None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = not quiet and getattr(self.stream, "isatty", lambda: False)()
        self.label, self.total, self.done = label, total, 0
        self._last = 0.0

    def start(self, total: int, label: str | None = None) -> None:
        """(Re)start counting towards ``total``."""
        self.total, self.done = total, 0
        if label:
            self.label = label
        self._draw(force=True)

    def advance(self, steps: int = 1) -> None:
        self.done += steps
        self._draw(force=self.done >= self.total)

    def _draw(self, force: bool = False) -> None:
        if not self.enabled or self.total <= 0:
            return
        now = time.monotonic()
        if not force and now - self._last < 0.1:
            return
        self._last = now
        frac = min(self.done / self.total, 1.0)
        bar = "#" * int(30 * frac)
        self.stream.write(f"\r{self.label} [{bar:<30}] {100 * frac:5.1f}%")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.total > 0:
            self.stream.write("\n")
            self.stream.flush()
