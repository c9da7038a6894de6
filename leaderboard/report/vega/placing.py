"""Where a chart's few text labels go so that they cover no dot and no other label.

A label sits beside its dot, on the right or the left, at the dot's height or a few lines above or
below it. The chart is drawn at the page's width (a phone's plot is a third of a desktop's), so
each placement is scored at both widths, with the side the chart's own rule then takes (it flips a
label that would run past the plot's edge), and the cheapest kept: each dot a label covers costs
more than any move, a label over another label more still.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

CHAR = 6.8            # pixels per character at 12 px (as the chart's flip rule assumes)
GAP = 9.0             # pixels between a dot and its label
HALF = 7.0            # half a label's height
DOT = 4.0             # a dot's radius, with a margin
WIDTHS = (1000.0, 300.0)   # the plot's width on a desktop page and on a phone
# up to six lines above or below the dot (a line ties a moved label to its dot)
SHIFTS = (0.0,) + tuple(sign * 14.0 * k for k in range(1, 7) for sign in (-1, 1))


def _side(x: float, length: float, width: float, prefer_left: bool) -> bool:
    """Whether the chart draws the label on the left: the rule of the chart's expression (flip
    when it would run past the right edge and the left has more room, else as preferred when it
    fits on the left)."""
    if x + GAP + length > width:
        return x > width - x
    return prefer_left and x - GAP - length >= 0


def _box(x: float, y: float, length: float, left: bool) -> tuple[float, float, float, float]:
    x0 = x - GAP - length if left else x + GAP
    return (x0, y - HALF, x0 + length, y + HALF)


def _covers(box, xs: np.ndarray, ys: np.ndarray) -> int:
    return int(np.sum((xs > box[0] - DOT) & (xs < box[2] + DOT)
                      & (ys > box[1] - DOT) & (ys < box[3] + DOT)))


def _overlaps(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def place_labels(fx: np.ndarray, fy: np.ndarray, labelled: Sequence[int],
                 texts: Sequence[str], height: float) -> dict[int, tuple[bool, float]]:
    """Each labelled dot's placement: (prefer the left side, vertical shift in pixels).

    ``fx``: every dot's position across as a fraction of the plot's width (0 left, 1 right);
    ``fy``: its height in pixels from the top of a plot ``height`` pixels high; ``labelled``:
    the indices of the dots with a label, most important first; ``texts``: their labels.

    Examples
    --------
    >>> fx = np.array([0.5, 0.52, 0.54, 0.56, 0.58])   # a row of dots right of the first one
    >>> fy = np.full(5, 100.0)
    >>> place_labels(fx, fy, [0], ["a label"], 440.0)
    {0: (True, 0.0)}
    """
    placed: dict[int, tuple[bool, float]] = {}
    boxes: dict[float, list] = {w: [] for w in WIDTHS}
    for i, text in zip(labelled, texts):
        length = CHAR * len(text)
        best, choice = None, (False, 0.0)
        for prefer_left in (False, True):
            for shift in SHIFTS:
                y = fy[i] + shift
                if not HALF <= y <= height - HALF:
                    continue
                cost = abs(shift) / 14.0 + (0.5 if prefer_left else 0.0)
                for width in WIDTHS:
                    left = _side(fx[i] * width, length, width, prefer_left)
                    box = _box(fx[i] * width, y, length, left)
                    others = np.arange(fx.size) != i
                    cost += 10.0 * _covers(box, fx[others] * width, fy[others])
                    cost += 100.0 * sum(_overlaps(box, b) for b in boxes[width])
                if best is None or cost < best:
                    best, choice = cost, (prefer_left, shift)
        placed[int(i)] = choice
        for width in WIDTHS:
            y = fy[i] + choice[1]
            boxes[width].append(_box(fx[i] * width, y, length,
                                     _side(fx[i] * width, length, width, choice[0])))
    return placed
