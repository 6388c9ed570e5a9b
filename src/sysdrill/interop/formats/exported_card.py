"""Read back a card that sysdrill's own export wrote, against the item it came from.

The card exports (CSV, Anki text, Markdown) show an item as a front and a back
(:func:`~sysdrill.interop.export.cards.front_markdown` and
:func:`~sysdrill.interop.export.cards.back_markdown`): the back joins the model
answer, a ``**Napkin math**`` section and a ``**Common mistake**`` section. Read
back, a card is compared with what the item shows: the same text means the
item is unchanged; an edited card is put back into the item's own fields when
its layout says unambiguously which field changed, and otherwise left to the
author with a note.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from sysdrill.content.enums import CompetencyArea, ItemKind, Level, Track
from sysdrill.content.models import validate_item
from sysdrill.interop.export.cards import ANKI_ROOT_DECK, back_markdown, front_markdown
from sysdrill.interop.formats._common import split_tags

__all__ = [
    "CardEdit",
    "anki_card_fields",
    "apply_card_text",
    "exported_row",
    "group_fields",
    "split_back",
]

NAPKIN_HEADING = "**Napkin math**"
MISTAKE_HEADING = "**Common mistake**"
"""The section headings :func:`back_markdown` writes before the details it folds in."""

_ROW_FIELDS = ("format", "track", "level", "zone", "topic", "status")
"""Cells of a CSV export row that repeat a field of its ``item`` for a spreadsheet."""

_BLANKS = re.compile(r"[ \t]*\n(?:[ \t]*\n)+")
_SECTIONS = ("common_mistake", MISTAKE_HEADING), ("napkin_math", NAPKIN_HEADING)


def _normal(text: str) -> str:
    """Text as compared: line ends trimmed, runs of blank lines as one."""
    return _BLANKS.sub("\n\n", "\n".join(line.rstrip() for line in text.strip().splitlines()))


def split_back(back: str) -> dict[str, str]:
    """The details a card's back holds, by field name (absent fields left out).

    ``**Common mistake**`` is cut off first, then ``**Napkin math**``, each at its
    last heading on a line of its own, so a model answer that mentions either in
    prose stays whole; what precedes them is ``realistic_solution``.
    """
    rest = _normal(back)
    found: dict[str, str] = {}
    for name, heading in _SECTIONS:
        if rest == heading or rest.startswith(heading + "\n\n"):
            at, size = 0, len(heading) + 2
        else:
            at = rest.rfind("\n\n" + heading + "\n\n")
            size = len(heading) + 4
        if at < 0:
            continue
        text = rest[at + size :].strip()
        if text:
            found[name] = text
        rest = rest[:at].strip()
    if rest:
        found["realistic_solution"] = rest
    return {
        name: found[name]
        for name in ("realistic_solution", "napkin_math", "common_mistake")
        if name in found
    }


@dataclass(frozen=True, slots=True)
class CardEdit:
    """What a card read back does to the item it came from."""

    raw: dict[str, Any]
    """The item's mapping with the card applied (the same mapping when unchanged)."""
    changed: bool
    """Whether the card differs from what the item shows."""
    note: str | None = None
    """Why an edit of the card was not applied, when it was not."""


def _plain_back(kind: ItemKind, raw: dict[str, Any]) -> bool:
    """Whether the back is only the answer and the two details (no option, value or part)."""
    details = raw.get("details") if isinstance(raw.get("details"), dict) else {}
    return (
        kind is not ItemKind.NUMERIC
        and not (isinstance(details, dict) and details.get("options"))
        and not raw.get("parts")
    )


def apply_card_text(
    raw: dict[str, Any],
    *,
    front: str,
    back: str,
    written: tuple[str, str] | None = None,
    shown: Callable[[str], str] = lambda text: text,
) -> CardEdit:
    """Apply a card's front and back, as an export wrote them, to the item they show.

    Args:
        raw: The item's mapping as its file holds it (not changed).
        front: The card's front (Markdown).
        back: The card's back (Markdown, without a placeholder answer).
        written: The front and back exactly as the file holds them, when that
            is not Markdown (the HTML of an Anki text export).
        shown: How the export wrote a field's Markdown (the Anki export renders
            HTML, the Markdown export guards lines that look like ``Q:``); the
            item's text goes through it before it is compared with ``written``
            (else with ``front`` and ``back``).

    Returns:
        The mapping to keep and whether it changed. An edit is applied to
        ``question`` (a front that is the question alone, or the scenario
        unchanged followed by a new question) and to the details of a back
        without options, a numeric answer or parts; any other edit is left out
        with a note naming the fields to edit in the item's file. A template's
        card (which shows an example draw) is not compared: edit its file.
    """
    try:
        item = validate_item(raw)
    except ValidationError:
        return CardEdit(raw, False, "the item does not validate, so its card was not compared")
    if item.is_template:
        # Its card shows an example draw of its numbers, not the text its file holds.
        return CardEdit(raw, False)
    old_front, old_back = front_markdown(item), back_markdown(item, placeholder=False)
    as_shown = (_normal(shown(old_front)), _normal(shown(old_back)))
    if written is None:
        old_front, old_back = as_shown
        written = (front, back)
    front_edited, back_edited = (
        _normal(given) != shown_text for given, shown_text in zip(written, as_shown, strict=True)
    )
    if not front_edited and not back_edited:
        return CardEdit(raw, False)
    new_front, new_back = _normal(front), _normal(back)
    edited = copy.deepcopy(raw)
    left_out: list[str] = []
    if front_edited:
        scenario = _normal(shown(item.scenario or ""))
        if item.kind is ItemKind.QUESTION and item.details.options:
            left_out.append("question")
        elif item.kind in (ItemKind.FLASHCARD, ItemKind.QUIZ, ItemKind.NUMERIC) or not scenario:
            if item.kind is ItemKind.EXERCISE and item.parts:
                left_out.append("question")
            else:
                edited["question"] = new_front
        elif new_front.startswith(scenario + "\n\n"):
            edited["question"] = new_front[len(scenario) + 2 :].strip()
        else:
            left_out.append("scenario and question")
    if back_edited:
        if _plain_back(item.kind, raw):
            details = dict(edited.get("details") or {})
            for name in ("realistic_solution", "napkin_math", "common_mistake"):
                details.pop(name, None)
            details.update(split_back(new_back))
            edited["details"] = details
        else:
            left_out.append("details")
    note = None
    if left_out:
        note = (
            f"the card's {' and '.join(left_out)} changed, but a {item.kind.value} card "
            "does not say which field; edit the item's file instead"
        )
    return CardEdit(edited, edited != raw, note)


def exported_row(
    item_id: str, cell: Callable[[str], str]
) -> tuple[dict[str, Any], str | None] | None:
    """The item a row of sysdrill's CSV export holds, with the row's edits applied.

    The ``item`` cell is the item's mapping as JSON; the ``format``, ``track``,
    ``level``, ``zone``, ``topic``, ``status``, ``tags`` and ``deck`` cells, and
    the front and back (:func:`apply_card_text`), win where they differ from it,
    so a row edited in a spreadsheet is read as edited. An empty cell removes
    its field.

    Args:
        item_id: The row's ``id`` cell.
        cell: The stripped text of a column of the row by name (``""`` when absent).

    Returns:
        The mapping and a note on an edit left out, or None when the ``item``
        cell is not a valid item of that id as JSON.
    """
    try:
        raw = json.loads(cell("item"))
        if not isinstance(raw, dict) or raw.get("id") != item_id:
            return None
        item = validate_item(raw)
    except (ValueError, RecursionError, ValidationError):
        return None
    data = copy.deepcopy(raw)
    written = {
        "format": item.kind.value,
        "track": item.track.value if item.track else "",
        "level": item.level.value if item.level else "",
        "zone": item.zone.value if item.zone else "",
        "topic": item.topic or "",
        "status": item.status.value,
    }
    for name in _ROW_FIELDS:
        value = cell(name)
        if value != written[name]:
            _set_or_drop(data, name, value)
    tags = split_tags(cell("tags"))
    if tags != list(item.tags):
        _set_or_drop(data, "tags", tags)
    deck = cell("deck")
    # An item in a deck only by decks.yaml's list has no deck field; the cell names it.
    if deck != (raw.get("deck") or "") and (deck or "deck" in raw):
        _set_or_drop(data, "deck", deck)
    edit = apply_card_text(data, front=cell("front"), back=cell("back"))
    return edit.raw, edit.note


def _set_or_drop(data: dict[str, Any], name: str, value: Any) -> None:
    if value:
        data[name] = value
    else:
        data.pop(name, None)


_TAG_FIELDS: dict[str, tuple[str, frozenset[str] | None]] = {
    "track": ("track", frozenset(Track)),
    "level": ("level", frozenset(Level)),
    "topic": ("topic", None),
    "area": ("competency_area", frozenset(CompetencyArea)),
    "kind": ("format", frozenset(ItemKind)),
}
"""The ``name::value`` tags :func:`~sysdrill.interop.export.cards.anki_tags` adds: field, values."""

_CARD_KINDS = frozenset({ItemKind.FLASHCARD.value, ItemKind.QUIZ.value})
"""Kinds a front and a back make whole; the others need fields an Anki card does not keep."""


def anki_card_fields(*, front: str, back: str, deck: str | None, tags: list[str]) -> dict[str, Any]:
    """An item rebuilt from a row of sysdrill's Anki text export.

    The ``track::``, ``level::``, ``topic::`` and ``area::`` tags become those
    fields; ``kind::`` keeps a flashcard or quiz item's kind (another kind needs
    fields a card does not keep, so it comes back a flashcard, its back whole as
    the answer); the deck loses the
    ``sysdrill::`` root and level the export put around it, and is dropped when
    what remains is the item's track.

    Args:
        front: The front (Markdown).
        back: The back (Markdown).
        deck: The deck column (``sysdrill::<deck or track>::<level>``).
        tags: The tags column, split.

    Returns:
        The item's mapping without an id (a ``quiz`` item when the back is empty).
    """
    data: dict[str, Any] = {"question": front.strip()}
    kept: list[str] = []
    for tag in tags:
        name, _, value = tag.partition("::")
        field, allowed = _TAG_FIELDS.get(name, ("", None))
        if not field or not value or (allowed is not None and value not in allowed):
            kept.append(tag)
        else:
            data.setdefault(field, value)
    kind = data.pop("format", None)
    data["format"] = kind if kind in _CARD_KINDS else ItemKind.FLASHCARD.value
    # One Back field: a card's napkin math and pitfall stay part of its answer
    # (``check`` finds no use for them apart on a flashcard).
    if back.strip():
        data["details"] = {"realistic_solution": back.strip()}
    else:
        data["format"] = ItemKind.QUIZ.value
    if kept:
        data["tags"] = kept
    parts = [part for part in (deck or "").split("::") if part]
    if parts[:1] == [ANKI_ROOT_DECK]:
        parts = parts[1:]
    if parts and parts[-1] == data.get("level"):
        parts = parts[:-1]
    if parts and parts != [data.get("track")]:
        data["deck"] = "::".join(parts)
    return data


def group_fields(heading: str) -> dict[str, str] | None:
    """The track and level a group heading of the Markdown export names, if it names them.

    The export heads the items of no deck with their track and level
    (``cloud L5``); any other heading is a deck's title, and gives None.
    """
    fields: dict[str, str] = {}
    for word in heading.split():
        name = "track" if word in frozenset(Track) else "level" if word in frozenset(Level) else ""
        if not name or name in fields:
            return None
        fields[name] = word
    return fields or None
