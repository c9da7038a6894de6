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


class _FirstScreen(HTMLParser):
    """Visible words of ``<main>`` before its first ``<table>``: not the page's ``<header>`` (its
    title), scripts, styles, drawings (``<svg>``), hidden elements, note marks, or what a closed
    ``<details>`` hides (its summary counts)."""

    _UNSEEN = {"script", "style", "svg", "header", "template", "noscript"}

    def __init__(self) -> None:
        super().__init__()
        self.words: list[str] = []
        self.main = False
        self.table = False
        self.stack: list[tuple[str, bool]] = []   # open elements: (tag, hides its text)

    def handle_starttag(self, tag, attrs):
        if self.table:
            return
        if tag == "main":
            self.main = True
        if tag == "table" and self.main:
            self.table = True
            return
        if tag in _BLOCK:
            self.words.append(" ")
        if tag in _VOID:
            return
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        hides = (tag in self._UNSEEN or "hidden" in attrs or (tag == "sup" and "note" in classes)
                 or (tag == "details" and "open" not in attrs))
        self.stack.append((tag, hides))

    def handle_endtag(self, tag):
        if self.table or tag in _VOID:
            return
        if tag in _BLOCK:
            self.words.append(" ")
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data):
        if not self.main or self.table:
            return
        # inside a closed <details>, only its <summary> shows
        for k, (tag, hides) in enumerate(self.stack):
            if hides and not (tag == "details" and any(t == "summary" for t, _ in
                                                       self.stack[k + 1:])):
                return
        self.words.append(data)


def words_before_table(html: str) -> tuple[int, str, bool]:
    """How many words a reader sees on ``html`` before its first table (the page's title aside),
    the words themselves, and whether the page has a table at all.

    Examples
    --------
    >>> words_before_table('<main><header><h1>A title</h1></header><p>Two <b>words</b><sup '
    ...                    'class="note">1</sup>.</p><details><summary>Shown</summary>hidden'
    ...                    '</details><table><tr><td>cell</td></tr></table><p>after</p></main>')
    (3, 'Two words. Shown', True)
    """
    parser = _FirstScreen()
    parser.feed(html)
    text = " ".join("".join(parser.words).split())
    return len(text.split()), text, parser.table


def check_first_screen(html: str, where: str, limit: int = 75) -> str:
    """At most ``limit`` words before the page's first table (issue 43: a first screen in plain
    words, the answer box and nothing more), an assertion naming ``where``; returns the words."""
    count, text, table = words_before_table(html)
    assert table, f"{where}: no table"
    assert count <= limit, f"{where}: {count} words before the first table: {text}"
    return text
