"""The pieces Anki field HTML is turned into on its way to Markdown (see :mod:`._html_markdown`).

An :class:`Atom` is one character of the author's text, a piece of markup our
Markdown adds, or a delimiter of bold or italics; the converter makes them,
:mod:`._md_emphasis` places the delimiters and :mod:`._md_writer` writes them
out, escaping what Markdown would read as syntax.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

__all__ = [
    "BOLD",
    "BOTH",
    "CLOSE",
    "DELIMITER",
    "EXPORT",
    "ITALIC",
    "MARK",
    "OPEN",
    "RAW",
    "TEXT",
    "WEB",
    "Atom",
    "beside",
    "blank",
    "boundary",
    "edge_class",
    "is_punct",
    "is_space",
]

TEXT, MARK, RAW, OPEN, CLOSE = range(5)
"""Kinds of atom: a character of text, markup, text of code, an opening and a closing
delimiter."""
EXPORT, WEB = 1, 2
"""The renderers: the Anki exporter (cmark-gfm) and the web app (markdown-it)."""
BOTH = EXPORT | WEB
ITALIC, BOLD = 1, 2
"""Emphasis bits of :attr:`Atom.style`."""
DELIMITER = {ITALIC: "*", BOLD: "**"}


@dataclass(slots=True)
class Atom:
    """One piece of the output: a character of text, markup, or an emphasis delimiter."""

    kind: int
    text: str
    link: bool = False
    """Text of a link's label (``]`` and ``[`` are escaped there)."""
    words: int = 0
    """Which renderers hold it as a word, so emphasis sees a letter beside it: the
    exporter (:data:`EXPORT`: formulas, code spans, superscripts), the web app
    (:data:`WEB`: formulas, sounds); the others see its characters."""
    formula: bool = False
    prefix: bool = False
    """A list marker or heading mark: a new block starts after it."""
    pair: int = 0
    """Which opening and closing delimiters belong together."""
    style: int = 0
    """Bold (:data:`BOLD`) and italics (:data:`ITALIC`) the author gave it."""
    code: str = ""
    """A code span's text (two spans side by side become one: their backticks would meet)."""


def is_space(char: str) -> bool:
    return char.isspace() or unicodedata.category(char) == "Zs"


def is_punct(char: str) -> bool:
    # CommonMark's punctuation (ASCII, Unicode P), and symbols (S) as newer specs do:
    # counting more as punctuation only ever moves a character out of emphasis.
    return unicodedata.category(char)[0] in "PS"


def edge_class(atom: Atom | None, *, last: bool, view: int = BOTH) -> str:
    """How emphasis sees the character next to a delimiter: space, punct or word.

    ``view`` names the renderers asked (:data:`EXPORT`, :data:`WEB`); an atom is a
    word only when it is one to each of them.
    """
    if atom is None or not atom.text:
        return "space"
    if atom.words & view == view:
        return "word"
    char = atom.text[-1] if last else atom.text[0]
    if is_space(char):
        return "space"
    return "punct" if is_punct(char) else "word"


def blank(atom: Atom) -> bool:
    return atom.kind in (TEXT, MARK) and not atom.words and not atom.text.strip()


def beside(atoms: list[Atom], index: int, step: int) -> int | None:
    """The nearest atom that is no delimiter, from ``index`` towards ``step`` (-1 or 1).

    Delimiters next to each other are one run to CommonMark, which judges the run
    by what is on either side of it.
    """
    index += step
    while 0 <= index < len(atoms) and atoms[index].kind in (OPEN, CLOSE):
        index += step
    return index if 0 <= index < len(atoms) else None


def boundary(atom: Atom) -> bool:
    """Whether emphasis ends at an atom: a new list item or heading, a paragraph, a block."""
    return atom.prefix or "\n\n" in atom.text or (atom.kind != TEXT and "\n" in atom.text[1:])
