"""Mock interviews, the use cases the terminal and the browser share.

:func:`start_interview` picks the ladder (:mod:`sysdrill.app.interview_ladder`),
records a study session and the interviewer's first question. Each learner turn
goes through :func:`interview_turn`, a generator of events: the reply's text as
it streams (from the model endpoint, or the built-in conductor's at once), a
notice when the endpoint fails, and the finished turn. The turn is judged by
us (key points and the napkin engine, :mod:`sysdrill.study.interview_assess`)
whoever conducts; a model's JSON block may choose the intent and the scores,
and the rubric's stand in when it is missing or malformed. Each turn is saved
with its verdicts, and each item the interview leaves is reviewed through the
study service (FSRS), graded by ``interview``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sysdrill.app.interview_ladder import InterviewPick, pick_ladder
from sysdrill.app.study_vault import StudyVault
from sysdrill.content.models import Item
from sysdrill.errors import ModelUnavailable, QuestionNotFound, SessionNotFound, UsageError
from sysdrill.storage.interview_store import InterviewRow, InterviewStore, TurnRow
from sysdrill.storage.location import study_database_url
from sysdrill.study.clock import require_utc
from sysdrill.study.interview import (
    Intent,
    InterviewState,
    LearnerMove,
    Reply,
    decide,
    judge,
    opening,
    read_move,
    respond,
    start_state,
)
from sysdrill.study.interview_assess import Assessment
from sysdrill.study.interview_prompt import (
    ChatMessage,
    ReplyFilter,
    build_messages,
    parse_turn,
    visible_text,
)
from sysdrill.study.ratings import GradedBy
from sysdrill.study.service import StudyService
from sysdrill.study.user_state import SessionId

if TYPE_CHECKING:
    from sysdrill.app.llm_client import ChatClient, EndpointConfig

__all__ = [
    "INTERVIEW_SESSION_KIND",
    "MAX_ANSWER_CHARS",
    "EndpointNotice",
    "InterviewView",
    "ReplyText",
    "TurnDone",
    "TurnEvent",
    "TurnOutcome",
    "check_interview_id",
    "interview_row",
    "interview_turn",
    "interview_view",
    "list_interviews",
    "open_interviews",
    "start_interview",
]

INTERVIEW_SESSION_KIND = "interview"
"""The kind of the study session an interview's reviews belong to."""
MAX_ANSWER_CHARS = 8000
"""Longest learner turn taken, in characters."""
INTERVIEWER = "interviewer"
LEARNER = "learner"


def open_interviews(db_url: str | None) -> InterviewStore:
    """The interview records of the study database (a ``with`` block).

    Raises:
        MigrationError: If the schema is behind (run ``sysdrill db upgrade``).
        StorageError: If the database cannot be opened.
    """
    return InterviewStore(study_database_url(db_url))


@dataclass(frozen=True, slots=True)
class InterviewView:
    """An interview as a page or the terminal shows it."""

    id: int
    title: str
    conductor: str
    endpoint: str
    model_name: str
    closed: bool
    position: int
    """0-based index of the item being asked."""
    total: int
    """Items on the ladder."""
    turns: tuple[TurnRow, ...]
    started_at: datetime

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "id": self.id,
            "title": self.title,
            "conductor": self.conductor,
            "endpoint": self.endpoint or None,
            "model": self.model_name or None,
            "closed": self.closed,
            "position": self.position,
            "total": self.total,
            "started_at": self.started_at.isoformat(),
            "turns": [turn.to_dict() for turn in self.turns],
        }


def _view(row: InterviewRow, turns: list[TurnRow]) -> InterviewView:
    state = InterviewState.from_dict(row.state)
    return InterviewView(
        id=row.id,
        title=row.title,
        conductor=row.conductor,
        endpoint=row.endpoint,
        model_name=row.model_name,
        closed=state.closed,
        position=state.position,
        total=len(state.progress),
        turns=tuple(turns),
        started_at=row.started_at,
    )


def start_interview(
    study: StudyService,
    vault: StudyVault,
    store: InterviewStore,
    pick: InterviewPick,
    *,
    now: datetime,
    endpoint: EndpointConfig | None,
    seed: int | None = None,
) -> InterviewView:
    """Start an interview on ``pick``: its session, its ladder, the first question.

    Args:
        study: The learner's study service.
        vault: The vault studied.
        store: The interview records.
        pick: A chain, topic or plan.
        now: Start time (UTC).
        endpoint: The model endpoint that will conduct it; None for the built-in conductor.
        seed: Chooses among a topic's or plan's chains (the start time when None).

    Raises:
        ChainNotFound, PlanNotFound, UsageError: If the pick has nothing to ask.
    """
    moment = require_utc(now)
    ladder = pick_ladder(vault, pick, seed=int(moment.timestamp()) if seed is None else seed)
    first = ladder.items[0]
    state = start_state([item.id for item in ladder.items])
    session_id = study.start_session(
        INTERVIEW_SESSION_KIND,
        now=moment,
        meta={"pick": pick.kind.value, "name": pick.name, "items": len(ladder.items)},
    )
    asked = TurnRow(INTERVIEWER, Intent.ASK.value, first.id, opening(first), None, "rubric", moment)
    interview_id = store.create_interview(
        study.scope,
        session_id=int(session_id),
        pick_kind=pick.kind.value,
        pick_name=pick.name,
        title=ladder.title,
        state=state.to_dict(),
        conductor="rubric" if endpoint is None else "model",
        endpoint="" if endpoint is None else endpoint.base_url,
        model_name="" if endpoint is None else endpoint.model,
        turns=[asked],
        now=moment,
    )
    return interview_view(study, store, interview_id)


def interview_row(study: StudyService, store: InterviewStore, interview_id: int) -> InterviewRow:
    """The learner's stored interview.

    Raises:
        SessionNotFound: If the learner has no interview with that id in this vault.
    """
    row = store.get_interview(study.scope, interview_id)
    if row is None:
        raise SessionNotFound(
            f"No interview {interview_id} of yours in this vault; start one with `sysdrill "
            "interview` or on the Interview page."
        )
    return row


def interview_view(study: StudyService, store: InterviewStore, interview_id: int) -> InterviewView:
    """The learner's interview with its turns.

    Raises:
        SessionNotFound: If the learner has no interview with that id in this vault.
    """
    row = interview_row(study, store, interview_id)
    return _view(row, store.turns_of(study.scope, interview_id))


def list_interviews(study: StudyService, store: InterviewStore) -> list[dict[str, Any]]:
    """The learner's interviews in this vault, newest first (JSON-ready summaries)."""
    listed = []
    for row in store.list_interviews(study.scope):
        state = InterviewState.from_dict(row.state)
        listed.append(
            {
                "id": row.id,
                "title": row.title,
                "conductor": row.conductor,
                "model": row.model_name or None,
                "closed": state.closed,
                "items": len(state.progress),
                "started_at": row.started_at.isoformat(),
            }
        )
    return listed


# -- turns ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReplyText:
    """A piece of the interviewer's reply, as it arrives."""

    text: str


@dataclass(frozen=True, slots=True)
class EndpointNotice:
    """The model endpoint failed this turn; the built-in conductor answers instead."""

    message: str


@dataclass(frozen=True, slots=True)
class TurnOutcome:
    """One finished exchange: the learner's turn and the interviewer's reply."""

    interview_id: int
    intent: Intent
    text: str
    """The whole reply the learner read."""
    source: str
    """``rubric``, ``model`` or ``rubric-fallback`` (the model's block was unusable)."""
    assessment: Assessment | None
    closed: bool
    item_id: str | None
    """The item asked now (the next one after an advance; None once closed)."""
    ratings: tuple[tuple[str, str], ...] = field(default=())
    """Items this turn left, with the rating each was reviewed with."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "interview_id": self.interview_id,
            "intent": self.intent.value,
            "text": self.text,
            "source": self.source,
            "assessment": None if self.assessment is None else self.assessment.to_dict(),
            "closed": self.closed,
            "item_id": self.item_id,
            "ratings": [{"item_id": i, "rating": r} for i, r in self.ratings],
        }


@dataclass(frozen=True, slots=True)
class TurnDone:
    """The turn is judged, saved and reviewed."""

    outcome: TurnOutcome


TurnEvent = ReplyText | EndpointNotice | TurnDone
"""What :func:`interview_turn` yields."""


def _item(vault: StudyVault, item_id: str) -> Item:
    found = vault.by_id.get(item_id)
    if found is None:
        raise QuestionNotFound(
            f"Item {item_id} of this interview is no longer in the vault; start a new interview."
        )
    return found


def _history(turns: list[TurnRow]) -> list[ChatMessage]:
    return [
        ChatMessage("assistant" if turn.role == INTERVIEWER else "user", turn.text)
        for turn in turns
    ]


@dataclass(slots=True)
class _ModelReply:
    prose: str = ""
    intent: Intent | None = None
    scores: tuple[int, ...] | None = None
    failed: str | None = None


def _ask_model(
    chat: ChatClient,
    messages: list[ChatMessage],
    points: int,
    out: _ModelReply,
) -> Iterator[str]:
    """Stream the model's prose; fill ``out`` with its parsed block (or the failure)."""
    shown = ReplyFilter()
    try:
        for piece in chat.stream_reply(messages):
            visible = shown.feed(piece)
            if visible:
                yield visible
    except ModelUnavailable as exc:
        out.failed = str(exc)
        return
    out.prose = visible_text(shown.received)
    parsed = parse_turn(shown.received)
    if parsed is not None:
        out.intent = parsed.chosen_intent
        out.scores = parsed.scores_for(points)


def interview_turn(
    study: StudyService,
    vault: StudyVault,
    store: InterviewStore,
    interview_id: int,
    text: str,
    *,
    now: datetime,
    move: LearnerMove | None = None,
    chat: ChatClient | None = None,
) -> Iterator[TurnEvent]:
    """Take one learner turn and yield the interviewer's reply as it comes.

    Args:
        study: The learner's study service.
        vault: The vault studied.
        store: The interview records.
        interview_id: The interview.
        text: What the learner typed (``/hint``, ``? question`` and the like are
            read by :func:`~sysdrill.study.interview.read_move` when ``move`` is None).
        now: Time of the turn (UTC).
        move: What the turn is, when the page's buttons said it.
        chat: The model endpoint's client for an interview a model conducts
            (None: the built-in conductor answers).

    Yields:
        The reply's pieces, a notice if the endpoint failed, then the finished turn.

    Raises:
        SessionNotFound: If the learner has no interview with that id.
        UsageError: If the interview is over or the answer empty or too long.
        StorageConflict: If another window moved the interview on (nothing saved).
    """
    moment = require_utc(now)
    row = interview_row(study, store, interview_id)
    state = InterviewState.from_dict(row.state)
    if state.closed:
        raise UsageError("This interview is over; start a new one.")
    if move is None:
        move, text = read_move(text)
    else:
        text = text.strip()
    if len(text) > MAX_ANSWER_CHARS:
        raise UsageError(f"An answer holds {MAX_ANSWER_CHARS} characters at most.")
    if move in (LearnerMove.ANSWER, LearnerMove.CLARIFY) and not text:
        raise UsageError("Type an answer (or /hint, /skip, /end).")
    item = _item(vault, state.current.item_id)
    next_id = None if state.is_last else state.item_ids[state.position + 1]
    next_item = None if next_id is None else _item(vault, next_id)
    assessment = judge(item, move, text)
    intent = decide(state, move, assessment)
    source = "rubric"
    prose = ""
    if chat is not None and row.conductor == "model":
        turns = store.turns_of(study.scope, interview_id)
        points = assessment.points if assessment is not None else ()
        messages = build_messages(
            item=item,
            points=points or _points_of(item),
            history=_history(turns),
            move=move,
            learner_text=text,
            assessment=assessment,
            rubric_intent=intent,
            next_item=next_item,
        )
        got = _ModelReply()
        yield from (ReplyText(piece) for piece in _ask_model(chat, messages, len(points), got))
        if got.failed is not None:
            yield EndpointNotice(got.failed + " The built-in interviewer goes on.")
        else:
            prose = got.prose
            source = "model" if got.intent is not None else "rubric-fallback"
            if got.intent is not None and move in (LearnerMove.ANSWER, LearnerMove.HINT):
                intent = got.intent
            if got.scores is not None and assessment is not None:
                assessment = assessment.with_scores(got.scores)
            else:
                source = "rubric-fallback"
    new_state, reply = respond(
        state, item, move, text, intent=intent, assessment=assessment, next_item=next_item
    )
    if prose:
        tail = _tail(reply, next_item)
        if tail:
            yield ReplyText(tail)
        reply_text = prose + tail
    else:
        reply_text = reply.text
        yield ReplyText(reply_text)
    learner = TurnRow(LEARNER, move.value, item.id, text, None, "learner", moment)
    answered = TurnRow(
        INTERVIEWER,
        reply.intent.value,
        reply.item_id,
        reply_text,
        None if assessment is None else assessment.to_dict(),
        source,
        moment,
    )
    store.save_turns(
        study.scope,
        interview_id,
        revision=row.revision,
        state=new_state.to_dict(),
        turns=[learner, answered],
        now=moment,
        ended=new_state.closed,
    )
    rated = _review(study, store, row, reply, moment)
    if new_state.closed and row.session_id is not None:
        study.finish_session(
            SessionId(row.session_id), now=moment, summary=_summary(new_state, interview_id)
        )
    yield TurnDone(
        TurnOutcome(
            interview_id=interview_id,
            intent=reply.intent,
            text=reply_text,
            source=source,
            assessment=assessment,
            closed=new_state.closed,
            item_id=reply.item_id,
            ratings=rated,
        )
    )


def _points_of(item: Item) -> tuple[str, ...]:
    from sysdrill.study.sessions.rubric import build_rubric

    return build_rubric(item).points


def _tail(reply: Reply, next_item: Item | None) -> str:
    """What follows a model's prose: the next question, asked as the rubric asks it."""
    if reply.intent is Intent.ADVANCE and next_item is not None:
        level = f" ({next_item.level.value})" if next_item.level else ""
        return f"\n\nNext question{level}:\n\n{opening(next_item)}"
    if reply.intent is Intent.CLOSE:
        return "\n\nThat is the end of the interview. Thank you."
    return ""


def _review(
    study: StudyService,
    store: InterviewStore,
    row: InterviewRow,
    reply: Reply,
    moment: datetime,
) -> tuple[tuple[str, str], ...]:
    """Review each item the turn left (FSRS), timed from the question to now."""
    if not reply.ratings:
        return ()
    turns = store.turns_of(study.scope, row.id)
    rated = []
    for item_id, rating in reply.ratings:
        asked = next((t.created_at for t in turns if t.item_id == item_id), moment)
        answers = [t.text for t in turns if t.role == LEARNER and t.item_id == item_id]
        study.record_review(
            item_id,
            rating=rating,
            graded_by=GradedBy.INTERVIEW,
            answer=answers[-1] if answers else None,
            duration_ms=max(0, int((moment - asked).total_seconds() * 1000)),
            now=moment,
            session_id=None if row.session_id is None else SessionId(row.session_id),
        )
        rated.append((item_id, rating.name.lower()))
    return tuple(rated)


def _summary(state: InterviewState, interview_id: int) -> dict[str, Any]:
    asked = [p for p in state.progress if p.done]
    score = sum(p.best_fraction for p in asked) / len(asked) if asked else 0.0
    return {"interview": interview_id, "asked": len(asked), "score": round(score, 4)}


def check_interview_id(text: str) -> int:
    """An interview id typed in a URL or on the command line.

    Raises:
        UsageError: If it is not a positive whole number.
    """
    try:
        value = int(text)
    except ValueError:
        raise UsageError(f"An interview id is a whole number; got {text[:40]!r}.") from None
    if value < 1:
        raise UsageError(f"An interview id is 1 or more; got {value}.")
    return value
