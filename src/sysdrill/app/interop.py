"""Import into a vault and export from it: what ``import``/``export`` and their pages do.

Thin over :mod:`sysdrill.interop`: the CLI and the web app call these and
print or serve the typed results' ``to_dict()``, so neither shapes reports of
its own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sysdrill.interop.anki_scheduling import AnkiCardHistory
from sysdrill.interop.export import ExportFilters, ExportReport
from sysdrill.interop.export.cards import ExportedItem
from sysdrill.interop.field_map import FieldRole
from sysdrill.interop.formats.term_lines import Separators
from sysdrill.interop.import_report import ImportReport

__all__ = ["ExportSummary", "StagedImport", "export_items", "import_items"]


def import_items(
    source: Path,
    *,
    into: Path,
    format: str = "auto",
    deck: str | None = None,
    dry_run: bool = False,
    audit: bool = True,
    field_map: Mapping[str, FieldRole] | None = None,
    with_scheduling: bool = False,
    separators: Separators | None = None,
    now: datetime,
    progress: Callable[[str, int, int], None] | None = None,
    on_written: Callable[[ImportReport], None] | None = None,
) -> ImportReport:
    """Import ``source`` into the vault at ``into`` (all or nothing); a dry run previews.

    Args:
        source: File or folder to import.
        into: Vault folder; created as a new vault when missing.
        format: Format name, any case; blank or ``auto`` detects it.
        deck: Put every item in this deck (blank: the source's).
        dry_run: Report what would change and write nothing.
        audit: Also list the defects ``sysdrill check`` will report.
        field_map: Roles of Anki note fields (saved in the vault for later imports).
        with_scheduling: Also read Anki's card states and review log (the report's
            ``scheduling``, for :func:`sysdrill.app.anki_history.seed_study_from_import`).
        separators: Quizlet's term/definition and row separators (``--sep``,
            ``--row-sep``); a part left None is detected.
        now: Import time (UTC).
        progress: Called as ``progress(stage, done, total)`` as the import advances.
        on_written: Called with the report once every file is in place (not on a dry
            run); if it raises, the vault is put back as it was and the error goes on
            (``--with-scheduling`` seeds the study database here).

    Raises:
        ImportFailed: If the source cannot be read or its items do not validate.
        HostileInput: If an archive exceeds the safety limits.
    """
    from sysdrill.content.gc_pause import collector_paused
    from sysdrill.interop.importer import import_source

    # An import builds a mapping, a file and a finding list per card, none of them
    # cyclic: collections meanwhile only walk them (a sixteenth of the CPU of an
    # import of 100,000 cards).
    with collector_paused():
        return import_source(
            source,
            into=into,
            format=(format or "auto").strip().lower(),
            deck=deck or None,
            dry_run=dry_run,
            audit=audit,
            field_map=field_map or None,
            with_scheduling=with_scheduling,
            separators=separators,
            now=now,
            progress=progress,
            on_written=on_written,
        )


@dataclass(frozen=True, slots=True)
class StagedImport:
    """The report of an uploaded file's import (preview or confirmed).

    Attributes:
        report: What the import added, updated or skipped (or would).
        source: The uploaded file's name.
        token: Confirms a preview later; None once imported.
    """

    report: ImportReport
    source: str
    token: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping: the token (previews only) and the report with its source."""
        shown: dict[str, Any] = {} if self.token is None else {"token": self.token}
        return shown | {"report": self.report.to_dict() | {"source": self.source}}


def export_items(
    vault: Path,
    *,
    format: str,
    out: Path,
    filters: ExportFilters | None = None,
    now: datetime,
    cache_dir: Path | None,
    scheduling: Mapping[str, AnkiCardHistory] | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    personal_of: str | None = None,
    db_url: str | None = None,
) -> ExportReport:
    """Write the vault's valid items passing ``filters`` to ``out`` in ``format``.

    Cards show a parametric item with its example draw (CSV, Anki); JSON keeps
    the template as written, so it imports back as a template.

    ``scheduling`` (``.apkg`` only) carries the learner's card states and reviews by
    item id, so Anki continues where they stopped. ``progress(stage, done, total)``
    hears the reading of the vault and the writing of the file, item by item.

    ``personal_of`` names a learner whose personal decks (kept in the study
    database ``db_url``, not in the vault folder) are exported with the vault's
    items, filtered alike, in every format.

    Raises:
        ExportFailed: If the file cannot be written, or no item passes the filters.
        VaultNotFound: If the vault folder does not exist.
        StorageError: If the learner's personal decks cannot be read.
    """
    from sysdrill.app.example_draw import shown_item
    from sysdrill.interop.export import export_vault

    return export_vault(
        vault,
        format=format,
        out=out,
        filters=filters,
        now=now,
        cache_dir=cache_dir,
        scheduling=scheduling,
        present=shown_item,
        progress=progress,
        extra=() if personal_of is None else _personal_exports(db_url, user=personal_of),
    )


def _personal_exports(db_url: str | None, *, user: str) -> list[ExportedItem]:
    """The learner's personal items, each with its deck, as an export takes them."""
    import json

    from sysdrill.content.ignore_marks import strip_ignore_marks_in, without_ignore_marks
    from sysdrill.content.models import validate_item
    from sysdrill.storage.location import study_database_url
    from sysdrill.storage.personal_store import PersonalDeckStore

    with PersonalDeckStore(study_database_url(db_url)) as store:
        _, decks, rows = store.load_items(user)
    titles = {deck.name: deck.title for deck in decks}
    exported: list[ExportedItem] = []
    for row in rows:
        raw = json.loads(row.item_json)
        item = without_ignore_marks(validate_item(raw), raw=raw)
        # No file holds it: the path names where it came from, for messages only.
        where = f"personal/{row.deck}/{row.item_id}"
        exported.append(
            ExportedItem(item, strip_ignore_marks_in(raw), where, row.deck, titles.get(row.deck))
        )
    return exported


@dataclass(frozen=True, slots=True)
class ExportSummary:
    """What an export wrote, with the output named as the user gave it (``-`` for stdout)."""

    report: ExportReport
    out: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping: format, output, counts, decks, skipped files, size and media."""
        report = self.report
        return {
            "format": report.format.value,
            "out": self.out,
            "items": report.items,
            "by_kind": report.by_kind,
            "decks": report.decks,
            "filtered_out": report.filtered_out,
            "skipped": report.skipped,
            "size_bytes": report.size_bytes,
            "media_folder": None if report.media_folder is None else str(report.media_folder),
            "media_files": report.media_files,
        }
