"""What every public analysis of the Python API returns: one protocol, one way to save.

The eight analyses (:func:`leaderboard.analyze`, :func:`~leaderboard.analyze_submissions`,
:func:`~leaderboard.analyze_items`, :func:`~leaderboard.analyze_battles`,
:func:`~leaderboard.choose_finals`, :func:`~leaderboard.compare`, :func:`~leaderboard.plan` and
:func:`~leaderboard.simulate`) return objects that follow :class:`AnalysisResult`: ``to_dict()``
(the command line's JSON as a dictionary), ``to_json()`` (that JSON, byte for byte as the
command's ``--json`` writes it, the same inputs and seed, but for the words that name an option:
a result made in Python names the keyword argument, :func:`leaderboard.api_words.said`),
``save(path)`` (the format chosen by the
path's suffix), and ``to_html()`` where the command writes a page (every one but ``compare``,
whose outputs are the JSON and a Markdown comment). A page with charts (:attr:`Saves.CHARTS`) draws
them with its script; ``to_html(static_charts=True)`` and ``save(path, static_charts=True)`` also
draw them as static SVG, for readers without JavaScript, as the command's ``--static-charts``;
anywhere else ``static_charts=True`` is refused in one line.

:class:`Saves` is the one implementation of ``save``: a class lists its suffixes and the method
that gives each one's content; anything else is refused in one line naming the path. This module
imports neither the report nor the pipelines: the classes that follow it import the report only
when a page or a JSON is asked for.
"""
from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from importlib import import_module
from pathlib import Path
from typing import Any, ClassVar, Protocol, TypeVar, runtime_checkable

from leaderboard.errors import InputError
from leaderboard.params import check
from leaderboard.safe_write import write_bytes, write_text

PathLike = str | os.PathLike

#: Suffixes written by the same method as another one, left out of the refusal's list.
_ALIASES = frozenset({".htm"})


@runtime_checkable
class AnalysisResult(Protocol):
    """What the Python API's analyses return (``isinstance`` checks the methods exist)."""

    def to_dict(self) -> dict: ...

    def to_json(self) -> str: ...

    def save(self, path: PathLike) -> Path: ...


class Saves:
    """``save(path)`` for a result: :attr:`SUFFIXES` maps each suffix it writes (lower case) to
    the name of the method that gives the file's content (text, or bytes for an image).

    Examples
    --------
    >>> import tempfile
    >>> class Note(Saves):
    ...     SUFFIXES = {".json": "to_json", ".md": "to_markdown"}
    ...     def to_json(self): return '{"ok": true}\\n'
    ...     def to_markdown(self): return "ok\\n"
    >>> folder = Path(tempfile.mkdtemp())
    >>> Note().save(folder / "note.JSON").read_text()
    '{"ok": true}\\n'
    >>> Note().save(folder / "note.txt")
    Traceback (most recent call last):
    ...
    leaderboard.errors.InputError: save: give a path ending in .json or .md, not 'note.txt'
    """

    SUFFIXES: ClassVar[Mapping[str, str]] = {".json": "to_json"}
    #: Whether the page (``to_html``) has charts that ``static_charts=True`` also draws as SVG.
    CHARTS: ClassVar[bool] = False

    def save(self, path: PathLike, *, static_charts: bool = False) -> Path:
        """Write to ``path`` the output its suffix names (:attr:`SUFFIXES`); return the path.
        ``static_charts``: a page's charts also drawn as static SVG (``--static-charts``).

        Raises
        ------
        InputError
            Another suffix, or a path that cannot be written (a missing folder, a directory, a
            FIFO or device, a link to nothing), or ``static_charts=True`` where the output is
            no page with charts: one line naming the path.
        """
        path = Path(path)
        method = self.SUFFIXES.get(path.suffix.lower())
        if method is None:
            raise InputError(f"save: give a path ending in {suffix_list(self.SUFFIXES)}, not "
                             f"{path.name!r}")
        if static_page(self, static_charts, "save"):
            if method != "to_html":
                raise InputError(f"save: static_charts=True draws a page's charts (.html), not "
                                 f"{path.name!r}")
            content = getattr(self, method)(static_charts=True)   # to_html
        else:
            content = getattr(self, method)()
        if isinstance(content, bytes):
            write_bytes(path, content)
        else:
            write_text(path, content)   # never blocks on a FIFO; refuses a device (safe_write)
        return path


class Reported(Saves):
    """A result whose outputs are one report module's (:attr:`REPORT`): ``to_json_dict(result)``,
    ``json_text(result)`` and ``render_html(result)``, the functions the command writes its JSON
    and page with, imported when an output is asked for."""

    REPORT: ClassVar[str]
    SUFFIXES: ClassVar[Mapping[str, str]] = {".html": "to_html", ".htm": "to_html",
                                             ".json": "to_json"}

    def to_dict(self) -> dict:
        """The JSON as a dictionary (the command's schema under ``leaderboard/schema/``)."""
        return import_module(self.REPORT).to_json_dict(self)

    def to_json(self) -> str:
        """The JSON the command's ``--json`` writes, byte for byte (its words naming keyword
        arguments where a result made in Python has them)."""
        return import_module(self.REPORT).json_text(self)

    def to_html(self, static_charts: bool = False) -> str:
        """The self-contained page the command's ``-o`` writes (``static_charts``: its charts
        also drawn as static SVG, as ``--static-charts``)."""
        if static_page(self, static_charts, "to_html"):
            return import_module(self.REPORT).render_html(self, static_charts=True)
        return import_module(self.REPORT).render_html(self)


def static_page(result: Saves, static_charts: object, where: str) -> bool:
    """``static_charts`` checked (a bool), and refused in one line when ``result``'s page has no
    charts to draw (:attr:`Saves.CHARTS`).

    Examples
    --------
    >>> static_page(Saves(), False, "save")
    False
    >>> try:
    ...     static_page(Saves(), True, "save")
    ... except InputError as error:
    ...     print(error)
    save: static_charts=True applies to a page with charts, which a Saves does not write
    """
    if not check("static_charts", static_charts):
        return False
    if not result.CHARTS:
        raise InputError(f"{where}: static_charts=True applies to a page with charts, which "
                         f"a {type(result).__name__} does not write")
    return True


def suffix_list(suffixes: Mapping[str, str]) -> str:
    """The suffixes a result writes, in words.

    Examples
    --------
    >>> suffix_list({".html": "to_html", ".htm": "to_html", ".json": "to_json", ".md": "x"})
    '.html, .json or .md'
    """
    names = [s for s in suffixes if s not in _ALIASES]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


Adopted = TypeVar("Adopted")


def adopt(cls: type[Adopted], value: Any) -> Adopted:
    """``value``, a frozen dataclass of the pipelines, as an instance of ``cls``, a subclass of its
    class that adds the outputs (the same fields, the same values: nothing is copied deeply)."""
    return cls(**{f.name: getattr(value, f.name) for f in dataclasses.fields(value) if f.init})
