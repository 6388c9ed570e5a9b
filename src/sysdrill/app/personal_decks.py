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

An item the source gives no title gets the first line of its front (its
question, else its scenario) as its title (:func:`front_title`), so lists and
search show more than an id.

Deleting a deck deletes its items; their study state (cards, reviews) is kept,
so importing the deck again continues where the learner stopped.
"""

from __future__ import annotations

import dataclasses
import json
import re
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from sysdrill.app.study_vault import StudyVault
from sysdrill.errors import DeckNotFound, HostileInput, ImportFailed, StorageConflict, UsageError
from sysdrill.interop.import_report import ImportReport
from sysdrill.interop.source import ImportNote
from sysdrill.storage.location import study_database_url
from sysdrill.storage.personal_store import PersonalDeckRow, PersonalDeckStore

__all__ = [
    "MAX_DECKS_PER_LEARNER",
    "MAX_DECK_ITEMS",
    "MAX_ITEM_ID_CHARS",
    "MAX_ITEM_TITLE_CHARS",
    "MAX_TITLE_CHARS",
    "PersonalDeck",
    "PersonalImport",
    "delete_personal_deck",
    "front_title",
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
MAX_ITEM_TITLE_CHARS = 120
"""Longest title :func:`front_title` makes (the ``title`` style rule's limit)."""
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

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "deck": self.deck.to_dict(),
            "renamed": dict(self.renamed),
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


_MARKUP = re.compile(r"^(?:[#>*+-]+\s+|\d+[.)]\s+)+|\*\*|__|`")


def front_title(raw: Mapping[str, Any]) -> str | None:
    """A title for an item the source gave none: the first line of its front.

    The front is the question, else the scenario; Markdown emphasis and a leading
    heading, quote or list mark are dropped, blanks folded, and a line longer than
    :data:`MAX_ITEM_TITLE_CHARS` is cut at a word with an ellipsis. None when the
    item has no text to take it from.
    """
    for key in ("question", "scenario"):
        text = raw.get(key)
        if not isinstance(text, str):
            continue
        for line in text.splitlines():
            title = " ".join(_MARKUP.sub("", line.strip()).split())
            if title:
                return _shortened(title)
    return None


def _shortened(title: str) -> str:
    if len(title) <= MAX_ITEM_TITLE_CHARS:
        return title
    cut = title[: MAX_ITEM_TITLE_CHARS - 1]
    if " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:") + "…"


def _stored_items(
    raws: Iterable[dict[str, Any]], taken: set[str], *, deck: str
) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """Each item's final id and JSON, renaming the ids in ``taken`` (which grows).

    Every item is put in ``deck`` and, when it has no title, given one (:func:`front_title`).
    """
    stored: list[tuple[str, str]] = []
    renamed: dict[str, str] = {}
    for raw in raws:
        raw = {**raw, "deck": deck}
        if not raw.get("title"):
            title = front_title(raw)
            if title is not None:
                raw["title"] = title
        item_id = str(raw["id"])
        if item_id in taken:
            renamed[item_id] = _free_id(item_id, taken)
            raw = {**raw, "id": renamed[item_id]}
        if len(str(raw["id"])) > MAX_ITEM_ID_CHARS:
            raise ImportFailed(
                f"an item id has {len(str(raw['id']))} characters, more than the "
                f"{MAX_ITEM_ID_CHARS} a personal item may have; shorten it, nothing was stored"
            )
        taken.add(str(raw["id"]))
        stored.append((str(raw["id"]), json.dumps(raw, ensure_ascii=False, default=str)))
    return stored, renamed


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
    """Import ``source`` into a new personal deck of ``user``: all of it, or nothing.

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
            deck name is taken (by the shared vault or another of the learner's decks).
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
        if any(deck.name == name for deck in existing):
            raise ImportFailed(
                f"you already have a personal deck named {name!r}; delete it first "
                "or choose another deck title"
            )
        if len(existing) >= MAX_DECKS_PER_LEARNER:
            raise ImportFailed(
                f"you have {len(existing)} personal decks, the most one learner may keep; "
                "delete one first"
            )
        taken = set(shared.by_id) | store.item_ids(user)
        items, renamed = _stored_items(raws, taken, deck=name)
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
                store.add_deck(user, row, items, now=now)
            except StorageConflict as exc:
                # Two imports of one learner at once: the database's keys decided.
                raise ImportFailed(
                    f"another import of yours stored a deck named {name!r} or the same item "
                    "ids just now; list your decks and try again"
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
            renamed=renamed,
            vault_ids=set(shared.by_id),
            dry_run=dry_run,
        ),
        dry_run=dry_run,
    )


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


def _deck_report(
    report: ImportReport,
    *,
    source: Path,
    deck: str,
    renamed: dict[str, str],
    vault_ids: set[str],
    dry_run: bool,
) -> ImportReport:
    """The importer's report of the scratch vault, told of the personal deck instead.

    Each outcome carries the id stored, and each renaming is a note, first among them.
    """
    outcomes = [
        dataclasses.replace(
            outcome, id=renamed.get(outcome.id, outcome.id) if outcome.id else None, path=None
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
        notes=[*_rename_notes(renamed, vault_ids=vault_ids, dry_run=dry_run), *report.notes],
        written=[],
        field_maps={},
        scheduling={},
    )
