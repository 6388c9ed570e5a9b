"""What the learner sees of an item: its heading, prompt, options and the reveal."""

from __future__ import annotations

from dataclasses import dataclass

from sysdrill.content.models import Item

__all__ = ["ItemView", "item_view", "option_label", "reveal_sections"]


@dataclass(frozen=True, slots=True)
class ItemView:
    """The front of an item, as Markdown strings (math still in LaTeX)."""

    heading: str
    """Title, or the id when the item has none."""
    meta: str
    """Classification in one line: ``cloud · L3 · analyze · memory-hierarchy``."""
    scenario: str | None
    question: str
    options: tuple[str, ...]
    unit_hint: str | None
    """For numeric items, the unit the answer is expected in."""


def option_label(index: int) -> str:
    """Letter of an option: ``a`` for the first."""
    return "abcdefghijklmnopqrstuvwxyz"[index]


def item_view(item: Item) -> ItemView:
    """Build the front of ``item``."""
    parts = [
        str(value)
        for value in (item.track, item.level, item.zone, item.topic, item.deck)
        if value is not None
    ]
    options = tuple(str(option) for option in item.details.options or ())
    unit = item.answer_unit if item.answer_value is not None else None
    return ItemView(
        heading=item.title or item.id,
        meta=" · ".join(parts) if parts else item.kind.value,
        scenario=item.scenario,
        question=item.question or item.title or item.id,
        options=options,
        unit_hint=unit or None,
    )


def reveal_sections(item: Item) -> list[tuple[str, str]]:
    """The back of an item: model answer, common mistake, napkin math (those present)."""
    details = item.details
    sections = [
        ("Model answer", details.realistic_solution),
        ("Common mistake", details.common_mistake),
        ("Napkin math", details.napkin_math),
    ]
    found = [(name, text.strip()) for name, text in sections if text and text.strip()]
    if item.parts:
        answers = [f"({part.label}) {part.answer}" for part in item.parts if part.answer]
        if answers:
            found.append(("Parts", "\n".join(answers)))
    if not found:
        found.append(("Model answer", "This item has no reference answer; judge for yourself."))
    return found
