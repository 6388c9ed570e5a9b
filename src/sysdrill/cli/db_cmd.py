"""``sysdrill db``: the study database's schema (``db upgrade`` runs the migrations).

Opening PostgreSQL never migrates it: a schema that is behind is an error naming
``sysdrill db upgrade``. An embedded SQLite file (the default one, or any
``sqlite:///`` URL) is created or upgraded by the CLI on first use, after a copy
``<file>.before-<revision>.bak`` of an older one, so a new user's first command
just works; ``db upgrade`` does the same for it.
"""

from __future__ import annotations

from typing import Annotated

import typer

__all__ = ["register"]


def register(app: typer.Typer) -> None:
    """Add the ``db`` command group to the app."""
    db_app = typer.Typer(
        help="Manage the study database (schema migrations).", no_args_is_help=True
    )
    app.add_typer(db_app, name="db")

    @db_app.command("upgrade")
    def upgrade_cmd(
        db: Annotated[
            str | None,
            typer.Option(
                "--db",
                help=(
                    "Study database URL (sqlite:///file or postgresql+psycopg://...); default "
                    "$SYSDRILL_DATABASE_URL, else a SQLite file in the user data folder."
                ),
            ),
        ] = None,
    ) -> None:
        """Bring the study database's schema up to date (each migration in a transaction)."""
        from sysdrill.app.study import upgrade_study_database

        result = upgrade_study_database(db)
        if not result.changed:
            typer.echo(f"{result.url} is up to date (schema {result.after}).")
            return
        before = "a new database" if result.before is None else f"schema {result.before}"
        typer.echo(f"Upgraded {result.url} from {before} to schema {result.after}.")
