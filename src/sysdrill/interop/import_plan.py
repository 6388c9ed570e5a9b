"""What an import will write, decided before anything is written.

The import service (:mod:`sysdrill.interop.importer`) parses a source, then asks
this module for its plan: each parsed item matched with what the vault holds
(same format family and key), its file, id and deck, the decks file after it,
and every defect found; nothing is written here.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sysdrill.check.napkin_decks import NapkinExemptions
from sysdrill.content.models import validate_item
from sysdrill.interop import vault_writer
from sysdrill.interop.formats import deck_slug, slugify
from sysdrill.interop.import_audit import audit_imported
from sysdrill.interop.import_report import ImportReport, ItemAction, ItemOutcome
from sysdrill.interop.item_digest import item_digest
from sysdrill.interop.reimport import anki_html, guid_ids, same_item
from sysdrill.interop.source import ImportNote, ParsedItem, ParsedSource
from sysdrill.interop.vault_writer import (
    ExistingItem,
    IdAllocator,
    VaultIndex,
    format_family,
    load_decks_file,
)

_DEFAULT_TRACK = "global"
"""Id prefix of items without a track (``check`` wants ids to start with a track)."""

Progress = Callable[[str, int, int], None]
"""``progress(stage, done, total)``, called as each stage of an import advances."""

PREPARING = "Preparing items"
AUDITING = "Auditing items"
WRITING = "Writing files"
"""The stages an import reports to its progress callback, in order."""


def _plain_copy(value: Any) -> Any:
    """A deep copy of parsed source data (dicts, lists and scalars), faster than deepcopy.

    Other objects are copied with :func:`copy.deepcopy`, so the result is never
    shared with the source whatever a reader put in it.
    """
    if isinstance(value, dict):
        return {key: _plain_copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain_copy(item) for item in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return copy.deepcopy(value)


@functools.lru_cache(maxsize=4096)
def _deck_name(title: str) -> str:
    """Deck name from a title, keeping Anki's ``::`` hierarchy: ``A::B c`` -> ``a::b-c``.

    Every script is kept (``日本語::文法``); only file names are transliterated.
    """
    return "::".join(deck_slug(part) for part in title.split("::") if part.strip()) or "imported"


@dataclass(slots=True)
class _Plan:
    """Everything the import will write, decided before anything is written."""

    files: dict[str, str] = field(default_factory=dict)
    deck_items: dict[str, list[str]] = field(default_factory=dict)
    deck_titles: dict[str, str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    imported_ids: set[str] = field(default_factory=set)
    """Ids of the vault's items imported from this source's format, before this import."""


def _folder(data: dict[str, Any]) -> str:
    track = data.get("track")
    deck = data.get("deck")
    return _folder_of(
        track if isinstance(track, str) else None, deck if isinstance(deck, str) else None
    )


@functools.lru_cache(maxsize=4096)
def _folder_of(track: str | None, deck: str | None) -> str:
    """The folder of an item of that track or deck (the same few for a whole import)."""
    if track:
        return f"questions/{slugify(track)}"
    if deck:
        return "questions/" + "/".join(slugify(part) for part in deck.split("::"))
    return "questions/imported"


def _comparable(raw: dict[str, Any]) -> dict[str, Any]:
    drop = {"id", "source", "provenance", "created_at", "updated_at"}
    return {key: value for key, value in raw.items() if key not in drop}


def _item_data(parsed_item: ParsedItem, *, deck: str | None, forced_deck: bool) -> dict[str, Any]:
    data: dict[str, Any] = _plain_copy(parsed_item.data)
    data.pop("id", None)
    data.pop("source", None)
    item_deck = data.get("deck")
    if forced_deck or (deck and not item_deck):
        data["deck"] = deck
    elif isinstance(item_deck, str) and item_deck.strip():
        data["deck"] = _deck_name(item_deck)
    data.setdefault("status", "draft")
    return data


def _validation_messages(where: str, exc: ValidationError) -> list[str]:
    return [
        f"{where}: {'.'.join(str(p) for p in error['loc']) or '(item)'}: {error['msg']}"
        for error in exc.errors()
    ]


def _decks_update(
    root: Path, plan: _Plan, *, skip_napkin_check: bool
) -> tuple[str | None, dict[str, Any]]:
    """decks.yaml with this import's decks added or updated: new text (None if unchanged), data.

    A deck the import creates from a flashcard app says ``skip_napkin_check``, and so
    does a deck an earlier import of the format made (it lists only items imported
    from it) when it says nothing of the setting: decks imported before the setting
    existed get it on re-import. A deck its author wrote, or one that states the
    setting, keeps what it says.
    """
    raw = load_decks_file(root)
    before = copy.deepcopy(raw)
    entries: list[Any] = raw["decks"]
    for name, ids in plan.deck_items.items():
        entry = next((e for e in entries if isinstance(e, dict) and e.get("name") == name), None)
        if entry is not None and skip_napkin_check and _made_by_import(entry, plan, ids):
            entry["skip_napkin_check"] = True
        if entry is None:
            entry = {"name": name}
            title = plan.deck_titles.get(name)
            if title and title != name:
                entry["title"] = title
            if skip_napkin_check:
                entry["skip_napkin_check"] = True
            entries.append(entry)
        kept = [i for i in entry.get("items") or [] if i not in ids]
        entry["items"] = ids + kept
    return (None if raw == before else vault_writer.dump_yaml(raw)), raw


def _made_by_import(entry: dict[str, Any], plan: _Plan, ids: list[str]) -> bool:
    """Whether an existing deck is one an earlier import of this format made, unset."""
    listed = entry.get("items")
    if "skip_napkin_check" in entry or not isinstance(listed, list) or not listed:
        return False
    ours = plan.imported_ids.union(ids)
    return all(isinstance(i, str) and i in ours for i in listed)


def _finalise(
    data: dict[str, Any],
    *,
    item_id: str,
    parsed: ParsedSource,
    source_name: str,
    key: str,
    digest: str,
    stamp_time: str,
    previous: dict[str, Any] | None,
    anki: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The item's mapping as its file holds it: stamped, dated (``stamp_time``, ISO 8601), ordered.

    ``source_name`` and ``stamp_time`` are the same for every item of an import,
    so the caller works them out once.
    """
    original = data.get("provenance")
    stamp: dict[str, Any] = {
        "format": parsed.format,
        "path": source_name,
        "key": key,
        "digest": digest,
    }
    # A StaffML item keeps its provenance as written: it is a field of that schema.
    if not (isinstance(original, str) and format_family(parsed.format) == "staffml"):
        data["provenance"] = "imported"
        if isinstance(original, str) and original != "imported":
            stamp["provenance"] = original
    if anki is not None:
        stamp["anki"] = _plain_copy(anki)
    data["source"] = stamp
    if previous is None:
        data.setdefault("created_at", stamp_time)
    else:
        if "created_at" not in data and previous.get("created_at") is not None:
            data["created_at"] = previous["created_at"]
        data.setdefault("updated_at", stamp_time)
    data.setdefault("schema_version", "1.0")
    data["id"] = item_id
    return vault_writer.order_item(data)


def _id_prefix(data: dict[str, Any]) -> str:
    return _prefix_of(
        str(data.get("track") or _DEFAULT_TRACK), str(data.get("format") or "question")
    )


@functools.lru_cache(maxsize=4096)
def _prefix_of(track: str, kind: str) -> str:
    return f"{slugify(track)}-{slugify(kind)}"


def _card_of(data: dict[str, Any]) -> str:
    link = data.get("note_link")
    card = link.get("card") if isinstance(link, dict) else None
    return slugify(str(card)) if card else "card"


def _known_note_ids(parsed: ParsedSource, index: VaultIndex, family: str) -> dict[str, str]:
    """Note ids the vault already gives each group of sibling items, by group key.

    Read before any id is allocated, so a blank added to a cloze note later
    joins the note id its siblings already have.
    """
    known: dict[str, str] = {}
    for parsed_item in parsed.items:
        if parsed_item.group is None:
            continue
        existing = index.by_identity.get((family, parsed_item.key))
        link = existing.raw.get("note_link") if existing is not None else None
        if isinstance(link, dict) and isinstance(link.get("id"), str):
            known.setdefault(parsed_item.group, link["id"])
    return known


def _plan_items(
    parsed: ParsedSource,
    index: VaultIndex,
    report: ImportReport,
    *,
    deck: str | None,
    forced_deck: bool,
    now: datetime,
    progress: Progress,
    root: Path | None = None,
) -> _Plan:
    plan = _Plan()
    allocator = IdAllocator(index)
    family = format_family(parsed.format)
    name = Path(parsed.path).name
    bases = _known_note_ids(parsed, index, family)
    stamp_time = now.astimezone(UTC).isoformat(timespec="seconds")
    by_guid = parsed.own_export and parsed.format in ("anki-text", "apkg")
    guids = guid_ids(root, index) if by_guid else {}
    shown: Callable[[str], str] = _as_written
    if parsed.own_export and parsed.format == "anki-text":
        shown = anki_html()
    elif parsed.own_export and parsed.format == "apkg":
        from sysdrill.interop.formats.apkg import exported_field_text

        shown = exported_field_text()
    elif parsed.own_export and parsed.format == "markdown":
        # Lazy: the exporters' module imports the Anki package writer's.
        from sysdrill.interop.export.text_formats import guard_markers

        shown = guard_markers
    total = len(parsed.items)
    for done, parsed_item in enumerate(parsed.items):
        progress(PREPARING, done, total)
        own_deck = parsed_item.data.get("deck")
        if isinstance(own_deck, str) and own_deck.strip() and not forced_deck:
            plan.deck_titles.setdefault(_deck_name(own_deck), own_deck.strip())
        data = _item_data(parsed_item, deck=deck, forced_deck=forced_deck)
        digest = item_digest(data, parsed_item.anki)
        existing = index.by_identity.get((family, parsed_item.key))
        where = f"{name} ({parsed_item.key})"
        if existing is not None:
            item_id, rel = existing.id, existing.rel
            stamp = existing.raw.get("source") or {}
            action = ItemAction.UNCHANGED if stamp.get("digest") == digest else ItemAction.UPDATED
            previous: dict[str, Any] | None = existing.raw
            if action is ItemAction.UPDATED and _only_anki_block_missing(
                stamp, data, parsed_item.anki
            ):
                # Imported before items kept their Anki note: the source did not change,
                # so the file keeps its text (and the author's edits); only the stamp grows.
                kept = _with_anki_block(existing.raw, parsed_item.anki, digest)
                for note in parsed_item.notes:
                    report.notes.append(
                        ImportNote(
                            f"{item_id}: {note.message}", note.location or where, note.skipped
                        )
                    )
                report.outcomes.append(ItemOutcome(action, parsed_item.key, item_id, rel))
                plan.files[rel] = vault_writer.dump_yaml(kept)
                item_deck = existing.raw.get("deck")
                if isinstance(item_deck, str) and item_deck:
                    plan.deck_items.setdefault(item_deck, []).append(item_id)
                continue
        elif (
            parsed.own_export
            and (own := _own_item(parsed_item, index, guids, parsed.format)) is not None
        ):
            _plan_same_item(own, parsed_item, data, plan, report, where, stamp_time, shown)
            continue
        elif parsed_item.preferred_id is not None and allocator.taken(parsed_item.preferred_id):
            item_id = parsed_item.preferred_id
            other = index.by_id.get(item_id)
            if other is not None and _comparable(other.raw) == _comparable(data):
                report.outcomes.append(
                    ItemOutcome(ItemAction.UNCHANGED, parsed_item.key, item_id, other.rel)
                )
                continue
            held_by = other.rel if other is not None else "another item of this source"
            report.outcomes.append(
                ItemOutcome(
                    ItemAction.SKIPPED,
                    parsed_item.key,
                    item_id,
                    reason=f"id '{item_id}' is already used by {held_by}, which was not "
                    "imported from this source; rename or remove one of them",
                )
            )
            continue
        else:
            folder = _folder(data)
            if parsed_item.preferred_id is not None:
                item_id = parsed_item.preferred_id
                allocator.reserve(item_id)
            elif parsed_item.group is not None:
                base = bases.get(parsed_item.group)
                if base is None:
                    base = bases[parsed_item.group] = allocator.allocate(_id_prefix(data), folder)
                item_id = allocator.allocate_exact(f"{base}-{_card_of(data)}", folder)
            else:
                item_id = allocator.allocate(_id_prefix(data), folder)
            rel = f"{folder}/{item_id}.yaml"
            action, previous = ItemAction.ADDED, None
        if parsed_item.group is not None and isinstance(data.get("note_link"), dict):
            note_id = bases.setdefault(parsed_item.group, item_id)
            data["note_link"] = {"id": note_id, **data["note_link"]}
        for note in parsed_item.notes:
            report.notes.append(
                ImportNote(f"{item_id}: {note.message}", note.location or where, note.skipped)
            )
        item_deck = data.get("deck")
        if isinstance(item_deck, str) and item_deck:
            plan.deck_items.setdefault(item_deck, []).append(item_id)
        report.outcomes.append(ItemOutcome(action, parsed_item.key, item_id, rel))
        if action is ItemAction.UNCHANGED:
            continue
        final = _finalise(
            data,
            item_id=item_id,
            parsed=parsed,
            source_name=name,
            key=parsed_item.key,
            digest=digest,
            stamp_time=stamp_time,
            previous=previous,
            anki=parsed_item.anki,
        )
        try:
            validate_item(final)
        except ValidationError as exc:
            plan.errors.extend(_validation_messages(where, exc))
            continue
        plan.files[rel] = vault_writer.dump_yaml(final)
    progress(PREPARING, total, total)
    _note_dropped(parsed, index, report)
    plan.imported_ids = {
        existing.id for (fam, _), existing in index.by_identity.items() if fam == family
    }
    return plan


def _as_written(text: str) -> str:
    return text


def _own_item(
    parsed_item: ParsedItem, index: VaultIndex, guids: Mapping[str, str], source_format: str
) -> ExistingItem | None:
    """The vault item an exported row shows: by its id, or by the GUID made from one.

    A package's note is found by its GUID alone: its ``Id`` field names an item
    of the vault it came from, which another vault may hold under the same id.
    """
    if source_format == "apkg":
        item_id = guids.get(parsed_item.key)
    else:
        item_id = parsed_item.preferred_id or guids.get(parsed_item.key)
    return index.by_id.get(item_id) if item_id is not None else None


def _plan_same_item(
    existing: ExistingItem,
    parsed_item: ParsedItem,
    data: dict[str, Any],
    plan: _Plan,
    report: ImportReport,
    where: str,
    stamp_time: str,
    shown: Callable[[str], str],
) -> None:
    """Plan a row of sysdrill's own export read back into the item of its id (:mod:`.reimport`)."""
    same = same_item(existing, parsed_item, data, stamp_time=stamp_time, shown=shown)
    if same.note:
        report.notes.append(ImportNote(f"{existing.id}: {same.note}", where))
    action = ItemAction.UPDATED if same.changed else ItemAction.UNCHANGED
    report.outcomes.append(ItemOutcome(action, parsed_item.key, existing.id, existing.rel))
    if not same.changed:
        return
    deck = same.raw.get("deck")
    if isinstance(deck, str) and deck and deck != existing.raw.get("deck"):
        plan.deck_items.setdefault(deck, []).append(existing.id)
    try:
        validate_item(same.raw)
    except ValidationError as exc:
        plan.errors.extend(_validation_messages(where, exc))
        return
    plan.files[existing.rel] = vault_writer.dump_yaml(same.raw)


def _only_anki_block_missing(
    stamp: Mapping[str, Any], data: dict[str, Any], anki: dict[str, Any] | None
) -> bool:
    """Whether an item was imported, unchanged, before items kept their Anki note."""
    return (
        anki is not None
        and isinstance(stamp, Mapping)
        and "anki" not in stamp
        and stamp.get("digest") == item_digest(data)
    )


def _with_anki_block(
    raw: dict[str, Any], anki: dict[str, Any] | None, digest: str
) -> dict[str, Any]:
    """An item file's mapping as it is, its ``source`` stamp given the Anki block and digest."""
    kept = _plain_copy(raw)
    kept["source"] = {**kept.get("source", {}), "digest": digest, "anki": _plain_copy(anki)}
    return vault_writer.order_item(kept)


def _note_dropped(parsed: ParsedSource, index: VaultIndex, report: ImportReport) -> None:
    """Note items an earlier import of this source added that the source no longer has.

    They are kept: deleting vault files is the author's call, not the importer's.
    """
    family = format_family(parsed.format)
    name = Path(parsed.path).name
    keys = {item.key for item in parsed.items}
    for (item_family, key), existing in sorted(index.by_identity.items()):
        stamp = existing.raw.get("source") or {}
        if item_family == family and stamp.get("path") == name and key not in keys:
            report.notes.append(
                ImportNote(
                    f"{existing.id}: no longer in the source (key {key}); kept in the vault, "
                    "delete the file to drop it",
                    existing.rel,
                )
            )


def _defects(
    report: ImportReport,
    plan: _Plan,
    root: Path,
    *,
    written: bool,
    exempt: NapkinExemptions,
    progress: Progress,
) -> None:
    """List what ``check`` will flag on the imported items (:mod:`.import_audit`)."""
    audited = [
        outcome.path
        for outcome in report.outcomes
        if outcome.path is not None and outcome.action is not ItemAction.SKIPPED
    ]
    report.defects.extend(
        audit_imported(
            root,
            audited,
            plan.files,
            written=written,
            exempt=exempt,
            tick=lambda done, total: progress(AUDITING, done, total),
        )
    )
