"""``sysdrill export``: write a vault out as an Anki package, Anki text, CSV, JSON or Markdown."""

from __future__ import annotations

import dataclasses
import json
import sys
import tempfile
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer

from sysdrill.content.enums import Level, Status, Track

if TYPE_CHECKING:
    from sysdrill.interop.export import ExportFilters, ExportReport

from sysdrill.cli.console import QuietOption
from sysdrill.cli.import_cmd import SchedulingDbOption

__all__ = ["EXPORT_FORMATS", "SUFFIX_FORMATS", "register", "render_report"]

EXPORT_FORMATS: tuple[str, ...] = ("apkg", "anki-text", "csv", "staffml-json", "markdown")
"""Values of ``--format`` (the same as :class:`~sysdrill.interop.export.ExportFormat`)."""

SUFFIX_FORMATS: dict[str, str] = {
    ".apkg": "apkg",
    ".txt": "anki-text",
    ".csv": "csv",
    ".json": "staffml-json",
    ".md": "markdown",
    ".markdown": "markdown",
}
"""Format used when ``--format`` is not given, by the suffix of ``--out``."""

_MAX_LISTED = 20
"""Most decks or skipped files listed one by one; the rest are counted."""


def _size(size_bytes: int) -> str:
    if size_bytes < 1024:
        return f"{size_bytes} B"
    if size_bytes < 1024 * 1024:
        return f"{size_bytes / 1024:.1f} KiB"
    return f"{size_bytes / 1_048_576:.1f} MiB"


def render_report(report: ExportReport, vault: Path) -> list[str]:
    """Lines of the human-readable summary of an export.

    Args:
        report: What the export wrote.
        vault: The vault exported (named in the hint about skipped files).

    Returns:
        Plain-text lines, ready to print.
    """
    noun = "item" if report.items == 1 else "items"
    target = "standard output" if str(report.out) == "-" else str(report.out)
    lines = [
        f"Exported {report.items} {noun} to {target} "
        f"({report.format.value}, {_size(report.size_bytes)})"
    ]
    lines.append("  " + ", ".join(f"{kind} {count}" for kind, count in report.by_kind.items()))
    if report.decks:
        shown = report.decks[:_MAX_LISTED]
        more = len(report.decks) - len(shown)
        lines.append("  decks: " + ", ".join(shown) + (f" and {more} more" if more else ""))
    if report.filtered_out:
        lines.append(f"  {report.filtered_out} items left out by the filters")
    if report.media_folder is not None:
        count = len(report.media_files)
        lines.append(
            f"  {count} media {'file' if count == 1 else 'files'} copied to "
            f"{report.media_folder}; copy them into Anki's collection.media folder "
            "before importing"
        )
    if report.skipped:
        count = len(report.skipped)
        files = "file that does" if count == 1 else "files that do"
        lines.append(f"Skipped {count} {files} not validate (run `sysdrill check {vault}`):")
        lines.extend(f"  - {entry}" for entry in report.skipped[:_MAX_LISTED])
        if count > _MAX_LISTED:
            lines.append(f"  ... and {count - _MAX_LISTED} more")
    return lines


_Choice = TypeVar("_Choice", bound=StrEnum)


def _parse_choices(values: list[str], enum: type[_Choice], option: str) -> tuple[_Choice, ...]:
    parsed = []
    for value in values:
        try:
            parsed.append(enum(value))
        except ValueError:
            choices = ", ".join(member.value for member in enum)
            raise typer.BadParameter(
                f"'{value}' is not one of {choices}", param_hint=option
            ) from None
    return tuple(parsed)


def _filters(
    tracks: list[str], levels: list[str], decks: list[str], tags: list[str], statuses: list[str]
) -> ExportFilters:
    from sysdrill.interop.export import ExportFilters

    return ExportFilters(
        tracks=_parse_choices(tracks, Track, "--track"),
        levels=_parse_choices(levels, Level, "--level"),
        decks=tuple(decks),
        tags=tuple(tags),
        statuses=_parse_choices(statuses, Status, "--status"),
    )


def register(app: typer.Typer) -> None:
    """Add ``sysdrill export`` to the app."""

    @app.command("export")
    def export_command(
        vault: Annotated[
            Path,
            typer.Argument(help="Vault folder to export.", metavar="VAULT", show_default=False),
        ],
        out: Annotated[
            Path,
            typer.Option(
                "--out",
                "-o",
                metavar="FILE",
                help="File to write (replaced atomically if it exists); - for standard output.",
                show_default=False,
            ),
        ],
        format: Annotated[
            str | None,
            typer.Option(
                "--format",
                "-f",
                metavar="FORMAT",
                help="Output format: "
                + ", ".join(EXPORT_FORMATS)
                + "; by default inferred from the --out suffix (.apkg, .txt, .csv, .json, .md).",
                show_default=False,
            ),
        ] = None,
        track: Annotated[
            list[str] | None,
            typer.Option(
                "--track",
                metavar="TRACK",
                help="Only items of this track (repeatable): " + ", ".join(Track) + ".",
                show_default=False,
            ),
        ] = None,
        level: Annotated[
            list[str] | None,
            typer.Option(
                "--level",
                metavar="LEVEL",
                help="Only items of this level (repeatable): " + ", ".join(Level) + ".",
                show_default=False,
            ),
        ] = None,
        deck: Annotated[
            list[str] | None,
            typer.Option(
                "--deck",
                metavar="DECK",
                help="Only items of this deck or its subdecks (repeatable).",
                show_default=False,
            ),
        ] = None,
        tag: Annotated[
            list[str] | None,
            typer.Option(
                "--tag",
                metavar="TAG",
                help="Only items with this tag (repeatable).",
                show_default=False,
            ),
        ] = None,
        status: Annotated[
            list[str] | None,
            typer.Option(
                "--status",
                metavar="STATUS",
                help="Only items with this status (repeatable): "
                + ", ".join(Status)
                + "; default: all but deleted.",
                show_default=False,
            ),
        ] = None,
        no_cache: Annotated[
            bool,
            typer.Option(
                "--no-cache",
                help="Parse every file afresh and leave the load cache (SYSDRILL_CACHE_DIR) alone.",
            ),
        ] = False,
        as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
        with_scheduling: Annotated[
            bool,
            typer.Option(
                "--with-scheduling",
                help="apkg: write your study state and review log into the cards, so Anki "
                "continues where you stopped (import the package with scheduling in Anki).",
            ),
        ] = False,
        db: SchedulingDbOption = None,
        quiet: QuietOption = False,
    ) -> None:
        """Export a vault to Anki (.apkg or text), CSV, StaffML JSON or Markdown.

        Anki notes keep stable GUIDs derived from item ids, so importing a newer
        export into Anki updates the notes instead of adding copies.
        """
        to_stdout = str(out) == "-"
        if format is None and to_stdout:
            raise typer.BadParameter(
                f"writing to standard output needs --format ({', '.join(EXPORT_FORMATS)})",
                param_hint="--format",
            )
        if format is None:
            format = SUFFIX_FORMATS.get(out.suffix.casefold())
            if format is None:
                raise typer.BadParameter(
                    f"cannot tell the format from '{out.name}'; pass --format "
                    f"({', '.join(EXPORT_FORMATS)})",
                    param_hint="--format",
                )
        if format not in EXPORT_FORMATS:
            raise typer.BadParameter(
                f"'{format}' is not one of {', '.join(EXPORT_FORMATS)}", param_hint="--format"
            )
        if with_scheduling and format != "apkg":
            raise typer.BadParameter(
                "--with-scheduling needs --format apkg", param_hint="--with-scheduling"
            )
        filters = _filters(track or [], level or [], deck or [], tag or [], status or [])
        from sysdrill.app.interop import ExportSummary, export_items

        scheduling = None
        if with_scheduling:
            from sysdrill.app.anki_history import study_schedule

            scheduling = study_schedule(vault, db)
        from sysdrill.content.cache import default_cache_dir

        if to_stdout and format == "apkg" and sys.stdout.isatty():
            raise typer.BadParameter(
                "an Anki package is binary: redirect standard output to a file "
                "(> deck.apkg) or give --out deck.apkg",
                param_hint="--out",
            )
        from sysdrill.cli.console import progress_display

        with tempfile.TemporaryDirectory(prefix="sysdrill-export-") as staging:
            # The bars go to standard error, so `--out -` keeps standard output clean.
            with progress_display(quiet=quiet) as progress:
                report = export_items(
                    vault,
                    format=format,
                    out=Path(staging) / f"export.{format}" if to_stdout else out,
                    filters=filters,
                    now=datetime.now(UTC),
                    cache_dir=None if no_cache else default_cache_dir(),
                    scheduling=scheduling,
                    progress=progress,
                )
            if to_stdout:
                # The file goes to standard output; the summary to standard error.
                typer.echo(report.out.read_bytes(), nl=False)
        if as_json:
            summary = ExportSummary(report, out="-" if to_stdout else str(report.out))
            typer.echo(
                json.dumps(summary.to_dict(), indent=2),
                err=to_stdout,
            )
            return
        if quiet:
            return
        if to_stdout:
            report = dataclasses.replace(report, out=out)
        for line in render_report(report, vault):
            typer.echo(line, err=to_stdout)
