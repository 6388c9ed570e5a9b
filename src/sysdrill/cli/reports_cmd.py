"""``sysdrill reports`` lists the problems learners reported in the web app."""

from __future__ import annotations

from typing import Annotated

import typer

from sysdrill.cli.study_cmds import DbOption

__all__ = ["register"]


def reports(
    as_json: Annotated[bool, typer.Option("--json", help="Print the reports as JSON.")] = False,
    db: DbOption = None,
) -> None:
    """List the problems learners reported about items in the web app, newest first.

    Reports are kept in the study database the web app serves on (--db).
    """
    import json

    from sysdrill.app.problem_reports import list_problem_reports

    found = list_problem_reports(db, cli=True)
    if as_json:
        typer.echo(json.dumps([r.to_dict() for r in found], indent=2, ensure_ascii=False))
        return
    if not found:
        typer.echo("No problem report yet.")
        return
    for report in found:
        when = report.reported_at.strftime("%Y-%m-%d %H:%M")
        message = " ".join(report.message.split())
        typer.echo(f"{when}  {report.item_id}  {report.kind.value}  {message}")


def register(app: typer.Typer) -> None:
    """Add ``reports`` to the CLI."""
    app.command("reports")(reports)
