"""Read Markdown question-and-answer files.

Two layouts are accepted (the first wins when a file has ``Q:`` lines):

- ``Q:`` / ``A:`` pairs (also ``Question:`` / ``Answer:``, optionally bold):
  the question and the answer each run until the next marker or heading;
- headings as questions: a heading followed by text is a question and the
  text its answer; a heading followed directly by a deeper heading is a
  section, which becomes a tag of the questions beneath it.

A single level-1 heading at the top names the deck. Fenced code blocks are
kept whole and never read as markers. An ``<!-- id: ... -->`` comment before
a question (our Markdown export writes one) keeps that item's id. When every
question has one, the file is our export: a heading is then the items' deck,
or their track and level, and importing the file into the vault it came from
updates those items in place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from sysdrill.interop.formats._common import card_item, read_text, text_key
from sysdrill.interop.formats.exported_card import group_fields
from sysdrill.interop.source import ImportNote, ParsedItem, ParsedSource

__all__ = ["read_markdown_qa"]

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_QUESTION = re.compile(r"^\s*(?:\*\*|__)?(?:Q|Question)\s*[:.](?:\*\*|__)?\s?(.*)$", re.I)
_ANSWER = re.compile(r"^\s*(?:\*\*|__)?(?:A|Answer)\s*[:.](?:\*\*|__)?\s?(.*)$", re.I)
_ID_COMMENT = re.compile(r"^\s*<!--\s*id:\s*(\S+)\s*-->\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass(slots=True)
class _Card:
    line: int
    front: list[str] = field(default_factory=list)
    back: list[str] = field(default_factory=list)
    in_back: bool = False
    tags: list[str] = field(default_factory=list)
    given_id: str | None = None


@dataclass(slots=True)
class _Line:
    number: int
    text: str
    in_code: bool


def _lines(text: str) -> list[_Line]:
    result: list[_Line] = []
    fence: str | None = None
    for number, line in enumerate(text.split("\n"), start=1):
        match = _FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)
            result.append(_Line(number, line, True))
        elif fence is not None:
            result.append(_Line(number, line, True))
            if match and match.group(1) == fence:
                fence = None
        else:
            result.append(_Line(number, line, False))
    return result


def _deck_title(lines: list[_Line]) -> tuple[str | None, int]:
    """The level-1 heading naming the file, when there is exactly one, and its index."""
    level_one = [
        n
        for n, line in enumerate(lines)
        if not line.in_code and (m := _HEADING.match(line.text)) and len(m.group(1)) == 1
    ]
    if len(level_one) != 1:
        return None, -1
    before = [line for line in lines[: level_one[0]] if line.text.strip()]
    if before:
        return None, -1
    match = _HEADING.match(lines[level_one[0]].text)
    assert match is not None
    return match.group(2).strip(), level_one[0]


def _qa_cards(lines: list[_Line], skip: int) -> list[_Card]:
    cards: list[_Card] = []
    pending_id: str | None = None
    section: list[str] = []
    current: _Card | None = None
    for index, line in enumerate(lines):
        if index == skip:
            continue
        if not line.in_code:
            if id_match := _ID_COMMENT.match(line.text):
                pending_id = id_match.group(1)
                continue
            if q_match := _QUESTION.match(line.text):
                current = _Card(line.number, [q_match.group(1)], tags=list(section))
                current.given_id, pending_id = pending_id, None
                cards.append(current)
                continue
            if current is not None and not current.in_back:
                if a_match := _ANSWER.match(line.text):
                    current.in_back = True
                    current.back.append(a_match.group(1))
                    continue
            if heading := _HEADING.match(line.text):
                section = [heading.group(2).strip()]
                current = None
                continue
        if current is not None:
            (current.back if current.in_back else current.front).append(line.text)
    return cards


def _heading_cards(lines: list[_Line], skip: int) -> list[_Card]:
    cards: list[_Card] = []
    sections: dict[int, str] = {}
    pending_id: str | None = None
    current: _Card | None = None
    for index, line in enumerate(lines):
        if index == skip:
            continue
        heading = None if line.in_code else _HEADING.match(line.text)
        if heading:
            level = len(heading.group(1))
            sections = {k: v for k, v in sections.items() if k < level}
            sections[level] = heading.group(2).strip()
            current = _Card(line.number, [heading.group(2).strip()], in_back=True)
            current.tags = [sections[k] for k in sorted(sections) if k < level]
            current.given_id, pending_id = pending_id, None
            cards.append(current)
        elif not line.in_code and (id_match := _ID_COMMENT.match(line.text)):
            pending_id = id_match.group(1)
        elif current is not None:
            current.back.append(line.text)
    # A heading with no text of its own only names a section.
    return [card for card in cards if "\n".join(card.back).strip()]


def read_markdown_qa(path: Path) -> ParsedSource:
    """Read a Markdown Q/A file into flashcard items.

    Args:
        path: The ``.md`` file.

    Returns:
        One ``flashcard`` per question (a ``quiz`` item when the answer is
        missing), keyed by a hash of the question, tagged with its section.

    Raises:
        ImportFailed: If the file is missing, binary or has no questions.
        HostileInput: If it is larger than the text size limit.
    """
    text, decode_notes = read_text(path, kind="Markdown file")
    source = ParsedSource(format="markdown", path=str(path), notes=list(decode_notes))
    lines = _lines(text)
    deck, title_at = _deck_title(lines)
    source.deck = deck
    has_markers = any(not line.in_code and _QUESTION.match(line.text) for line in lines)
    cards = _qa_cards(lines, title_at) if has_markers else _heading_cards(lines, title_at)
    # Our export writes an id before every question; a file with a few is hand-written.
    own = bool(cards) and all(card.given_id for card in cards)
    seen: dict[str, int] = {}
    for card in cards:
        front = "\n".join(card.front).strip()
        back = "\n".join(card.back).strip()
        where = f"{path.name}:{card.line}"
        if not front:
            source.notes.append(ImportNote("question is empty", where, skipped=True))
            continue
        key = f"id:{card.given_id}" if card.given_id else text_key("question", front)
        if key in seen:
            source.notes.append(
                ImportNote(f"repeats the question of line {seen[key]}", where, skipped=True)
            )
            continue
        seen[key] = card.line
        if not own or card.given_id is None:
            data, notes = card_item(front=front, back=back, deck=deck, tags=card.tags, where=where)
            source.items.append(
                ParsedItem(key=key, data=data, preferred_id=card.given_id, notes=notes)
            )
            continue
        # Our export: its headings group items by deck, or by track and level.
        source.own_export = True
        group = card.tags[0] if card.tags else deck
        fields = group_fields(group) if group else None
        data, notes = card_item(front=front, back=back, deck=None if fields else group, where=where)
        data.update(fields or {})
        source.items.append(
            ParsedItem(
                key=key, data=data, preferred_id=card.given_id, notes=notes, card=(front, back)
            )
        )
    if source.own_export:
        source.deck = None
    if not source.items:
        source.notes.append(ImportNote("no questions found: write 'Q:' and 'A:' lines"))
    return source
