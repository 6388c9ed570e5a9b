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
    if report.columns:
        lines.append("Column roles (a header row such as front,back,tags chooses others):")
        lines.append(
            "  - " + ", ".join(f"{name} -> {role}" for name, role in report.columns.items())
        )
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
        sep: Annotated[
            str | None,
            typer.Option(
                "--sep",
                help="Quizlet and other text exports: what separates term from definition: "
                "tab, comma, semicolon, dash (' - ') or the text itself (\\t is a tab). "
                "Reads the source as CSV text without a header; detected when left out.",
                show_default=False,
            ),
        ] = None,
        row_sep: Annotated[
            str | None,
            typer.Option(
                "--row-sep",
                help="Quizlet and other text exports: what separates one card from the next: "
                "newline, semicolon, blank-line or the text itself (such as ';;'); "
                "detected when left out.",
                show_default=False,
            ),
        ] = None,
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
        separators = None
        if sep is not None or row_sep is not None:
            from sysdrill.interop.formats.term_lines import Separators, parse_separator

            parsed: list[str | None] = []
            for value, option in ((sep, "--sep"), (row_sep, "--row-sep")):
                try:
                    parsed.append(None if value is None else parse_separator(value, option=option))
                except UsageError as exc:
                    raise typer.BadParameter(str(exc), param_hint=option) from exc
            separators = Separators(parsed[0], parsed[1])
        now = datetime.now(UTC)
        seeded: list[tuple[int, int]] = []

        def seed(written: ImportReport) -> None:
            # The last step of the import's write: a failure puts the vault back.
            from sysdrill.app.anki_history import seed_study_from_import

            seeded.append(
                seed_study_from_import(written.scheduling, vault=into, db_url=db, now=now)
            )

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
                separators=separators,
                now=now,
                progress=progress,
                on_written=seed if with_scheduling else None,
            )
        if as_json:
            data = report.to_dict()
            if seeded:
                data["scheduling"] = {"cards": seeded[0][0], "reviews": seeded[0][1]}
            typer.echo(json.dumps(data, indent=2, ensure_ascii=False))
            return
        if quiet:
            return
        for line in render_report(report):
            typer.echo(line)
        if seeded:
            cards, reviews = seeded[0]
            typer.echo(f"Scheduling: {cards} cards and {reviews} reviews taken over from Anki")
