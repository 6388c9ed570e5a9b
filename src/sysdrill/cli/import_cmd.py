"""``sysdrill import``: bring a quiz, exercise set, flashcard deck, StaffML or Anki source in."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from sysdrill.cli.console import QuietOption
from sysdrill.interop.formats import FORMAT_NAMES

if TYPE_CHECKING:
    from sysdrill.interop.importer import ImportReport

__all__ = ["SchedulingDbOption", "register", "render_report"]

SchedulingDbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        help="Study database URL for --with-scheduling (default "
        "$SYSDRILL_DATABASE_URL, else the SQLite file in the user data folder).",
    ),
]
"""The study database ``--with-scheduling`` reads or seeds (import and export)."""

_FORMAT_HELP = "Source format: auto (detect), " + ", ".join(FORMAT_NAMES) + "."
_MAX_LISTED = 50
"""Most items listed one by one in the summary; the rest are counted."""


def render_report(report: ImportReport) -> list[str]:
    """Lines of the human-readable summary of an import.

    Args:
        report: What the import did.

    Returns:
        Plain-text lines (no markup), ready to print.
    """
    verb = "Would import" if report.dry_run else "Imported"
    lines = [f"{verb} {report.source} ({report.format}) into {report.vault}"]
    if report.created_vault:
        lines.append("  (a new vault)" if not report.dry_run else "  (would create a new vault)")
    if report.deck:
        lines.append(f"  deck: {report.deck}")
    lines.append(
        f"  added {len(report.added)}, updated {len(report.updated)}, "
        f"unchanged {len(report.unchanged)}, skipped {len(report.skipped)}"
    )
    marks = {"added": "+", "updated": "~"}
    changed = [o for o in report.outcomes if o.action.value in marks]
    for outcome in changed[:_MAX_LISTED]:
        lines.append(f"  {marks[outcome.action.value]} {outcome.id}  {outcome.path}")
    if len(changed) > _MAX_LISTED:
        lines.append(f"  ... and {len(changed) - _MAX_LISTED} more")
    if report.skipped:
        lines.append("Skipped:")
        for outcome in report.skipped:
            lines.append(f"  - {outcome.key}: {outcome.reason}")
    notes = [note for note in report.notes if not note.skipped]
    if notes:
        lines.append("Notes:")
        for note in notes:
            where = f"{note.location}: " if note.location else ""
            lines.append(f"  - {where}{note.message}")
    if report.defects:
        lines.append("Source defects `sysdrill check` will report:")
        lines.extend(f"  - {defect}" for defect in report.defects)
    if report.field_maps and report.dry_run:
        lines.append("Field mapping (change with --map FIELD=role):")
        for note_type, roles in report.field_maps.items():
            shown = ", ".join(f"{name} -> {role}" for name, role in roles.items())
            lines.append(f"  - {note_type or '(unnamed note type)'}: {shown}")
    if report.dry_run:
        lines.append("Dry run: nothing was written.")
    return lines


def register(app: typer.Typer) -> None:
    """Add ``sysdrill import`` to the app."""

    @app.command("import")
    def import_command(
        source: Annotated[
            Path,
            typer.Argument(
                help="File or folder to import (quiz or exercise text, flashcard text, "
                "StaffML YAML/folder/corpus.json, Anki .apkg or text, CSV, Markdown, "
                "Markdown notes or their folder, Mochi .mochi, CrowdAnki folder).",
                show_default=False,
            ),
        ],
        into: Annotated[
            Path,
            typer.Option(
                "--into",
                help="Vault folder to import into; created as a new vault if missing.",
                show_default=False,
            ),
        ],
        format: Annotated[
            str,
            typer.Option("--format", "-f", help=_FORMAT_HELP),
        ] = "auto",
        deck: Annotated[
            str | None,
            typer.Option("--deck", help="Put every item in this deck (default: the source's)."),
        ] = None,
        dry_run: Annotated[
            bool,
            typer.Option("--dry-run", help="Show what would change without writing anything."),
        ] = False,
        as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
        field_maps: Annotated[
            list[str] | None,
            typer.Option(
                "--map",
                help="Role of an Anki note field: FIELD=role, role one of question, answer, "
                "extra, source, tags, ignore (repeat for more fields). Saved in the vault's "
                "sysdrill.yaml and reused by later imports; --dry-run shows the mapping.",
                show_default=False,
            ),
        ] = None,
        audit: Annotated[
            bool,
            typer.Option(
                "--audit/--no-audit",
                help="List the source defects `sysdrill check` will report on the imported "
                "items (item rules and napkin math); --no-audit is faster.",
            ),
        ] = True,
        with_scheduling: Annotated[
            bool,
            typer.Option(
                "--with-scheduling",
                help="Anki packages: also take over each card's state and review log into "
                "the study database (items already studied here keep their state).",
            ),
        ] = False,
        db: SchedulingDbOption = None,
        quiet: QuietOption = False,
    ) -> None:
        """Import a source into a vault: one YAML file per item, all or nothing.

        Re-importing the same source changes nothing; a changed source updates
        the same items.
        """
        from sysdrill.app.interop import import_items
        from sysdrill.cli.console import progress_display
        from sysdrill.errors import UsageError
        from sysdrill.interop.field_map import parse_field_maps

        try:
            field_map = parse_field_maps(field_maps or [])
        except UsageError as exc:
            raise typer.BadParameter(str(exc), param_hint="--map") from exc
        with progress_display(quiet=quiet) as progress:
            report = import_items(
                source,
                into=into,
                format=format,
                deck=deck,
                dry_run=dry_run,
                audit=audit,
                field_map=field_map,
                with_scheduling=with_scheduling,
                now=datetime.now(UTC),
                progress=progress,
            )
        seeded: tuple[int, int] | None = None
        if with_scheduling and not dry_run:
            from sysdrill.app.anki_history import seed_study_from_import

            seeded = seed_study_from_import(report.scheduling, vault=into, db_url=db)
        if as_json:
            data = report.to_dict()
            if seeded is not None:
                data["scheduling"] = {"cards": seeded[0], "reviews": seeded[1]}
            typer.echo(json.dumps(data, indent=2, ensure_ascii=False))
            return
        if quiet:
            return
        for line in render_report(report):
            typer.echo(line)
        if seeded is not None:
            typer.echo(
                f"Scheduling: {seeded[0]} cards and {seeded[1]} reviews taken over from Anki"
            )
