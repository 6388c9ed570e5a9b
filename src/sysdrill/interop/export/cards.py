r"""What one vault item looks like as a card: front and back text, fields, deck, tags.

Every card-shaped export (Anki package, Anki text, CSV, Markdown) draws on
these functions, so an item reads the same in each of them. Text stays
Markdown here; :class:`FieldRenderer` turns it into the sanitised HTML Anki
shows, with math handed to MathJax as ``\( \)`` and ``\[ \]``.
"""

from __future__ import annotations

import html
import re
from typing import Any

from sysdrill.content.enums import ItemKind
from sysdrill.content.models import Item

__all__ = [
    "ANKI_ROOT_DECK",
    "FieldRenderer",
    "anki_deck_name",
    "anki_tags",
    "back_markdown",
    "correct_option",
    "front_markdown",
    "options_markdown",
    "parts_markdown",
]

ANKI_ROOT_DECK = "sysdrill"
"""Top-level Anki deck every exported deck sits under."""

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_SPACES = re.compile(r"\s+")
_DISPLAY_MATH = re.compile(r"\$\$(.+?)\$\$", re.DOTALL)
# Pandoc's rule: no space just inside the dollars, no digit right after the
# closing one, so "$5 and $10" stays prose.
_INLINE_MATH = re.compile(r"(?<![\\$])\$(?![\s$])([^$\n]+?)(?<![\s\\])\$(?!\d)")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


def _option_text(option: Any) -> str:
    if isinstance(option, dict):
        for key in ("text", "option", "label", "value"):
            if key in option:
                return str(option[key])
    return str(option)


def options_markdown(item: Item) -> str:
    """Multiple-choice options as ``A. ...`` lines, or ``""`` when there are none."""
    options = item.details.options or []
    return "\n".join(f"{_LETTERS[n % 26]}. {_option_text(o)}" for n, o in enumerate(options))


def correct_option(item: Item) -> str:
    """The correct option as ``B. text``, or ``""`` when unknown."""
    options = item.details.options or []
    index = item.details.correct_index
    if index is None or not 0 <= index < len(options):
        return ""
    return f"{_LETTERS[index % 26]}. {_option_text(options[index])}"


def parts_markdown(item: Item, *, with_answers: bool) -> str:
    """Exercise sub-parts as ``(a) text`` paragraphs, answers appended when asked."""
    chunks = []
    for part in item.parts or []:
        label = part.label.strip()
        label = label if label.startswith("(") else f"({label})"
        text = f"{label} {part.text.strip()}"
        if with_answers and part.answer:
            text += f"\n\n{part.answer.strip()}"
        chunks.append(text)
    return "\n\n".join(chunks)


def _join(*chunks: str | None) -> str:
    return "\n\n".join(chunk.strip() for chunk in chunks if chunk and chunk.strip())


def front_markdown(item: Item) -> str:
    """The prompt side: scenario and question, options or parts, as Markdown."""
    kind = item.kind
    if kind == ItemKind.QUESTION:
        return _join(item.scenario, item.question, options_markdown(item))
    if kind == ItemKind.EXERCISE:
        return _join(item.question, parts_markdown(item, with_answers=False))
    return _join(item.question, options_markdown(item))


def back_markdown(item: Item, *, placeholder: bool = True) -> str:
    """The answer side: the correct option, model answer, napkin math, pitfall.

    Args:
        item: The item.
        placeholder: Say "No reference answer" when there is nothing to show
            (cards need a back); with False an empty string comes back instead.
    """
    details = item.details
    answer = details.realistic_solution
    if item.kind == ItemKind.NUMERIC and item.answer_value is not None:
        unit = f" {item.answer_unit}" if item.answer_unit else ""
        tolerance = (
            f" (within {item.answer_tolerance:.0%})" if item.answer_tolerance is not None else ""
        )
        answer = _join(f"**{item.answer_value:g}{unit}**{tolerance}", answer)
    chosen = correct_option(item)
    parts_with_answers = (
        parts_markdown(item, with_answers=True)
        if any(part.answer for part in item.parts or [])
        else ""
    )
    back = _join(
        f"**Answer: {chosen}**" if chosen else None,
        answer,
        parts_with_answers,
        f"**Napkin math**\n\n{details.napkin_math}" if details.napkin_math else None,
        f"**Common mistake**\n\n{details.common_mistake}" if details.common_mistake else None,
    )
    if back or not placeholder:
        return back
    if item.kind == ItemKind.EXERCISE or item.has_reference_answer is False:
        return "*No reference answer.*"
    return "*No answer in the source.*"


def demote_headings(text: str) -> str:
    """Turn Markdown headings inside a field into bold lines (cards have no outline)."""
    return _HEADING.sub(lambda m: f"**{m.group(2)}**", text)


def anki_deck_name(item: Item, *, deck: str | None) -> str:
    """``sysdrill::<deck or track>::<level>``, leaving out the parts an item lacks.

    Args:
        item: The item.
        deck: The deck's display name (its title), or None when in no deck.
    """
    parts = [ANKI_ROOT_DECK]
    if deck:
        parts.extend(p.strip() for p in deck.split("::") if p.strip())
    elif item.track is not None:
        parts.append(item.track.value)
    if item.level is not None:
        parts.append(item.level.value)
    return "::".join(parts)


def _tag(text: str) -> str:
    return _SPACES.sub("_", text.strip())


def anki_tags(item: Item) -> list[str]:
    """Anki tags: the item's own, then ``track::``, ``level::``, ``topic::``, ``kind::``.

    Anki tags cannot hold spaces, so spaces become underscores.
    """
    tags = [_tag(tag) for tag in item.tags if tag.strip()]
    if item.track is not None:
        tags.append(f"track::{item.track.value}")
    if item.level is not None:
        tags.append(f"level::{item.level.value}")
    if item.topic:
        tags.append(f"topic::{_tag(item.topic)}")
    if item.competency_area is not None:
        tags.append(f"area::{item.competency_area.value}")
    tags.append(f"kind::{item.kind.value}")
    return list(dict.fromkeys(tags))


class FieldRenderer:
    r"""Markdown to the sanitised HTML of an Anki field, math left for MathJax.

    Math is cut out before Markdown runs (so ``*`` and ``_`` inside it are not
    read as emphasis), escaped, and put back between ``\( \)`` or
    ``\[ \]``. The HTML is cleaned with nh3, so a field can never carry a
    script into Anki.
    """

    def __init__(self) -> None:
        from markdown_it import MarkdownIt

        self._markdown = MarkdownIt("commonmark", {"html": False, "breaks": True}).enable("table")

    def __call__(self, text: str | None) -> str:
        """Render one field; ``None`` and blank text give ``""``."""
        if not text or not text.strip():
            return ""
        import nh3

        math: list[str] = []

        def stash(opening: str, closing: str) -> Any:
            def replace(match: re.Match[str]) -> str:
                math.append(f"{opening}{html.escape(match.group(1).strip(), quote=False)}{closing}")
                return f"SYSDRILLMATH{len(math) - 1}X"

            return replace

        text = _DISPLAY_MATH.sub(stash("\\[", "\\]"), text)
        text = _INLINE_MATH.sub(stash("\\(", "\\)"), text)
        rendered = self._markdown.render(demote_headings(text)).strip()
        cleaned = nh3.clean(rendered)
        if math:
            cleaned = re.sub(r"SYSDRILLMATH(\d+)X", lambda m: math[int(m.group(1))], cleaned)
        return cleaned
