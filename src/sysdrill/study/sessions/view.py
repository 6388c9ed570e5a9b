"""What is shown of an item: its heading, prompt, options, parts and the answers.

One description of an item for every place that shows one: the scripted line
mode and the terminal interface (front, then the reveal) and ``sysdrill show``
(everything at once). Each place only lays these strings out for its medium.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from sysdrill.content.models import Item
from sysdrill.study.sessions.text import untitled_heading

__all__ = [
    "ItemView",
    "PartView",
    "answer_sections",
    "difficulty_stars",
    "item_view",
    "option_label",
    "reveal_sections",
    "source_number",
]


@dataclass(frozen=True, slots=True)
class PartView:
    """One part of a multi-part item."""

    label: str
    text: str
    answer: str | None


@dataclass(frozen=True, slots=True)
class ItemView:
    """The front of an item, as Markdown strings (math still in LaTeX)."""

    heading: str
    """Title, or the first words of the question when the item has none
    (:func:`~sysdrill.study.sessions.text.untitled_heading`)."""
    meta: str
    """Classification in one line: ``cloud · L3 · analyze · memory-hierarchy``; an
    imported exercise adds its number, stars and section: ``Exercise 26.5 · L3 · ★☆☆☆ ·
    Parallelism Strategies · chapter-26-exercises``."""
    scenario: str | None
    question: str
    options: tuple[str, ...]
    unit_hint: str | None
    """For numeric items, the unit the answer is expected in."""
    facts: tuple[tuple[str, str], ...]
    """Every classification field set, as (name, value): ``("level", "L3")``."""
    correct_index: int | None
    """Index of the right option, for views that show the answers."""
    parts: tuple[PartView, ...]
    expected_answer: str | None
    """For numeric items: value, unit and what the tolerance accepts.

    ``128 KiB (within 5 % of it: 121.6 to 134.4 KiB)``.
    """


def option_label(index: int) -> str:
    """Letter of an option: ``a`` for the first."""
    return "abcdefghijklmnopqrstuvwxyz"[index]


_NUMBERED_KEY = re.compile(r"(?:^|/)([a-z]+)-(\d+(?:\.\d+)*)$")
"""A source key ending in a numbered name: ``chapter-26-exercises/exercise-26.5``."""


def source_number(item: Item) -> str | None:
    """Where an imported item stood in its source, as the source named it: ``Exercise 26.5``.

    Text importers key items by their number in the document (``exercise-26.5``,
    ``question-5``, ``card-30``); the number is how a learner finds the item in the book.
    """
    if item.source is None:
        return None
    found = _NUMBERED_KEY.search(item.source.key)
    return None if found is None else f"{found.group(1).capitalize()} {found.group(2)}"


def difficulty_stars(difficulty: int | None) -> str | None:
    """An exercise's difficulty (1 to 4 stars) drawn as ``★★☆☆``, or None."""
    if difficulty is None:
        return None
    return "★" * difficulty + "☆" * (4 - difficulty)


def _facts(item: Item) -> tuple[tuple[str, str], ...]:
    fields = (
        ("kind", item.kind),
        ("source", source_number(item)),
        ("track", item.track),
        ("level", item.level),
        ("difficulty", difficulty_stars(item.difficulty)),
        ("section", item.section),
        ("zone", item.zone),
        ("bloom", item.bloom_level),
        ("topic", item.topic),
        ("area", item.competency_area),
        ("phase", item.phase),
        ("status", item.status),
        ("deck", item.deck),
    )
    return tuple(
        (name, value.value if isinstance(value, Enum) else value) for name, value in fields if value
    )


def _expected_answer(item: Item) -> str | None:
    if item.answer_value is None:
        return None
    unit = f" {item.answer_unit}" if item.answer_unit else ""
    tolerance = ""
    if item.answer_tolerance:
        from sysdrill.napkin.grading import tolerance_text

        unit_text = item.answer_unit or ""
        tolerance = f" ({tolerance_text(item.answer_value, unit_text, item.answer_tolerance)})"
    return f"{item.answer_value:g}{unit}{tolerance}"


def item_view(item: Item) -> ItemView:
    """Build the description of ``item`` (its front, and the answers views may show)."""
    shown = (
        source_number(item),
        item.track,
        item.level,
        difficulty_stars(item.difficulty),
        item.zone,
        item.topic,
        item.section,
        item.deck,
    )
    parts = [str(value) for value in shown if value is not None]
    options = tuple(str(option) for option in item.details.options or ())
    unit = item.answer_unit if item.answer_value is not None else None
    return ItemView(
        heading=item.title or untitled_heading(item),
        meta=" · ".join(parts) if parts else item.kind.value,
        scenario=item.scenario,
        question=item.question or item.title or item.id,
        options=options,
        unit_hint=unit or None,
        facts=_facts(item),
        correct_index=item.details.correct_index,
        parts=tuple(PartView(part.label, part.text, part.answer) for part in item.parts or ()),
        expected_answer=_expected_answer(item),
    )


def answer_sections(item: Item) -> list[tuple[str, str]]:
    """Model answer, common mistake and napkin math, as (heading, Markdown), those present."""
    details = item.details
    sections = [
        ("Model answer", details.realistic_solution),
        ("Common mistake", details.common_mistake),
        ("Napkin math", details.napkin_math),
    ]
    return [(name, text.strip()) for name, text in sections if text and text.strip()]


def _label(label: str) -> str:
    """``(a)`` for a part labelled ``a`` or ``(a)``."""
    return label if label.startswith("(") else f"({label})"


def _diagram_figures(item: Item) -> str:
    """What the item's diagram shows once answered (bubble, totals...), or ``""``."""
    if item.diagram is None:
        return ""
    from sysdrill.napkin.diagram_text import diagram_results
    from sysdrill.napkin.diagrams import item_diagram

    geometry = item_diagram(item)
    return "" if geometry is None else diagram_results(geometry)


def reveal_sections(item: Item) -> list[tuple[str, str]]:
    """The back of an item in a session: :func:`answer_sections`, then the part answers.

    An item with neither gets a line saying the learner judges alone.
    """
    found = answer_sections(item)
    answers = [f"{_label(part.label)} {part.answer}" for part in item.parts or () if part.answer]
    if answers:
        found.append(("Parts", "\n".join(answers)))
    figures = _diagram_figures(item)
    if figures:
        found.append(("Read off the diagram", figures))
    if not found:
        found.append(("Model answer", "This item has no reference answer; judge for yourself."))
    return found
