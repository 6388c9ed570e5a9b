"""Study sessions as use cases: start, prompt, answer, rate, skip, undo, finish.

The CLI and the web app call these functions and nothing else to run a
session. Each takes an open study service, the vault and the time, loads the
session in progress from the database, makes one move and returns a frozen
view with ``to_dict()``; the move is saved before the function returns, so
the next call may come from another process (a web worker, a restarted
server, the CLI). Typical use::

    vault = open_study_vault(path)
    with open_study(db_url, vault=vault) as study:
        view = start_session(study, vault, StartOptions(kind=SessionKind.PRACTICE), now=now)
        view = rate(study, vault, view.session_id, "good", now=now)

Sessions with nothing to ask are not saved: the view then has no
``session_id`` and ``empty_message`` says why.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import replace
from datetime import datetime
from typing import Any

from sysdrill.app.deadlines import set_deadline
from sysdrill.app.live_session import LiveSession, card_from_dict, restore_session, save_new
from sysdrill.app.resume import RESUMABLE_KINDS
from sysdrill.app.session_lineups import StartOptions, assemble_lineup
from sysdrill.app.session_records import finished_report, list_sessions
from sysdrill.app.session_views import (
    ChainOfferView,
    DeadlineView,
    FeedbackView,
    ItemPrompt,
    ReportView,
    SessionView,
    report_view,
)
from sysdrill.app.study_vault import StudyVault
from sysdrill.app.template_draws import drawn_vault, template_draws, with_template_draws
from sysdrill.app.worker_memory import WorkerMemory
from sysdrill.errors import ContentInvalid, SessionNotFound, UsageError
from sysdrill.napkin.diagrams import answer_diagram, question_diagram
from sysdrill.study.clock import require_utc
from sysdrill.study.ratings import Rating, rating_on_scale
from sysdrill.study.service import StudyService
from sysdrill.study.sessions.report import build_report, recorded_line
from sysdrill.study.sessions.saved import SavedSession
from sysdrill.study.sessions.state_machine import (
    AnswerMode,
    Clock,
    Feedback,
    Phase,
    Session,
    SessionKind,
)
from sysdrill.study.sessions.view import item_view, reveal_sections

__all__ = [
    "ChainOfferView",
    "DeadlineView",
    "FeedbackView",
    "ItemPrompt",
    "ReportView",
    "SessionKind",
    "SessionView",
    "StartOptions",
    "answer",
    "answer_part",
    "current_prompt",
    "drive_session",
    "finish",
    "finished_report",
    "follow_chain",
    "list_sessions",
    "load_session",
    "rate",
    "reveal",
    "score_rubric",
    "set_deadline",
    "skip",
    "start_session",
    "template_draws",
    "undo_last_rating",
    "undo_in_driver",
]


# -- views ---------------------------------------------------------------------------


def _prompt(session: Session, *, part_answers: list[str]) -> ItemPrompt | None:
    item = session.current
    mode = session.mode
    if item is None or mode is None:
        return None
    view = item_view(item)
    revealed = session.phase is Phase.RUBRIC or session.revealed
    return ItemPrompt(
        item_id=item.id,
        heading=view.heading,
        meta=view.meta,
        scenario=view.scenario,
        question=view.question,
        options=view.options,
        unit_hint=view.unit_hint,
        mode=mode.value,
        warmup=session.is_warmup,
        parts=tuple((part.label, part.text) for part in view.parts),
        part_answers=tuple(part_answers),
        reveal=tuple(reveal_sections(item)) if revealed else (),
        given_answer=session.given_answer,
        diagram=question_diagram(item),
        answer_diagram=answer_diagram(item) if revealed else None,
        diagram_caption=item.diagram.caption if item.diagram is not None else None,
    )


def _view(
    session: Session,
    saved: SavedSession,
    *,
    now: datetime,
    feedback: FeedbackView | None = None,
    part_answers: list[str] | None = None,
) -> SessionView:
    last = session.results[-1] if session.results else None
    if feedback is None and saved.moves and saved.moves[-1].get("move") == "answer":
        # The page after an answer, shown again on a reload (post, redirect, get).
        feedback = _feedback(session, session.last_feedback)
    offer = session.chain_offer if session.phase is Phase.CHAIN else None
    remaining = session.remaining() if session.phase is not Phase.DONE else None
    return SessionView(
        session_id=int(saved.session_id),
        kind=saved.kind,
        title=session.plan.title,
        phase=session.phase.value,
        position=min(session.position, session.total),
        total=session.total,
        done=len(session.results),
        item=_prompt(session, part_answers=part_answers or []),
        rubric_points=session.rubric.points
        if session.rubric and session.phase is Phase.RUBRIC
        else (),
        chain_offer=None
        if offer is None
        else ChainOfferView(
            chain_id=offer.chain.id,
            chain_title=offer.chain.title or offer.chain.id,
            item_id=offer.item.id,
            item_title=item_view(offer.item).heading,
        ),
        feedback=feedback,
        recorded=None if last is None else recorded_line(last),
        remaining_seconds=None if remaining is None else max(0.0, remaining.total_seconds()),
        deadline=session.deadline,
        can_undo=any(move.get("review_id") is not None for move in saved.moves),
        report=report_view(build_report(session)) if session.phase is Phase.DONE else None,
        options=dict(saved.options.get("started_with", {})),
        note=saved.options.get("note"),
        rating_scale=session.plan.rating_scale.value,
        revealed=session.revealed,
        rating_choices=session.rating_choices(),
    )


def _feedback(session: Session, given: Feedback | None) -> FeedbackView | None:
    if given is None:
        return None
    why = None
    if given.correct is not None and session.results:
        solution = session.results[-1].item.details.realistic_solution
        why = solution.strip() if solution else None
    return FeedbackView(
        correct=given.correct, message=given.message, timed_out=given.timed_out, why=why
    )


def _after(live: Any, *, now: datetime, feedback: FeedbackView | None = None) -> SessionView:
    return _view(live, live.saved, now=now, feedback=feedback, part_answers=live.part_answers)


# -- the use cases -----------------------------------------------------------------------


def start_session(
    study: StudyService,
    vault: StudyVault,
    options: StartOptions,
    *,
    now: datetime,
    memory: WorkerMemory | None = None,
) -> SessionView:
    """Plan a session of ``options.kind`` and save it as a session in progress.

    Args:
        study: The learner's study service.
        vault: The vault studied.
        options: The kind and the options it is started with.
        now: Current time (UTC).
        memory: What the web worker keeps: the session's machine is kept there.

    Returns:
        The first prompt; or, when the plan has nothing to ask, a view with
        ``session_id`` None and ``empty_message`` saying why (nothing saved).

    Raises:
        DeckNotFound: If a deck named in the options does not exist.
        ChainNotFound: If the chain does not exist.
        UsageError: If a quiz has no deck or a chain walk no chain id.
    """
    moment = require_utc(now)
    assembled = assemble_lineup(study, vault, options, now=moment)
    # One scale for the whole session: the setting as it stands at the start.
    plan = replace(assembled.plan, rating_scale=study.settings.rating_scale)
    note = assembled.note
    if assembled.empty_message is not None:
        return SessionView.empty(options.kind.value, plan.title, assembled.empty_message, note=note)
    seed = options.seed if options.seed is not None else int(moment.timestamp() * 1000)
    plan, started_with = with_template_draws(plan, options.to_dict(), seed)
    saved = save_new(study, plan, started_with=started_with, now=moment, note=note)
    live = restore_session(study, drawn_vault(vault, saved), saved, clock=lambda: moment)
    if memory is not None:
        memory.keep_session(study, vault, live)
    return _after(live, now=moment)


def load_session(
    study: StudyService,
    vault: StudyVault,
    session_id: int,
    *,
    now: datetime,
    memory: WorkerMemory | None = None,
) -> LiveSession:
    """The session in progress, its machine ready for the next move.

    The machine ``memory`` kept after the session's last move is used when the
    database still holds the session at the revision and start time it was kept
    at (two small columns); otherwise the session is read and its moves replayed.

    Raises:
        SessionNotFound: If no session with that id is in progress.
    """
    moment = require_utc(now)
    live = None if memory is None else memory.take_session(study, vault, session_id)
    # A session id may be used again once its session is deleted (SQLite reuses the
    # highest): the start time tells the two apart where the revision cannot.
    if live is not None and study.store.active_session_stamp(study.scope, session_id) == (
        live.saved.revision,
        live.saved.started_at,
    ):
        live.rebind(study, clock=lambda: moment)
        return live
    saved = study.store.get_active_session(study.scope, session_id)
    if saved is None:
        raise SessionNotFound(
            f"No session {session_id} in progress: it ended, or never began. Start a "
            "new one, or go on with one listed under Continue where you stopped."
        )
    return restore_session(study, drawn_vault(vault, saved), saved, clock=lambda: moment)


def _kept(
    memory: WorkerMemory | None, study: StudyService, vault: StudyVault, live: LiveSession
) -> LiveSession:
    """Keep ``live`` (its move stored) for the session's next move, and return it."""
    if memory is not None:
        memory.keep_session(study, vault, live)
    return live


def current_prompt(
    study: StudyService,
    vault: StudyVault,
    session_id: int,
    *,
    now: datetime,
    memory: WorkerMemory | None = None,
) -> SessionView:
    """Return where a session in progress stands (a countdown that ran out ends it).

    Raises:
        SessionNotFound: If no session with that id is in progress.
    """
    live = load_session(study, vault, session_id, now=now, memory=memory)
    live.tick()
    return _after(_kept(memory, study, vault, live), now=now)


def answer(
    study: StudyService,
    vault: StudyVault,
    session_id: int,
    text: str,
    *,
    now: datetime,
    memory: WorkerMemory | None = None,
) -> SessionView:
    """Answer the current item: an option letter or number, a number with a unit, or text.

    Options and numbers are graded at once (the feedback says whether it was
    right); free text shows the model answer and waits for a rating.

    Raises:
        SessionNotFound: If no session with that id is in progress.
        UsageError: If the session does not wait for an answer, or the option is unknown.
        StorageConflict: If another request moved the session on meanwhile.
    """
    live = load_session(study, vault, session_id, now=now, memory=memory)
    given = live.answer(text)
    return _after(_kept(memory, study, vault, live), now=now, feedback=_feedback(live, given))


def answer_part(
    study: StudyService,
    vault: StudyVault,
    session_id: int,
    text: str,
    *,
    now: datetime,
    memory: WorkerMemory | None = None,
) -> SessionView:
    """Answer the next part of the current exercise; the last part answers the item.

    Raises:
        SessionNotFound: If no session with that id is in progress.
        UsageError: If the session does not wait for an answer or the item has no parts.
    """
    live = load_session(study, vault, session_id, now=now, memory=memory)
    item = live.current
    if live.phase is not Phase.ANSWER or item is None or not item.parts:
        raise UsageError("The current item has no parts to answer one by one.")
    if live.mode is not AnswerMode.FREE_TEXT:
        raise UsageError("Answer this item as a whole: it is graded automatically.")
    live.answer_part(text)
    feedback = _feedback(live, live.last_feedback) if not live.part_answers else None
    return _after(_kept(memory, study, vault, live), now=now, feedback=feedback)


def rate(
    study: StudyService,
    vault: StudyVault,
    session_id: int,
    rating: str | Rating,
    *,
    now: datetime,
    memory: WorkerMemory | None = None,
) -> SessionView:
    """Grade your recall on the session's scale.

    ``rating`` is a key of the scale (``1``-``4``, or ``1``-``5`` on the confidence
    scale) or a rating's name (``again``/``hard``/``good``/``easy``).
    The review and the move are written in one transaction, once.

    Raises:
        SessionNotFound: If no session with that id is in progress.
        UsageError: If no rating is awaited, the answer is not shown yet (a
            flashcard's back: :func:`reveal` first) or the rating is unknown.
        CardChanged: If another session reviewed the item meanwhile (nothing written).
        StorageConflict: If another request moved the session on meanwhile.
    """
    live = load_session(study, vault, session_id, now=now, memory=memory)
    chosen = (
        rating if isinstance(rating, Rating) else rating_on_scale(rating, live.plan.rating_scale)
    )
    live.rate(chosen)
    return _after(_kept(memory, study, vault, live), now=now)


def reveal(
    study: StudyService,
    vault: StudyVault,
    session_id: int,
    *,
    now: datetime,
    memory: WorkerMemory | None = None,
) -> SessionView:
    """Show the back of the flashcard in front of the learner; its rating choices follow.

    Showing a back already shown changes nothing.

    Raises:
        SessionNotFound: If no session with that id is in progress.
        UsageError: If the session waits for something else than a rating.
    """
    live = load_session(study, vault, session_id, now=now, memory=memory)
    live.reveal()
    return _after(_kept(memory, study, vault, live), now=now)


def score_rubric(
    study: StudyService,
    vault: StudyVault,
    session_id: int,
    covered: Collection[int],
    *,
    now: datetime,
    memory: WorkerMemory | None = None,
) -> SessionView:
    """Score a gauntlet answer by the key points it covered (0-based indexes).

    Raises:
        SessionNotFound: If no session with that id is in progress.
        UsageError: If no rubric is awaited.
    """
    live = load_session(study, vault, session_id, now=now, memory=memory)
    live.score_rubric(covered)
    return _after(_kept(memory, study, vault, live), now=now)


def follow_chain(
    study: StudyService,
    vault: StudyVault,
    session_id: int,
    accept: bool,
    *,
    now: datetime,
    memory: WorkerMemory | None = None,
) -> SessionView:
    """Take (or decline) the next item of the chain offered.

    Raises:
        SessionNotFound: If no session with that id is in progress.
        UsageError: If nothing is offered.
    """
    live = load_session(study, vault, session_id, now=now, memory=memory)
    live.follow_chain(accept)
    return _after(_kept(memory, study, vault, live), now=now)


def skip(
    study: StudyService,
    vault: StudyVault,
    session_id: int,
    *,
    now: datetime,
    memory: WorkerMemory | None = None,
) -> SessionView:
    """Leave the current item without a review (or decline a chain offer).

    Raises:
        SessionNotFound: If no session with that id is in progress.
        UsageError: If the session is over.
    """
    live = load_session(study, vault, session_id, now=now, memory=memory)
    live.skip()
    return _after(_kept(memory, study, vault, live), now=now)


def undo_last_rating(
    study: StudyService,
    vault: StudyVault,
    session_id: int,
    *,
    now: datetime,
    memory: WorkerMemory | None = None,
) -> SessionView:
    """Take back the last review of the session: the item is asked again.

    The review is deleted and the item's card put back as it was; moves made
    after it (a skip, a chain offer taken) are taken back too. One transaction.

    Raises:
        SessionNotFound: If no session with that id is in progress.
        UsageError: If the session has no review to take back.
    """
    saved = load_session(study, vault, session_id, now=now, memory=memory).saved
    moves = list(saved.moves)
    last = max(
        (i for i, move in enumerate(moves) if move.get("review_id") is not None), default=None
    )
    if last is None:
        raise UsageError("Nothing to undo: no item of this session has been rated yet.")
    move = moves[last]
    before = move.get("card_before")
    # The item is asked again from its front: a flashcard's reveal goes with its rating.
    first = last - 1 if last > 0 and moves[last - 1].get("move") == "reveal" else last
    kept = tuple(moves[:first])
    moment = require_utc(now)
    rolled = replace(saved, moves=kept, updated_at=moment, revision=saved.revision + 1)
    live = restore_session(
        study, drawn_vault(vault, rolled), replace(rolled, moves=()), clock=lambda: moment
    )
    live.replay(kept)
    live.saved = replace(rolled, position=len(live.results))
    study.undo_review(
        int(move["review_id"]),
        card=None if before is None else card_from_dict(before),
        session=live.saved,
    )
    live.read_cards()  # the undone item's card is the one from before its review again
    return _after(_kept(memory, study, vault, live), now=now)


def finish(
    study: StudyService,
    vault: StudyVault,
    session_id: int,
    *,
    now: datetime,
    memory: WorkerMemory | None = None,
) -> ReportView:
    """End a session: items not reached are reported so, the score is stored.

    The session leaves the sessions in progress; its record keeps the summary.

    A session that cannot be resumed any more (the vault lost or changed its
    items) is ended all the same, with the reviews already given and an empty report.

    Raises:
        SessionNotFound: If no session with that id is in progress.
    """
    try:
        live = load_session(study, vault, session_id, now=now, memory=memory)
    except ContentInvalid as exc:
        return _abandon(study, session_id, reason=str(exc), now=now)
    live.quit()
    report = build_report(live)
    view = report_view(report)
    study.finish_session(
        live.session_id,
        now=live.ended_at or require_utc(now),
        summary={**report.to_summary(), "report": view.to_dict()},
    )
    study.store.delete_active_session(study.scope, live.session_id)
    return view


def _abandon(study: StudyService, session_id: int, *, reason: str, now: datetime) -> ReportView:
    saved = study.store.get_active_session(study.scope, session_id)
    assert saved is not None
    title = str(saved.options.get("title", saved.kind))
    view = ReportView(
        kind=saved.kind,
        title=title,
        answered=0,
        passed=0,
        skipped=0,
        not_reached=0,
        score_percent=None,
        elapsed_seconds=round((saved.updated_at - saved.started_at).total_seconds()),
        time_limit_seconds=None,
        zones=(),
        results=(),
        lines=(f"{title}: ended", reason),
    )
    study.finish_session(
        saved.session_id,
        now=require_utc(now),
        summary={"abandoned": reason, "report": view.to_dict()},
    )
    study.store.delete_active_session(study.scope, saved.session_id)
    return view


def drive_session(
    study: StudyService,
    vault: StudyVault,
    session_id: int,
    *,
    drive: Callable[[Session], object],
    clock: Clock,
) -> ReportView:
    """Hand a session in progress to an interactive driver, then finish it.

    ``drive`` (the scripted line mode, the terminal interface) makes moves on
    the session it is given; each is saved as it is made. However ``drive``
    returns (the end of the items, a quit, an exception, a closed window), the
    session is finished with the reviews already given; but a practice that
    ``drive`` leaves with ``KeyboardInterrupt`` (Ctrl-C) stays in progress, to be
    resumed at the next start (:mod:`sysdrill.app.resume`).

    Raises:
        SessionNotFound: If no session with that id is in progress.
        KeyboardInterrupt: As ``drive`` raised it.
    """
    live = load_session(study, vault, session_id, now=clock())
    live.use_clock(clock)
    kept = False
    try:
        drive(live)
    except KeyboardInterrupt:
        kept = live.plan.kind in RESUMABLE_KINDS
        raise
    finally:
        if not kept:
            report = finish(study, vault, session_id, now=clock())
    return report


def undo_in_driver(
    study: StudyService, vault: StudyVault, session_id: int, *, clock: Clock
) -> Session:
    """Take back the last review (see :func:`undo_last_rating`) for an interactive driver.

    Returns:
        The session as it stands after the undo, to drive on from (the one the
        driver held is out of date).

    Raises:
        UsageError: If the session has no review to take back.
    """
    undo_last_rating(study, vault, session_id, now=clock())
    live = load_session(study, vault, session_id, now=clock())
    live.use_clock(clock)
    return live
