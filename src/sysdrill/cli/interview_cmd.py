"""`sysdrill interview`: a mock interviewer that talks back (calls ``sysdrill.app.interview``).

One line per turn, typed at the prompt or read from ``--answers FILE`` / piped
input: an answer, ``? question`` (a clarifying question), ``/hint``, ``/skip``
or ``/end``. An answer of several lines goes between two lines holding only
``\"\"\"``. The end of the input ends the interview. The reply is printed as it
streams from the model endpoint, or at once from the built-in conductor.
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated

import typer

from sysdrill.cli.int_options import MAX_DATABASE_ID, MAX_SEED
from sysdrill.cli.study_cmds import DbOption

if TYPE_CHECKING:
    from sysdrill.app.interview import TurnOutcome

__all__ = ["register"]

VaultOption = Annotated[
    Path | None,
    typer.Option(
        "--vault",
        help="Vault folder to be interviewed on (default: the bundled starter vault).",
        file_okay=False,
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
_BLOCK = '"""'


def _now() -> datetime:
    return datetime.now(UTC)


def _turns(stream: IO[str], *, prompt: bool) -> Iterator[str]:
    """The learner's turns: one line each, or the lines between two ``\"\"\"`` lines."""
    while True:
        if prompt:
            typer.echo("\nYou> ", nl=False)
        line = stream.readline()
        if not line:
            return
        if line.strip() == _BLOCK:
            lines = []
            for more in stream:
                if more.strip() == _BLOCK:
                    break
                lines.append(more.rstrip("\n"))
            yield "\n".join(lines)
            continue
        if line.strip():
            yield line.rstrip("\n")


def _show_outcome(outcome: TurnOutcome) -> None:
    assessment = outcome.assessment
    if assessment is not None:
        for verdict in assessment.math:
            typer.echo(f"  Napkin check: {verdict.sentence()}")
        if assessment.points:
            made = sum(1 for s in assessment.scores if s >= 2)
            typer.echo(f"  Key points heard: {made} of {len(assessment.points)}")
    for item_id, rating in outcome.ratings:
        typer.echo(f"  Reviewed {item_id}: {rating}")


def _run(
    pick_kind: str,
    name: str,
    *,
    items: int,
    vault: Path | None,
    db: str | None,
    answers: Path | None,
    built_in: bool,
    seed: int | None,
) -> None:
    from contextlib import ExitStack

    from sysdrill.app import interview as app
    from sysdrill.app.interview_endpoint import find_endpoint
    from sysdrill.app.interview_ladder import InterviewPick, PickKind
    from sysdrill.app.interview_records import interview_results
    from sysdrill.app.llm_client import ChatClient
    from sysdrill.app.study import open_study, ready_cli_database
    from sysdrill.app.study_vault import open_study_vault
    from sysdrill.cli.console import err_console

    url = ready_cli_database(db)
    loaded = open_study_vault(vault)
    pick = InterviewPick(PickKind(pick_kind), name, items)
    chosen = None if built_in else find_endpoint(url).config
    with ExitStack() as stack:
        study = stack.enter_context(open_study(url, vault=loaded))
        store = stack.enter_context(app.open_interviews(url))
        chat = None if chosen is None else stack.enter_context(ChatClient(chosen))
        view = app.start_interview(
            study, loaded, store, pick, now=_now(), endpoint=chosen, seed=seed
        )
        if chosen is None:
            typer.echo("Interviewer: built in (nothing leaves this machine).")
        else:
            typer.echo(f"Interviewer: {chosen.model}; your answers are sent to {chosen.base_url}.")
        typer.echo(f"Interview {view.id}: {view.title} ({view.total} questions)")
        typer.echo("Type an answer, '? question' to ask, /hint, /skip or /end.\n")
        typer.echo(f"Interviewer: {view.turns[0].text}")
        source = sys.stdin if answers is None else stack.enter_context(answers.open("utf-8"))
        prompt = answers is None and sys.stdin.isatty()
        closed = False
        # Lazily: each turn is read after the reply to the one before.
        for text in itertools.chain(_turns(source, prompt=prompt), ["/end"]):
            typer.echo("\nInterviewer: ", nl=False)
            for event in app.interview_turn(
                study, loaded, store, view.id, text, now=_now(), chat=chat
            ):
                if isinstance(event, app.ReplyText):
                    typer.echo(event.text, nl=False)
                    sys.stdout.flush()
                elif isinstance(event, app.EndpointNotice):
                    err_console().print(f"Note: {event.message}", markup=False, highlight=False)
                else:
                    typer.echo("")
                    _show_outcome(event.outcome)
                    closed = event.outcome.closed
            if closed:
                break
        results = interview_results(study, loaded, store, view.id)
    typer.echo(
        f"\nKey points made: {round(results.score * 100)}%. "
        f"See `sysdrill interview results {view.id}`."
    )


def register(app: typer.Typer) -> None:
    """Add the ``interview`` command group to the app."""
    interview_app = typer.Typer(
        help=(
            "A mock interviewer that talks back: it asks, probes, hints, corrects your "
            "napkin math (checked by sysdrill, not by a model) and moves up a chain. "
            "Built in by default; any OpenAI-compatible endpoint when configured "
            "(docs/interview.md)."
        ),
        invoke_without_command=True,
    )

    @interview_app.callback()
    def interview(
        ctx: typer.Context,
        chain: Annotated[
            str | None, typer.Option("--chain", help="Interview on this chain's levels.")
        ] = None,
        topic: Annotated[
            str | None, typer.Option("--topic", help="Interview on this topic (its chains).")
        ] = None,
        plan: Annotated[
            str | None, typer.Option("--plan", help="Interview on this study plan's items.")
        ] = None,
        items: Annotated[
            int, typer.Option("--items", min=1, max=8, help="Questions to ask, 1 to 8.")
        ] = 3,
        answers: Annotated[
            Path | None,
            typer.Option(
                "--answers",
                help="Read the turns from this file (one a line) instead of the keyboard.",
                exists=True,
                dir_okay=False,
                readable=True,
            ),
        ] = None,
        built_in: Annotated[
            bool,
            typer.Option(
                "--built-in",
                help="Use the built-in interviewer even when a model endpoint is configured.",
            ),
        ] = False,
        seed: Annotated[
            int | None,
            typer.Option(
                "--seed",
                min=0,
                max=MAX_SEED,
                help="Choose among a topic's or plan's chains with this seed.",
            ),
        ] = None,
        db: DbOption = None,
        vault: VaultOption = None,
    ) -> None:
        """Run a mock interview on a chain, a topic or a plan (see `interview choices`)."""
        if ctx.invoked_subcommand is not None:
            return
        given = [(k, v) for k, v in (("chain", chain), ("topic", topic), ("plan", plan)) if v]
        if len(given) != 1:
            raise typer.BadParameter(
                "Give exactly one of --chain, --topic or --plan "
                "(`sysdrill interview choices` lists them)."
            )
        kind, name = given[0]
        _run(
            kind,
            name,
            items=items,
            vault=vault,
            db=db,
            answers=answers,
            built_in=built_in,
            seed=seed,
        )

    @interview_app.command("choices")
    def choices_cmd(as_json: JsonOption = False, vault: VaultOption = None) -> None:
        """List the chains, topics and plans an interview can be about."""
        from sysdrill.app.interview_ladder import interview_choices
        from sysdrill.app.study_vault import open_study_vault

        found = interview_choices(open_study_vault(vault))
        if as_json:
            typer.echo(json.dumps(found, indent=2))
            return
        typer.echo("Chains (--chain):")
        for chain in found["chains"]:
            typer.echo(f"  {chain['id']}: {chain['title']}")
        typer.echo("Topics (--topic): " + ", ".join(found["topics"]))
        typer.echo("Plans (--plan): " + ", ".join(p["name"] for p in found["plans"]))

    @interview_app.command("list")
    def list_cmd(
        as_json: JsonOption = False, db: DbOption = None, vault: VaultOption = None
    ) -> None:
        """List your interviews in the vault, newest first."""
        from sysdrill.app import interview as app
        from sysdrill.app.study import open_cli_study
        from sysdrill.app.study_vault import open_study_vault

        loaded = open_study_vault(vault)
        with open_cli_study(db, vault=loaded) as study, app.open_interviews(db) as store:
            listed = app.list_interviews(study, store)
        if as_json:
            typer.echo(json.dumps(listed, indent=2))
            return
        if not listed:
            typer.echo("No interviews yet: run `sysdrill interview --chain ID`.")
        for entry in listed:
            state = "done" if entry["closed"] else "in progress"
            by = f"model {entry['model']}" if entry["model"] else "built in"
            typer.echo(
                f"{entry['id']}: {entry['title']} ({entry['items']} questions, {by}, {state})"
            )

    @interview_app.command("results")
    def results_cmd(
        interview_id: Annotated[
            int, typer.Argument(min=1, max=MAX_DATABASE_ID, help="The interview's id.")
        ],
        as_json: JsonOption = False,
        db: DbOption = None,
        vault: VaultOption = None,
    ) -> None:
        """Show one interview's report: each item's rating, key points and napkin checks."""
        from sysdrill.app import interview as app
        from sysdrill.app.interview_records import interview_results
        from sysdrill.app.study import open_cli_study
        from sysdrill.app.study_vault import open_study_vault

        loaded = open_study_vault(vault)
        with open_cli_study(db, vault=loaded) as study, app.open_interviews(db) as store:
            results = interview_results(study, loaded, store, interview_id)
        if as_json:
            typer.echo(json.dumps(results.to_dict(), indent=2))
            return
        view = results.view
        by = f"model {view.model_name} at {view.endpoint}" if view.model_name else "built in"
        typer.echo(f"Interview {view.id}: {view.title} ({by})")
        typer.echo(f"Key points made: {round(results.score * 100)}%")
        for entry in results.items:
            rating = entry["rating"] or "not rated"
            typer.echo(
                f"- {entry['item_id']} {entry['level'] or ''}: {rating}; "
                f"{round(entry['key_points_made'] * 100)}% of key points, "
                f"{entry['answers']} answers, {entry['hints']} hints"
                + (", skipped" if entry["skipped"] else "")
            )
            for verdict in entry["math"]:
                computed = f" (computed {verdict['computed']})" if verdict["computed"] else ""
                typer.echo(f"    Napkin check: {verdict['claim']}: {verdict['verdict']}{computed}")

    endpoint_app = typer.Typer(
        help="The model endpoint that conducts interviews (stored; the SYSDRILL_LLM_* "
        "environment variables win over it).",
        no_args_is_help=True,
    )

    @endpoint_app.command("show")
    def endpoint_show(as_json: JsonOption = False, db: DbOption = None) -> None:
        """Show which endpoint receives interview answers, and where it was set."""
        from sysdrill.app.interview_endpoint import find_endpoint
        from sysdrill.app.study import ready_cli_database

        chosen = find_endpoint(ready_cli_database(db))
        if as_json:
            typer.echo(json.dumps(chosen.to_dict(), indent=2))
        elif chosen.config is None:
            typer.echo("No model endpoint: the built-in interviewer runs; nothing is sent.")
        else:
            key = ", with an API key" if chosen.config.api_key else ""
            typer.echo(
                f"{chosen.config.model} at {chosen.config.base_url}{key} (from the {chosen.source})"
            )

    @endpoint_app.command("set")
    def endpoint_set(
        base_url: Annotated[
            str, typer.Argument(help="The API root, such as http://127.0.0.1:11434/v1.")
        ],
        model: Annotated[str, typer.Argument(help="The model name the endpoint serves.")],
        api_key_env: Annotated[
            str | None,
            typer.Option(
                "--api-key-from",
                help="Read the API key from this environment variable (never typed on "
                "the command line, where the shell history would keep it).",
            ),
        ] = None,
        db: DbOption = None,
    ) -> None:
        """Store the endpoint interviews send answers to (the server's, for all learners)."""
        import os

        from sysdrill.app.interview_endpoint import set_endpoint
        from sysdrill.app.llm_client import EndpointConfig
        from sysdrill.app.study import ready_cli_database
        from sysdrill.errors import UsageError

        key = ""
        if api_key_env:
            key = os.environ.get(api_key_env, "").strip()
            if not key:
                raise UsageError(f"The environment variable {api_key_env} is empty or unset.")
        config = EndpointConfig(base_url, model, key)
        set_endpoint(ready_cli_database(db), config)
        typer.echo(f"Interviews now send answers to {model} at {base_url}.")

    @endpoint_app.command("clear")
    def endpoint_clear(db: DbOption = None) -> None:
        """Forget the stored endpoint: interviews use the built-in interviewer."""
        from sysdrill.app.interview_endpoint import clear_endpoint
        from sysdrill.app.study import ready_cli_database

        clear_endpoint(ready_cli_database(db))
        typer.echo("No stored endpoint: interviews use the built-in interviewer.")

    interview_app.add_typer(endpoint_app, name="endpoint")
    app.add_typer(interview_app, name="interview")
