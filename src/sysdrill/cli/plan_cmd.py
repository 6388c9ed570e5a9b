"""`sysdrill plan`: list, start, show and stop a study plan (calls ``sysdrill.app.plans``)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from sysdrill.cli.study_cmds import DbOption, _study

if TYPE_CHECKING:
    from sysdrill.study.plans import PlanProgress

__all__ = ["register"]

VaultOption = Annotated[
    Path | None,
    typer.Option(
        "--vault",
        help="Vault folder holding plans.yaml (default: the bundled starter vault).",
        file_okay=False,
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]


def _now() -> datetime:
    return datetime.now(UTC)


def _render(progress: PlanProgress) -> None:
    plan = progress.plan
    typer.echo(
        f"Plan {plan.name}: {plan.title}"
        + (" (adaptive: weakest topics first)" if progress.active.adaptive else "")
    )
    typer.echo(
        f"Day {min(progress.day, plan.days)} of {plan.days} "
        f"({progress.active.started_on.isoformat()} to {progress.ends_on.isoformat()})"
    )
    typer.echo(
        f"Items introduced: {progress.items_seen} of {progress.items_total} "
        f"(the plan's pace: {progress.scheduled_by_today} by today)"
    )
    note = progress.new_left_note
    typer.echo(f"New items left today: {progress.new_left_today}" + (f" ({note})" if note else ""))
    if progress.next_item_ids:
        typer.echo(f"Next new items: {', '.join(progress.next_item_ids)}")
    else:
        typer.echo("Every item of the plan has been introduced.")


def register(app: typer.Typer) -> None:
    """Add the ``plan`` command group to the app."""
    plan_app = typer.Typer(
        help="Follow a study plan: new items a day, by prerequisite order and level.",
        no_args_is_help=True,
    )

    @plan_app.command("list")
    def list_cmd(vault: VaultOption = None, as_json: JsonOption = False) -> None:
        """List the vault's study plans (plans.yaml)."""
        from sysdrill.app.plans import list_plans
        from sysdrill.cli.study_cmds import _catalogue

        plans = list_plans(_catalogue(vault))
        if as_json:
            rows = [
                {
                    "name": p.name,
                    "title": p.title,
                    "days": p.days,
                    "new_per_day": p.new_per_day,
                    "description": p.description,
                }
                for p in plans
            ]
            typer.echo(json.dumps(rows, indent=2))
            return
        if not plans:
            typer.echo("This vault has no study plans (add a plans.yaml; see docs/content.md).")
        for p in plans:
            typer.echo(f"{p.name}  {p.title} ({p.days} days, {p.new_per_day} new items a day)")

    @plan_app.command("start")
    def start_cmd(
        name: Annotated[str, typer.Argument(help="Plan name (see `sysdrill plan list`).")],
        adaptive: Annotated[
            bool,
            typer.Option(
                "--adaptive",
                help="Put your weakest topics first (the ones whose items fail most often: "
                "rated Again lately, or being forgotten; see `sysdrill progress`).",
            ),
        ] = False,
        vault: VaultOption = None,
        db: DbOption = None,
        as_json: JsonOption = False,
    ) -> None:
        """Start a plan today; without a deadline set, its last day becomes the deadline."""
        from sysdrill.app.plans import start_plan
        from sysdrill.app.study import open_cli_study
        from sysdrill.app.study_vault import open_study_vault

        loaded = open_study_vault(vault)
        with open_cli_study(db, vault=loaded) as study:
            started = start_plan(study, loaded, name, adaptive=adaptive, now=_now())
        if as_json:
            typer.echo(json.dumps(started.to_dict(), indent=2))
            return
        _render(started.progress)
        if started.deadline_set:
            typer.echo(
                f"Deadline set to {started.progress.ends_on.isoformat()}, the plan's last day."
            )
        elif started.deadline is not None:
            typer.echo(f"Deadline kept at {started.deadline.isoformat()}.")
        typer.echo("Run `sysdrill practice` each day; new items follow the plan.")

    @plan_app.command("show")
    def show_cmd(
        vault: VaultOption = None, db: DbOption = None, as_json: JsonOption = False
    ) -> None:
        """Show progress through the active plan."""
        from sysdrill.app.plans import active_plan, show_plan
        from sysdrill.app.study_vault import open_study_vault

        with _study(db, vault) as (study, _):
            # Only an active plan's order needs every item loaded.
            progress = None
            if active_plan(study) is not None:
                progress = show_plan(study, open_study_vault(vault), now=_now())
        if as_json:
            typer.echo(json.dumps(None if progress is None else progress.to_dict(), indent=2))
            return
        if progress is None:
            typer.echo(
                "No plan is active. See `sysdrill plan list`, then `sysdrill plan start NAME`."
            )
            return
        _render(progress)

    @plan_app.command("stop")
    def stop_cmd(vault: VaultOption = None, db: DbOption = None) -> None:
        """Stop following the active plan (your reviews and deadline stay)."""
        from sysdrill.app.plans import stop_plan

        # A plan is followed in one vault: it is stopped there.
        with _study(db, vault) as (study, _):
            stopped = stop_plan(study, now=_now())
        typer.echo(f"Stopped plan {stopped.name}.")

    app.add_typer(plan_app, name="plan")
