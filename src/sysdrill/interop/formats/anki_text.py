"""Read Anki's "Notes in Plain Text" files and their ``#key:value`` headers.

Headers understood (at the top of the file, one a line):

- ``#separator:`` ``tab``, ``comma``, ``semicolon``, ``space``, ``pipe``,
  ``colon`` or a single character (sniffed when absent);
- ``#html:`` ``true`` converts field HTML to Markdown-ish text, ``false``
  keeps fields literally (when absent, fields with tags are converted);
- ``#deck:``, ``#notetype:``, ``#tags:`` apply to every row;
- ``#deck column:``, ``#tags column:``, ``#notetype column:``, ``#guid column:``
  name 1-based columns; ``#columns:`` names every column.

Other ``#`` lines at the top are comments. The remaining columns are the
note's fields: the first is the front, the second the back, others are
appended to the back with their names.

A file sysdrill exported (its GUID, Deck, Tags, Front and Back columns) comes
back with the fields its tags and deck name keep
(:func:`~sysdrill.interop.formats.exported_card.anki_card_fields`), and each
row's GUID finds the item it was made from when imported into that vault.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from sysdrill.errors import HostileInput, ImportFailed
from sysdrill.interop.cloze import cloze_cards, cloze_link
from sysdrill.interop.export.text_formats import ANKI_TEXT_COLUMNS
from sysdrill.interop.formats._common import (
    card_item,
    html_to_markdown,
    read_text,
    split_tags,
    text_key,
)
from sysdrill.interop.formats.csv_text import MAX_FIELD_CHARS, MAX_ROWS
from sysdrill.interop.formats.exported_card import anki_card_fields
from sysdrill.interop.source import ImportNote, ParsedItem, ParsedSource

__all__ = ["SEPARATORS", "read_anki_text"]

SEPARATORS: dict[str, str] = {
    "tab": "\t",
    "comma": ",",
    "semicolon": ";",
    "space": " ",
    "pipe": "|",
    "colon": ":",
}
"""Separator names Anki writes in ``#separator:``."""

_HEADER = re.compile(r"^#([a-z ]+):(.*)$", re.IGNORECASE)
_HAS_TAGS = re.compile(r"<(?:[a-z][a-z0-9]*\b[^>]*|/[a-z][a-z0-9]*)>", re.IGNORECASE)
_COLUMN_HEADERS = ("deck column", "tags column", "notetype column", "guid column")


class _Headers:
    def __init__(self) -> None:
        self.values: dict[str, str] = {}
        self.columns: dict[str, int] = {}


def _parse_headers(lines: list[str], name: str) -> tuple[_Headers, int]:
    headers = _Headers()
    index = 0
    for index, line in enumerate(lines):  # noqa: B007 - index is the first data line
        if not line.startswith("#"):
            break
        match = _HEADER.match(line.rstrip("\n"))
        if not match:
            continue
        key, value = match.group(1).strip().casefold(), match.group(2).strip()
        if key in _COLUMN_HEADERS:
            if not value.isdigit() or int(value) < 1:
                raise ImportFailed(
                    f"{name}:{index + 1}: '#{key}:{value}' is not a column number; "
                    "columns are numbered from 1"
                )
            headers.columns[key.removesuffix(" column")] = int(value) - 1
        else:
            headers.values[key] = value
    else:
        index = len(lines)
    return headers, index


def _delimiter(headers: _Headers, sample: list[str], name: str) -> str:
    given = headers.values.get("separator")
    if given is None:
        try:
            return csv.Sniffer().sniff("".join(sample[:20]), delimiters="\t,;|").delimiter
        except csv.Error:
            return "\t"
    if given.casefold() in SEPARATORS:
        return SEPARATORS[given.casefold()]
    if len(given) == 1:
        return given
    raise ImportFailed(
        f"{name}: '#separator:{given}' is not a separator; "
        f"use one of {', '.join(SEPARATORS)} or a single character"
    )


def read_anki_text(path: Path) -> ParsedSource:
    """Read an Anki text export (or a hand-written file with Anki headers).

    Each row becomes a ``flashcard`` keyed by its GUID column when there is
    one, else by a hash of its front; the deck and tags come from the headers
    and the deck and tags columns.

    Args:
        path: The ``.txt`` file.

    Returns:
        The parsed rows.

    Raises:
        ImportFailed: If the file is not text or a header is malformed.
        HostileInput: If it is too large or has more than ``MAX_ROWS`` rows.
    """
    text, decode_notes = read_text(path, kind="Anki text file")
    source = ParsedSource(
        format="anki-text", path=str(path), notes=list(decode_notes), skip_napkin_check=True
    )
    lines = text.splitlines(keepends=True)
    headers, start = _parse_headers(lines, path.name)
    data_lines = lines[start:]
    delimiter = _delimiter(headers, data_lines, path.name)
    html_mode = headers.values.get("html", "").casefold()
    named = headers.values.get("columns")
    names = named.split(delimiter) if named else []
    deck_default = headers.values.get("deck") or None
    tags_default = split_tags(headers.values.get("tags", ""))
    special = set(headers.columns.values())
    # Our export: Basic notes, its columns, a GUID made from each item's id.
    own = "guid" in headers.columns and names == list(ANKI_TEXT_COLUMNS)
    source.own_export = own
    seen: dict[str, int] = {}
    limit = csv.field_size_limit()
    csv.field_size_limit(MAX_FIELD_CHARS)
    reader = csv.reader(data_lines, delimiter=delimiter, strict=False)
    try:
        for number, row in enumerate(reader, start=1):
            line = start + reader.line_num
            if number > MAX_ROWS:
                raise HostileInput(
                    f"'{path.name}' has more than {MAX_ROWS:,} rows; split it into smaller files"
                )
            if not any(cell.strip() for cell in row):
                continue
            where = f"{path.name}:{line}"

            def column(key: str, row: list[str] = row) -> str:
                at = headers.columns.get(key)
                return row[at].strip() if at is not None and at < len(row) else ""

            fields: list[tuple[str, str]] = []
            media: list[str] = []
            for at, cell in enumerate(row):
                if at in special:
                    continue
                value = cell
                if html_mode == "true" or (html_mode != "false" and _HAS_TAGS.search(cell)):
                    value, found = html_to_markdown(cell)
                    media.extend(found)
                label = names[at].strip() if at < len(names) else f"Field {at + 1}"
                fields.append((label, value.strip()))
            front = fields[0][1] if fields else ""
            back = fields[1][1] if len(fields) > 1 else ""
            extras = [f"**{label}:** {value}" for label, value in fields[2:] if value]
            if extras:
                back = "\n\n".join([back, *extras] if back else extras)
            if not front:
                source.notes.append(ImportNote("row has an empty front", where, skipped=True))
                continue
            guid = column("guid")
            key = guid or text_key("front", front)
            if key in seen:
                source.notes.append(
                    ImportNote(f"repeats the note of line {seen[key]}", where, skipped=True)
                )
                continue
            seen[key] = line
            deck = column("deck") or deck_default
            tags = [*tags_default, *split_tags(column("tags"))]
            if own:
                data = anki_card_fields(front=front, back=back, deck=deck, tags=tags)
                cells = [cell.strip() for at, cell in enumerate(row) if at not in special]
                html = (cells[0], cells[1] if len(cells) > 1 else "")
                source.items.append(
                    ParsedItem(key=key, data=data, card=(front, back), card_html=html)
                )
                continue
            cards = cloze_cards(front)
            if not cards:
                data, notes = card_item(
                    front=front, back=back, deck=deck, tags=tags, where=where, media=media
                )
                source.items.append(ParsedItem(key=key, data=data, notes=notes))
                continue
            # A cloze note: one item per blank number, as in an Anki package.
            note_type = column("notetype") or headers.values.get("notetype") or None
            link = cloze_link(note_type, front, back)
            for card in cards:
                revealed = "\n\n".join(part for part in (card.revealed, back) if part)
                data, notes = card_item(
                    front=card.prompt,
                    back=revealed,
                    deck=deck,
                    tags=tags,
                    where=where,
                    media=media,
                )
                data["note_link"] = {"card": card.card, **link}
                source.items.append(
                    ParsedItem(key=f"{key}#{card.card}", data=data, notes=notes, group=key)
                )
    except csv.Error as exc:
        raise ImportFailed(
            f"{path.name}:{start + reader.line_num}: {exc}; fix the quoting of this row"
        ) from exc
    finally:
        csv.field_size_limit(limit)
    decks = {item.data.get("deck") for item in source.items}
    if len(decks) == 1:
        source.deck = decks.pop()
    return source
