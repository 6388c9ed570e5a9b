"""Study-state commands: progress, workload, state export/import, settings, optimize.

Each command parses its options, calls one function of ``sysdrill.app`` and
renders the result; scheduling and storage live in ``sysdrill.study`` and
``sysdrill.storage``. Without ``--db`` (and ``$SYSDRILL_DATABASE_URL``) the
default SQLite file is upgraded on first use; a database named explicitly
needs ``sysdrill db upgrade``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sysdrill.cli.console import QuietOption, progress_display
from sysdrill.content.gc_pause import collector_paused, kept_until_exit

if TYPE_CHECKING:
    from sysdrill.app.catalogue import Catalogue
    from sysdrill.app.progress import WorkloadDay
    from sysdrill.study.progress import ProgressReport
    from sysdrill.study.service import StudyService

__all__ = ["register"]

DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        help=(
            "Study database URL (sqlite:///file or postgresql+psycopg://...); default "
            "$SYSDRILL_DATABASE_URL, else a SQLite file in the user data folder."
        ),
    ),
]
VaultOption = Annotated[
    Path | None,
    typer.Option(
        "--vault",
        help="Vault folder the progress is measured against (default: the bundled starter vault).",
        file_okay=False,
    ),
]
StateVaultOption = Annotated[
    Path | None,
    typer.Option(
        "--vault",
        help="Vault folder whose study state is meant (default: the bundled starter vault); "
        "state is kept per vault.",
        file_okay=False,
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]


class ImportSource(StrEnum):
    """Formats ``state import`` reads."""

    SYSDRILL = "sysdrill"
    STAFFML = "staffml"


def _now() -> datetime:
    return datetime.now(UTC)


def _catalogue(vault: Path | None, *, quiet: bool = False) -> Catalogue:
    """The vault's catalogue: no item file is read while it is fresh (app/catalogue.py).

    A first build reads every item file: a bar on a terminal says how far it is.
    """
    from sysdrill.app.catalogue import open_catalogue
    from sysdrill.content.cache import default_cache_dir
    from sysdrill.content.sample import default_vault_path

    with progress_display(quiet=quiet) as progress:
        return open_catalogue(
            vault or default_vault_path(),
            cache_dir=default_cache_dir(),
            now=_now(),
            progress=progress,
        )


@contextmanager
def _study(
    db: str | None, vault: Path | None, *, quiet: bool = False
) -> Iterator[tuple[StudyService, Catalogue]]:
    """The learner's study service for the vault, with its earlier state adopted."""
    from sysdrill.app.catalogue import adopt_catalogue_state
    from sysdrill.app.study import open_cli_study

    with ExitStack() as stack:
        with kept_until_exit():
            catalogue = _catalogue(vault, quiet=quiet)
            study = stack.enter_context(open_cli_study(db, vault=catalogue.identity))
            adopt_catalogue_state(study, catalogue)
        yield study, catalogue


def _percent(rate: float | None) -> str:
    return "-" if rate is None else f"{rate:.0%}"


def _render_progress(report: ProgressReport) -> None:
    from rich.table import Table

    from sysdrill.cli.console import out_console

    console = out_console()
    console.print(
        f"Items: {report.items_total}  seen: {report.items_seen}  "
        f"mastered: {report.items_mastered}  reviews: {report.reviews_total}  "
        f"streak: {report.streak_days} day(s)"
    )
    coverage = Table(title="Coverage (seen / mastered of items)")
    for column in ("Competency area", "Track", "Items", "Seen", "Mastered"):
        coverage.add_column(column)
    for cell in report.coverage:
        coverage.add_row(
            cell.competency_area, cell.track, str(cell.items), str(cell.seen), str(cell.mastered)
        )
    console.print(coverage)
    console.print(
        "True retention (first review of the day): "
        f"young {_percent(report.retention_young.rate)} "
        f"of {report.retention_young.reviews}, "
        f"mature {_percent(report.retention_mature.rate)} "
        f"of {report.retention_mature.reviews}; last 30 days: "
        f"young {_percent(report.recent_retention_young.rate)}, "
        f"mature {_percent(report.recent_retention_mature.rate)}"
    )
    recent = [d.count for d in report.reviews_per_day]
    console.print(f"Reviews per day, last 30 days: {' '.join(str(n) for n in recent)}")
    console.print(
        f"Due, next 30 days from today: {' '.join(str(d.count) for d in report.forecast)}"
    )
    if report.weakest_topics:
        weak = Table(title="Weakest topics")
        columns = ("Topic", "Seen", "Reviews (30 days)", "Rated Again", "Mean recall", "Lapses")
        for column in columns:
            weak.add_column(column)
        for topic in report.weakest_topics:
            weak.add_row(
                topic.topic,
                str(topic.seen),
                str(topic.reviews),
                f"{topic.rated_again} ({topic.again_share:.0%})",
                f"{topic.mean_recall:.0%}",
                str(topic.lapses),
            )
        console.print(weak)
    if report.deadline:
        console.print(f"Deadline: {report.deadline.isoformat()} (see `sysdrill workload`).")
    for note in report.notes:
        console.print(note)


def _render_workload(days: list[WorkloadDay]) -> None:
    from rich.table import Table

    from sysdrill.cli.console import out_console

    table = Table(title="Expected workload until the deadline (if every review passes)")
    for column in ("Day", "Reviews", "New items"):
        table.add_column(column)
    for day in days:
        table.add_row(day.day, str(day.reviews), str(day.new_items))
    out_console().print(table)


def _write_atomically(path: Path, write: Callable[[Path], None]) -> None:
    from sysdrill.errors import ExportFailed
    from sysdrill.files import replace_atomically

    try:
        replace_atomically(path, write)
    except OSError as exc:
        raise ExportFailed(
            f"{path}: cannot write ({exc.strerror}). Choose a writable location."
        ) from exc


def _read_json(path: Path) -> Any:
    from sysdrill.errors import ImportFailed

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ImportFailed(f"{path}: cannot read ({exc}). Check the file name.") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ImportFailed(f"{path}:{exc.lineno}:{exc.colno}: not valid JSON ({exc.msg}).") from exc


def register(app: typer.Typer) -> None:
    """Add the study-state commands to the app."""
    state_app = typer.Typer(
        help="Export or import all of a learner's study state as one JSON file.",
        no_args_is_help=True,
    )
    settings_app = typer.Typer(
        help="Show or change scheduler settings (see docs/study.md).", no_args_is_help=True
    )
    app.add_typer(state_app, name="state")
    app.add_typer(settings_app, name="settings")

    @app.command("progress")
    def progress_cmd(
        as_json: JsonOption = False,
        db: DbOption = None,
        vault: VaultOption = None,
        quiet: QuietOption = False,
    ) -> None:
        """Show coverage, true retention, reviews per day, streak, forecast and weak topics."""
        from sysdrill.app.progress import progress

        with _study(db, vault, quiet=quiet) as (study, catalogue):
            report = progress(study, catalogue, now=_now())
        if as_json:
            typer.echo(json.dumps(report.to_dict(), indent=2))
        else:
            _render_progress(report)

    @app.command("workload")
    def workload_cmd(
        as_json: JsonOption = False,
        db: DbOption = None,
        vault: VaultOption = None,
        quiet: QuietOption = False,
    ) -> None:
        """Show the expected reviews per day until the deadline (deadline mode)."""
        from sysdrill.app.progress import workload

        with _study(db, vault, quiet=quiet) as (study, catalogue):
            days = workload(study, catalogue, now=_now())
        if as_json:
            typer.echo(json.dumps([d.to_dict() for d in days], indent=2))
        else:
            _render_workload(days)

    @state_app.command("export")
    def export_cmd(
        file: Annotated[Path, typer.Argument(help="JSON file to write ('-' for stdout).")],
        db: DbOption = None,
        vault: StateVaultOption = None,
        quiet: QuietOption = False,
    ) -> None:
        """Write the learner's cards, reviews and sessions in one vault, and settings, to FILE.

        The file is written whole or not at all; a progress bar follows the reviews on a
        terminal (none with --quiet).
        """
        from sysdrill.app.interview_records import write_state_file

        with _study(db, vault, quiet=quiet) as (study, _), progress_display(quiet=quiet) as bar:
            if str(file) == "-":
                write_state_file(study, db, sys.stdout.buffer, now=_now())
                return
            written: list[tuple[int, int]] = []

            def write(path: Path) -> None:
                with path.open("wb") as out:
                    written.append(write_state_file(study, db, out, now=_now(), progress=bar))

            _write_atomically(file, write)
            vault_id = study.scope.vault_id
        cards, reviews = written[0]
        if not quiet:
            typer.echo(
                f"Exported {cards} cards and {reviews} reviews of vault {vault_id} to {file}."
            )

    @state_app.command("import")
    def import_cmd(
        file: Annotated[Path, typer.Argument(help="JSON file to read.")],
        source: Annotated[
            ImportSource,
            typer.Option(
                "--from",
                help="sysdrill: a `state export` file; staffml: the StaffML app's browser export.",
            ),
        ] = ImportSource.SYSDRILL,
        replace: Annotated[
            bool, typer.Option("--replace", help="Overwrite the learner's existing state.")
        ] = False,
        into_vault: Annotated[
            bool,
            typer.Option(
                "--into-vault",
                help="Load a file exported from another vault into this one (its item ids "
                "should be this vault's).",
            ),
        ] = False,
        db: DbOption = None,
        vault: StateVaultOption = None,
    ) -> None:
        """Load study state from FILE into one vault, all or nothing."""
        from sysdrill.errors import ImportFailed

        # A log of a million reviews is millions of objects, read, validated and
        # written once, none of them cyclic: collections would only walk them (a
        # quarter of the import's CPU at that size).
        with collector_paused():
            data = _read_json(file)
            if not isinstance(data, dict):
                raise ImportFailed(f"{file}: expected a JSON object at the top level.")
            with _study(db, vault) as (study, _):
                if source is ImportSource.STAFFML:
                    count = study.import_staffml(data, now=_now(), replace=replace)
                else:
                    from sysdrill.app.interview_records import import_state_file

                    count = import_state_file(
                        study, db, data, replace=replace, into_vault=into_vault
                    )
                vault_id = study.vault_id
        typer.echo(f"Imported {count} reviews from {file} into vault {vault_id}.")

    @settings_app.command("show")
    def settings_show_cmd(as_json: JsonOption = False, db: DbOption = None) -> None:
        """List every setting with its value and meaning."""
        from rich.table import Table

        from sysdrill.app.progress import get_settings
        from sysdrill.app.study import open_cli_study
        from sysdrill.cli.console import out_console

        # Settings belong to the learner, whichever vault they study.
        with open_cli_study(db, vault=None) as study:
            shown = get_settings(study)
        if as_json:
            typer.echo(json.dumps(shown.values(), indent=2))
            return
        table = Table()
        for column in ("Setting", "Value", "Meaning"):
            table.add_column(column)
        for setting in shown.settings:
            table.add_row(setting.key, setting.shown, setting.meaning)
        out_console().print(table)

    # A value such as -5 is a value, not an unknown option, so the setting's own
    # validation can say what range it accepts.
    @settings_app.command("set", context_settings={"ignore_unknown_options": True})
    def settings_set_cmd(
        key: Annotated[str, typer.Argument(help="Setting name (see `sysdrill settings show`).")],
        value: Annotated[str, typer.Argument(help="New value, e.g. 0.92, 1,10, true, none.")],
        db: DbOption = None,
    ) -> None:
        """Change one setting; the value is validated before it is stored."""
        from sysdrill.app.progress import set_setting
        from sysdrill.app.study import open_cli_study

        with open_cli_study(db, vault=None) as study:
            updated = set_setting(study, key, value, now=_now())
        typer.echo(f"{key} = {json.dumps(updated.value)}")
        if updated.note:
            typer.echo(f"Note: {updated.note}")

    @app.command("optimize")
    def optimize_cmd(
        db: DbOption = None, vault: StateVaultOption = None, quiet: QuietOption = False
    ) -> None:
        """Fit FSRS parameters to your review history in a vault (needs the optimizer extra).

        A progress bar follows the reading of the log and each training epoch on a
        terminal; --quiet prints nothing but errors.
        """
        from sysdrill.app.progress import fit_parameters

        # Five epochs are worth a bar: each can take minutes on a long log.
        with (
            _study(db, vault, quiet=quiet) as (study, _),
            progress_display(quiet=quiet, min_steps=1) as progress,
        ):
            result = fit_parameters(study, progress=progress)
        if quiet:
            return
        typer.echo(
            f"Fitted FSRS parameters to {result.reviews_used} reviews and saved them; "
            "reset with `sysdrill settings set fsrs_parameters none`."
        )
