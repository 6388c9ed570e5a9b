"""Study sessions: ``practice``, ``quiz``, ``gauntlet``, ``chain`` and ``daily``.

Each command opens the interactive terminal interface when standard input is
a terminal and no ``--answers`` file is given; otherwise it runs the scripted
line mode, reading one answer line per prompt (docs/sessions.md).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from sysdrill.content.enums import CompetencyArea, Level, Track, Zone

if TYPE_CHECKING:
    from sysdrill.content.loader import Vault
    from sysdrill.study.filters import ItemFilter
    from sysdrill.study.service import StudyService
    from sysdrill.study.sessions.engine import SessionPlan

__all__ = ["register"]

VaultOption = Annotated[
    Path | None,
    typer.Option(
        "--vault",
        help="Vault folder to study (default: the bundled sample vault).",
        file_okay=False,
    ),
]
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
AnswersOption = Annotated[
    Path | None,
    typer.Option(
        "--answers",
        help="Read one answer per prompt from this file instead of the keyboard "
        "(see docs/sessions.md for the format).",
        exists=True,
        dir_okay=False,
        readable=True,
    ),
]
DeckOption = Annotated[str | None, typer.Option("--deck", help="Only items of this deck.")]
TrackOption = Annotated[Track | None, typer.Option("--track", help="Only items of this track.")]
LevelOption = Annotated[Level | None, typer.Option("--level", help="Only items of this level.")]
ZoneOption = Annotated[Zone | None, typer.Option("--zone", help="Only items of this zone.")]
TopicOption = Annotated[str | None, typer.Option("--topic", help="Only items of this topic.")]
AreaOption = Annotated[
    CompetencyArea | None,
    typer.Option("--area", help="Only items of this competency area."),
]
TagOption = Annotated[str | None, typer.Option("--tag", help="Only items with this tag.")]


def _clock() -> datetime:
    return datetime.now(UTC)


def _load(vault: Path | None) -> Vault:
    from sysdrill.cli.console import err_console
    from sysdrill.content.loader import load_vault
    from sysdrill.content.sample import sample_vault_path

    loaded = load_vault(vault or sample_vault_path())
    broken = sum(1 for f in loaded.files if f.item is None)
    if broken:
        err_console().print(
            f"Warning: {broken} item file(s) did not load and are left out; "
            "run 'sysdrill check' to see why."
        )
    return loaded


@contextmanager
def _study(db: str | None) -> Iterator[StudyService]:
    from sysdrill.app.study import open_study

    with open_study(db) as study:
        yield study


def _filter(
    deck: str | None,
    track: Track | None,
    level: Level | None,
    zone: Zone | None,
    topic: str | None,
    area: CompetencyArea | None,
    tag: str | None,
) -> ItemFilter:
    from sysdrill.study.filters import ItemFilter

    return ItemFilter(
        deck=deck,
        track=track,
        level=level,
        zone=zone,
        topic=topic,
        competency_area=area,
        tag=tag,
    )


def _run(plan: SessionPlan, study: StudyService, loaded: Vault, answers: Path | None) -> None:
    """Run the session: the terminal interface on a terminal, else the scripted line mode."""
    from sysdrill.study.sessions.answers import AnswerScript
    from sysdrill.study.sessions.chains import ChainIndex
    from sysdrill.study.sessions.runner import run_script_session
    from sysdrill.study.sessions.selection import studyable

    chains = ChainIndex(loaded.chains, studyable(loaded.items))
    if answers is None and sys.stdin.isatty():
        from sysdrill.cli.tui import run_tui

        for line in run_tui(plan, study=study, clock=_clock, chains=chains):
            typer.echo(line)
        return
    with ExitStack() as stack:
        if answers is not None:
            handle = stack.enter_context(answers.open(encoding="utf-8"))
            script = AnswerScript(handle, name=answers.name)
        else:
            script = AnswerScript(sys.stdin, name="<stdin>")
        run_script_session(
            plan, study=study, script=script, write=typer.echo, clock=_clock, chains=chains
        )


def practice(
    deck: DeckOption = None,
    track: TrackOption = None,
    level: LevelOption = None,
    zone: ZoneOption = None,
    topic: TopicOption = None,
    area: AreaOption = None,
    tag: TagOption = None,
    limit: Annotated[
        int, typer.Option("--limit", min=1, help="Items in the session at most.")
    ] = 20,
    deadline: Annotated[
        str | None,
        typer.Option(
            "--deadline",
            help="Interview date (YYYY-MM-DD): saved, then intervals end before it "
            "('none' turns deadline mode off).",
        ),
    ] = None,
    vault: VaultOption = None,
    db: DbOption = None,
    answers: AnswersOption = None,
) -> None:
    """Practise with spaced repetition: due reviews first, then new items."""
    from sysdrill.study.sessions.plans import practice_plan

    if deadline is not None and deadline.lower() not in ("none", "off"):
        try:
            date.fromisoformat(deadline)
        except ValueError as exc:
            raise typer.BadParameter(
                f"{deadline!r} is not a date; write it as YYYY-MM-DD.", param_hint="--deadline"
            ) from exc
    loaded = _load(vault)
    item_filter = _filter(deck, track, level, zone, topic, area, tag)
    with _study(db) as study:
        if deadline is not None:
            _set_deadline(study, loaded, item_filter, deadline)
        plan = practice_plan(
            study, loaded.items, loaded.decks, item_filter=item_filter, now=_clock(), limit=limit
        )
        _run(plan, study, loaded, answers)


def _set_deadline(
    study: StudyService, loaded: Vault, item_filter: ItemFilter, deadline: str
) -> None:
    from sysdrill.study.sessions.selection import filter_items

    settings = study.set_setting("deadline", deadline)
    if settings.deadline is None:
        typer.echo("Deadline mode is off.")
        return
    pool = filter_items(loaded.items, loaded.decks, item_filter)
    days = study.deadline_workload(pool, now=_clock())
    total = sum(day.reviews + day.new_items for day in days)
    peak = max((day.reviews + day.new_items for day in days), default=0)
    typer.echo(
        f"Deadline {settings.deadline.isoformat()}: {len(days)} day(s) left, "
        f"about {total} reviews in all, at most {peak} a day."
    )


def quiz(
    deck: Annotated[str, typer.Argument(help="Deck name (decks.yaml, or an item's deck field).")],
    vault: VaultOption = None,
    db: DbOption = None,
    answers: AnswersOption = None,
) -> None:
    """Take a deck in order, with a score at the end."""
    from sysdrill.study.sessions.plans import quiz_plan

    loaded = _load(vault)
    plan = quiz_plan(loaded.items, loaded.decks, deck)
    with _study(db) as study:
        _run(plan, study, loaded, answers)


def gauntlet(
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            help="quick (5 questions, 10 min), standard (10, 20 min), full (15, 35 min) "
            "or design (1 design question, 15 min).",
        ),
    ] = "quick",
    track: Annotated[
        Track | None, typer.Option("--track", help="Only questions of this track.")
    ] = None,
    level: Annotated[
        Level | None,
        typer.Option("--level", help="Level to aim at; the warm-up comes from below it."),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option("--seed", help="Seed of the random picks, to repeat a gauntlet."),
    ] = None,
    vault: VaultOption = None,
    db: DbOption = None,
    answers: AnswersOption = None,
) -> None:
    """Take a timed mock interview, self-scored against key points."""
    from sysdrill.study.sessions.gauntlet import GauntletFormat, gauntlet_plan, pick_gauntlet

    try:
        chosen = GauntletFormat(fmt.lower())
    except ValueError as exc:
        known = ", ".join(f.value for f in GauntletFormat)
        raise typer.BadParameter(
            f"{fmt!r} is not a gauntlet format; use one of {known}.", param_hint="--format"
        ) from exc
    loaded = _load(vault)
    now = _clock()
    pick = pick_gauntlet(
        loaded.items,
        fmt=chosen,
        track=track,
        level=level,
        seed=seed if seed is not None else int(now.timestamp()),
    )
    if pick.note:
        typer.echo(f"Note: {pick.note}.")
    with _study(db) as study:
        _run(gauntlet_plan(pick, chosen), study, loaded, answers)


def chain(
    chain_id: Annotated[
        str, typer.Argument(metavar="ID", help="Chain id from chains.yaml or chains.json.")
    ],
    vault: VaultOption = None,
    db: DbOption = None,
    answers: AnswersOption = None,
) -> None:
    """Walk a chain from recall to architecture, one item after another."""
    from sysdrill.study.sessions.plans import chain_plan

    loaded = _load(vault)
    plan = chain_plan(loaded.chains, loaded.items, chain_id)
    with _study(db) as study:
        _run(plan, study, loaded, answers)


def daily(
    deck: DeckOption = None,
    track: TrackOption = None,
    level: LevelOption = None,
    zone: ZoneOption = None,
    topic: TopicOption = None,
    area: AreaOption = None,
    tag: TagOption = None,
    vault: VaultOption = None,
    db: DbOption = None,
    answers: AnswersOption = None,
) -> None:
    """Three items a day: the same filters give the same items all day."""
    from sysdrill.study.sessions.plans import daily_plan

    loaded = _load(vault)
    item_filter = _filter(deck, track, level, zone, topic, area, tag)
    with _study(db) as study:
        plan, _ = daily_plan(
            study, loaded.items, loaded.decks, item_filter=item_filter, now=_clock()
        )
        _run(plan, study, loaded, answers)


def register(app: typer.Typer) -> None:
    """Add the session commands to the app."""
    app.command("practice")(practice)
    app.command("quiz")(quiz)
    app.command("gauntlet")(gauntlet)
    app.command("chain")(chain)
    app.command("daily")(daily)
