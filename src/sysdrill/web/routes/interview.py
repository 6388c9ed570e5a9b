"""The Interview page: a mock interviewer that talks back, and its JSON twins.

``/interview`` picks a chain, topic or plan and says which endpoint receives
the learner's text (none: the built-in conductor, nothing leaves the server).
``/interview/{id}`` is the conversation: a form that works without JavaScript
(one POST per turn, then the page again); ``static/interview.js`` sends the
same form to ``/interview/{id}/turn/stream`` and shows the reply as its
server-sent events arrive. ``/interview/{id}/results`` is the report. Every use
case is :mod:`sysdrill.app.interview`'s; the endpoint setting is an admin's on
a multi-user server.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool
from starlette.responses import RedirectResponse, Response, StreamingResponse

from sysdrill.app import interview as app
from sysdrill.app.interview_ladder import (
    DEFAULT_LADDER_ITEMS,
    MAX_LADDER_ITEMS,
    InterviewPick,
    PickKind,
    interview_choices,
)
from sysdrill.app.interview_records import interview_results
from sysdrill.errors import SysdrillError, UsageError
from sysdrill.study.interview import LearnerMove
from sysdrill.web.auth import current_account, login_in_thread, require_admin
from sysdrill.web.context import Context, WebContext
from sysdrill.web.json_api import json_route
from sysdrill.web.routes.study import open_learner_study
from sysdrill.web.templating import render_page

__all__ = ["router"]

router = APIRouter()

MAX_INTERVIEW_ID = 2**31 - 1
"""The largest interview id the database holds (a 32-bit integer column)."""
IdPath = Annotated[int, Path(ge=1, le=MAX_INTERVIEW_ID, description="The interview's id.")]


class StartBody(BaseModel):
    """What an interview is about."""

    kind: PickKind
    name: str = Field(min_length=1, max_length=300)
    items: int = Field(default=DEFAULT_LADDER_ITEMS, ge=1, le=MAX_LADDER_ITEMS)


class TurnBody(BaseModel):
    """One learner turn: the text, and what it is (read from the text when absent)."""

    text: str = Field(default="", max_length=app.MAX_ANSWER_CHARS)
    move: LearnerMove | None = None


class EndpointBody(BaseModel):
    """The model endpoint for the server's interviews; an empty base URL clears it."""

    base_url: str = Field(default="", max_length=500)
    model: str = Field(default="", max_length=200)
    api_key: str = Field(default="", max_length=500)


def _endpoint(context: WebContext) -> Any:
    from sysdrill.app.interview_endpoint import find_endpoint

    return find_endpoint(context.db_url)


def _may_configure(request: Request, context: WebContext) -> bool:
    if not context.multi_user:
        return True
    account = current_account(request)
    return account is not None and account.is_admin


def _start_view(request: Request, context: WebContext) -> dict[str, Any]:
    with (
        open_learner_study(request, context) as (study, vault),
        app.open_interviews(context.db_url) as store,
    ):
        past = app.list_interviews(study, store)
        choices = interview_choices(vault)
    return {
        **choices,
        "interviews": past,
        **_endpoint(context).to_dict(),
        "may_configure": _may_configure(request, context),
        "default_items": DEFAULT_LADDER_ITEMS,
        "max_items": MAX_LADDER_ITEMS,
    }


def _start(request: Request, context: WebContext, body: StartBody) -> dict[str, Any]:
    chosen = _endpoint(context).config
    pick = InterviewPick(body.kind, body.name.strip(), body.items)
    with (
        open_learner_study(request, context) as (study, vault),
        app.open_interviews(context.db_url) as store,
    ):
        view = app.start_interview(study, vault, store, pick, now=context.now(), endpoint=chosen)
    return view.to_dict()


def _view(request: Request, context: WebContext, interview_id: int) -> dict[str, Any]:
    with (
        open_learner_study(request, context) as (study, _),
        app.open_interviews(context.db_url) as store,
    ):
        return app.interview_view(study, store, interview_id).to_dict()


def _results(request: Request, context: WebContext, interview_id: int) -> dict[str, Any]:
    with (
        open_learner_study(request, context) as (study, vault),
        app.open_interviews(context.db_url) as store,
    ):
        return interview_results(study, vault, store, interview_id).to_dict()


def _turn_events(
    request: Request, context: WebContext, interview_id: int, body: TurnBody
) -> Iterator[app.TurnEvent]:
    """The turn's events, with the study, the records and the endpoint held open meanwhile."""
    from sysdrill.app.llm_client import ChatClient

    with ExitStack() as stack:
        study, vault = stack.enter_context(open_learner_study(request, context))
        store = stack.enter_context(app.open_interviews(context.db_url))
        chosen = _endpoint(context).config
        chat = None if chosen is None else stack.enter_context(ChatClient(chosen))
        yield from app.interview_turn(
            study,
            vault,
            store,
            interview_id,
            body.text,
            move=body.move,
            now=context.now(),
            chat=chat,
        )


def _turn(
    request: Request, context: WebContext, interview_id: int, body: TurnBody
) -> dict[str, Any]:
    notices = []
    for event in _turn_events(request, context, interview_id, body):
        if isinstance(event, app.EndpointNotice):
            notices.append(event.message)
        elif isinstance(event, app.TurnDone):
            return {**event.outcome.to_dict(), "notices": notices}
    raise UsageError("The turn did not finish; send it again.")  # pragma: no cover


def _form_body(form: Any) -> TurnBody:
    text = form.get("text")
    move = form.get("move")
    try:
        chosen = LearnerMove(move) if isinstance(move, str) and move else None
    except ValueError:
        raise UsageError(f"Unknown move {str(move)[:20]!r}.") from None
    given = text if isinstance(text, str) else ""
    if len(given) > app.MAX_ANSWER_CHARS:
        raise UsageError(f"An answer holds {app.MAX_ANSWER_CHARS} characters at most.")
    return TurnBody(text=given, move=chosen)


def _start_form_body(form: Any) -> StartBody:
    kind = form.get("kind")
    name = form.get(f"{kind}_name") if isinstance(kind, str) else None
    items = form.get("items")
    try:
        return StartBody(
            kind=PickKind(kind),
            name=name if isinstance(name, str) else "",
            items=int(items) if isinstance(items, str) and items else DEFAULT_LADDER_ITEMS,
        )
    except (ValueError, TypeError):
        raise UsageError(
            f"Pick a chain, a topic or a plan, and 1 to {MAX_LADDER_ITEMS} items."
        ) from None


# -- pages ---------------------------------------------------------------------


@router.get("/interview", include_in_schema=False)
@login_in_thread
def interview_page(request: Request, context: Context) -> Response:
    """Pick what the interview is about; see which endpoint receives the text."""
    return render_page(request, "interview/start.html", _start_view(request, context))


@router.post("/interview/start", include_in_schema=False)
async def start_form(request: Request, context: Context) -> Response:
    """Start an interview from the form, then show its first question."""
    body = _start_form_body(await request.form())
    view = await run_in_threadpool(lambda: _start(request, context, body))
    return RedirectResponse(f"/interview/{view['id']}", status_code=303)


@router.get("/interview/{interview_id}", include_in_schema=False)
@login_in_thread
def conversation_page(request: Request, context: Context, interview_id: IdPath) -> Response:
    """The conversation so far and the answer form."""
    view = _view(request, context, interview_id)
    return render_page(
        request,
        "interview/conversation.html",
        {"v": view, **_endpoint(context).to_dict()},
    )


@router.post("/interview/{interview_id}/turn", include_in_schema=False)
async def turn_form(request: Request, context: Context, interview_id: IdPath) -> Response:
    """Take one turn (the page without JavaScript), then show the conversation again."""
    body = _form_body(await request.form())
    await run_in_threadpool(lambda: _turn(request, context, interview_id, body))
    return RedirectResponse(f"/interview/{interview_id}#latest", status_code=303)


def _sse(event: str, data: dict[str, Any]) -> str:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n"


@router.post("/interview/{interview_id}/turn/stream", include_in_schema=False)
async def turn_stream(request: Request, context: Context, interview_id: IdPath) -> Response:
    """Take one turn and stream the reply as server-sent events.

    Events: ``reply`` (``{"text": piece}``) as the reply arrives, ``notice`` when
    the endpoint fails, ``done`` with the finished turn, or ``error`` with the
    error shape's ``message`` when the turn is refused (nothing saved then).
    """
    body = _form_body(await request.form())
    # Refused before the stream begins, with a status: no such interview, or over.
    view = await run_in_threadpool(lambda: _view(request, context, interview_id))
    if view["closed"]:
        raise UsageError("This interview is over; start a new one.")

    def events() -> Iterator[str]:
        try:
            for event in _turn_events(request, context, interview_id, body):
                if isinstance(event, app.ReplyText):
                    yield _sse("reply", {"text": event.text})
                elif isinstance(event, app.EndpointNotice):
                    yield _sse("notice", {"message": event.message})
                else:
                    yield _sse("done", event.outcome.to_dict())
        except SysdrillError as exc:
            # The stream has begun (status 200): the refusal travels as an event.
            from sysdrill.web.errors import public_message

            message = public_message(exc, request.app)
            yield _sse("error", {"type": type(exc).__name__, "message": message})

    return StreamingResponse(
        events(),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


@router.get("/interview/{interview_id}/results", include_in_schema=False)
@login_in_thread
def results_page(request: Request, context: Context, interview_id: IdPath) -> Response:
    """The interview's report: each item's rating, key points made, napkin verdicts."""
    return render_page(
        request, "interview/results.html", {"r": _results(request, context, interview_id)}
    )


@router.post("/interview/endpoint", include_in_schema=False, dependencies=[Depends(require_admin)])
async def endpoint_form(request: Request, context: Context) -> Response:
    """Set or clear the server's model endpoint (an admin's, on a multi-user server)."""
    form = await request.form()
    body = EndpointBody(
        base_url=str(form.get("base_url") or "")[:500],
        model=str(form.get("model") or "")[:200],
        api_key=str(form.get("api_key") or "")[:500],
    )
    clear = form.get("action") == "clear"
    await run_in_threadpool(lambda: _set_endpoint(context, body, clear=clear))
    return RedirectResponse("/interview", status_code=303)


def _set_endpoint(context: WebContext, body: EndpointBody, *, clear: bool) -> dict[str, Any]:
    from sysdrill.app.interview_endpoint import clear_endpoint, set_endpoint
    from sysdrill.app.llm_client import EndpointConfig

    if clear or not body.base_url.strip():
        clear_endpoint(context.db_url)
    else:
        config = EndpointConfig(body.base_url.strip(), body.model.strip(), body.api_key.strip())
        set_endpoint(context.db_url, config)
    return dict(_endpoint(context).to_dict())


# -- JSON twins ----------------------------------------------------------------


@router.get("/api/interviews", tags=["interview"])
@login_in_thread
@json_route()
def interviews_api(request: Request, context: Context) -> dict[str, Any]:
    """What an interview can be about, the learner's interviews, and the endpoint in force."""
    return _start_view(request, context)


@router.post("/api/interviews", tags=["interview"])
@login_in_thread
@json_route()
def start_api(request: Request, context: Context, body: StartBody) -> dict[str, Any]:
    """Start an interview; the answer holds its first question."""
    return _start(request, context, body)


@router.get("/api/interviews/{interview_id}", tags=["interview"])
@login_in_thread
@json_route()
def interview_api(request: Request, context: Context, interview_id: IdPath) -> dict[str, Any]:
    """The interview and its turns."""
    return _view(request, context, interview_id)


@router.post("/api/interviews/{interview_id}/turns", tags=["interview"])
@login_in_thread
@json_route()
def turn_api(
    request: Request, context: Context, interview_id: IdPath, body: TurnBody
) -> dict[str, Any]:
    """Take one turn; the answer is the whole reply with its verdicts (no streaming)."""
    return _turn(request, context, interview_id, body)


@router.get("/api/interviews/{interview_id}/results", tags=["interview"])
@login_in_thread
@json_route()
def results_api(request: Request, context: Context, interview_id: IdPath) -> dict[str, Any]:
    """The interview's report."""
    return _results(request, context, interview_id)


@router.put("/api/interviews/endpoint", tags=["interview"], dependencies=[Depends(require_admin)])
@json_route()
def endpoint_api(request: Request, context: Context, body: EndpointBody) -> dict[str, Any]:
    """Set the server's model endpoint (an empty base URL clears it); never echoes the key."""
    return _set_endpoint(context, body, clear=False)
