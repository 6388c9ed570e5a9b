"""Helpers the Anki, CSV and Markdown readers share (H8's readers; not a format).

Three concerns live here because every card-shaped source needs them:

- decoding a text file with the shared policy of :mod:`sysdrill.interop.text`
  under the limit for sources read line by line, its notes as import notes;
- turning Anki's field HTML into Markdown (:mod:`._html_markdown`, re-exported);
- building the raw vault mapping of a front/back card and its stable key.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sysdrill.interop import text
from sysdrill.interop.formats._html_markdown import html_to_markdown
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
