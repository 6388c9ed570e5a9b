"""Read CrowdAnki exports: a folder with ``deck.json`` and a ``media/`` folder.

CrowdAnki (the Anki add-on that keeps decks in git) writes a deck as JSON:
``note_models`` (name, ``flds``, ``tmpls`` with ``qfmt``/``afmt``, ``type``
1 for cloze), ``notes`` (``fields`` in the model's field order, ``guid``,
``tags``, ``note_model_uuid``), ``children`` (subdecks, each with its own
notes) and ``media_files``, kept in ``media/`` beside ``deck.json``.

Notes become items by the rules an Anki package's notes follow
(:mod:`sysdrill.interop.formats.anki_note`): field roles, cloze blanks,
reversed and multi-template cards. CrowdAnki stores notes, not cards, so the
cards of a note are those Anki would make from its templates. Media files
are read from ``media/`` only, checked and renamed by content; a name that
leads out of the folder is refused.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from sysdrill.errors import HostileInput, ImportFailed
from sysdrill.interop.field_map import FieldRole
from sysdrill.interop.formats._common import finish_source
from sysdrill.interop.formats.anki_note import NoteOrigin, NoteType, note_items, note_roles
from sysdrill.interop.formats.anki_template import CardTemplate, card_exists
from sysdrill.interop.media import MediaIntake, read_folder_media
from sysdrill.interop.source import ImportNote, ParsedSource

__all__ = ["DECK_FILE", "read_crowdanki"]

DECK_FILE = "deck.json"
"""The file CrowdAnki writes a deck to, in the deck's folder."""

MAX_DECK_FILE_BYTES = 64 * 1024 * 1024
"""Largest ``deck.json`` read, in bytes (64 MiB)."""

_MAX_DECK_DEPTH = 64


def _deck_file(path: Path) -> Path:
    candidate = path / DECK_FILE if path.is_dir() else path
    if not candidate.is_file():
        raise ImportFailed(
            f"'{path.name}' holds no {DECK_FILE}, so it is not a CrowdAnki export; "
            "pass the folder CrowdAnki exported, or the right --format"
        )
    size = candidate.stat().st_size
    if size > MAX_DECK_FILE_BYTES:
        raise HostileInput(
            f"'{candidate.name}' is {size / 1_048_576:.0f} MiB, more than "
            f"{MAX_DECK_FILE_BYTES // 1_048_576} MiB; export smaller decks from CrowdAnki"
        )
    return candidate


def _load(deck_file: Path) -> dict[str, Any]:
    try:
        data = json.loads(deck_file.read_bytes().decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ImportFailed(
            f"'{deck_file}' is not valid JSON ({exc}); export the deck again from CrowdAnki"
        ) from exc
    if not isinstance(data, dict) or not isinstance(data.get("notes", []), list):
        raise ImportFailed(
            f"'{deck_file}' is not a CrowdAnki deck (no notes list); "
            "export the deck again from CrowdAnki"
        )
    return data


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _model_id(model: dict[str, Any]) -> int:
    """The note type's Anki id: its own when the file has one, else one from its UUID.

    CrowdAnki names note types by ``crowdanki_uuid`` and leaves Anki's id out, so
    the id is derived from the UUID: the same note type gets the same id on
    every import and export (a 41- to 52-bit number, the size of Anki's ids).
    """
    own = _int_or_none(model.get("id"))
    if own is not None and own > 0:
        return own
    key = f"crowdanki-model:{model.get('crowdanki_uuid')}:{model.get('name')}"
    digest = hashlib.sha256(key.encode()).digest()
    return (int.from_bytes(digest[:6], "big") | 1 << 40) & ((1 << 52) - 1)


def _note_type(model: dict[str, Any]) -> NoteType:
    fields = sorted(
        (f for f in model.get("flds") or [] if isinstance(f, dict)),
        key=lambda f: int(f.get("ord") or 0),
    )
    templates = sorted(
        (t for t in model.get("tmpls") or [] if isinstance(t, dict)),
        key=lambda t: int(t.get("ord") or 0),
    )
    return NoteType(
        str(model.get("name", "")),
        tuple(str(f.get("name", "")) for f in fields),
        templates=len(templates) or None,
        cloze=model.get("type") == 1,
        card_templates=tuple(
            CardTemplate(str(t.get("name", "")), str(t.get("qfmt", "")), str(t.get("afmt", "")))
            for t in templates
        ),
        id=_model_id(model),
        mod_s=_int_or_none(model.get("mod")),
        css=str(model.get("css") or ""),
        sort_field=_int_or_none(model.get("sortf")) or 0,
    )


def _decks(deck: dict[str, Any], parent: str | None, depth: int) -> Iterator[tuple[str, Any]]:
    """Each deck of the tree with its full ``Parent::Child`` name, parents first."""
    own = str(deck.get("name") or "").strip() or "Untitled"
    if parent and not own.startswith(f"{parent}::"):
        own = f"{parent}::{own}"
    yield own, deck
    if depth >= _MAX_DECK_DEPTH:
        return
    for child in deck.get("children") or []:
        if isinstance(child, dict):
            yield from _decks(child, own, depth + 1)


def _card_ords(note_type: NoteType, values: list[str]) -> set[int]:
    """The cards Anki would make of a note: templates whose front shows field text."""
    if note_type.cloze or not note_type.card_templates:
        return {0}
    fields = dict(zip(note_type.fields, values, strict=False))
    made = {
        number
        for number, template in enumerate(note_type.card_templates)
        if card_exists(template, fields)
    }
    return made or {0}


def read_crowdanki(
    path: Path,
    *,
    field_map: Mapping[str, FieldRole] | None = None,
    saved_maps: Mapping[str, Mapping[str, FieldRole]] | None = None,
) -> ParsedSource:
    """Read a CrowdAnki export folder into items, one per card Anki would make.

    Args:
        path: The exported folder (or its ``deck.json``).
        field_map: Roles of fields by field name (``--map``), for every note type.
        saved_maps: Roles saved by an earlier import, by note type name;
            ``field_map`` wins over them, and both over the heuristic.

    Returns:
        The notes of the deck and its subdecks as items (decks as
        ``Parent::Child``), the field roles of each note type, and the checked
        media files of ``media/``.

    Raises:
        ImportFailed: If there is no ``deck.json`` or it is not a CrowdAnki deck.
        HostileInput: If ``deck.json`` is over the size limit.
    """
    deck_file = _deck_file(path)
    root = deck_file.parent
    data = _load(deck_file)
    source = ParsedSource(format="crowdanki", path=str(path), skip_napkin_check=True)
    models: dict[str, NoteType] = {}
    for model in data.get("note_models") or []:
        if isinstance(model, dict):
            models[str(model.get("crowdanki_uuid"))] = _note_type(model)
    intake = MediaIntake()
    media_folder = root / "media"
    for _, deck in _decks(data, None, 0):
        for name in deck.get("media_files") or []:
            if isinstance(name, str) and media_folder.is_dir():
                read_folder_media(media_folder, name, intake=intake)
    roles_of: dict[str, dict[str, FieldRole]] = {}
    seen: set[str] = set()
    number = 0
    for deck_name, deck in _decks(data, None, 0):
        for note in deck.get("notes") or []:
            if not isinstance(note, dict):
                continue
            number += 1
            where = f"note {number}"
            guid = str(note.get("guid") or f"crowdanki:{number}")
            if guid in seen:
                source.notes.append(ImportNote(f"repeats note GUID {guid}", where, skipped=True))
                continue
            seen.add(guid)
            model_id = str(note.get("note_model_uuid"))
            values = [str(value) for value in note.get("fields") or []]
            note_type = models.get(model_id) or NoteType("", ())
            roles = roles_of.get(model_id)
            if roles is None:
                fixed = {**(saved_maps or {}).get(note_type.name, {}), **(field_map or {})}
                roles = roles_of[model_id] = note_roles(note_type, values, fixed, source.field_maps)
            card_ords = _card_ords(note_type, values)
            items = note_items(
                guid=guid,
                note_type=note_type,
                values=values,
                tags=[str(tag) for tag in note.get("tags") or []],
                deck=deck_name,
                where=where,
                roles=roles,
                card_ords=card_ords,
                media_names=intake.media.names,
                # Kept so that export writes the note back with every field (issue 31).
                origin=NoteOrigin(
                    _int_or_none(note.get("mod")), dict.fromkeys(card_ords, (deck_name, 0))
                ),
            )
            for item in items:
                if not item.data["question"]:
                    source.notes.append(ImportNote("note has an empty front", where, skipped=True))
                    break
                source.items.append(item)
    finish_source(source, intake.media)
    if not number:
        source.notes.append(ImportNote("the deck holds no notes", skipped=True))
    return source
