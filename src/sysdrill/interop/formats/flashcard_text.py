"""Flashcard deck text, as flashcard sites export or print it.

Two card layouts may share one file:

* numbered cards: a line ``N``, a line ``Q``, the front, a line ``A``, the
  back (bullets as ``•`` lines), then the site's self-rating scale ("How well
  did you know this?" 1 ... 5 "Perfectly"), which is dropped;
* dense cards: a line ``N``, a line ``*Topic:* front``, and the back on one
  line with its bullets run together as `` - item - item``; the bullets are
  put back on lines of their own.

The topic before the first colon of a front ("Pipeline Parallelism") is kept
as a tag; the front keeps it too, since many fronts ("How does it work?")
need it to make sense.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from sysdrill.errors import ImportFailed
from sysdrill.interop.formats import slugify, tidy_text
from sysdrill.interop.source import ImportNote, ParsedItem, ParsedSource
from sysdrill.interop.text import read_source_text

__all__ = ["read_flashcards_text", "split_topic"]

_RATING = re.compile(
    r"^[ \t]*How well did you know this\?[ \t]*(?:\n|\Z)"
    r"(?:(?:[ \t]*(?:[1-5]|Not at all)[ \t]*\n){0,8}?[ \t]*Perfectly[ \t]*(?:\n|\Z))?",
    re.MULTILINE,
)
_COUNT = re.compile(r"^\((\d+) cards?\)[ \t]*$", re.MULTILINE)
_TOPIC = re.compile(r"^(?:\*([^*\n:]{1,60}):\*|([^:\n*`$]{1,60}):)[ \t]+(?=\S)")
_BULLET = re.compile(r"^[ \t]*[•●▪◦‣∙][ \t]*")
_INLINE_BULLET = re.compile(r"(?<=\S) - (?=\S)")


def split_topic(front: str) -> tuple[str | None, str]:
    """Split ``Topic: question`` (or ``*Topic:* question``) into the topic and the question.

    Args:
        front: The front of a card.

    Returns:
        The topic (None when the front has none) and the front without it.
    """
    match = _TOPIC.match(front)
    if match is None:
        return None, front
    topic = (match.group(1) or match.group(2)).strip()
    if not topic or len(topic.split()) > 6:
        return None, front
    return topic, front[match.end() :].strip()


def _back_lines(lines: list[str]) -> list[str]:
    """Turn ``•`` bullets into Markdown ``-`` items at the left margin.

    The export indents every bullet by the same two spaces for display, so the
    indentation carries no nesting and is dropped.
    """
    return [_BULLET.sub("- ", line).lstrip() for line in lines]


def _dense_back(line: str) -> str:
    """Put the `` - item`` bullets of a one-line back on lines of their own."""
    return _INLINE_BULLET.sub("\n- ", line.strip())


def _cards(text: str) -> list[tuple[int, int, list[str]]]:
    """(number, line number, body lines) of each card, numbers in sequence."""
    cards: list[tuple[int, int, list[str]]] = []
    expected = 1
    for index, line in enumerate(text.split("\n")):
        if line.strip() == str(expected):
            cards.append((expected, index + 1, []))
            expected += 1
        elif cards:
            cards[-1][2].append(line)
    return cards


def _card_data(body: list[str]) -> tuple[str, str] | None:
    lines = list(body)
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines:
        return None
    if lines[0].strip() == "Q":
        try:
            split = next(i for i, line in enumerate(lines) if line.strip() == "A")
        except StopIteration:
            return tidy_text(lines[1:]), ""
        return tidy_text(lines[1:split]), tidy_text(_back_lines(lines[split + 1 :]))
    rest = [line for line in lines[1:] if line.strip()]
    back = "\n".join(_dense_back(line) for line in rest)
    return lines[0].strip(), tidy_text(back.split("\n"))


def read_flashcards_text(path: Path) -> ParsedSource:
    """Read a flashcard deck: one item per numbered card, in both layouts.

    Args:
        path: The deck text.

    Returns:
        Parsed flashcards keyed ``<deck>/card-<N>``: front in ``question``, back
        in ``details.realistic_solution``, the topic as a tag.

    Raises:
        ImportFailed: If no numbered card is found.
    """
    decoded = read_source_text(path)
    text = _RATING.sub("", decoded.text)
    cards = _cards(text)
    if not cards:
        raise ImportFailed(
            f"'{path.name}' has no numbered cards (a line '1' then the card); "
            "pass --format for the format it is in"
        )
    head = [line.strip() for line in text[: text.find("\n1\n") + 1].split("\n") if line.strip()]
    title = next((line for line in head if not _COUNT.match(line)), path.stem)
    deck = slugify(title)
    source = ParsedSource(format="flashcards-text", path=str(path), deck=title)
    if decoded.note:
        source.notes.append(ImportNote(decoded.note, path.name))
    declared = _COUNT.search(text[: text.find("\n1\n") + 1])
    if declared and int(declared.group(1)) != len(cards):
        source.notes.append(
            ImportNote(
                f"the deck says it has {declared.group(1)} cards but {len(cards)} were found",
                path.name,
            )
        )
    for number, line, body in cards:
        where = f"{path.name}:{line}"
        parsed = _card_data(body)
        if parsed is None or not parsed[0]:
            source.notes.append(ImportNote(f"skipped card {number}: no front", where, skipped=True))
            continue
        front, back = parsed
        topic, _ = split_topic(front)
        if not back:
            source.notes.append(ImportNote(f"skipped card {number}: no back", where, skipped=True))
            continue
        data: dict[str, Any] = {
            "format": "flashcard",
            "question": front,
            "details": {"realistic_solution": back},
        }
        if topic:
            data["tags"] = [topic]
        source.items.append(ParsedItem(key=f"{deck}/card-{number}", data=data))
    return source
