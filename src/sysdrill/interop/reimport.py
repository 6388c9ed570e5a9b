"""Importing one of sysdrill's own exports: its items are the vault's items, by id.

An export names each item by its id (the CSV ``id`` column, the Markdown
``<!-- id: ... -->`` comment) or by the Anki note GUID made from the id and the
vault's declared id (:func:`~sysdrill.interop.export.apkg.note_guid`). Imported
into a vault that holds that id, the row is that item: unchanged when it shows
what the item holds, else the item's file is updated in place, keeping its id,
file, ``source`` stamp and ``created_at``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sysdrill.interop.formats.exported_card import apply_card_text
from sysdrill.interop.source import ParsedItem
from sysdrill.interop.vault_writer import ExistingItem, VaultIndex, order_item

__all__ = ["SameItem", "anki_html", "guid_ids", "same_item"]

_CARD_METADATA = ("track", "level", "topic", "competency_area", "tags")
"""Fields an Anki text row carries in its tags, next to its front and back."""
_KEPT = ("source", "created_at")
"""Fields of the vault's file an update in place keeps whatever the export says."""


def guid_ids(root: Path | None, index: VaultIndex) -> dict[str, str]:
    """Item id by the Anki note GUID the vault's exports give it.

    Both GUID recipes are mapped (with the vault's declared id, and with the item
    id alone, as exports made before the vault declared one wrote them).
    """
    from sysdrill.interop.export.apkg import guid_scope, note_guid

    scope = guid_scope(root) if root is not None and root.is_dir() else None
    found: dict[str, str] = {}
    for item_id in index.by_id:
        found.setdefault(note_guid(item_id), item_id)
        if scope is not None:
            found[note_guid(item_id, scope)] = item_id
    return found


def anki_html() -> Callable[[str], str]:
    """A field's Markdown as the Anki text export writes it (HTML, media names flat)."""
    from sysdrill.interop.export.anki_media import flatten_media
    from sysdrill.interop.export.cards import FieldRenderer

    render = FieldRenderer()
    return lambda text: flatten_media(render(text), set())


@dataclass(frozen=True, slots=True)
class SameItem:
    """An exported row read back into the vault item it came from."""

    raw: dict[str, Any]
    """The item's new mapping, ready to write (equal to the file's when unchanged)."""
    changed: bool
    note: str | None = None
    """An edit of the card that was not applied, and why."""


def _as_anki_tags(name: str, value: Any) -> Any:
    """Tags as an Anki export writes them (no spaces), so a tag with a space reads as itself."""
    if name != "tags" or not isinstance(value, list):
        return value
    return [str(tag).strip().replace(" ", "_") for tag in value]


def _alike(left: Any, right: Any) -> bool:
    """Equal values, a number the same as its text (``12.88e9``, which YAML 1.1 reads as text)."""
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_alike(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(_alike, left, right))
    if isinstance(left, str) != isinstance(right, str) and not isinstance(left, bool | None):
        try:
            return float(left) == float(right)
        except (TypeError, ValueError):
            return False
    return bool(left == right)


def _comparable(raw: dict[str, Any]) -> dict[str, Any]:
    drop = {"id", "source", "created_at", "updated_at"}
    return {key: value for key, value in raw.items() if key not in drop}


def same_item(
    existing: ExistingItem,
    parsed_item: ParsedItem,
    data: dict[str, Any],
    *,
    stamp_time: str,
    shown: Callable[[str], str] = lambda text: text,
) -> SameItem:
    """What importing a row of an export does to the vault item of its id.

    Args:
        existing: The vault's item.
        parsed_item: The row as read; its ``card`` (Anki text, Markdown) is
            compared with the item, else ``data`` is the whole mapping (CSV).
        data: The row's mapping as the import would write it.
        stamp_time: ``updated_at`` of an item that changes (ISO 8601, UTC).
        shown: How the format writes Markdown (see
            :func:`~sysdrill.interop.formats.exported_card.apply_card_text`).
    """
    note = None
    if parsed_item.card is not None:
        front, back = parsed_item.card
        edit = apply_card_text(
            existing.raw, front=front, back=back, written=parsed_item.card_html, shown=shown
        )
        candidate, note = dict(edit.raw), edit.note
        for name in _CARD_METADATA:
            if name in data and data[name] != _as_anki_tags(name, candidate.get(name)):
                candidate[name] = data[name]
    else:
        candidate = {**data}
        # An item in a deck only by decks.yaml's list has no deck of its own to update.
        if "deck" not in existing.raw:
            candidate.pop("deck", None)
    if _alike(_comparable(candidate), _comparable(existing.raw)):
        return SameItem(existing.raw, False, note)
    for name in _KEPT:
        if name in existing.raw:
            candidate[name] = existing.raw[name]
    candidate["id"] = existing.id
    candidate["updated_at"] = stamp_time
    return SameItem(order_item(candidate), True, note)
