"""Personal decks: a learner imports a file into a deck of their own, studied with the vault.

On a multi-user server the shared vault is the admin's and read-only to learners;
in single-user mode the bundled vaults (the starter vault) are never written, so
the one local learner's imports from the web page become personal decks too. A
learner's personal decks are kept in the study database
(:mod:`sysdrill.storage.personal_store`), never in the vault folder, so every
worker serves them.

An import reads the file with the vault importer itself (every format
``sysdrill import`` reads, with its archive safety limits), into a scratch vault
folder that is thrown away: the items are validated there exactly as an admin's
import would be, then stored in the database in one transaction. Nothing is
stored if anything fails.

Item ids: the importer gives ids from the item's track and kind
(``global-flashcard-0001``), which the shared vault may already use. An item
whose id is taken (by the shared vault or by another of the learner's decks)
is renamed to the first free ``<id>-p<n>`` (``-p1``, ``-p2``...) and the import
reports each renaming; refusing would turn away most Anki decks. If the shared
vault later gains an id a personal item has, the shared item wins and the
personal one is left out until the deck is imported again
(:mod:`sysdrill.app.personal_vault`).

Importing the same file again (same file name and format) updates that deck in
place: an item is matched to the one it replaces by the importer's stable key of
its source (``source.key``, else its id), keeps that item's id and so its review
history, and is reported unchanged (same source digest) or updated; new items are
added, and items no longer in the file leave the deck (their study state is kept,
as when a deck is deleted) and are named in the report's notes. Another file whose
deck name clashes is refused with a title to choose instead.

An item keeps the title its source gave, or none: every view names an untitled
item by :func:`~sysdrill.study.sessions.text.untitled_heading`, one rule for the
vault and personal decks.

Deleting a deck deletes its items; their study state (cards, reviews) is kept,
so importing the deck again continues where the learner stopped.
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from sysdrill.app.study_vault import StudyVault
from sysdrill.errors import DeckNotFound, HostileInput, ImportFailed, StorageConflict, UsageError
from sysdrill.interop.import_report import ImportReport, ItemAction
from sysdrill.interop.source import ImportNote
from sysdrill.interop.vault_writer import format_family
from sysdrill.storage.location import study_database_url
from sysdrill.storage.personal_store import PersonalDeckRow, PersonalDeckStore

__all__ = [
    "MAX_DECKS_PER_LEARNER",
    "MAX_DECK_ITEMS",
    "MAX_ITEM_ID_CHARS",
    "MAX_TITLE_CHARS",
    "PersonalDeck",
    "PersonalImport",
    "delete_personal_deck",
    "import_personal_deck",
    "list_personal_decks",
]

MAX_DECK_ITEMS = 5_000
"""Most items one personal deck may hold (the upload itself is limited as an admin's is)."""
MAX_DECKS_PER_LEARNER = 50
"""Most personal decks one learner may keep."""
MAX_TITLE_CHARS = 200
"""Longest deck title (the deck's name is made from it; the database keeps 200)."""
MAX_ITEM_ID_CHARS = 300
"""Longest id of a personal item, as the database keeps it."""
_RENAME_MARK = "-p"


PersonalDeck = PersonalDeckRow
"""One of a learner's personal decks: name (as sessions' ``deck=`` uses it), title,
source file, format, item count and import time (UTC)."""


@dataclass(frozen=True, slots=True)
class PersonalImport:
    """What importing a personal deck stored."""

    deck: PersonalDeck
    report: ImportReport = field(compare=False)
    """The importer's report with the ids stored (no vault folder: ``vault`` is
    empty and outcomes have no paths), for pages that show an import's outcome."""
    renamed: dict[str, str] = field(default_factory=dict)
    """Items whose id was taken: the importer's id -> the id stored."""
    skipped: list[str] = field(default_factory=list)
    """Parts of the source the importer skipped, with the reason."""
    notes: list[str] = field(default_factory=list)
    """Remarks: media left out, the importer's notes."""
    dry_run: bool = False
    """Whether nothing was stored (a preview)."""
    removed: list[str] = field(default_factory=list)
    """Ids of the deck's items that a re-import took out (no longer in the file)."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "deck": self.deck.to_dict(),
            "renamed": dict(self.renamed),
            "removed": list(self.removed),
            "skipped": list(self.skipped),
            "notes": list(self.notes),
        }


def list_personal_decks(db_url: str | None, *, user: str) -> list[PersonalDeck]:
    """The personal decks of ``user``, by name."""
    with PersonalDeckStore(study_database_url(db_url)) as store:
        return store.list_decks(user)


def delete_personal_deck(db_url: str | None, *, user: str, name: str) -> None:
    """Delete the personal deck ``name`` of ``user`` (its study state is kept).

    Raises:
        DeckNotFound: If ``user`` has no personal deck of that name (another
            learner's deck of that name is never touched).
    """
    with PersonalDeckStore(study_database_url(db_url)) as store:
        if not store.delete_deck(user, name):
            raise DeckNotFound(
                f"You have no personal deck named {name!r}; GET /api/personal-decks lists yours."
            )


def _shared_deck_names(shared: StudyVault) -> set[str]:
    return {deck.name for deck in shared.decks} | {i.deck for i in shared.items if i.deck}


def _free_id(item_id: str, taken: set[str]) -> str:
    number = 1
    while f"{item_id}{_RENAME_MARK}{number}" in taken:
        number += 1
    return f"{item_id}{_RENAME_MARK}{number}"


Identity = tuple[str, str]
"""An item's source identity: its format family and the importer's stable key."""


def _identity(raw: Mapping[str, Any]) -> Identity | None:
    stamp = raw.get("source")
    if isinstance(stamp, dict) and stamp.get("format") and stamp.get("key") is not None:
        return (format_family(str(stamp["format"])), str(stamp["key"]))
    return None


def _digest(raw: Mapping[str, Any]) -> object:
    stamp = raw.get("source")
    return stamp.get("digest") if isinstance(stamp, dict) else None


def _same_item(held: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """Whether a re-imported item says what the held one says (import times aside)."""
    if _digest(held) is not None and _digest(new) is not None:
        return _digest(held) == _digest(new)
    ignored = {"id", "created_at"}
    return {k: v for k, v in held.items() if k not in ignored} == {
        k: v for k, v in new.items() if k not in ignored
    }


@dataclass(slots=True)
class _Stored:
    """The items an import stores, and what became of each item of the file and the deck."""

    items: list[tuple[str, str]] = field(default_factory=list)
    """Each item's stored id and JSON, in the file's order."""
    renamed: dict[str, str] = field(default_factory=dict)
    actions: dict[str, ItemAction] = field(default_factory=dict)
    """The importer's id -> added, updated or unchanged."""
    removed: list[str] = field(default_factory=list)


def _stored_items(
    raws: Iterable[dict[str, Any]],
    taken: set[str],
    *,
    deck: str,
    held: Iterable[tuple[str, str]] = (),
    shared_ids: AbstractSet[str] = frozenset(),
) -> _Stored:
    """Each item's final id and JSON, renaming new ids in ``taken`` (which grows).

    ``held`` are the ``(id, JSON)`` items the deck holds when the file is imported
    again: an item of the file matched to one of them (by source identity, else by
    id) keeps its id, so its cards and reviews carry on, unless the shared vault
    has since taken that id. Every item is put in ``deck``.
    """
    by_identity: dict[Identity, tuple[str, dict[str, Any], str]] = {}
    by_id: dict[str, tuple[str, dict[str, Any], str]] = {}
    for item_id, item_json in held:
        raw = json.loads(item_json)
        by_id[item_id] = (item_id, raw, item_json)
        identity = _identity(raw)
        if identity is not None:
            by_identity.setdefault(identity, by_id[item_id])
    matched: set[str] = set()
    done = _Stored()
    for raw in raws:
        raw = {**raw, "deck": deck}
        given_id = str(raw["id"])
        identity = _identity(raw)
        old = by_identity.get(identity) if identity else by_id.get(given_id)
        if old is not None and old[0] not in matched and old[0] not in shared_ids:
            old_id, old_raw, old_json = old
            matched.add(old_id)
            if old_id != given_id:
                done.renamed[given_id] = old_id
            if _same_item(old_raw, raw):
                done.actions[given_id] = ItemAction.UNCHANGED
                done.items.append((old_id, old_json))
                continue
            done.actions[given_id] = ItemAction.UPDATED
            raw = {**raw, "id": old_id}
            if "created_at" in old_raw:
                raw["created_at"] = old_raw["created_at"]
        else:
            done.actions[given_id] = ItemAction.ADDED
            if given_id in taken:
                done.renamed[given_id] = _free_id(given_id, taken)
                raw = {**raw, "id": done.renamed[given_id]}
        if len(str(raw["id"])) > MAX_ITEM_ID_CHARS:
            raise ImportFailed(
                f"an item id has {len(str(raw['id']))} characters, more than the "
                f"{MAX_ITEM_ID_CHARS} a personal item may have; shorten it, nothing was stored"
            )
        taken.add(str(raw["id"]))
        done.items.append((str(raw["id"]), json.dumps(raw, ensure_ascii=False, default=str)))
    done.removed = [item_id for item_id in by_id if item_id not in matched]
    return done


def import_personal_deck(
    source: Path,
    *,
    db_url: str | None,
    user: str,
    shared: StudyVault,
    title: str | None = None,
    format: str = "auto",
    now: datetime,
    dry_run: bool = False,
) -> PersonalImport:
    """Import ``source`` into a personal deck of ``user``: all of it, or nothing.

    A new deck, or, when ``user`` already has a deck of that name imported from a
    file of the same name and format, that deck updated in place (see the module
    docstring: matched items keep their ids and history, the others leave it).

    Args:
        source: The uploaded file (any format ``sysdrill import`` reads).
        db_url: The study database URL (None for the default one).
        user: The learner.
        shared: The shared vault (its ids and deck names are taken).
        title: The deck's title; when blank, the title of the deck the file names
            (a flashcard text's heading, an Anki deck), else the file's name
            without its suffix.
        format: A format name, or ``auto`` to detect it.
        now: The import time (UTC).
        dry_run: Check and report everything, store nothing (the import page's
            preview).

    Raises:
        ImportFailed: If the file cannot be read, holds nothing to import, or the
            deck name is taken (by the shared vault, or by a deck of the learner
            imported from another file).
        HostileInput: If the file or the deck is too large, or an archive lies.
        ContentInvalid: If an item does not validate.
        UsageError: If ``format`` is unknown, or the title is too long or holds a
            NUL byte.
    """
    from sysdrill.app.interop import import_items
    from sysdrill.content.loader import load_vault

    given = (title or "").strip()
    if "\x00" in given:
        raise UsageError("a deck title cannot hold a NUL byte; type the title again")
    if len(given) > MAX_TITLE_CHARS:
        raise UsageError(
            f"the deck title has {len(given)} characters; give one of at most {MAX_TITLE_CHARS}"
        )
    with tempfile.TemporaryDirectory(prefix="sysdrill-personal-") as scratch:
        # A throwaway vault: the importer validates and lays out items as for the
        # shared vault, and nothing of it outlives this call.
        into = Path(scratch) / "vault"
        report = import_items(
            source, into=into, format=format, deck=given or None, audit=False, now=now
        )
        loaded = load_vault(into)
        raws = [dict(f.raw) for f in loaded.files if f.item is not None]
        if len(raws) != len(loaded.files):
            raise ImportFailed(
                f"{len(loaded.files) - len(raws)} imported item(s) do not load; "
                "fix the source, nothing was stored"
            )
        media = [path for path in report.written if path.startswith("media/")]
        named = {deck.name: deck.title for deck in loaded.decks}
    deck_title = given or named.get(report.deck or "") or source.stem or "imported"
    if len(deck_title) > MAX_TITLE_CHARS:
        deck_title = deck_title[: MAX_TITLE_CHARS - 1].rstrip() + "…"
    name = report.deck or _deck_name(deck_title)
    if not raws:
        raise ImportFailed(f"nothing to import from '{source.name}'; check the file")
    if len(raws) > MAX_DECK_ITEMS:
        raise HostileInput(
            f"the deck has {len(raws)} items; a personal deck holds at most {MAX_DECK_ITEMS}, "
            "so split the file"
        )
    if name in _shared_deck_names(shared):
        raise ImportFailed(
            f"the shared vault already has a deck named {name!r}; choose another deck title"
        )
    url = study_database_url(db_url)
    with PersonalDeckStore(url) as store:
        existing = store.list_decks(user)
        same_name = next((deck for deck in existing if deck.name == name), None)
        if same_name is not None and not _same_source(same_name, source=source, report=report):
            raise ImportFailed(
                f"you already have a personal deck named {name!r}, imported from "
                f"'{same_name.source_name}'; choose another deck title (such as "
                f"'{_free_title(deck_title, {deck.name for deck in existing})}') "
                "or delete that deck first"
            )
        if same_name is None and len(existing) >= MAX_DECKS_PER_LEARNER:
            raise ImportFailed(
                f"you have {len(existing)} personal decks, the most one learner may keep; "
                "delete one first"
            )
        held = [] if same_name is None else _held_items(store, user=user, deck=name)
        taken = set(shared.by_id) | store.item_ids(user)
        stored = _stored_items(raws, taken, deck=name, held=held, shared_ids=set(shared.by_id))
        items, renamed = stored.items, stored.renamed
        row = PersonalDeckRow(
            name=name,
            title=deck_title,
            source_name=source.name,
            format=report.format,
            item_count=len(items),
            imported_at=now,
        )
        if not dry_run:
            try:
                if same_name is None:
                    store.add_deck(user, row, items, now=now)
                else:
                    store.replace_deck(user, row, items)
            except StorageConflict as exc:
                # Two imports of one learner at once: the database's keys decided.
                raise ImportFailed(
                    f"another import of yours changed a deck named {name!r} or stored the "
                    "same item ids just now; list your decks and try again"
                ) from exc
    notes = [note.message for note in report.notes if not note.skipped]
    if media:
        notes.append(f"{len(media)} media file(s) of the source are not kept in personal decks")
    skipped = [f"{outcome.key}: {outcome.reason}" for outcome in report.outcomes if outcome.reason]
    return PersonalImport(
        deck=row,
        renamed=renamed,
        skipped=skipped,
        notes=notes,
        report=_deck_report(
            report,
            source=source,
            deck=name,
            stored=stored,
            vault_ids=set(shared.by_id),
            dry_run=dry_run,
        ),
        dry_run=dry_run,
        removed=stored.removed,
    )


def _same_source(deck: PersonalDeck, *, source: Path, report: ImportReport) -> bool:
    """Whether ``source`` is the file ``deck`` was imported from (a corrected copy of it).

    Known by its name and format: a learner fixes a file and uploads it again as it
    was called; another file that happens to make the same deck name is not it.
    """
    return deck.source_name == source.name and format_family(deck.format) == format_family(
        report.format
    )


def _free_title(title: str, names: set[str]) -> str:
    """``title`` with the first number that makes a deck name not in ``names``."""
    number = 2
    while _deck_name(f"{title} {number}") in names:
        number += 1
    return f"{title} {number}"


def _held_items(store: PersonalDeckStore, *, user: str, deck: str) -> list[tuple[str, str]]:
    """The ``(id, JSON)`` items the learner's deck ``deck`` holds now."""
    _, _, rows = store.load_items(user)
    return [(row.item_id, row.item_json) for row in rows if row.deck == deck]


def _deck_name(title: str) -> str:
    """The deck name the importer makes of a title (``GPU basics`` -> ``gpu-basics``)."""
    from sysdrill.interop.formats import deck_slug

    return "::".join(deck_slug(part) for part in title.split("::") if part.strip()) or "imported"


def _rename_notes(
    renamed: Mapping[str, str], *, vault_ids: set[str], dry_run: bool
) -> list[ImportNote]:
    """One line for each item stored under another id than the importer gave it.

    Without it ``/items/<id>`` of the source's id silently shows a different item:
    the learner must learn the new id from the preview and the report.
    """
    stored = "would be stored" if dry_run else "is stored"
    notes = []
    for old, new in renamed.items():
        holder = "the vault" if old in vault_ids else "another of your decks or this file"
        notes.append(ImportNote(f"{old} {stored} as {new}: {holder} already has an item {old}"))
    return notes


def _removal_notes(removed: list[str], *, dry_run: bool) -> list[ImportNote]:
    """One line for the deck's items a re-import takes out, naming them."""
    if not removed:
        return []
    verb = "would leave" if dry_run else "left"
    return [
        ImportNote(
            f"{len(removed)} item(s) no longer in the file {verb} the deck (their review "
            f"history is kept): {', '.join(removed)}"
        )
    ]


def _deck_report(
    report: ImportReport,
    *,
    source: Path,
    deck: str,
    stored: _Stored,
    vault_ids: set[str],
    dry_run: bool,
) -> ImportReport:
    """The importer's report of the scratch vault, told of the personal deck instead.

    Each outcome carries the id stored and what the deck does with it (added,
    updated or unchanged); renamings and removals are notes, first among them.
    """
    renamed = stored.renamed
    outcomes = [
        dataclasses.replace(
            outcome,
            action=stored.actions.get(outcome.id, outcome.action) if outcome.id else outcome.action,
            id=renamed.get(outcome.id, outcome.id) if outcome.id else None,
            path=None,
        )
        for outcome in report.outcomes
    ]
    return dataclasses.replace(
        report,
        source=source.name,
        vault="",
        dry_run=dry_run,
        deck=deck,
        created_vault=False,
        outcomes=outcomes,
        notes=[
            *_rename_notes(renamed, vault_ids=vault_ids, dry_run=dry_run),
            *_removal_notes(stored.removed, dry_run=dry_run),
            *report.notes,
        ],
        written=[],
        field_maps={},
        scheduling={},
    )
