"""The words of a page's answer box, as a reader sees them (issue 43: at most 75 before anything
else). Shared by tests/test_docs_commands.py (every page a documented command writes), the real
boards' pages (tests/report/test_browser.py) and tests/report/test_plain_words.py."""
from __future__ import annotations

from html.parser import HTMLParser

#: Words that belong below the answer box or in "How to read", never in it (d95, the tool's own
#: word, may be used where the box says what it is, as simulate's does).
JARGON = ("universe", "studentised", "max-t", "sandwich", "p_overfit", "Spearman", "bootstrap")
_VOID = {"br", "img", "input", "meta", "wbr", "hr"}
_BLOCK = {"p", "li", "ul", "ol", "div", "details", "summary", "h2", "h3", "br", "dt", "dd"}


class _Boxes(HTMLParser):
    """Text of every ``<section class="answer">``; a closed ``<details>`` counts its summary; a
    note mark (``<sup class="note">``, a footnote's number) is not a word."""

    def __init__(self) -> None:
        super().__init__()
        self.boxes: list[list[str]] = []
        self.depth = 0          # inside an answer box: open elements deep
        self.closed = 0         # inside a closed <details>: its depth
        self.summary = False
        self.mark = 0           # inside a note mark: its depth

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if self.depth and not self.mark and tag == "sup" and "note" in (attrs.get("class") or ""):
            self.mark = self.depth + 1
        if not self.depth:
            if tag == "section" and "answer" in (attrs.get("class") or "").split():
                self.depth, self.boxes = 1, [*self.boxes, []]
            return
        if tag in _BLOCK:   # a block starts a new word
            self.boxes[-1].append(" ")
        if tag in _VOID:
            return
        self.depth += 1
        if tag == "details" and "open" not in attrs and not self.closed:
            self.closed = self.depth
        self.summary = self.summary or (tag == "summary" and bool(self.closed))

    def handle_endtag(self, tag):
        if not self.depth or tag in _VOID:
            return
        if tag in _BLOCK:
            self.boxes[-1].append(" ")
        if tag == "summary":
            self.summary = False
        if self.closed == self.depth:
            self.closed = 0
        if self.mark == self.depth:
            self.mark = 0
        self.depth -= 1

    def handle_data(self, data):
        if self.depth and not self.mark and (not self.closed or self.summary):
            self.boxes[-1].append(data)


def answer_boxes(html: str) -> list[str]:
    """The text of each answer box of ``html``, spaces collapsed.

    Examples
    --------
    >>> answer_boxes('<section class="answer"><p>Two <b>words</b>.</p><details><summary>More'
    ...              '</summary>hidden text</details></section><p>after</p>')
    ['Two words. More']
    """
    parser = _Boxes()
    parser.feed(html)
    return [" ".join("".join(box).split()) for box in parser.boxes]


def check_answers(html: str, where: str, limit: int = 75) -> list[str]:
    """Each answer box of ``html``: at most ``limit`` words and none of :data:`JARGON` (an
    assertion naming ``where``); returns the boxes."""
    boxes = answer_boxes(html)
    assert boxes, f"{where}: no answer box"
    for box in boxes:
        assert len(box.split()) <= limit, f"{where}: {len(box.split())} words: {box}"
        found = [w for w in JARGON if w in box]
        assert not found, f"{where}: {found} in the answer box: {box}"
    return boxes
