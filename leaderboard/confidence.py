"""The one formatter of a confidence level's label (``"95%"``): the report, the terminal, the
tier methods' words and the studies' pages all write it through :func:`confidence_label`. No
imports, so the statistics can use it without reaching into the report."""
from __future__ import annotations


def confidence_label(alpha: float) -> str:
    """The confidence level of error rate ``alpha`` as the report writes it: three significant
    figures, more only where three would round a level below 100% up to ``"100%"``.

    Examples
    --------
    >>> confidence_label(0.05), confidence_label(0.1), confidence_label(0.0005)
    ('95%', '90%', '99.95%')
    """
    level = 100 * (1 - alpha)
    text = f"{level:.3g}"
    if float(text) >= 100 > level:
        text = f"{level:.6g}"
    return f"{text}%"
