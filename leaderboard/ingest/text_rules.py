"""The text rules every reader shares: bytes to text, and names that cannot be written.

- :func:`decode_utf8`: an input's bytes as text, one rule for every reader (CSV, JSON, JSON
  lines, instance lists): UTF-8, a byte-order mark at the start dropped (Excel and Notepad
  write one; it is legal), and the first byte that is not UTF-8 refused naming its line, never
  replaced silently (a replaced byte can merge two names or change a value).
- :func:`look_alike_key`: what a reader sees of a name, so that two spellings of one name
  (case, spaces, invisible characters, character forms) are found wherever names are read.
- :func:`clean_text`: a name that cannot be encoded (a lone surrogate: a JSON escape such as
  ``"\\ud800"``, a file name's undecodable bytes, a Python string) as escaped text that can be
  written anywhere, and stays distinct: ``\\ud800``, ``\\xff``.
"""
from __future__ import annotations

import re
import unicodedata

from leaderboard.errors import InputError
from leaderboard.ingest.csv_text import utf8_error

_BOM = b"\xef\xbb\xbf"
_LONE = re.compile("[\ud800-\udc7f\udd00-\udfff]")


def decode_utf8(data: bytes, source: str, what: str = "text") -> str:
    """``data`` as text: UTF-8 without its byte-order mark; an :class:`InputError` naming the
    line of the first byte that is not UTF-8.

    Examples
    --------
    >>> decode_utf8(b"\\xef\\xbb\\xbfa__b-1\\n", "ids.txt")
    'a__b-1\\n'
    >>> decode_utf8(b'{"a": 1}\\n{"b": "\\xff"}\\n', "log.jsonl", "JSON")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    leaderboard.errors.InputError: log.jsonl:2: not UTF-8 JSON (byte 0xff); every JSON file is UTF-8: re-save
    it as UTF-8
    """
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    line, byte = utf8_error(data[len(_BOM):] if data.startswith(_BOM) else data) or (1, 0)
    raise InputError(f"not UTF-8 {what} (byte 0x{byte:02x}); every {what} file is UTF-8: "
                     "re-save it as UTF-8", file=source, row=line)


def clean_text(value: object) -> str:
    """``value`` as text that can be written anywhere and stays distinct: a lone surrogate
    (JSON's ``"\\ud800"``, a Python string) becomes ``\\ud800``, a file name's undecodable
    byte (Python keeps it as a surrogate) ``\\xff``.

    Examples
    --------
    >>> import os
    >>> clean_text("doc\\ud800"), clean_text(os.fsdecode(b"model\\xff")), clean_text("plain")
    ('doc\\\\ud800', 'model\\\\xff', 'plain')
    """
    text = str(value)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = _LONE.sub(lambda m: f"\\u{ord(m[0]):04x}", text)  # not a file name's raw bytes
        text = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return text


def invisible(ch: str) -> bool:
    """Whether a reader cannot see ``ch``: a format or control character (zero-width, bidi
    controls, soft hyphen) or a combining grapheme joiner or Mongolian vowel separator."""
    return unicodedata.category(ch) in ("Cf", "Cc") or ch in "\u034f\u180e"


def look_alike_key(name: object, *, spelling: bool = True) -> str:
    """What a reader sees of ``name``, one rule for every list of names: invisible characters
    removed and NFKC (fullwidth letters, ligatures, decomposed accents to their plain forms);
    with ``spelling`` (model ids: per-item results, arenas), case folded and spaces removed
    too. Two names of one key are kept apart and named: one model written two ways, or a name
    made to pass for another. A board's team names are compared without ``spelling``: "John"
    and "john" on a Kaggle board of thousands are two teams.

    Examples
    --------
    >>> keys = {look_alike_key(n) for n in ("te\u200bam", "ｔｅａｍ", "Team", "t eam")}
    >>> keys, look_alike_key("cafe\u0301") == look_alike_key("Caf\u00e9")
    ({'team'}, True)
    >>> look_alike_key("Team", spelling=False), look_alike_key("ｔｅａｍ", spelling=False)
    ('Team', 'team')
    """
    text = unicodedata.normalize("NFKC", "".join(ch for ch in str(name) if not invisible(ch)))
    return "".join(text.casefold().split()) if spelling else text


def look_alike_groups(names, *, spelling: bool = True) -> list[list[str]]:
    """The distinct ``names`` (as text) that share a :func:`look_alike_key`, in groups of two or
    more, each in order of first appearance.

    Examples
    --------
    >>> look_alike_groups(["GPT-4", "claude", "gpt-4", "GPT-4"])
    [['GPT-4', 'gpt-4']]
    >>> look_alike_groups(["GPT-4", "gpt-4"], spelling=False)
    []
    """
    groups: dict[str, list[str]] = {}
    for name in dict.fromkeys(str(n) for n in names):
        groups.setdefault(look_alike_key(name, spelling=spelling), []).append(name)
    return [g for g in groups.values() if len(g) > 1]
