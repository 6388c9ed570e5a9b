"""Anki cloze text: ``{{c1::answer}}``, ``{{c2::answer::hint}}``, nested and repeated blanks.

A cloze note gives one card per distinct number: ``c1`` appearing twice is one
card with two blanks. On the card for number *n*, every blank numbered *n* is
hidden (shown as ``[...]``, or ``[hint]`` when it has a hint) and every other
blank shows its answer, as Anki does. A blank may hold other blanks; hiding
the outer one hides what it holds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "ClozeBlank",
    "ClozeCard",
    "cloze_cards",
    "cloze_link",
    "cloze_numbers",
    "has_cloze",
    "parse_cloze",
    "render_cloze",
]

_OPEN = re.compile(r"\{\{c(\d+)::")
_FIND = re.compile(r"\{\{c\d+::")


@dataclass(frozen=True, slots=True)
class ClozeBlank:
    """One blank: its number, what it hides (text and nested blanks) and its hint."""

    number: int
    parts: tuple[str | ClozeBlank, ...]
    hint: str | None


Cloze = tuple[str | ClozeBlank, ...]
"""Cloze text as a sequence of plain text and blanks."""


def has_cloze(text: str) -> bool:
    """Whether the text holds at least one ``{{cN::...}}`` blank."""
    return _FIND.search(text) is not None


def _parse(text: str, start: int, *, nested: bool) -> tuple[list[str | ClozeBlank], int, bool]:
    """Parse from ``start`` to the closing ``}}`` of an enclosing blank (or the end).

    Returns the parts, the position after what was read, and whether a
    closing ``}}`` ended it.
    """
    parts: list[str | ClozeBlank] = []
    buffer: list[str] = []
    at = start
    while at < len(text):
        opening = _OPEN.match(text, at)
        if opening is not None:
            inner, after, closed = _parse(text, opening.end(), nested=True)
            if not closed:
                # An unclosed blank is text, as Anki shows it.
                buffer.append(text[at : opening.end()])
                at = opening.end()
                continue
            if buffer:
                parts.append("".join(buffer))
                buffer = []
            parts.append(_blank(int(opening.group(1)), inner))
            at = after
            continue
        if nested and text.startswith("}}", at):
            if buffer:
                parts.append("".join(buffer))
            return parts, at + 2, True
        buffer.append(text[at])
        at += 1
    if buffer:
        parts.append("".join(buffer))
    return parts, at, False


def _blank(number: int, inner: list[str | ClozeBlank]) -> ClozeBlank:
    """A blank from its parsed content; the first ``::`` in its own text starts the hint."""
    parts: list[str | ClozeBlank] = []
    for index, part in enumerate(inner):
        if isinstance(part, str) and "::" in part:
            answer, _, hint_start = part.partition("::")
            if answer:
                parts.append(answer)
            hint = hint_start + "".join(
                p if isinstance(p, str) else render_cloze((p,), card=0) for p in inner[index + 1 :]
            )
            return ClozeBlank(number, tuple(parts), hint.strip() or None)
        parts.append(part)
    return ClozeBlank(number, tuple(parts), None)


def parse_cloze(text: str) -> Cloze:
    """Parse cloze text into plain text and blanks (an unclosed ``{{c1::`` stays text)."""
    parts, _, _ = _parse(text, 0, nested=False)
    return tuple(parts)


def cloze_numbers(cloze: Cloze) -> list[int]:
    """The distinct blank numbers, ascending: one card each."""
    found: set[int] = set()

    def walk(parts: Cloze) -> None:
        for part in parts:
            if isinstance(part, ClozeBlank):
                found.add(part.number)
                walk(part.parts)

    walk(cloze)
    return sorted(found)


def render_cloze(cloze: Cloze, *, card: int, reveal: bool = False) -> str:
    """Text of one card of a cloze note.

    Args:
        cloze: Parsed cloze text.
        card: The blank number this card asks for; 0 shows every answer.
        reveal: Show the asked blank's answer in bold (the answer side)
            instead of ``[...]`` or ``[hint]`` (the prompt side).

    Returns:
        The text with the asked blanks hidden (or marked) and the others filled in.
    """
    out: list[str] = []
    for part in cloze:
        if isinstance(part, str):
            out.append(part)
        elif part.number == card and not reveal:
            out.append(f"[{part.hint}]" if part.hint else "[...]")
        elif part.number == card:
            inner = render_cloze(part.parts, card=card, reveal=reveal).strip()
            out.append(f"**{inner}**" if inner else "")
        else:
            out.append(render_cloze(part.parts, card=card, reveal=reveal))
    return "".join(out)


@dataclass(frozen=True, slots=True)
class ClozeCard:
    """One card of a cloze note: its name (``c2``), prompt and revealed text."""

    card: str
    prompt: str
    revealed: str


def cloze_cards(text: str) -> list[ClozeCard]:
    """The cards of a cloze note's text, one per blank number (none when it has no blank)."""
    parsed = parse_cloze(text)
    return [
        ClozeCard(
            f"c{number}",
            render_cloze(parsed, card=number),
            render_cloze(parsed, card=number, reveal=True),
        )
        for number in cloze_numbers(parsed)
    ]


def cloze_link(type_name: str | None, text: str, extra: str) -> dict[str, str]:
    """The ``note_link`` fields every card of a cloze note shares (``card`` and ``id`` apart)."""
    link = {"type": type_name or "Cloze", "text": text}
    if extra:
        link["extra"] = extra
    return link
