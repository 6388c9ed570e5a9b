"""`sysdrill item`: suspend, bury, edit one item or list its reviews; and `sysdrill undo`.

Each command loads the vault, opens the learner's study state in it and calls
one function of :mod:`sysdrill.app.item_actions`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from sysdrill.cli.study_cmds import DbOption, StateVaultOption

if TYPE_CHECKING:
    from sysdrill.app.item_actions import ItemHistory, ItemStatus
    from sysdrill.app.study_vault import StudyVault
    from sysdrill.study.service import StudyService

__all__ = ["register"]

ItemIdArgument = Annotated[str, typer.Argument(help="The item's id (as `sysdrill show` takes).")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]


def _now() -> datetime:
    return datetime.now(UTC)


@contextmanager
def _opened(db: str | None, vault: Path | None) -> Iterator[tuple[StudyService, StudyVault]]:
    from sysdrill.app.study import open_cli_study
    from sysdrill.app.study_vault import open_study_vault

    loaded = open_study_vault(vault)
    with open_cli_study(db, vault=loaded) as study:
        yield study, loaded


def _render_history(history: ItemHistory) -> None:
    from rich.table import Table

    from sysdrill.cli.console import out_console

    console = out_console()
    console.print(f"{history.item_id}: {history.title}", markup=False)
    due = "" if history.due is None else f" Next due {history.due:%Y-%m-%d %H:%M} UTC."
    console.print(f"{history.status.message}{due}", markup=False)
    if not history.entries:
        console.print("No reviews of this item yet.")
        return
    table = Table(title="Reviews")
    for column in ("Date (UTC)", "Rating", "Interval", "Graded by"):
        table.add_column(column)
    for entry in history.entries:
        table.add_row(
            f"{entry.reviewed_at:%Y-%m-%d %H:%M}",
            entry.rating,
            entry.interval_text,
            entry.graded_by,
        )
    console.print(table)


def _edited_in_editor(text: str, item_id: str) -> str:
    """``text`` as the learner leaves it in $VISUAL or $EDITOR (vi without either).

    The text is edited in a temporary copy, so the item file itself is written
    only once the edit has been checked.

    Raises:
        UsageError: If the editor cannot be started or exits with an error.
    """
    import os
    import shlex
    import subprocess
    import tempfile

    from sysdrill.errors import UsageError

    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    with tempfile.TemporaryDirectory(prefix="sysdrill-edit-") as folder:
        copy = Path(folder) / f"{item_id}.yaml"
        copy.write_text(text, encoding="utf-8")
        try:
            done = subprocess.run([*shlex.split(editor), str(copy)], check=False)
        except (OSError, ValueError) as exc:
            raise UsageError(
                f"cannot start the editor {editor!r} ({exc}); set EDITOR, or use --set FIELD=VALUE"
            ) from exc
        if done.returncode != 0:
            raise UsageError(
                f"the editor {editor!r} exited with status {done.returncode}; nothing was saved"
            )
        return copy.read_text(encoding="utf-8")


_Action = Callable[..., "ItemStatus"]


def _flag_command(item_app: typer.Typer, name: str, help_text: str) -> None:
    """Add the command ``name`` that runs the use case of that name on one item."""

    @item_app.command(name, help=help_text)
    def command(
        item_id: ItemIdArgument,
        db: DbOption = None,
        vault: StateVaultOption = None,
        as_json: JsonOption = False,
    ) -> None:
        from sysdrill.app import item_actions

        act: _Action = getattr(item_actions, f"{name}_item")
        with _opened(db, vault) as (study, loaded):
            status = act(study, loaded, item_id, now=_now())
        if as_json:
            typer.echo(json.dumps(status.to_dict(), indent=2))
        else:
            typer.echo(status.message)


def register(app: typer.Typer) -> None:
    """Add the ``item`` command group to the app."""
    item_app = typer.Typer(
        help="Act on one item outside a session: suspend or bury it, edit its text, "
        "or list your reviews of it.",
        no_args_is_help=True,
    )
    for name, help_text in (
        ("suspend", "Keep an item out of practice, quizzes and the daily set until unsuspended."),
        ("unsuspend", "Let a suspended item come up in sessions again."),
        ("bury", "Keep an item out of sessions until the next midnight UTC."),
        ("unbury", "Let a buried item come up again today."),
    ):
        _flag_command(item_app, name, help_text)

    @item_app.command("history")
    def history_cmd(
        item_id: ItemIdArgument,
        db: DbOption = None,
        vault: StateVaultOption = None,
        as_json: JsonOption = False,
    ) -> None:
        """List your reviews of an item: date, rating, interval scheduled, graded by."""
        from sysdrill.app.item_actions import item_history

        with _opened(db, vault) as (study, loaded):
            history = item_history(study, loaded, item_id, now=_now())
        if as_json:
            typer.echo(json.dumps(history.to_dict(), indent=2))
        else:
            _render_history(history)

    @item_app.command("edit")
    def edit_cmd(
        item_id: ItemIdArgument,
        vault: Annotated[
            Path | None,
            typer.Option(
                "--vault",
                help="Vault folder holding the item (the bundled starter vault is never edited).",
                file_okay=False,
                metavar="DIR",
            ),
        ] = None,
        set_fields: Annotated[
            list[str] | None,
            typer.Option(
                "--set",
                metavar="FIELD=VALUE",
                help="Set one field without an editor (repeatable): title, scenario, "
                "question, realistic_solution, common_mistake or napkin_math; \\n in VALUE "
                "starts a new line.",
            ),
        ] = None,
    ) -> None:
        """Edit an item's YAML file in $EDITOR (or with --set), checked before it is saved.

        An edit that brings in an error `sysdrill check` would report is refused
        and the file left as it was.
        """
        from sysdrill.app.item_edit import editable_item, save_item_fields, save_item_text
        from sysdrill.app.study_vault import open_study_vault

        loaded = open_study_vault(vault)
        if set_fields:
            changes: dict[str, str] = {}
            for pair in set_fields:
                name, sep, value = pair.partition("=")
                if not sep:
                    raise typer.BadParameter(
                        f"{pair!r} is not FIELD=VALUE (e.g. title='A better title').",
                        param_hint="--set",
                    )
                changes[name.strip()] = value.replace("\\n", "\n")
            saved = save_item_fields(loaded, item_id, changes)
        else:
            current = editable_item(loaded, item_id)
            saved = save_item_text(loaded, item_id, _edited_in_editor(current.text, item_id))
        typer.echo(saved.message)
        for warning in saved.warnings:
            typer.echo(f"Warning: {warning}", err=True)

    app.add_typer(item_app, name="item")

    @app.command("undo")
    def undo_cmd(
        db: DbOption = None,
        vault: StateVaultOption = None,
        as_json: JsonOption = False,
    ) -> None:
        """Take back your last review in this vault, from any session or none.

        The item's schedule goes back to what it was before that review; a
        session still in progress asks the item again.
        """
        from sysdrill.app.review_undo import undo_last_review

        with _opened(db, vault) as (study, loaded):
            undone = undo_last_review(study, loaded, now=_now())
        typer.echo(json.dumps(undone.to_dict(), indent=2) if as_json else undone.message)
