"""Helpers the Anki, CSV and Markdown readers share (H8's readers; not a format).

Three concerns live here because every card-shaped source needs them:

- decoding a text file with the shared policy of :mod:`sysdrill.interop.text`
  under the limit for sources read line by line, its notes as import notes;
- turning Anki's field HTML into readable Markdown-ish text;
- building the raw vault mapping of a front/back card and its stable key.
"""

from __future__ import annotations

import hashlib
import html
import re
import urllib.parse
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from sysdrill.interop import text
from sysdrill.interop.media import PackageMedia
from sysdrill.interop.source import ImportNote, ParsedSource

__all__ = [
    "DecodedText",
    "card_item",
    "finish_source",
    "decode_text_file",
    "html_to_markdown",
    "split_tags",
    "text_key",
]


@dataclass(frozen=True, slots=True)
class DecodedText:
    """How to read a text source: the codec to open it with and what was noticed."""

    encoding: str
    """Python codec name to pass to ``open``."""
    notes: tuple[ImportNote, ...] = ()


def decode_text_file(path: Path, *, kind: str) -> DecodedText:
    """Work out how to decode a text source read line by line, refusing what is not text.

    The policy is :func:`sysdrill.interop.text.text_encoding`'s, under
    :data:`~sysdrill.interop.text.STREAMED_TEXT_MAX_BYTES`.

    Args:
        path: The source file.
        kind: What the file should be, for messages ("CSV file").

    Returns:
        The codec to open the file with and notes about the choice.

    Raises:
        ImportFailed: If the file is missing, unreadable or binary.
        HostileInput: If the file is larger than the limit.
    """
    encoding = text.text_encoding(path, kind=kind, limit_bytes=text.STREAMED_TEXT_MAX_BYTES)
    notes = () if encoding.note is None else (ImportNote(encoding.note),)
    return DecodedText(encoding.codec, notes)


def read_text(path: Path, *, kind: str) -> tuple[str, tuple[ImportNote, ...]]:
    r"""Read a whole text source (within the streamed-source limit) as a string.

    Line endings become ``\n``.

    Raises:
        ImportFailed: As :func:`decode_text_file`.
    """
    decoded = decode_text_file(path, kind=kind)
    with path.open(encoding=decoded.encoding, newline=None) as stream:
        return stream.read(), decoded.notes


def text_key(prefix: str, text: str) -> str:
    """Stable key from a card's front: whitespace-insensitive SHA-256, 16 hex digits."""
    normal = " ".join(text.split()).casefold()
    return f"{prefix}:{hashlib.sha256(normal.encode('utf-8')).hexdigest()[:16]}"


def split_tags(text: str) -> list[str]:
    """Split a tags cell, dropping repeats.

    Commas or semicolons separate tags when there are any (so a tag may hold
    a space, as in ``memory bound; serving``); otherwise whitespace does, as
    in Anki.
    """
    parts = re.split(r"[,;]", text) if re.search(r"[,;]", text) else text.split()
    return unique(tag.strip() for tag in parts if tag.strip())


def finish_source(source: ParsedSource, media: PackageMedia) -> None:
    """Hand a reader's checked media to its source, and name the deck when there is one."""
    source.media_files = media.files
    source.notes.extend(media.notes)
    decks = unique(str(item.data["deck"]) for item in source.items if item.data.get("deck"))
    if len(decks) == 1:
        source.deck = decks[0]


def unique(values: Iterable[str]) -> list[str]:
    """Values in first-seen order without repeats."""
    return list(dict.fromkeys(values))


def card_item(
    *,
    front: str,
    back: str,
    deck: str | None = None,
    tags: Iterable[str] = (),
    where: str = "",
    media: Iterable[str] = (),
) -> tuple[dict[str, Any], tuple[ImportNote, ...]]:
    """Raw vault mapping of a front/back card.

    A card with a back is a ``flashcard``; one without a back becomes a
    ``quiz`` item with no model answer, and a note says so (it is kept, not
    dropped, so the author can add the answer).

    Args:
        front: Front text (Markdown).
        back: Back text (Markdown), possibly empty.
        deck: Deck the card belongs to.
        tags: Tags, repeats dropped.
        where: Location for the notes, such as ``deck.csv:12``.
        media: Media files the card referred to (noted, not imported).

    Returns:
        The mapping (no ``id``) and notes about it.
    """
    data: dict[str, Any] = {"format": "flashcard", "question": front.strip()}
    notes: list[ImportNote] = []
    if back.strip():
        data["details"] = {"realistic_solution": back.strip()}
    else:
        data["format"] = "quiz"
        notes.append(
            ImportNote("card has no back; imported as a quiz question without an answer", where)
        )
    media_list = unique(media)
    if media_list:
        notes.append(ImportNote(f"refers to media not imported: {', '.join(media_list)}", where))
    tag_list = unique(tags)
    if tag_list:
        data["tags"] = tag_list
    if deck:
        data["deck"] = deck
    return data, tuple(notes)


# --- HTML to Markdown-ish text -------------------------------------------------

_BLOCKS = frozenset(
    {"div", "p", "ul", "ol", "blockquote", "pre", "hr", "section", "article"}
    | {f"h{n}" for n in range(1, 7)}
)
_INLINE_MARKS: dict[str, tuple[str, str]] = {
    "b": ("**", "**"),
    "strong": ("**", "**"),
    "i": ("*", "*"),
    "em": ("*", "*"),
    # LaTeX-ready: 10<sup>4</sup> is 10^{4}, H<sub>2</sub>O is H_{2}O (exports turn them back).
    "sup": ("^{", "}"),
    "sub": ("_{", "}"),
    # Furigana: <ruby>漢字<rt>かんじ</rt></ruby> is 漢字(かんじ); <rp> is dropped.
    "rt": ("(", ")"),
}
_SKIP_CONTENT = frozenset({"script", "style", "head", "title", "object", "iframe"})
_MEDIA_REF = re.compile(r"\[sound:([^\]]+)\]")
_MATH_INLINE = re.compile(r"\\\((.+?)\\\)", re.DOTALL)
_MATH_DISPLAY = re.compile(r"\\\[(.+?)\\\]", re.DOTALL)
_LEGACY_LATEX = re.compile(r"\[(\$\$|\$|latex)\](.+?)\[/\1\]", re.DOTALL)


class _Converter(HTMLParser):
    """Collects Markdown-ish text while walking Anki field HTML."""

    def __init__(self, media_names: Mapping[str, str]) -> None:
        # Character references are decoded here, so an escaped "&lt;script&gt;"
        # (text the author showed) is told apart from markup.
        super().__init__(convert_charrefs=False)
        self.out: list[str] = []
        self.media: list[str] = []
        self.media_names = media_names
        self.skip_depth = 0
        self.pre_depth = 0
        self.code_depth = 0
        self.lists: list[list[int]] = []
        self.link_href: list[str | None] = []
        self.tables: list[_Table] = []
        self.cells: list[list[str]] = []
        """Output of the table cells being read; the innermost is written to."""

    @property
    def sink(self) -> list[str]:
        return self.cells[-1] if self.cells else self.out

    def _newlines(self, count: int) -> None:
        # Extra breaks are collapsed at the end, so over-asking is harmless.
        self.sink.append("\n" * count)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        out = self.sink
        if tag in _SKIP_CONTENT or tag == "rp":
            self.skip_depth += 1
        elif tag == "br":
            out.append("\n")
        elif tag in ("ul", "ol"):
            self._newlines(1)
            self.lists.append([0] if tag == "ol" else [-1])
        elif tag == "li":
            if not "".join(out[-2:]).endswith("\n"):
                self._newlines(1)
            indent = "  " * max(len(self.lists) - 1, 0)
            counter = self.lists[-1] if self.lists else [-1]
            if counter[0] >= 0:
                counter[0] += 1
                out.append(f"{indent}{counter[0]}. ")
            else:
                out.append(f"{indent}- ")
        elif tag == "table":
            self._newlines(2)
            self.tables.append(_Table())
        elif tag == "tr" and self.tables:
            self.tables[-1].rows.append([])
        elif tag in ("td", "th") and self.tables:
            if not self.tables[-1].rows:
                self.tables[-1].rows.append([])
            self.cells.append([])
        elif tag in _BLOCKS:
            self._newlines(1 if tag == "div" else 2)
            if tag == "pre":
                self.pre_depth += 1
                out.append("```\n")
            elif tag[0] == "h" and tag[1:].isdigit():
                out.append("#" * int(tag[1:]) + " ")
            elif tag == "hr":
                out.append("---")
        elif tag in _INLINE_MARKS:
            out.append(_INLINE_MARKS[tag][0])
        elif tag == "code" and not self.pre_depth:
            self.code_depth += 1
            out.append("`")
        elif tag == "a":
            href = values.get("href") or ""
            self.link_href.append(href if href.startswith(("http://", "https://")) else None)
            if self.link_href[-1]:
                out.append("[")
        elif tag == "img":
            source = values.get("src") or ""
            stored = _stored_media(source, self.media_names)
            if stored:
                alt = " ".join(re.sub(r"[\[\]]", " ", values.get("alt") or "").split())
                out.append(f"![{alt}](media/{stored})")
            elif source:
                self.media.append(source)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        out = self.sink
        if tag in _SKIP_CONTENT or tag == "rp":
            self.skip_depth = max(self.skip_depth - 1, 0)
        elif tag in ("ul", "ol"):
            if self.lists:
                self.lists.pop()
            self._newlines(1 if self.lists else 2)
        elif tag in ("td", "th") and self.cells:
            cell = "".join(self.cells.pop())
            cell = re.sub(r"\s*\n\s*", "<br>", cell.strip()).replace("|", "\\|")
            self.tables[-1].rows[-1].append(cell)
        elif tag == "table" and self.tables:
            self.sink.append(self.tables.pop().markdown())
            self._newlines(2)
        elif tag in _BLOCKS:
            if tag == "pre" and self.pre_depth:
                self.pre_depth -= 1
                self._newlines(1)
                out.append("```")
            self._newlines(1 if tag == "div" else 2)
        elif tag in _INLINE_MARKS:
            out.append(_INLINE_MARKS[tag][1])
        elif tag == "code" and not self.pre_depth:
            self.code_depth = max(self.code_depth - 1, 0)
            out.append("`")
        elif tag == "a" and self.link_href:
            href = self.link_href.pop()
            if href:
                out.append(f"]({href})")

    def handle_data(self, data: str) -> None:
        if self.skip_depth:
            return
        if not self.pre_depth:
            data = re.sub(r"[ \t\r\n]+", " ", data)
        self.sink.append(data)

    def _reference(self, char: str) -> None:
        # Outside code, a "<" the author escaped stays escaped, so neither a
        # Markdown renderer nor `check` reads "&lt;script&gt;" as markup.
        if char == "<" and not (self.pre_depth or self.code_depth):
            char = "&lt;"
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


def html_to_markdown(
    text: str, *, media_names: Mapping[str, str] | None = None
) -> tuple[str, list[str]]:
    r"""Turn an Anki field's HTML into readable Markdown-ish text.

    Line breaks, paragraphs, lists, tables (GitHub-flavoured) and code blocks
    survive; bold, italics, code and links become Markdown; ``<sup>`` and
    ``<sub>`` become ``^{...}`` and ``_{...}``; ``<ruby>`` furigana becomes
    ``base(reading)``; an escaped ``&lt;`` outside code stays ``&lt;``;
    scripts and styles are dropped; MathJax ``\( \)`` and ``\[ \]`` and
    legacy ``[$]...[/$]`` become ``$...$`` and ``$$...$$``.

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

    def sound(match: re.Match[str]) -> str:
        stored = _stored_media(match.group(1), names)
        if stored:
            return f"[sound:media/{stored}]"
        media.append(match.group(1))
        return ""

    text = _MEDIA_REF.sub(sound, text)
    converter = _Converter(names)
    converter.feed(text)
    converter.close()
    media.extend(converter.media)
    result = "".join(converter.out).replace("\xa0", " ")
    result = _MATH_DISPLAY.sub(lambda m: f"$${m.group(1).strip()}$$", result)
    result = _MATH_INLINE.sub(lambda m: f"${m.group(1).strip()}$", result)
    result = _LEGACY_LATEX.sub(
        lambda m: f"${m.group(2).strip()}$" if m.group(1) == "$" else f"$${m.group(2).strip()}$$",
        result,
    )
    lines = [line.rstrip() for line in result.split("\n")]
    result = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    return result, media
