"""The study sessions' JSON API: start, answer, rate and the other moves, as JSON.

The twins of the pages in :mod:`sysdrill.web.routes.study`, calling the same
``app.sessions`` use cases. Routes are matched in the order the app includes
them, and on a busy server most requests are moves in sessions: this router
comes first (:data:`sysdrill.web.routes.ROUTER_MODULES`), its moves first within it.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from sysdrill.app import sessions as app
from sysdrill.study.settings import MAX_DAILY_LIMIT
from sysdrill.web.auth import current_study, login_in_thread
from sysdrill.web.context import Context, WebContext
from sysdrill.web.json_api import json_route
from sysdrill.web.routes.study import (
    MAX_ID,
    Move,
    SessionIdPath,
    make_move,
    open_learner_study,
    start_options,
)

__all__ = ["router"]

router = APIRouter()


def _json_of(request: Request, context: WebContext, move: Move) -> dict[str, Any]:
    """Make ``move`` and return its view as JSON."""
    found: dict[str, Any] = make_move(request, context, move).to_dict()
    return found


class StartBody(BaseModel):
    """Options of a new session (names as in the start forms)."""

    kind: str = "practice"
    deck: str | None = None
    track: str | None = None
    level: str | None = None
    zone: str | None = None
    topic: str | None = None
    area: str | None = None
    tag: str | None = None
    limit: int = Field(default=20, ge=1, le=MAX_DAILY_LIMIT)
    format: str = "quick"
    seed: int | None = Field(default=None, ge=-MAX_ID, le=MAX_ID)
    chain: str | None = None
    new: int | None = Field(default=None, ge=0, le=MAX_DAILY_LIMIT)
    """New items this session at most (practice, quiz, daily); None: the day's limit."""


class TextBody(BaseModel):
    """An answer: option letter or number, a number with a unit, or free text."""

    text: str


class RatingBody(BaseModel):
    """A key of the session's scale (``1``-``4``; ``1``-``5`` on confidence) or ``good``."""

    rating: str


class RubricBody(BaseModel):
    """Key points covered, 0-based."""

    covered: list[int]


class ChainBody(BaseModel):
    """Whether to take the next item of the chain."""

    accept: bool


# The moves most requests are, matched first.


@router.post(
    "/api/study/sessions/{session_id}/answer", tags=["study"], response_model=dict[str, Any]
)
@login_in_thread
@json_route()
def answer_api(
    request: Request, context: Context, session_id: SessionIdPath, body: TextBody
) -> dict[str, Any]:
    """Answer the current item (graded at once when it can be)."""
    return _json_of(
        request,
        context,
        lambda s, v, now, kept: app.answer(s, v, session_id, body.text, now=now, memory=kept),
    )


@router.post("/api/study/sessions/{session_id}/rate", tags=["study"])
@login_in_thread
@json_route()
def rate_api(
    request: Request, context: Context, session_id: SessionIdPath, body: RatingBody
) -> dict[str, Any]:
    """Grade your recall."""
    return _json_of(
        request,
        context,
        lambda s, v, now, kept: app.rate(s, v, session_id, body.rating, now=now, memory=kept),
    )


@router.post("/api/study/sessions/{session_id}/reveal", tags=["study"])
@login_in_thread
@json_route()
def reveal_api(request: Request, context: Context, session_id: SessionIdPath) -> dict[str, Any]:
    """Show the flashcard's back; a rating is refused before (its choices come with it)."""
    return _json_of(
        request, context, lambda s, v, now, kept: app.reveal(s, v, session_id, now=now, memory=kept)
    )


@router.get("/api/study/sessions", tags=["study"])
@login_in_thread
@json_route()
def sessions_api(request: Request, context: Context) -> dict[str, Any]:
    """Sessions in progress, the most recently moved first."""
    with current_study(request) as study:
        return {"sessions": app.list_sessions(study, now=context.now())}


@router.post("/api/study/sessions", tags=["study"])
@login_in_thread
@json_route()
def start_api(request: Request, context: Context, body: StartBody) -> dict[str, Any]:
    """Start a session; ``session_id`` is null (with ``empty_message``) when nothing is due."""
    form = {k: str(v) for k, v in body.model_dump().items() if v is not None}
    with open_learner_study(request, context) as (study, vault):
        options = start_options(form)
        view = app.start_session(study, vault, options, now=context.now(), memory=context.memory)
        return view.to_dict()


@router.get("/api/study/sessions/{session_id}", tags=["study"])
@login_in_thread
@json_route()
def session_api(request: Request, context: Context, session_id: SessionIdPath) -> dict[str, Any]:
    """Where a session stands."""
    return _json_of(
        request,
        context,
        lambda s, v, now, kept: app.current_prompt(s, v, session_id, now=now, memory=kept),
    )


@router.post("/api/study/sessions/{session_id}/part", tags=["study"])
@login_in_thread
@json_route()
def part_api(
    request: Request, context: Context, session_id: SessionIdPath, body: TextBody
) -> dict[str, Any]:
    """Answer the next part of an exercise."""
    return _json_of(
        request,
        context,
        lambda s, v, now, kept: app.answer_part(s, v, session_id, body.text, now=now, memory=kept),
    )


@router.post(
    "/api/study/sessions/{session_id}/rubric", tags=["study"], response_model=dict[str, Any]
)
@login_in_thread
@json_route()
def rubric_api(
    request: Request, context: Context, session_id: SessionIdPath, body: RubricBody
) -> dict[str, Any]:
    """Score a gauntlet answer by the key points covered."""
    return _json_of(
        request,
        context,
        lambda s, v, now, kept: app.score_rubric(
            s, v, session_id, body.covered, now=now, memory=kept
        ),
    )


@router.post(
    "/api/study/sessions/{session_id}/chain", tags=["study"], response_model=dict[str, Any]
)
@login_in_thread
@json_route()
def chain_api(
    request: Request, context: Context, session_id: SessionIdPath, body: ChainBody
) -> dict[str, Any]:
    """Take or decline the next item of the chain."""
    return _json_of(
        request,
        context,
        lambda s, v, now, kept: app.follow_chain(
            s, v, session_id, body.accept, now=now, memory=kept
        ),
    )


@router.post("/api/study/sessions/{session_id}/skip", tags=["study"])
@login_in_thread
@json_route()
def skip_api(request: Request, context: Context, session_id: SessionIdPath) -> dict[str, Any]:
    """Leave the current item without a review."""
    return _json_of(
        request, context, lambda s, v, now, kept: app.skip(s, v, session_id, now=now, memory=kept)
    )


@router.post("/api/study/sessions/{session_id}/undo", tags=["study"])
@login_in_thread
@json_route()
def undo_api(request: Request, context: Context, session_id: SessionIdPath) -> dict[str, Any]:
    """Take back the last rating."""
    return _json_of(
        request,
        context,
        lambda s, v, now, kept: app.undo_last_rating(s, v, session_id, now=now, memory=kept),
    )


@router.post(
    "/api/study/sessions/{session_id}/finish", tags=["study"], response_model=dict[str, Any]
)
@login_in_thread
@json_route()
def finish_api(request: Request, context: Context, session_id: SessionIdPath) -> dict[str, Any]:
    """End the session; returns its report."""
    return _json_of(
        request, context, lambda s, v, now, kept: app.finish(s, v, session_id, now=now, memory=kept)
    )


@router.get("/api/study/sessions/{session_id}/results", tags=["study"])
@login_in_thread
@json_route()
def results_api(request: Request, context: Context, session_id: SessionIdPath) -> dict[str, Any]:
    """A finished session's report."""
    with current_study(request) as study:
        return app.finished_report(study, session_id).to_dict()
