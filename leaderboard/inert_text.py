"""Untrusted text (team and model names, file paths, labels) made inert for every text export:
Markdown for pull-request comments and CSV for spreadsheets.

One function per format, used by every writer of that format (``analyze --markdown``,
``compare --markdown``, ``calibrate``'s pages; ``--csv``), so a name is shown as the text it is and
never becomes markup, a link, an image, raw HTML, a new table cell or row, a GitHub mention, or a
spreadsheet formula.

Markdown, as CommonMark and GitHub render it:

- every ASCII punctuation character is backslash-escaped (CommonMark allows an escape before each
  one, and an escaped character is literal text): emphasis (``*``, ``_``, ``~``), code spans,
  links and images (``[``, ``!``), raw HTML and angle-bracket autolinks (``<``), entities
  (``&``), headings and lists at a line's start (``#``, ``-``, ``+``, ``1.``), table cells
  (``|``, escaped even inside a table, as GitHub specifies);
- after ``@``, ``#``, ``:`` and ``.`` a WORD JOINER (U+2060, invisible, no width) is inserted.
  GitHub applies some filters to the rendered HTML, where backslashes are gone: ``@user`` and
  ``@org/team`` mentions (which notify), ``#12`` issue references, ``:emoji:`` codes; and bare
  URLs, ``www.`` addresses and e-mail addresses are autolinked. Each of those needs its marker
  followed by a letter, digit or ``/``; the joiner breaks the match while the text reads the same;
- line breaks and tabs become spaces (a name stays in its table row); other control characters
  and the bidirectional overrides are dropped.

CSV: a cell that a spreadsheet would run as a formula (first character ``=``, ``+``, ``-``,
``@``, tab or carriage return, as OWASP lists them) gets a leading ``'``; the rest of the text is
kept exactly, so reading the CSV back gives the name after that one quote.
"""
from __future__ import annotations

import re
import unicodedata

WORD_JOINER = "\u2060"
# ASCII punctuation: each may be backslash-escaped in CommonMark, and each escaped is literal.
_PUNCTUATION = re.compile(r"""([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])""")
_AFTER_JOINER = frozenset("@#:.")
_SPACES = re.compile(r"[\t\n\v\f\r\x85\u2028\u2029]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
CSV_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def _escape(match: re.Match) -> str:
    char = match.group(1)
    return "\\" + char + (WORD_JOINER if char in _AFTER_JOINER else "")


def markdown_text(value: object) -> str:
    """Untrusted text for Markdown (CommonMark, GitHub-flavoured): shown as itself, inert.

    Parameters
    ----------
    value : object
        A name, path or label; ``str(value)`` is escaped.

    Returns
    -------
    str
        Markdown whose rendering is ``value``'s text (line breaks as spaces, control characters
        dropped, invisible ones written as ``[U+200B]``, invisible word joiners after ``@ # : .``), never
        markup, a link, an image,
        HTML, a table cell break or a mention.

    Examples
    --------
    >>> markdown_text("**a** | [b](c)")
    '\\\\*\\\\*a\\\\*\\\\* \\\\| \\\\[b\\\\]\\\\(c\\\\)'
    >>> markdown_text("@org/team").replace(WORD_JOINER, "+")
    '\\\\@+org\\\\/team'
    >>> markdown_text("two\\nlines")
    'two lines'
    """
    text = _mark_invisible(_CONTROL.sub("", _SPACES.sub(" ", str(value))))
    return _PUNCTUATION.sub(_escape, text)


def _mark_invisible(text: str) -> str:
    """Invisible characters (zero-width, bidi controls, soft hyphen: Unicode's format class) as
    their code points, ``te[U+200B]am``, as the page shows them: two names that differ only by
    one stay told apart, and a bidi override cannot reorder the line.

    Examples
    --------
    >>> _mark_invisible("te\u200bam"), _mark_invisible("team")
    ('te[U+200B]am', 'team')
    """
    if text.isascii():
        return text
    return "".join(f"[U+{ord(ch):04X}]" if unicodedata.category(ch) == "Cf"
                   or ch in "\u034f\u180e" else ch for ch in text)


def csv_text(value: object) -> str:
    """Untrusted text for a CSV cell a spreadsheet may open: a formula gets a leading ``'``.

    Examples
    --------
    >>> csv_text('=HYPERLINK("http://x")'), csv_text("team a")
    ('\\'=HYPERLINK("http://x")', 'team a')
    """
    text = str(value)
    return ("'" + text) if text.startswith(CSV_FORMULA) else text
