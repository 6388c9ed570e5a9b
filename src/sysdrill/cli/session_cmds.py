"""Study sessions: ``practice``, ``quiz``, ``gauntlet``, ``chain`` and ``daily``.

Each command opens the interactive terminal interface when standard input is
a terminal and no ``--answers`` file is given; otherwise it runs the scripted
line mode, reading one answer line per prompt (docs/sessions.md).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from sysdrill.cli.int_options import MAX_SEED, MAX_SESSION_ITEMS
from sysdrill.content.enums import CompetencyArea, Level, Track, Zone
from sysdrill.content.gc_pause import kept_until_exit

if TYPE_CHECKING:
    from sysdrill.app.sessions import StartOptions
    from sysdrill.app.study_vault import StudyVault
    from sysdrill.content.vault_identity import VaultIdentity
    from sysdrill.study.filters import ItemFilter
    from sysdrill.study.service import StudyService

__all__ = ["register"]

VaultOption = Annotated[
    Path | None,
    typer.Option(
        "--vault",
        help="Vault folder to study (default: the bundled starter vault).",
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
NewOption = Annotated[
    int | None,
    typer.Option(
        "--new",
        min=0,
        max=MAX_SESSION_ITEMS,
        help="New (never seen) items in this session at most; the daily limit "
        "(setting new_per_day) applies across all of today's sessions as well, "
        "except a quiz, which asks its whole deck unless --new is given.",
    ),
]


def _clock() -> datetime:
    return datetime.now(UTC)


def _load(vault: Path | None) -> StudyVault:
    from sysdrill.app.study_vault import open_study_vault

    return _warn_broken(open_study_vault(vault))


def _warn_broken(loaded: StudyVault) -> StudyVault:
    from sysdrill.cli.console import err_console

    if loaded.broken_files:
        err_console().print(
            f"Warning: {loaded.broken_files} item file(s) did not load and are left out; "
            "run 'sysdrill check' to see why."
        )
    return loaded


def _load_practice(study: StudyService, vault: Path | None, options: StartOptions) -> StudyVault:
    """What practice needs of the vault: only the items it can choose, when it can tell."""
    from sysdrill.app.practice_vault import open_practice_vault
    from sysdrill.content.cache import default_cache_dir
    from sysdrill.content.sample import default_vault_path

    loaded = open_practice_vault(
        study,
        vault or default_vault_path(),
        item_filter=options.item_filter,
        limit=options.limit,
        now=_clock(),
        cache_dir=default_cache_dir(),
    )
    return _warn_broken(loaded)


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


@contextmanager
def _study(db: str | None, loaded: StudyVault | VaultIdentity) -> Iterator[StudyService]:
    from sysdrill.app.study import open_cli_study

    with open_cli_study(db, vault=loaded) as study:
        yield study


def _run(
    study: StudyService,
    loaded: StudyVault,
    options: StartOptions,
    answers: Path | None,
    *,
    resume_id: int | None = None,
) -> None:
    """Start the session (or go on with ``resume_id``), then drive it.

    The terminal UI drives it on a terminal, else the line mode. A practice left
    with Ctrl-C stays in progress: one line says how to resume it, exit 130.
    """
    try:
        _drive(study, loaded, options, answers, resume_id=resume_id)
    except KeyboardInterrupt:
        from sysdrill.app.resume import find_unfinished

        kept = find_unfinished(study, options, now=_clock())
        if kept is None:
            raise  # not kept (not a practice): the session was finished, "Aborted."
        typer.echo(
            f"Interrupted: your practice is kept ({kept.done} of {kept.items} items done). "
            "Run the same command to resume it, or add --new-session to start afresh."
        )
        raise typer.Exit(130) from None


def _drive(
    study: StudyService,
    loaded: StudyVault,
    options: StartOptions,
    answers: Path | None,
    *,
    resume_id: int | None,
) -> None:
    from sysdrill.app.sessions import drive_session, start_session, undo_in_driver
    from sysdrill.study.sessions.answers import AnswerScript
    from sysdrill.study.sessions.line_mode import run_scripted

    if answers is None and sys.stdin.isatty():
        from sysdrill.cli.tui import run_tui

        run = run_tui(study, loaded, options, clock=_clock, session_id=resume_id)
        for line in run.lines:
            typer.echo(line)
        if run.interrupted:
            raise typer.Exit(130)  # Ctrl+C: saved and reported, but interrupted (README)
        return
    session_id = resume_id
    if session_id is None:
        started = start_session(study, loaded, options, now=_clock())
        if started.note:
            typer.echo(f"Note: {started.note}.")
        if started.session_id is None:
            typer.echo(started.empty_message or "")
            return
        session_id = started.session_id
    with ExitStack() as stack:
        if answers is not None:
            handle = stack.enter_context(answers.open(encoding="utf-8"))
            script = AnswerScript(handle, name=answers.name)
        else:
            script = AnswerScript(sys.stdin, name="<stdin>")
        driven = session_id
        drive_session(
            study,
            loaded,
            driven,
            drive=lambda session: run_scripted(
                session,
                script,
                typer.echo,
                undo=lambda: undo_in_driver(study, loaded, driven, clock=_clock),
            ),
            clock=_clock,
        )


def _resume_or_end(
    study: StudyService, vault: Path | None, options: StartOptions, *, new_session: bool
) -> tuple[StudyVault | None, int | None]:
    """Find a practice left unfinished: resume it, or end it under ``--new-session``.

    Returns:
        The whole vault, loaded, when an unfinished session was found (its items
        may not be among those a new practice would load), and the id of the
        session to resume (None to start a new one).
    """
    from sysdrill.app.resume import find_unfinished
    from sysdrill.app.sessions import finish

    unfinished = find_unfinished(study, options, now=_clock())
    if unfinished is None:
        return None, None
    loaded = _load(vault)
    done = f"{unfinished.done} of {unfinished.items} items done"
    if new_session:
        finish(study, loaded, unfinished.session_id, now=_clock())
        typer.echo(f"Ended your unfinished practice ({done}, reviews kept); starting a new one.")
        return loaded, None
    started = unfinished.started_at.strftime("%Y-%m-%d %H:%M UTC")
    typer.echo(
        f"Resuming your unfinished practice of {started} ({done}); "
        "add --new-session to start afresh."
    )
    return loaded, unfinished.session_id


def practice(
    deck: DeckOption = None,
    track: TrackOption = None,
    level: LevelOption = None,
    zone: ZoneOption = None,
    topic: TopicOption = None,
    area: AreaOption = None,
    tag: TagOption = None,
    limit: Annotated[
        int,
        typer.Option("--limit", min=1, max=MAX_SESSION_ITEMS, help="Items in the session at most."),
    ] = 20,
    new: NewOption = None,
    deadline: Annotated[
        str | None,
        typer.Option(
            "--deadline",
            help="Interview date (YYYY-MM-DD): saved, then intervals end before it "
            "('none' turns deadline mode off).",
        ),
    ] = None,
    new_session: Annotated[
        bool,
        typer.Option(
            "--new-session",
            help="Start a new session even if a practice with the same options was left "
            "unfinished (that one is ended, its reviews kept); by default it is resumed.",
        ),
    ] = False,
    vault: VaultOption = None,
    db: DbOption = None,
    answers: AnswersOption = None,
) -> None:
    """Practise with spaced repetition: due reviews first, then new items.

    A practice left unfinished (Ctrl-C, a closed terminal) with the same options
    is resumed where it stopped.
    """
    from sysdrill.app.deadlines import parse_deadline, refuse_past_deadline, set_deadline
    from sysdrill.app.sessions import StartOptions
    from sysdrill.content.loader import check_vault_root
    from sysdrill.errors import SchedulingError, UsageError
    from sysdrill.study.sessions.state_machine import SessionKind

    if deadline is not None:
        try:
            parse_deadline(deadline)
        except UsageError as exc:
            raise typer.BadParameter(str(exc), param_hint="--deadline") from exc
        refuse_past_deadline(deadline, now=_clock())  # one Error: line, nothing saved
    if vault is not None:
        check_vault_root(vault)  # a wrong folder is reported before the database is opened
    options = StartOptions(
        SessionKind.PRACTICE,
        _filter(deck, track, level, zone, topic, area, tag),
        limit=limit,
        new_limit=new,
    )
    from sysdrill.app.study import adopt_earlier_state
    from sysdrill.content.sample import default_vault_path
    from sysdrill.content.vault_identity import read_vault_identity

    # The vault's identity is enough to open its study state; which items are
    # loaded depends on that state (practice alone needs only what it can ask).
    with _study(db, read_vault_identity(vault or default_vault_path())) as study:
        resumed_vault, resume_id = _resume_or_end(study, vault, options, new_session=new_session)
        # Setting a deadline plans the whole vault's workload; practice alone needs less.
        if resumed_vault is not None:
            loaded = resumed_vault
        elif deadline is not None:
            loaded = _load(vault)
        else:
            loaded = _load_practice(study, vault, options)
        adopt_earlier_state(study, loaded)
        if deadline is not None:
            try:
                saved = set_deadline(
                    study, loaded, deadline, item_filter=options.item_filter, now=_clock()
                )
            except SchedulingError as exc:
                # A deadline today is saved all the same (a past one was refused); practice goes on.
                typer.echo(f"Note: {exc}")
                saved = None
            if saved is None:
                pass
            elif saved.deadline is None:
                typer.echo("Deadline mode is off.")
            else:
                typer.echo(
                    f"Deadline {saved.deadline.isoformat()}: {saved.days_left} day(s) left, "
                    f"about {saved.reviews_total} reviews in all, "
                    f"at most {saved.reviews_peak} a day."
                )
        _run(study, loaded, options, answers, resume_id=resume_id)


def quiz(
    deck: Annotated[str, typer.Argument(help="Deck name (decks.yaml, or an item's deck field).")],
    new: NewOption = None,
    vault: VaultOption = None,
    db: DbOption = None,
    answers: AnswersOption = None,
) -> None:
    """Take a deck in order, with a score at the end."""
    from sysdrill.app.sessions import StartOptions
    from sysdrill.study.filters import ItemFilter
    from sysdrill.study.sessions.state_machine import SessionKind

    loaded = _load(vault)
    with _study(db, loaded) as study:
        options = StartOptions(SessionKind.QUIZ, ItemFilter(deck=deck), new_limit=new)
        _run(study, loaded, options, answers)


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
        typer.Option(
            "--seed", min=0, max=MAX_SEED, help="Seed of the random picks, to repeat a gauntlet."
        ),
    ] = None,
    vault: VaultOption = None,
    db: DbOption = None,
    answers: AnswersOption = None,
) -> None:
    """Take a timed mock interview, self-scored against key points."""
    from sysdrill.app.sessions import StartOptions
    from sysdrill.study.filters import ItemFilter
    from sysdrill.study.sessions.gauntlet import GauntletFormat
    from sysdrill.study.sessions.state_machine import SessionKind

    try:
        chosen = GauntletFormat(fmt.lower())
    except ValueError as exc:
        known = ", ".join(f.value for f in GauntletFormat)
        raise typer.BadParameter(
            f"{fmt!r} is not a gauntlet format; use one of {known}.", param_hint="--format"
        ) from exc
    loaded = _load(vault)
    options = StartOptions(
        SessionKind.GAUNTLET,
        ItemFilter(track=track, level=level),
        gauntlet_format=chosen,
        seed=seed,
    )
    with _study(db, loaded) as study:
        _run(study, loaded, options, answers)


def chain(
    chain_id: Annotated[
        str, typer.Argument(metavar="ID", help="Chain id from chains.yaml or chains.json.")
    ],
    vault: VaultOption = None,
    db: DbOption = None,
    answers: AnswersOption = None,
) -> None:
    """Walk a chain from recall to architecture, one item after another."""
    from sysdrill.app.sessions import StartOptions
    from sysdrill.study.sessions.state_machine import SessionKind

    loaded = _load(vault)
    with _study(db, loaded) as study:
        _run(study, loaded, StartOptions(SessionKind.CHAIN, chain_id=chain_id), answers)


def daily(
    deck: DeckOption = None,
    track: TrackOption = None,
    level: LevelOption = None,
    zone: ZoneOption = None,
    topic: TopicOption = None,
    area: AreaOption = None,
    tag: TagOption = None,
    new: NewOption = None,
    vault: VaultOption = None,
    db: DbOption = None,
    answers: AnswersOption = None,
) -> None:
    """Three items a day: the same filters give the same items all day."""
    from sysdrill.app.practice_vault import open_daily_vault
    from sysdrill.app.sessions import StartOptions
    from sysdrill.content.cache import default_cache_dir
    from sysdrill.content.sample import default_vault_path
    from sysdrill.study.sessions.state_machine import SessionKind

    options = StartOptions(
        SessionKind.DAILY, _filter(deck, track, level, zone, topic, area, tag), new_limit=new
    )
    with ExitStack() as stack:
        with kept_until_exit():
            # The day's items and their chains only: the catalogue tells which they are.
            loaded = _warn_broken(
                open_daily_vault(
                    vault or default_vault_path(),
                    item_filter=options.item_filter,
                    now=_clock(),
                    cache_dir=default_cache_dir(),
                )
            )
            study = stack.enter_context(_study(db, loaded))
        _run(study, loaded, options, answers)


def register(app: typer.Typer) -> None:
    """Add the session commands to the app."""
    app.command("practice")(practice)
    app.command("quiz")(quiz)
    app.command("gauntlet")(gauntlet)
    app.command("chain")(chain)
    app.command("daily")(daily)
