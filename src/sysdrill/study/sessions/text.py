r"""Readable text for terminals: LaTeX math as plain symbols, Markdown kept light.

Vault text carries LaTeX between ``$...$`` or ``$$...$$`` (``5.88 \times 10^{22}``).
A terminal cannot typeset it, so :func:`readable_math` rewrites each fragment
with :func:`sysdrill.content.latex_text.latex_to_text` (``×``, ``≈``, ``a/b``)
and drops the dollar signs, leaving commands it does not know as written.
"""

from __future__ import annotations

import re

from sysdrill.content.latex_text import latex_to_text
from sysdrill.content.media import name_media
from sysdrill.content.models import Item

__all__ = [
    "draw_tables",
    "keep_line_breaks",
    "plain_text",
    "plain_title",
    "readable_math",
    "separate_headings",
    "terminal_markup_text",
    "untitled_heading",
]

_MATH = re.compile(r"\$\$(.+?)\$\$|\$(?!\s)([^$\n]+?)(?<!\s)\$", re.DOTALL)


def _math_to_plain(tex: str) -> str:
    """One LaTeX math fragment (without its dollar signs) as plain text, spaces tidied."""
    return re.sub(r"[ \t\u2009]{2,}", " ", latex_to_text(tex)).strip()


def readable_math(text: str) -> str:
    r"""Replace every ``$...$`` and ``$$...$$`` fragment with readable plain text.

    Args:
        text: Markdown that may hold LaTeX math.

    Returns:
        The same text with math rewritten (``$\frac{a}{b} \times 2$`` becomes
        ``a/b × 2``); dollar amounts such as ``$5 and $6`` stay as written
        because a fragment may not start or end with a space.
    """
    text = _MATH.sub(lambda m: _math_to_plain(m.group(1) or m.group(2)), text)
    return _BARE_LATEX.sub(lambda m: _math_to_plain(m.group(0)), text)


_BARE_LATEX = re.compile(
    r"\\(?:[A-Za-z]+)(?:\{[^{}\n]*\}|[_^](?:\{[^{}\n]*\}|\w))*(?:\s*[_^](?:\{[^{}\n]*\}|\w))*"
)
"""A LaTeX command written outside ``$...$`` (``\\min_i``, ``\\bar{x}``): made readable too."""


_BOLD = re.compile(r"\*\*(.+?)\*\*|__(.+?)__")
_HEADING = re.compile(r"^#{1,6}\s+", re.MULTILINE)
_ITALIC = re.compile(r"(?<![*\w])\*(?!\s)([^*\n]+?)(?<!\s)\*(?![*\w])")
_CODE = re.compile(r"`([^`\n]+)`")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")


def plain_text(markdown: str) -> str:
    """Markdown for a plain terminal: math made readable, media named, ``**`` and ``#`` dropped.

    Args:
        markdown: Item text as written in the vault.

    Returns:
        Text that reads well without a Markdown renderer (lists and tables are
        already readable as written).
    """
    text = readable_math(name_media(markdown))
    text = _BOLD.sub(lambda m: m.group(1) or m.group(2), text)
    text = _ITALIC.sub(lambda m: m.group(1), text)
    text = _CODE.sub(lambda m: m.group(1), text)
    return draw_tables(_HEADING.sub("", text)).strip()


UNTITLED_HEADING_CHARS = 60
"""Most characters of a question that stand for the title of an item without one."""


def untitled_heading(item: Item) -> str:
    """What stands for the title of an item that has none: the first words of its question.

    Imported exercises, quiz questions and flashcards seldom carry a title, and
    their id (``global-exercise-0005``) tells a learner nothing; the question's
    opening does. Every place that names an item (``show``, ``search``, the web
    pages, session headers and reports) uses this one rule.

    Returns:
        The question made plain (Markdown and LaTeX readable, on one line), cut
        between words to at most :data:`UNTITLED_HEADING_CHARS` characters with
        "…" when cut; the id when the item has no question either.
    """
    text = " ".join(plain_text(item.question or "").split())
    if not text:
        return item.id
    if len(text) <= UNTITLED_HEADING_CHARS:
        return text
    # One character is kept for the ellipsis; a word is never cut in two unless it is alone.
    head = text[: UNTITLED_HEADING_CHARS - 1]
    if text[len(head)] != " " and " " in head:
        head = head.rsplit(" ", 1)[0]
    return head.rstrip(" ,;:.-") + "…"


def plain_title(item: Item) -> str:
    """The item's title for a plain terminal (Markdown and LaTeX made readable).

    An item without a title is named by :func:`untitled_heading`.
    """
    return plain_text(item.title) if item.title else untitled_heading(item)


def terminal_markup_text(markdown: str) -> str:
    """Markdown made readable like :func:`plain_text`, but ``**bold**`` markers kept.

    For a view that styles bold itself (``sysdrill show``): math, media, code,
    italics, headings and tables are handled here, line by line as written.
    """
    text = readable_math(name_media(markdown))
    text = _ITALIC.sub(lambda m: m.group(1), text)
    text = _CODE.sub(lambda m: m.group(1), text)
    return draw_tables(_HEADING.sub("", text)).strip()


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _table_text(header: list[str], rows: list[list[str]]) -> str:
    from io import StringIO

    from rich import box
    from rich.console import Console
    from rich.table import Table

    table = Table(box=box.SQUARE, show_header=True, header_style="")
    for name in header:
        table.add_column(name)
    for row in rows:
        table.add_row(*(row + [""] * (len(header) - len(row)))[: len(header)])
    out = StringIO()
    Console(file=out, width=100, color_system=None, highlight=False).print(table)
    return out.getvalue().rstrip("\n")


def draw_tables(text: str) -> str:
    """Draw every Markdown pipe table in ``text`` with box lines (Rich), other lines kept.

    Args:
        text: Plain text that may hold ``| a | b |`` tables with a ``|---|`` rule.

    Returns:
        The text with each table drawn as a grid, at most 100 columns wide.
    """
    lines = text.split("\n")
    out: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if "|" in line and _TABLE_RULE.match(following) and "|" in following:
            rows = []
            index += 2
            while index < len(lines) and "|" in lines[index] and lines[index].strip():
                rows.append(_cells(lines[index]))
                index += 1
            out.append(_table_text(_cells(line), rows))
            continue
        out.append(line)
        index += 1
    return "\n".join(out)


def keep_line_breaks(markdown: str) -> str:
    """Make every line break of ``markdown`` a hard break.

    Authors write ``**The Pitfall:** ...`` and ``**The Rationale:** ...`` on
    lines of their own; Markdown would join them into one paragraph.

    Args:
        markdown: Item text as written in the vault.

    Returns:
        The text with a Markdown hard break (two trailing spaces) at the end of
        each line that another non-blank line follows; blank lines stay
        paragraph breaks.
    """
    lines = markdown.splitlines()
    kept = []
    for index, line in enumerate(lines):
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if line.strip() and following.strip() and not line.endswith("  "):
            line = line.rstrip() + "  "
        kept.append(line)
    return "\n".join(kept)


_BOLD_HEADING = re.compile(r"^\s{0,3}\*\*[^*\n]+\*\*\s*$")
"""A line that is bold text alone: how authors head napkin sections (``**Calculations:**``)."""


def separate_headings(markdown: str) -> str:
    """Put each line of bold text alone (a section heading) in a paragraph of its own.

    Napkin math is written as ``**Assumptions:**``, a list, ``**Calculations:**``,
    a list. Markdown reads a heading line right after a list item as that item's
    continuation, so the heading would end the item's line. A blank line before
    it (outside code blocks) keeps it on a line of its own.

    Args:
        markdown: Item text as written in the vault.

    Returns:
        The same text with a blank line before each such heading that lacked one.
    """
    out: list[str] = []
    fenced = False
    for line in markdown.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and _BOLD_HEADING.match(line) and out and out[-1].strip():
            out.append("")
        out.append(line)
    return "\n".join(out)
