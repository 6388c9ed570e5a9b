"""The import service: a source file or folder in, vault YAML files out, all or nothing.

:func:`import_source` detects the format, parses the source into a
:class:`~sysdrill.interop.source.ParsedSource`, turns each parsed item into a
vault item (``provenance: imported`` and a ``source`` stamp), matches it with
what the vault already holds, validates everything, and only then writes.

Identity: every imported item records ``source.format`` and ``source.key``
(the item's stable key in its source: a StaffML id, a question number, an
Anki note GUID). Re-importing finds the item with the same format family and
key and updates it in place; ``source.digest`` (a SHA-256 of the item as
imported) tells an unchanged item from an updated one, so importing the same
source twice writes nothing.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from pathlib import Path

from sysdrill.check.napkin_decks import NapkinExemptions
from sysdrill.content.media import MEDIA_FOLDER
from sysdrill.content.vault_identity import VAULT_FILE, new_vault_id, vault_file_text
from sysdrill.errors import ContentInvalid, ImportFailed, UsageError
from sysdrill.interop import vault_writer
from sysdrill.interop.detect import detect_format
from sysdrill.interop.field_map import (
    MAPPING_FILE,
    FieldRole,
    read_saved_maps,
    saved_maps_text,
)
from sysdrill.interop.formats import FORMAT_NAMES, get_reader
from sysdrill.interop.formats.term_lines import Separators
from sysdrill.interop.import_audit import exemptions_of
from sysdrill.interop.import_plan import (
    AUDITING,
    PREPARING,
    WRITING,
    Progress,
    _deck_name,
    _decks_update,
    _defects,
    _plan_items,
)
from sysdrill.interop.import_report import ImportReport, ItemAction, ItemOutcome
from sysdrill.interop.source import ImportNote, ParsedSource
from sysdrill.interop.vault_writer import (
    VaultIndex,
    scan_vault_index,
)

__all__ = [
    "AUDITING",
    "PREPARING",
    "WRITING",
    "ImportReport",
    "ItemAction",
    "ItemOutcome",
    "Progress",
    "import_source",
    "parse_source",
]


def _no_progress(stage: str, done: int, total: int) -> None:
    """The progress callback of a caller that shows none."""


def _require_utc(now: datetime) -> None:
    if now.tzinfo is None or now.utcoffset() != timedelta(0):
        raise UsageError("now must be a timezone-aware UTC datetime")


def parse_source(
    source: Path,
    *,
    format: str = "auto",
    field_map: Mapping[str, FieldRole] | None = None,
    saved_maps: Mapping[str, Mapping[str, FieldRole]] | None = None,
    with_scheduling: bool = False,
    separators: Separators | None = None,
) -> ParsedSource:
    """Detect (unless given) the format of a source and parse it, writing nothing.

    Args:
        source: The file or folder to read.
        format: A format name, or ``auto`` to detect it.
        field_map: Roles of note fields by field name (``--map``); Anki packages and
            CrowdAnki folders only.
        saved_maps: Field roles saved by earlier imports, by note type name.
        with_scheduling: Anki packages: also read card state and review log.
        separators: Quizlet's term/definition and row separators (``--sep``,
            ``--row-sep``): the source is read as CSV text without a header.

    Returns:
        What the format's reader found.

    Raises:
        UsageError: If ``format`` is not a known format name.
        ImportFailed: If the source is missing, unreadable, or holds nothing to import.
    """
    if format != "auto" and format not in FORMAT_NAMES:
        raise UsageError(f"unknown format '{format}'; use one of: auto, {', '.join(FORMAT_NAMES)}")
    if not source.exists():
        raise ImportFailed(f"source '{source}' does not exist; check the path")
    if separators and format == "auto" and source.is_file():
        name = "csv"  # separators given: a Quizlet text export, whatever its name
    else:
        name = detect_format(source) if format == "auto" else format
    if separators and name != "csv":
        raise UsageError(
            f"--sep and --row-sep apply to CSV and Quizlet text exports (csv), not to {name}; "
            "leave them out"
        )
    if name == "apkg":
        from sysdrill.interop.formats.apkg import read_apkg

        parsed = read_apkg(
            source, field_map=field_map, saved_maps=saved_maps, with_scheduling=with_scheduling
        )
    elif name == "crowdanki" and not with_scheduling:
        from sysdrill.interop.formats.crowdanki import read_crowdanki

        parsed = read_crowdanki(source, field_map=field_map, saved_maps=saved_maps)
    elif with_scheduling:
        raise UsageError(
            f"--with-scheduling applies to Anki packages only, not to {name}; leave it out"
        )
    elif field_map:
        raise UsageError(
            f"--map applies to Anki packages and CrowdAnki folders only, not to {name}; "
            "leave it out (CSV columns are named by their header row)"
        )
    elif name == "csv":
        from sysdrill.interop.formats.csv_text import read_csv

        parsed = read_csv(source, separators=separators)
    else:
        parsed = get_reader(name)(source)
    parsed.format = parsed.format or name
    if not parsed.items:
        reasons = "; ".join(note.message for note in parsed.notes if note.skipped)
        raise ImportFailed(
            f"nothing to import from '{source.name}' as {name}"
            + (f" ({reasons})" if reasons else "")
            + "; check the file, or pass the right --format"
        )
    return parsed


def _saved_mapping_text(
    into: Path, parsed: ParsedSource, field_map: Mapping[str, FieldRole] | None
) -> str | None:
    """New ``sysdrill.yaml`` saving the mapping of every note type ``--map`` touched."""
    if not field_map:
        return None
    given = {name.casefold() for name in field_map}
    touched = {
        note_type: {name: FieldRole(role) for name, role in roles.items()}
        for note_type, roles in parsed.field_maps.items()
        if any(name.casefold() in given for name in roles)
    }
    if not touched:
        raise UsageError(
            f"--map names no field of the source's note types ({', '.join(sorted(field_map))}); "
            "run with --dry-run to see their fields"
        )
    return saved_maps_text(into, touched)


def import_source(
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
    progress: Progress | None = None,
    on_written: Callable[[ImportReport], None] | None = None,
) -> ImportReport:
    """Import a source into a vault: every file written, or none.

    Args:
        source: The file or folder to import.
        into: The vault folder; created (as a new vault) when it does not exist.
        format: A format name from :data:`~sysdrill.interop.formats.FORMATS`, or
            ``auto`` to detect it.
        deck: Deck to put every item in, overriding the deck the source implies.
        dry_run: Work out and report everything, but write nothing.
        audit: Run the ``check`` item rules and napkin tier on the imported items
            and list what they flag in :attr:`ImportReport.defects`. The first
            napkin check in a process loads the unit registry (about a second).
        field_map: Roles of note fields by field name (``--map FIELD=role``), for
            Anki packages; the mapping of every note type it touches is saved in
            the vault's ``sysdrill.yaml`` and reused by later imports.
        with_scheduling: Anki packages: read each card's state and review log
            into :attr:`ImportReport.scheduling` (by item id), for the study
            layer to seed (``sysdrill.app.anki_history``).
        separators: Quizlet's separators (``--sep``, ``--row-sep``), see
            :func:`parse_source`.
        now: Current time (UTC), stamped as ``created_at``/``updated_at``.
        progress: Called as ``progress(stage, done, total)`` while items are
            prepared, written and audited (:data:`PREPARING`, :data:`WRITING`,
            :data:`AUDITING`); the audit of a real import runs on the written files.
        on_written: Called with the report once every file is in place (not on
            a dry run): the last step of the all-or-nothing write. If it raises,
            the vault is put back as it was (a new vault removed) and the
            exception goes on; a caller seeds ``--with-scheduling``'s study
            database here, so the vault and the history arrive together or not at all.

    Returns:
        What was added, updated, left unchanged and skipped, with notes.

    Raises:
        UsageError: If ``format`` is unknown or ``now`` is not UTC.
        ImportFailed: If the source cannot be read or holds nothing to import,
            or the vault cannot be written (then nothing was written).
        ContentInvalid: If an imported item would not validate (nothing written).
    """
    _require_utc(now)
    if into.exists() and not into.is_dir():
        raise ImportFailed(f"'{into}' is a file, not a vault folder; pass a folder to --into")
    saved_maps = read_saved_maps(into) if into.is_dir() else {}
    parsed = parse_source(
        source,
        format=format,
        field_map=field_map,
        saved_maps=saved_maps,
        with_scheduling=with_scheduling,
        separators=separators,
    )
    forced_deck = deck is not None and deck.strip() != ""
    deck_title = deck.strip() if forced_deck and deck is not None else parsed.deck
    deck_name = _deck_name(deck_title) if deck_title else None
    report = ImportReport(
        source=str(source),
        format=parsed.format,
        vault=str(into),
        dry_run=dry_run,
        deck=deck_name,
        created_vault=not into.exists(),
    )
    report.field_maps = parsed.field_maps
    report.columns = parsed.columns
    report.notes.extend(parsed.notes)
    for note in parsed.notes:
        if note.skipped:
            report.outcomes.append(
                ItemOutcome(ItemAction.SKIPPED, note.location, reason=note.message)
            )
    index = scan_vault_index(into) if into.is_dir() else VaultIndex()
    for rel in index.unreadable:
        report.notes.append(
            ImportNote(
                "vault file is not a readable item, so an item imported from it earlier "
                "cannot be matched and may be added again; fix it (`sysdrill check` shows "
                "how) and re-import",
                rel,
            )
        )
    plan = _plan_items(
        parsed,
        index,
        report,
        deck=deck_name,
        forced_deck=forced_deck,
        now=now,
        progress=progress or _no_progress,
        root=into,
    )
    if plan.errors:
        shown = "; ".join(plan.errors[:3])
        more = f" (and {len(plan.errors) - 3} more)" if len(plan.errors) > 3 else ""
        raise ContentInvalid(
            f"{len(plan.errors)} problem(s) in the imported items, nothing written: "
            f"{shown}{more}; fix the source or choose another --format"
        )
    if deck_name and deck_title:
        plan.deck_titles.setdefault(deck_name, deck_title)
    exempt = NapkinExemptions()
    if plan.deck_items:
        decks, decks_data = _decks_update(into, plan, skip_napkin_check=parsed.skip_napkin_check)
        exempt = exemptions_of(decks_data)
        if decks is not None:
            plan.files["decks.yaml"] = decks
    mapping_text = _saved_mapping_text(into, parsed, field_map)
    if mapping_text is not None:
        plan.files[MAPPING_FILE] = mapping_text
    for rel, text in parsed.shared_files.items():
        content, remark = vault_writer.shared_file_update(into, rel, text)
        if content is not None:
            plan.files[rel] = content
        if remark is not None:
            report.notes.append(ImportNote(remark, rel))
    report_progress = progress or _no_progress
    if audit and dry_run:
        _defects(report, plan, into, written=False, exempt=exempt, progress=report_progress)
    for outcome in report.outcomes:
        history = parsed.scheduling.get(outcome.key)
        if history is not None and outcome.id and outcome.action is not ItemAction.SKIPPED:
            report.scheduling[outcome.id] = history
    media = {
        f"{MEDIA_FOLDER}/{name}": data
        for name, data in parsed.media_files.items()
        if not (into / MEDIA_FOLDER / name).is_file()
    }
    if not dry_run:
        files: dict[str, str | bytes] = {**plan.files, **media}
        if report.created_vault:
            # A new vault names itself, as `init` does, so its study progress stays
            # its own when the folder moves (docs/sessions.md).
            vault_id = new_vault_id(into.resolve().name, secrets.token_hex(3))
            files[VAULT_FILE] = vault_file_text(vault_id)
        report.written = list(files)
        vault_writer.write_files(
            into,
            files,
            create_root=report.created_vault,
            progress=lambda done, total: report_progress(WRITING, done, total),
            on_written=None if on_written is None else lambda: on_written(report),
        )
        if report.created_vault:
            (into / "questions").mkdir(parents=True, exist_ok=True)
        if audit:
            _defects(report, plan, into, written=True, exempt=exempt, progress=report_progress)
    return report
