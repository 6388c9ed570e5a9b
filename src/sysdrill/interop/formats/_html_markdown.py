r"""Anki field HTML to Markdown that reads back as the same text (issue 31, item 4).

The HTML is walked once (:class:`_Converter`) into *atoms*
(:mod:`._md_atoms`): each character of the author's text, with its bold and
italics, and the markup our Markdown adds (list markers, tables, code, links,
formulas). Delimiters of bold and italics are placed where CommonMark reads them
as meant (:mod:`._md_emphasis`), and the atoms are written out
(:func:`._md_writer.assemble`) with every character that Markdown would read as
syntax escaped, judged by what is around it in the finished text:

- emphasis whose inner edge is a space (``<b> bold </b>``) has the spaces
  moved outside, and punctuation that would keep a delimiter from opening or
  closing (``<b>Note:</b>text``) moved outside too, so no stray ``**`` is left;
- ``*``, ``_`` and ``~`` are escaped when they could open or close emphasis or
  strikethrough (``__proto__``, not ``snake_case`` nor ``2 * 3``); backticks
  always;
- at the start of a line: ``#`` headings, ``>`` quotes, ``-``/``+``/``*`` and
  ``1.`` list markers, rules, setext underlines, code fences and table
  delimiter rows; leading spaces are dropped and leading non-breaking spaces
  kept as ``&nbsp;`` (indented text never becomes a code block);
- ``]`` before ``(``, ``[`` or ``:`` (no link or link definition appears);
  ``&`` before an entity name; ``^{``/``_{`` (our superscript and subscript);
  a ``\`` before punctuation; a ``$`` that would pair into a formula (as
  ``&#36;``: both renderers' math rules ignore escapes).

Two renderers read the result, and both are honoured: the web app's
markdown-it (CommonMark, ``\(`` and ``\[`` as math) and the Anki exporter's
cmark-gfm (:class:`sysdrill.interop.export.cards.FieldRenderer`). That is why
``(`` and ``[`` are never escaped with a backslash (``\(`` is math on the web):
a backslash before them is written ``&#92;``, a ``[`` in a link's text ``&#91;``.
"""

from __future__ import annotations

import html
import re
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from html.parser import HTMLParser

from sysdrill.interop.formats._md_atoms import (
    BOLD,
    BOTH,
    EXPORT,
    ITALIC,
    MARK,
    RAW,
    TEXT,
    WEB,
    Atom,
)
from sysdrill.interop.formats._md_writer import assemble, code_markdown

__all__ = ["html_to_markdown"]

_BLOCKS = frozenset(
    {"div", "p", "ul", "ol", "blockquote", "pre", "hr", "section", "article"}
    | {f"h{n}" for n in range(1, 7)}
)
_EMPHASIS = {"b": BOLD, "strong": BOLD, "i": ITALIC, "em": ITALIC}
# LaTeX-ready: 10<sup>4</sup> is 10^{4}, H<sub>2</sub>O is H_{2}O (exports turn them back),
# when the exporter's rule reads the braces back: plain text, no braces, code or tags.
_SCRIPT_TEXT = re.compile(r"(?!.*<[A-Za-z/!?])[^{}\n$`]{1,80}")
_MARKS: dict[str, tuple[str, str]] = {
    # Furigana: <ruby>漢字<rt>かんじ</rt></ruby> is 漢字(かんじ); <rp> is dropped.
    "rt": ("(", ")"),
}
_SKIP_CONTENT = frozenset({"script", "style", "head", "title", "object", "iframe"})
_SOUND = re.compile(r"\[sound:([^\]]+)\]")
# Anki's MathJax (\( \), \[ \]) and legacy LaTeX ([$] [/$], [$$] [/$$], [latex] [/latex]).
# A formula stays inside one block: it never runs from one list item or paragraph into
# the next (the text between is the author's, not LaTeX).
_IN_BLOCK = r"(?:(?!</?(?:div|p|li|ul|ol|table|tr|td|th|pre|blockquote|h[1-6])\b).)+?"
_FORMULA = re.compile(
    rf"\\\((?P<inline>{_IN_BLOCK})\\\)|\\\[(?P<display>{_IN_BLOCK})\\\]"
    rf"|\[(?P<kind>\$\$|\$|latex)\](?P<legacy>{_IN_BLOCK})\[/(?P=kind)\]",
    re.DOTALL | re.IGNORECASE,
)
_FORMULA_TAG = re.compile(r"<(/?)(sup|sub|br)\b[^>]*>|<[^>]*>", re.IGNORECASE)


def _is_heading(tag: str) -> bool:
    return len(tag) == 2 and tag[0] == "h" and tag[1] in "123456"


class _Converter(HTMLParser):
    """Walks Anki field HTML into atoms."""

    def __init__(
        self, media_names: Mapping[str, str], held: dict[str, tuple[str, str, int]]
    ) -> None:
        # Character references are decoded here, so an escaped "&lt;script&gt;"
        # (text the author showed) is told apart from markup.
        super().__init__(convert_charrefs=False)
        self.out: list[Atom] = []
        self.media: list[str] = []
        self.media_names = media_names
        self.held = held
        """Formulas and sounds taken out before parsing: placeholder -> (Markdown, source,
        which renderers hold it as a word)."""
        self.held_pattern = re.compile("[" + "".join(held) + "]") if held else None
        self.skip_depth = 0
        self.buffers: list[tuple[str, list[Atom]]] = []
        """Open table cells, code spans and pre blocks, the innermost written to."""
        self.lists: list[list[int]] = []
        """Open lists: the last number written (-1 for bullets), the width of the marker."""
        self.list_starts: list[int] = []
        """Where each open list began in the output (a list left empty is taken back)."""
        self.items: list[tuple[list[Atom], int, str | None, int]] = []
        """Where the current item of each open list began in its output, and the flat
        list state before it (see :meth:`_broken_item`), to take the item back."""
        self.lists_broken = False
        """A block inside a list ended it: its later items are written flat."""
        self.broken_kind: str | None = None
        """After such a block, the kind of list (``ul``, ``ol``) the last line began."""
        self.broken_number = 0
        """The number of the last ordered item written flat."""
        self.ended_list: tuple[str, int, list[int], bool, int] | None = None
        """The list just ended (its tag, where the output was, its state, whether it
        was written flat, how many lists held it): a list of the same kind right after
        it, at its depth, continues it, as CommonMark would read the two."""
        self.links: list[tuple[str | None, int]] = []
        self.tables: list[_Table] = []
        self.emphasis = {ITALIC: 0, BOLD: 0}
        """How deep in bold and in italics the text is."""
        self.headings: list[tuple[list[Atom], int]] = []
        """Open headings: the output and where the mark was written. A heading is one
        line, so a break or a block inside one is a space."""

    @property
    def sink(self) -> list[Atom]:
        return self.buffers[-1][1] if self.buffers else self.out

    @property
    def literal(self) -> bool:
        """Inside code or a pre block: text is written as it is."""
        return any(kind in ("code", "pre") for kind, _ in self.buffers)

    @property
    def style(self) -> int:
        return sum(bit for bit, depth in self.emphasis.items() if depth)

    def _mark(
        self, text: str, *, prefix: bool = False, words: int = 0, plain: bool = False
    ) -> None:
        if text:
            kind = RAW if self.literal else MARK
            style = 0 if plain else self.style
            self.sink.append(Atom(kind, text, prefix=prefix, words=words, style=style))

    def _newlines(self, count: int, *, block: bool = False, edge: bool = False) -> None:
        # Extra breaks are collapsed at the end, so over-asking is harmless; none
        # right after a list marker or heading mark, whose text must follow on its
        # line, unless a code block or table starts there (it leaves the list).
        if block:
            self._mark("\n" * count)
            for open_list in self.lists:
                # The block ends the lists: their later items start new ones, unindented,
                # after a blank line (a list does not always interrupt a paragraph).
                open_list[1] = 0
            self.lists_broken = bool(self.lists)
            self.broken_kind = None
        elif edge or not self._after_prefix():
            # A list's start or end is never swallowed by an empty item before it.
            # Inside a list, paragraphs are lines: a blank line would make the list
            # loose, which reads back with a blank line between every item.
            if not self.lists:
                self._mark("\n" * count)
            elif not self._line_ended():
                self._mark("\n")

    def _broken_item(self, counter: list[int]) -> None:
        """An item after a block ended its lists: flat, numbered on, as it reads back.

        Items of one kind in a row are one list to CommonMark whatever lists they
        came from; another kind, or text before, starts a new list after a blank line.
        """
        kind = "ol" if counter[0] >= 0 else "ul"
        if kind == self.broken_kind:
            if not self._line_ended():
                self._mark("\n")
            counter[0] = self.broken_number + 1 if kind == "ol" else -1
        else:
            self._mark("\n\n")
            if kind == "ol":
                counter[0] += 1
        self.broken_kind = kind
        self.broken_number = counter[0]
        self._mark(f"{counter[0]}. " if kind == "ol" else "- ", prefix=True)

    def _drop_empty_item(self, level: int = -1) -> bool:
        """Take back a list item that got no text (its marker and the break before it).

        Anki shows an empty item as nothing much; CommonMark reads an empty item
        after a line of text as that text's continuation or a heading underline.

        Args:
            level: Which open list's item (the innermost by default).

        Returns:
            Whether an item was taken back.
        """
        if not self.items or self.items[level][1] < 0:
            return False
        sink, start, kind, number = self.items[level]
        if sink is not self.sink or start > len(sink):
            return False
        added = sink[start:]
        if not any(atom.prefix for atom in added) or any(
            not atom.prefix and (atom.words or atom.text.strip(" \xa0\n")) for atom in added
        ):
            return False
        del sink[start:]
        self.items[level] = (sink, -1, None, 0)
        counter = self.lists[level]
        if counter[0] > 0:
            counter[0] -= 1
        if self.lists_broken:
            self.broken_kind, self.broken_number = kind, number
        return True

    def _line_ended(self) -> bool:
        """Whether the output so far ends with a line break (seen through sup and sub)."""
        return self._last_atom().text.endswith("\n")

    def _last_atom(self) -> Atom:
        """The atom written last, looking through superscripts and subscripts just begun."""
        sinks = [self.out, *(atoms for _, atoms in self.buffers)]
        kinds = ["", *(kind for kind, _ in self.buffers)]
        while sinks:
            atoms = sinks.pop()
            if atoms:
                return atoms[-1]
            if kinds.pop() not in ("sup", "sub"):
                break
        return Atom(MARK, "")

    def _after_prefix(self) -> bool:
        """Whether nothing but a list marker or heading mark is on the line yet."""
        return self._last_atom().prefix

    def _restore(self, value: str) -> str:
        if self.held_pattern is None:
            return value
        return self.held_pattern.sub(lambda m: self.held[m.group()][1], value)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: self._restore(value or "") for name, value in attrs}
        if tag in _SKIP_CONTENT or tag == "rp":
            self.skip_depth += 1
        elif self.headings and (tag == "br" or (tag in _BLOCKS and not _is_heading(tag))):
            if not self._after_prefix():
                self.handle_data(" ")
        elif tag == "br":
            # In a list, an empty line would end the item: lines only.
            if not self._after_prefix() and not (self.lists and self._line_ended()):
                self._mark("\n")
        elif self.literal and tag != "pre":
            if tag in _BLOCKS or tag in ("li", "tr"):
                self._mark("\n")
        elif tag in ("ul", "ol"):
            ended = self.ended_list
            if (
                ended is not None
                and len(self.lists) == ended[4]
                and ended[0] == tag
                and ended[1] <= len(self.sink)
                and all(not atom.text.strip("\n") for atom in self.sink[ended[1] :])
            ):
                # Only blank lines since a list of this kind: CommonMark reads one list.
                del self.sink[ended[1] :]
                self.lists.append(ended[2])
                self.list_starts.append(ended[1])
                self.items.append((self.sink, -1, None, 0))
                if ended[3]:
                    self.lists_broken = True
                    self.broken_kind, self.broken_number = tag, ended[2][0]
                return
            if self.lists_broken:
                self._drop_empty_item()  # written flat, an item of only a list is empty
            self.list_starts.append(len(self.sink))
            # A list after a paragraph starts after a blank line, as it reads back.
            self._newlines(1 if self.lists else 2, edge=True)
            start = values.get("start", "")
            first = int(start) if start.isdigit() and len(start) < 10 else 1
            self.lists.append([first - 1 if tag == "ol" else -1, 0])
            self.items.append((self.sink, -1, None, 0))
        elif tag == "li":
            self._drop_empty_item()
            if self.items:
                state = (self.broken_kind, self.broken_number)
                self.items[-1] = (self.sink, len(self.sink), *state)
            counter = self.lists[-1] if self.lists else [-1, 0]
            if self.lists_broken:
                self._broken_item(counter)
                return
            if self.sink and not self._line_ended():
                self._mark("\n")
            # A nested list starts where its parent item's text does.
            indent = "".join(" " * width for _, width in self.lists[:-1])
            if counter[0] >= 0:
                counter[0] += 1
                marker = f"{counter[0]}. "
            else:
                marker = "- "
            counter[1] = len(marker)
            self._mark(indent + marker, prefix=True)
        elif tag == "table":
            self.tables.append(_Table())
        elif tag == "tr" and self.tables:
            self.tables[-1].rows.append([])
        elif tag in ("td", "th") and self.tables:
            if not self.tables[-1].rows:
                self.tables[-1].rows.append([])
            self.buffers.append(("cell", []))
        elif tag == "pre":
            self.buffers.append(("pre", []))
        elif tag == "hr":
            self._block("---")
        elif tag in _BLOCKS:
            self._newlines(1 if tag == "div" else 2)
            # A table cell is one line of text, and in a list item a heading would end
            # the item's lazy lines (the text after it would leave the list): there a
            # heading keeps its text, as a line of its own.
            if _is_heading(tag) and not (self.headings or self.buffers or self.lists):
                self.headings.append((self.sink, len(self.sink)))
                self._mark("#" * int(tag[1:]) + " ", prefix=True)
        elif tag in _EMPHASIS:
            self.emphasis[_EMPHASIS[tag]] += 1
        elif tag in ("sup", "sub"):
            self.buffers.append((tag, []))
        elif tag in _MARKS:
            self._mark(_MARKS[tag][0])
        elif tag == "code":
            self.buffers.append(("code", []))
        elif tag == "a":
            href = values.get("href") or ""
            kept = href if href.startswith(("http://", "https://")) else None
            self.links.append((kept, len(self.sink)))
            if kept:
                # A link's brackets are never emphasised: emphasis around a link is
                # written inside its label, where CommonMark reads it.
                self._mark("[", plain=True)
        elif tag == "img":
            source = values.get("src") or ""
            stored = _stored_media(source, self.media_names)
            if stored:
                alt = " ".join(re.sub(r"[\[\]]", " ", values.get("alt") or "").split())
                self._mark(f"![{alt}](media/{stored})", plain=True)
            elif source:
                self.media.append(source)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP_CONTENT or tag == "rp":
            self.skip_depth = max(self.skip_depth - 1, 0)
        elif tag == "pre" and self.buffers and self.buffers[-1][0] == "pre":
            self._mark_block(self.buffers.pop()[1])
        elif tag == "code" and self.buffers and self.buffers[-1][0] == "code":
            self._code_span(self.buffers.pop()[1])
        elif self.literal:
            if tag in _BLOCKS or tag in ("li", "tr"):
                self._mark("\n")
        elif tag == "li":
            self._drop_empty_item()
        elif tag in ("ul", "ol"):
            self._drop_empty_item()
            ended = self.lists.pop() if self.lists else None
            if self.items:
                self.items.pop()
            start = self.list_starts.pop() if self.list_starts else len(self.sink)
            if start <= len(self.sink) and all(
                not a.words and not a.text.strip() for a in self.sink[start:]
            ):
                del self.sink[start:]  # every item was empty: no list, a break for it
                self._newlines(1 if self.lists else 2, edge=True)
                return
            end = len(self.sink)
            self._newlines(1 if self.lists else 2, edge=True)
            if ended is not None:
                # Written flat, the list goes on only if its last line was one of its
                # items (not the block that ended it).
                flat = self.lists_broken
                goes_on = not flat or self.broken_kind == tag
                depth = len(self.lists)
                self.ended_list = (tag, end, ended, flat, depth) if goes_on else None
                if not self.lists:
                    self.lists_broken = False
                    self.broken_kind = None
        elif tag in ("td", "th") and self.buffers and self.buffers[-1][0] == "cell":
            cell = assemble(self.buffers.pop()[1], cell=True)
            # A cell is one line: its breaks are spaces (a code span's own spaces stay).
            self.tables[-1].rows[-1].append(re.sub(r"[ \t]*\n[ \t\n]*", " ", cell).strip())
        elif tag == "table" and self.tables:
            self._block(self.tables.pop().markdown())
        elif self.headings and tag in _BLOCKS and not _is_heading(tag):
            self.handle_data(" ")  # a block inside a heading ends with a space
        elif tag in _BLOCKS:
            if _is_heading(tag) and self.headings:
                sink, start = self.headings.pop()
                if sink is self.sink and all(
                    atom.prefix or not atom.text.strip(" \xa0") for atom in sink[start:]
                ):
                    del sink[start:]  # an empty heading: no mark for the text after it
            self._newlines(1 if tag == "div" else 2)
        elif tag in _EMPHASIS:
            bit = _EMPHASIS[tag]
            self.emphasis[bit] = max(self.emphasis[bit] - 1, 0)
        elif tag in ("sup", "sub") and self.buffers and self.buffers[-1][0] == tag:
            self._script(tag, self.buffers.pop()[1])
        elif tag in _MARKS:
            self._mark(_MARKS[tag][1])
        elif tag == "a" and self.links:
            self._close_link(*self.links.pop())

    def _close_link(self, href: str | None, start: int) -> None:
        if not href:
            return
        sink = self.sink
        if start >= len(sink) or (sink[start].kind, sink[start].text) != (MARK, "["):
            return  # the label began in another table cell: its text stays, unlinked
        label = sink[start + 1 :]
        shown = "".join(atom.text for atom in label).rstrip("/")
        address = href.rstrip("/")
        if all(atom.kind == TEXT for atom in label) and (
            shown == address or (shown.startswith("www.") and "http://" + shown == address)
        ):
            # The address shown as it is: the exporter's autolinks write exactly that,
            # so the text stays as typed and reads back the same.
            del sink[start]
            return
        for atom in label:
            atom.link = True
        target = "".join(f"%{ord(c):02X}" if c in " ()<>" else c for c in href)
        self._mark(f"]({target})", plain=True)

    def _script(self, tag: str, atoms: list[Atom]) -> None:
        """A superscript or subscript as ``^{...}``/``_{...}`` when the exporter reads it back.

        The exporter takes what is between the braces as it is, so it must be plain
        text it accepts, after a character that is not a space; anything else keeps
        its text and loses the raising.
        """
        raw = []
        styles = {atom.style for atom in atoms}
        for atom in atoms:
            if atom.kind == TEXT:
                raw.append(" " if atom.text == "\xa0" else atom.text)
            elif (atom.kind, atom.text) == (MARK, "&lt;"):
                raw.append("<")
            else:
                raw = []
                break
        content = re.sub(r" {2,}", " ", "".join(raw))
        sink = self.sink
        last = sink[-1] if sink else None
        after = last is not None and bool(
            last.words & EXPORT
            or (last.text[-1:] not in ("", "\\") and not last.text[-1:].isspace())
        )
        if after and len(styles) == 1 and content.strip() and _SCRIPT_TEXT.fullmatch(content):
            opening = "^{" if tag == "sup" else "_{"
            sink.append(Atom(MARK, f"{opening}{content}}}", words=EXPORT, style=styles.pop()))
        else:
            sink.extend(atoms)

    def _code_span(self, atoms: list[Atom]) -> None:
        content = "".join(atom.text for atom in atoms).replace("\n", " ").replace("\xa0", " ")
        content = re.sub(" {2,}", " ", content)  # as HTML shows it, and reads it back
        if not content.strip():
            if content:
                self.handle_data(" ")
            return
        self._mark(code_markdown(content), words=EXPORT)
        self.sink[-1].code = content

    def _mark_block(self, atoms: list[Atom]) -> None:
        content = "".join(atom.text for atom in atoms).replace("\xa0", " ").strip("\n")
        if content.strip():
            longest = max((len(run) for run in re.findall(r"`+", content)), default=0)
            fence = "`" * max(3, longest + 1)
            self._block(f"{fence}\n{content}\n{fence}")

    def _block(self, markdown: str) -> None:
        """A table or code block, on lines of its own (an empty one is nothing)."""
        if markdown:
            # Items that hold only a block (and lists): the block, out of the list.
            for level in range(len(self.items)):
                if self._drop_empty_item(level):
                    break
            self._newlines(2, block=True)
            self._mark(markdown)
            self._newlines(2, block=True)

    def handle_data(self, data: str) -> None:
        if self.skip_depth:
            return
        if self.tables and not any(kind == "cell" for kind, _ in self.buffers):
            if not data.strip():
                return  # the layout between a table's tags, not text
        literal = self.literal
        if not any(kind == "pre" for kind, _ in self.buffers):
            data = re.sub(r"[ \t\r\n]+", " ", data)
            last = self._last_atom()
            if not literal and data.startswith(" ") and (last.text[-1:] in (" ", "\n", "")):
                data = data[1:]  # HTML shows one space where two elements' spaces meet
        pieces = [data] if self.held_pattern is None else self.held_pattern.split(data)
        found = [] if self.held_pattern is None else self.held_pattern.findall(data)
        for index, piece in enumerate(pieces):
            if literal:
                if piece:
                    self.sink.append(Atom(RAW, piece))
            else:
                style = self.style
                self.sink.extend(Atom(TEXT, char, style=style) for char in piece)
            if index < len(found):
                markdown, _, words = self.held[found[index]]
                kind = RAW if literal else MARK
                atom = Atom(kind, markdown, words=words, formula=words == BOTH, style=self.style)
                self.sink.append(atom)

    def _reference(self, char: str) -> None:
        # Outside code, a "<" the author escaped stays escaped, so neither a
        # Markdown renderer nor `check` reads "&lt;script&gt;" as markup.
        if char == "<" and not self.literal:
            if not self.skip_depth:
                self.sink.append(Atom(MARK, "&lt;", style=self.style))
            return
        self.handle_data(char)

    def handle_entityref(self, name: str) -> None:
        self._reference(html.unescape(f"&{name};"))

    def handle_charref(self, name: str) -> None:
        self._reference(html.unescape(f"&#{name};"))


@dataclass(slots=True)
class _Table:
    rows: list[list[str]] = field(default_factory=list)

    def markdown(self) -> str:
        """The table as a GitHub-flavoured Markdown table, the first row as its header."""
        rows = [row for row in self.rows if row]
        if not rows:
            return ""
        width = max(len(row) for row in rows)
        lines = ["| " + " | ".join(row + [""] * (width - len(row))) + " |" for row in rows]
        lines.insert(1, "|" + " --- |" * width)
        return "\n".join(lines)


def _stored_media(source: str, media_names: Mapping[str, str]) -> str | None:
    """The vault file name of a media file the source names (as written or URL-decoded)."""
    return media_names.get(source) or media_names.get(urllib.parse.unquote(source))


# --- the entry point ------------------------------------------------------------------


def _formula_text(source: str) -> str:
    """A formula's LaTeX from the HTML Anki stored it in (sup and sub kept, breaks as spaces)."""

    def tag(match: re.Match[str]) -> str:
        name = (match.group(2) or "").lower()
        if name == "br":
            return " "
        if name in ("sup", "sub"):
            return "}" if match.group(1) else ("^{" if name == "sup" else "_{")
        return ""

    text = html.unescape(_FORMULA_TAG.sub(tag, source)).replace("\xa0", " ")
    return " ".join(text.split())


def _placeholders(text: str) -> int:
    """The first code point of a private-use plane the text does not use (for held parts)."""
    for base in (0xF0000, 0x100000):
        if not any(base <= ord(char) < base + 0xFFFE for char in text):
            return base
    return 0


def html_to_markdown(
    text: str, *, media_names: Mapping[str, str] | None = None
) -> tuple[str, list[str]]:
    r"""Turn an Anki field's HTML into Markdown that shows the same text.

    Line breaks, paragraphs, lists, tables (GitHub-flavoured) and code blocks
    survive; bold, italics, code and links become Markdown; ``<sup>`` and
    ``<sub>`` become ``^{...}`` and ``_{...}``; ``<ruby>`` furigana becomes
    ``base(reading)``; an escaped ``&lt;`` outside code stays ``&lt;``;
    scripts and styles are dropped; MathJax ``\( \)`` and ``\[ \]`` and
    legacy ``[$]...[/$]`` become ``$...$`` and ``$$...$$``. Everything else
    the author typed is escaped where Markdown would read it as syntax (see
    the module docstring), so exporting the Markdown shows the same text.

    Args:
        text: The field's HTML.
        media_names: Vault file names (in ``media/``) of the package's media
            files, by their name in the package: an ``<img>`` of one becomes
            ``![alt](media/<name>)`` and a ``[sound:...]`` ``[sound:media/<name>]``.

    Returns:
        The text and the media files it referred to that are not in
        ``media_names`` (dropped from the text, not imported).
    """
    names = media_names or {}
    media: list[str] = []
    held: dict[str, tuple[str, str, int]] = {}
    base = _placeholders(text)

    def hold(markdown: str, source: str, words: int) -> str:
        if not base or len(held) >= 0xFFFE:
            return source
        key = chr(base + len(held))
        held[key] = (markdown, source, words)
        return key

    def balanced(body: str) -> bool:
        """Whether the tags inside a formula close where they open (it is in one element)."""
        opened: list[str] = []
        for closing, name in re.findall(r"<(/?)([A-Za-z][A-Za-z0-9]*)[^>]*>", body):
            name = name.lower()
            if name in ("br", "img", "wbr"):
                continue
            if not closing:
                opened.append(name)
            elif not opened or opened.pop() != name:
                return False
        return not opened

    def formula(match: re.Match[str]) -> str:
        if match.group("inline") is not None:
            body, display = match.group("inline"), False
        elif match.group("display") is not None:
            body, display = match.group("display"), True
        else:
            body, display = match.group("legacy"), match.group("kind") != "$"
        latex = _formula_text(body)
        if not balanced(body) or not html.unescape(re.sub(r"<[^>]*>", "", body)).strip():
            # Delimiters around nothing but markup are the author's text, not a formula.
            return match.group() if "<" in body else ""
        return hold(f"$${latex}$$" if display else f"${latex}$", match.group(), BOTH)

    def sound(match: re.Match[str]) -> str:
        stored = _stored_media(match.group(1), names)
        if stored:
            return hold(f"[sound:media/{stored}]", match.group(), WEB)
        media.append(match.group(1))
        return ""

    text = _SOUND.sub(sound, text)
    text = _FORMULA.sub(formula, text)
    converter = _Converter(names, held)
    converter.feed(text)
    converter.close()
    media.extend(converter.media)
    result = assemble(converter.out)
    # A line of nothing but spaces, no-break ones too, is an empty line.
    lines = [re.sub(r"^(?:&nbsp;| )+$", "", line.rstrip()) for line in result.split("\n")]
    result = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    return result, media
