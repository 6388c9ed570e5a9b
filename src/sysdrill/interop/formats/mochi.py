r"""Read Mochi exports (``.mochi``): decks, cards, templates and attachments.

A ``.mochi`` file is a zip holding ``data.edn`` (older exports) or
``data.json`` and the attachments its cards use. The data names decks (with
``parent-id`` for the deck tree), cards (Markdown ``content`` whose sides are
separated by a line ``---``, ``deck-id``, ``tags``, optional ``template-id``
and ``fields``) and templates (Markdown with ``<< Field >>`` placeholders).
Cards refer to attachments as ``@media/<name>``.

The archive is opened through :mod:`sysdrill.interop.safe_zip` (size, name
and member-count limits); attachments pass the checks of
:mod:`sysdrill.interop.media` and come into the vault's ``media/`` renamed by
content. Mochi's cloze deletions (``{{text}}``, or ``{{2::text}}`` for a
group of its own) become one item per group, as Anki's cloze notes do.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from sysdrill.content.media import media_type_of_name
from sysdrill.errors import ImportFailed
from sysdrill.interop.cloze import cloze_cards, cloze_link
from sysdrill.interop.formats import tidy_text
from sysdrill.interop.formats._common import card_item, finish_source, text_key
from sysdrill.interop.formats._edn import EdnError, read_edn
from sysdrill.interop.media import MediaIntake, read_zip_media
from sysdrill.interop.safe_zip import open_safe_zip
from sysdrill.interop.source import ImportNote, ParsedItem, ParsedSource

__all__ = ["DATA_MEMBERS", "read_mochi"]

DATA_MEMBERS: tuple[str, ...] = ("data.json", "data.edn")
"""The member holding a Mochi export's decks and cards, preferred first."""

_DATA_LIMIT_BYTES = 64 * 1024 * 1024
_SIDE_BREAK = re.compile(r"^[ \t]*---[ \t]*$")
_FENCE = re.compile(r"^[ \t]*(```|~~~)")
_ATTACHMENT = re.compile(r"(!?)\[([^\]\n]*)\]\(@media/([^)\s]+)\)")
_PLACEHOLDER = re.compile(r"<<\s*([^<>]+?)\s*>>")
_MOCHI_CLOZE = re.compile(r"\{\{(?:(\d+)::)?((?:(?!\{\{|\}\}).)+?)\}\}", re.DOTALL)


def _get(record: Mapping[str, Any], name: str) -> Any:
    """A field by its EDN name (``parent-id``), or as JSON exports spell it."""
    for key in (name, f"~:{name}", re.sub(r"-(\w)", lambda m: m.group(1).upper(), name)):
        if key in record:
            return record[key]
    return None


def _records(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, Mapping):
        value = list(value.values())
    if not isinstance(value, list):
        return []
    return [record for record in value if isinstance(record, dict)]


def _deck_names(decks: list[dict[str, Any]]) -> dict[str, str]:
    """Full ``Parent::Child`` name of each deck id; a parent cycle is cut where it repeats."""
    by_id = {str(_get(deck, "id")): deck for deck in decks if _get(deck, "id") is not None}
    names: dict[str, str] = {}
    for deck_id in by_id:
        parts: list[str] = []
        seen: set[str] = set()
        current: str | None = deck_id
        while current is not None and current in by_id and current not in seen:
            seen.add(current)
            deck = by_id[current]
            parts.append(str(_get(deck, "name") or "").strip() or "Untitled")
            parent = _get(deck, "parent-id")
            current = None if parent is None else str(parent)
        names[deck_id] = "::".join(reversed(parts))
    return names


def _sides(content: str) -> list[str]:
    """Split card content at ``---`` lines (never inside fenced code)."""
    sides: list[list[str]] = [[]]
    fenced = False
    for line in content.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
        if not fenced and _SIDE_BREAK.match(line):
            sides.append([])
        else:
            sides[-1].append(line)
    return [tidy_text(side) for side in sides]


def _from_template(card: dict[str, Any], template: dict[str, Any] | None) -> str:
    """A template card's content: the template with each ``<< Field >>`` filled in."""
    content = str(_get(card, "content") or "")
    if template is None:
        return content
    names: dict[str, str] = {}
    for field_id, spec in (_get(template, "fields") or {}).items():
        if isinstance(spec, Mapping):
            names[str(_get(spec, "name") or field_id).strip()] = str(field_id)
    values: dict[str, str] = {}
    for field_id, spec in (_get(card, "fields") or {}).items():
        if isinstance(spec, Mapping):
            values[str(field_id)] = str(_get(spec, "value") or "")
    body = str(_get(template, "content") or "")
    if not body:
        return content

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        return values.get(names.get(name, name), "")

    return _PLACEHOLDER.sub(fill, body)


class _Attachments:
    """Attachments of the archive, read and checked the first time a card names one."""

    def __init__(self, read: Any, members: list[str]) -> None:
        self._read = read
        self._members: dict[str, str] = {}
        for member in members:
            if member not in DATA_MEMBERS:
                self._members.setdefault(member, member)
                self._members.setdefault(PurePosixPath(member).name, member)
        self.intake = MediaIntake()

    def stored(self, name: str) -> str | None:
        member = self._members.get(name) or self._members.get(PurePosixPath(name).name)
        if member is None:
            return None
        known = self.intake.media.names.get(member)
        if known is not None:
            return known
        return self.intake.add(member, self._read(member))

    def rewrite(self, text: str, missing: list[str]) -> str:
        def link(match: re.Match[str]) -> str:
            stored = self.stored(match.group(3))
            if stored is None:
                missing.append(match.group(3))
                return ""
            if (media_type_of_name(stored) or "").startswith("audio/"):
                return f"[sound:media/{stored}]"
            return f"![{match.group(2)}](media/{stored})"

        return _ATTACHMENT.sub(link, text)


def _anki_cloze(text: str) -> str:
    """Mochi's ``{{text}}`` and ``{{N::text}}`` as Anki's ``{{c1::text}}`` and ``{{cN::text}}``."""
    return _MOCHI_CLOZE.sub(lambda m: f"{{{{c{m.group(1) or 1}::{m.group(2)}}}}}", text)


def _card_items(
    number: int,
    card: dict[str, Any],
    *,
    deck: str | None,
    templates: Mapping[str, dict[str, Any]],
    attachments: _Attachments,
) -> tuple[list[ParsedItem], list[ImportNote]]:
    where = f"card {number}"
    template = templates.get(str(_get(card, "template-id")))
    missing: list[str] = []
    content = attachments.rewrite(_from_template(card, template), missing)
    sides = [side for side in _sides(content.replace("\r\n", "\n")) if side]
    if not sides and _get(card, "name"):
        sides = [str(_get(card, "name")).strip()]
    if not sides:
        return [], [ImportNote("card is empty", where, skipped=True)]
    front, back = sides[0], "\n\n".join(sides[1:])
    tags = [str(tag) for tag in (_get(card, "tags") or []) if str(tag).strip()]
    card_id = _get(card, "id")
    key = str(card_id) if card_id else text_key("mochi", front)
    if _MOCHI_CLOZE.search(front):
        cloze_text = _anki_cloze(front)
        cards = cloze_cards(cloze_text)
        link = cloze_link("Cloze", cloze_text, back)
        items = []
        for cloze in cards:
            data, notes = card_item(
                front=cloze.prompt,
                back="\n\n".join(part for part in (cloze.revealed, back) if part),
                deck=deck,
                tags=tags,
                where=where,
                media=missing,
            )
            data["note_link"] = {"card": cloze.card, **link}
            items.append(ParsedItem(f"{key}#{cloze.card}", data, notes=notes, group=key))
        return items, []
    data, notes = card_item(
        front=front, back=back, deck=deck, tags=tags, where=where, media=missing
    )
    return [ParsedItem(key, data, notes=notes)], []


def _load(raw: bytes, member: str, archive_name: str) -> dict[str, Any]:
    try:
        text = raw.decode("utf-8-sig")
        data = json.loads(text) if member.endswith(".json") else read_edn(text)
    except (UnicodeDecodeError, json.JSONDecodeError, EdnError, RecursionError) as exc:
        kind = "JSON" if member.endswith(".json") else "EDN"
        raise ImportFailed(
            f"'{archive_name}': {member} is not valid {kind} ({exc}); export the deck again "
            "from Mochi"
        ) from exc
    if not isinstance(data, dict):
        raise ImportFailed(
            f"'{archive_name}': {member} does not hold Mochi decks and cards; "
            "export the deck again from Mochi"
        )
    return data


def read_mochi(path: Path) -> ParsedSource:
    """Read a Mochi export into flashcard items, one per card (one per cloze group).

    Args:
        path: The ``.mochi`` file.

    Returns:
        The cards (front: the first side; back: the other sides), their deck
        as ``Parent::Child``, tags and checked attachments; trashed cards and
        empty ones are skipped with a note.

    Raises:
        HostileInput: If the archive is oversized, escapes its folder, or is not a zip.
        ImportFailed: If it holds no ``data.edn``/``data.json`` or that is not valid.
    """
    source = ParsedSource(format="mochi", path=str(path))
    with open_safe_zip(path, kind="Mochi export") as archive:
        names = archive.names()
        member = next((m for m in DATA_MEMBERS if m in names), None)
        if member is None:
            raise ImportFailed(
                f"'{path.name}' holds no data.json or data.edn, so it is not a Mochi export; "
                "export the deck again from Mochi, or pass the right --format"
            )
        data = _load(archive.read_small(member, limit_bytes=_DATA_LIMIT_BYTES), member, path.name)
        attachments = _Attachments(lambda m: read_zip_media(archive, m), names)
        decks = _records(_get(data, "decks"))
        deck_names = _deck_names(decks)
        templates = {str(_get(t, "id")): t for t in _records(_get(data, "templates"))}
        cards: list[tuple[dict[str, Any], str | None]] = []
        for parent in decks:
            for card in _records(_get(parent, "cards")):
                cards.append((card, str(_get(parent, "id"))))
        cards.extend((card, None) for card in _records(_get(data, "cards")))
        for number, (card, deck_id) in enumerate(cards, start=1):
            if _get(card, "trashed?") or _get(card, "trashed"):
                source.notes.append(
                    ImportNote("card is in Mochi's trash", f"card {number}", skipped=True)
                )
                continue
            own_deck = _get(card, "deck-id")
            deck_name = deck_names.get(str(own_deck) if own_deck is not None else str(deck_id))
            items, notes = _card_items(
                number, card, deck=deck_name, templates=templates, attachments=attachments
            )
            source.items.extend(items)
            source.notes.extend(notes)
    finish_source(source, attachments.intake.media)
    if not cards:
        source.notes.append(ImportNote("the export holds no cards", skipped=True))
    return source
