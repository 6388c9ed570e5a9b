"""Write an Anki package (``.apkg``) with genanki.

Identity is stable, so importing a newer export updates notes instead of
adding copies:

- an item imported from an Anki package is written as the note it came from:
  its GUID, note type and card (:mod:`~sysdrill.interop.export.anki_original`);
- any other item's note GUID comes from the vault's id and the item's id
  (:func:`note_guid`);
- each kind of item has its own note type with a fixed model id
  (:data:`NOTE_TYPES`); changing a note type's fields means a new id;
- each deck's id is derived from its name (:func:`deck_id`).

Notes carry the item's own modification time (see
:mod:`~sysdrill.interop.export.anki_media`), so Anki's "update if newer" rule
updates a note only when the item changed; media files the fields refer to go
into the package.
"""

from __future__ import annotations

import hashlib
import html
import itertools
import json
import sqlite3  # noqa: TID251 - genanki writes the collection through sqlite3
import tempfile
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sysdrill.content.enums import ItemKind
from sysdrill.content.media import MEDIA_FOLDER
from sysdrill.content.models import Item
from sysdrill.interop.anki_scheduling import AnkiCardHistory
from sysdrill.interop.export.anki_media import flatten_media, note_mod_seconds
from sysdrill.interop.export.anki_notes import (
    linked_deck_and_tags,
    linked_model,
    linked_note_fields,
    linked_notes,
)
from sysdrill.interop.export.anki_original import (
    anki_source,
    card_queues,
    card_slots,
    linked_card_ordinal,
    original_deck,
    original_model,
    original_note,
    original_note_fields,
    original_note_mod,
    original_notes,
    original_tags,
)
from sysdrill.interop.export.anki_schedule import set_card_queues, write_scheduling
from sysdrill.interop.export.cards import (
    ExportedItem,
    FieldRenderer,
    ItemsWritten,
    anki_deck_name,
    anki_tags,
    back_markdown,
    correct_option,
    front_markdown,
    options_markdown,
    parts_markdown,
)

__all__ = [
    "NOTE_TYPES",
    "NoteType",
    "deck_id",
    "guid_scope",
    "note_guid",
    "note_type_for",
    "write_apkg",
]


@dataclass(frozen=True, slots=True)
class NoteType:
    """An Anki note type sysdrill writes: fixed id, name and fields."""

    key: str
    model_id: int
    name: str
    fields: tuple[str, ...]
    front: str
    """Front template body (Anki mustache)."""
    back: str
    """Back template body, below the front side."""


_META = '{{#Meta}}<div class="meta">{{Meta}}</div>{{/Meta}}'
_TITLE = '{{#Title}}<div class="title">{{Title}}</div>{{/Title}}'
_SCENARIO = '{{#Scenario}}<div class="scenario">{{Scenario}}</div>{{/Scenario}}'


def _section(field: str, label: str) -> str:
    return (
        f'{{{{#{field}}}}}<div class="section"><div class="label">{label}</div>'
        f"{{{{{field}}}}}</div>{{{{/{field}}}}}"
    )


NOTE_TYPES: dict[str, NoteType] = {
    note_type.key: note_type
    for note_type in (
        NoteType(
            "question",
            1_733_400_001,
            "sysdrill scenario question",
            (
                "Title",
                "Scenario",
                "Question",
                "Answer",
                "Napkin math",
                "Common mistake",
                "Meta",
                "Id",
            ),
            _TITLE + _SCENARIO + '<div class="question">{{Question}}</div>',
            '<div class="answer">{{Answer}}</div>'
            + _section("Napkin math", "Napkin math")
            + _section("Common mistake", "Common mistake")
            + _META,
        ),
        NoteType(
            "multiple-choice",
            1_733_400_002,
            "sysdrill multiple choice",
            ("Title", "Scenario", "Question", "Options", "Answer", "Explanation", "Meta", "Id"),
            _TITLE
            + _SCENARIO
            + '<div class="question">{{Question}}</div><div class="options">{{Options}}</div>',
            '<div class="answer">{{Answer}}</div>' + _section("Explanation", "Why") + _META,
        ),
        NoteType(
            "flashcard",
            1_733_400_003,
            "sysdrill flashcard",
            ("Front", "Back", "Meta", "Id"),
            '<div class="question">{{Front}}</div>',
            '<div class="answer">{{Back}}</div>' + _META,
        ),
        NoteType(
            "exercise",
            1_733_400_004,
            "sysdrill exercise",
            ("Title", "Question", "Parts", "Answer", "Meta", "Id"),
            f'{_TITLE}<div class="question">{{{{Question}}}}</div>'
            '{{#Parts}}<div class="parts">{{Parts}}</div>{{/Parts}}',
            '<div class="answer">{{Answer}}</div>' + _META,
        ),
    )
}
"""Note types by key; quiz and numeric items use the flashcard type."""

_CSS = """\
.card { font-family: -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 18px;
  line-height: 1.45; text-align: left; color: #1d1d1f; background: #fff; max-width: 46em;
  margin: 0 auto; }
.nightMode .card, .card.nightMode { color: #e8e8e8; background: #1e1e1e; }
.title { font-weight: 600; font-size: 1.1em; margin-bottom: .5em; }
.scenario { color: #444; margin-bottom: .8em; }
.nightMode .scenario { color: #bbb; }
.section { margin-top: 1em; }
.label { font-size: .8em; font-weight: 600; text-transform: uppercase; letter-spacing: .04em;
  color: #888; }
.meta { margin-top: 1.2em; font-size: .75em; color: #888; }
table { border-collapse: collapse; } td, th { border: 1px solid #bbb; padding: .2em .5em; }
pre { white-space: pre-wrap; }
"""


def note_type_for(item: Item) -> NoteType:
    """The note type an item is written with."""
    if item.kind == ItemKind.EXERCISE:
        return NOTE_TYPES["exercise"]
    if item.is_multiple_choice:
        return NOTE_TYPES["multiple-choice"]
    if item.kind == ItemKind.QUESTION:
        return NOTE_TYPES["question"]
    return NOTE_TYPES["flashcard"]


def guid_scope(vault: Path | None) -> str | None:
    """What a vault's note GUIDs are derived from besides item ids: its declared id.

    A vault that declares its id (``vault.yaml``, or a bundled vault's name)
    gives GUIDs of its own, so two vaults with an item ``global-flashcard-0001``
    each never update each other's note in Anki. A vault known only by its
    folder gives None (the GUID of the item id alone, as before vaults had ids):
    a folder's digest changes when it moves, and the GUIDs must not.

    Raises:
        ContentInvalid: If the vault's ``vault.yaml`` is unreadable or its id invalid.
    """
    if vault is None:
        return None
    from sysdrill.content.vault_identity import read_vault_identity

    identity = read_vault_identity(vault)
    return identity.vault_id if identity.declared else None


def note_guid(item_id: str, scope: str | None = None) -> str:
    """Anki note GUID of an item: the same vault and id always give the same GUID.

    Args:
        item_id: The item's id.
        scope: The vault's declared id (:func:`guid_scope`), or None.
    """
    import genanki

    if scope is None:
        return str(genanki.guid_for("sysdrill", item_id))
    return str(genanki.guid_for("sysdrill", scope, item_id))


def deck_id(name: str) -> int:
    """Stable Anki deck id for a deck name (a positive 52-bit integer)."""
    digest = hashlib.sha256(f"sysdrill-deck:{name}".encode()).digest()
    return (int.from_bytes(digest[:6], "big") | 1 << 40) & ((1 << 52) - 1)


def _meta(item: Item) -> str:
    parts = [
        item.track.value if item.track else None,
        item.level.value if item.level else None,
        item.topic,
        item.id,
    ]
    return " · ".join(part for part in parts if part)


def _fields(item: Item, note_type: NoteType, render: FieldRenderer) -> list[str]:
    details = item.details
    values: dict[str, str | None] = {
        "Title": item.title,
        "Scenario": item.scenario,
        "Question": item.question,
        "Meta": None,
        "Id": None,
    }
    if note_type.key == "question":
        values["Answer"] = details.realistic_solution or back_markdown(item)
        values["Napkin math"] = details.napkin_math
        values["Common mistake"] = details.common_mistake
    elif note_type.key == "multiple-choice":
        values["Options"] = options_markdown(item)
        values["Answer"] = correct_option(item) or "*The source marks no correct option.*"
        values["Explanation"] = details.realistic_solution
    elif note_type.key == "exercise":
        values["Parts"] = parts_markdown(item, with_answers=False)
        values["Answer"] = back_markdown(item)
    else:
        values["Front"] = front_markdown(item)
        values["Back"] = back_markdown(item)
    rendered = {name: render(value) for name, value in values.items()}
    # Id and Meta are plain text: escaped, never rendered as Markdown.
    rendered["Meta"] = html.escape(_meta(item))
    rendered["Id"] = html.escape(item.id)
    return [rendered.get(name, "") for name in note_type.fields]


def _model(note_type: NoteType) -> Any:
    import genanki

    return genanki.Model(
        note_type.model_id,
        note_type.name,
        fields=[{"name": name} for name in note_type.fields],
        templates=[
            {
                "name": "Card 1",
                "qfmt": note_type.front,
                "afmt": '{{FrontSide}}<hr id="answer">' + note_type.back,
            }
        ],
        css=_CSS,
        sort_field_index=0,
    )


def write_apkg(
    items: list[ExportedItem],
    path: Path,
    now: datetime,
    *,
    vault: Path | None = None,
    scheduling: Mapping[str, AnkiCardHistory] | None = None,
    progress: ItemsWritten | None = None,
) -> list[str]:
    """Write the items as an Anki package at ``path``.

    Args:
        items: Items to write, in order.
        path: The file to write (the caller makes this atomic).
        now: Export time (UTC): the cards' time, and a note's modification
            time only when its item gives none.
        vault: The vault folder, whose ``media/`` files the fields name and
            whose item files date the notes.
        scheduling: Study history by item id, written into the cards and review
            log (:mod:`~sysdrill.interop.export.anki_schedule`).
        progress: Called with the number of items made into notes so far (the
            package is written after the last one).

    Returns:
        The Anki deck names written, sorted.
    """
    import genanki

    render = FieldRenderer()
    scope = guid_scope(vault)
    models = {key: _model(note_type) for key, note_type in NOTE_TYPES.items()}
    decks: dict[str, Any] = {}
    originals = original_notes(items)
    linked = linked_notes([e for e in items if anki_source(e.item) is None])
    used_media: set[str] = set()
    renamed_media: dict[str, str] = {}
    """Vault media file of each file packed under its Anki name (unchanged original fields)."""
    mods: dict[str, int] = {}
    model_mods: dict[int, int] = {}
    slots: dict[tuple[str, int], str] = {}
    """Item id of each card, by (note GUID, card ordinal)."""
    queues: dict[tuple[str, int], int] = {}
    fallback = int(now.timestamp())
    done = 0

    def deck(name: str) -> Any:
        if name not in decks:
            decks[name] = genanki.Deck(deck_id(name), name)
        return decks[name]

    original_models: dict[int, Any] = {}
    for original in originals.values():
        kind = original.anki.note_type
        model = original_models.get(kind.id)
        if model is None:
            model = original_models[kind.id] = original_model(original)
            if kind.mod_s is not None:
                model_mods[kind.id] = kind.mod_s
        kept = original_note_fields(original, render, used_media)
        renamed_media.update(kept.packed)
        mods[original.guid] = original_note_mod(original, vault=vault, fallback=fallback)
        for ord_, item_id in card_slots(original).items():
            slots[(original.guid, ord_)] = item_id
        for ord_, queue in card_queues(original).items():
            queues[(original.guid, ord_)] = queue
        deck(original_deck(original)).add_note(
            original_note(original, model, kept.values, original_tags(original))
        )
        done += len(original.items)
        if progress is not None:
            progress(done)
    for note in linked.values():
        name, tags = linked_deck_and_tags(note)
        fields = [flatten_media(f, used_media) for f in linked_note_fields(note, render)]
        guid = note.scoped_guid(scope)
        mods[guid] = note_mod_seconds(note.items, vault=vault, fallback=fallback)
        for sibling in note.items:
            slots[(guid, linked_card_ordinal(sibling.item))] = sibling.item.id
        deck(name).add_note(
            genanki.Note(model=linked_model(note, _CSS), fields=fields, tags=tags, guid=guid)
        )
        done += len(note.items)
        if progress is not None:
            progress(done)
    for exported in items:
        item = exported.item
        if item.note_link is not None or anki_source(item) is not None:
            continue
        note_type = note_type_for(item)
        name = anki_deck_name(item, deck=exported.deck_title)
        guid = note_guid(item.id, scope)
        mods[guid] = note_mod_seconds([exported], vault=vault, fallback=fallback)
        slots[(guid, 0)] = item.id
        deck(name).add_note(
            genanki.Note(
                model=models[note_type.key],
                fields=[flatten_media(f, used_media) for f in _fields(item, note_type, render)],
                tags=anki_tags(item),
                guid=guid,
            )
        )
        done += 1
        if progress is not None:
            progress(done)
    package = genanki.Package([decks[name] for name in sorted(decks)])
    timestamp = now.timestamp()
    with tempfile.TemporaryDirectory(prefix="sysdrill-apkg-") as folder:
        collection = Path(folder) / "collection.anki2"
        conn = sqlite3.connect(collection)
        try:
            package.write_to_db(conn.cursor(), timestamp, itertools.count(int(timestamp * 1000)))
            # By id: genanki's collection has no index on guid.
            note_ids = {
                str(guid): int(nid) for nid, guid in conn.execute("SELECT id, guid FROM notes")
            }
            conn.executemany(
                "UPDATE notes SET mod = ? WHERE id = ?",
                [(mod, note_ids[guid]) for guid, mod in mods.items() if guid in note_ids],
            )
            _set_model_mods(conn, model_mods)
            if scheduling:
                histories = {
                    slot: scheduling[item_id]
                    for slot, item_id in slots.items()
                    if item_id in scheduling
                }
                write_scheduling(conn, histories)
            set_card_queues(conn, queues)
            conn.commit()
        finally:
            conn.close()
        media_dir = vault / MEDIA_FOLDER if vault is not None else Path(folder) / MEDIA_FOLDER
        packed = {name: media_dir / name for name in sorted(used_media)}
        for anki_name, stored in sorted(renamed_media.items()):
            packed.setdefault(anki_name, media_dir / stored)
        present = [(name, file) for name, file in packed.items() if file.is_file()]
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
            archive.write(collection, "collection.anki2")
            for number, (_, file) in enumerate(present):
                archive.write(file, str(number))
            index = {str(number): name for number, (name, _) in enumerate(present)}
            archive.writestr("media", json.dumps(index))
    return sorted(decks)


def _set_model_mods(conn: sqlite3.Connection, model_mods: Mapping[int, int]) -> None:
    """Give the note types written again their own modification times.

    Anki replaces a note type of the same id only with a newer one: with its own
    time, the collection keeps its note type (field options, fonts) as it is.
    """
    if not model_mods:
        return
    row = conn.execute("SELECT models FROM col LIMIT 1").fetchone()
    models = json.loads(row[0]) if row and row[0] else {}
    for model_id, mod in model_mods.items():
        model = models.get(str(model_id))
        if isinstance(model, dict):
            model["mod"] = mod
    conn.execute("UPDATE col SET models = ?", (json.dumps(models),))
