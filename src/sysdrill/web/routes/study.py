"""Study pages: practice, quiz, gauntlet, chains and the daily challenge.

Their JSON twins are in :mod:`sysdrill.web.routes.study_api`.

Every page is a form that works without JavaScript: a start form per session
kind, then one page per session (``/sessions/{id}``) whose form fits what the
session waits for (an answer, a rating, the rubric, a chain offer). Each move
is one POST to an ``app.sessions`` function, which saves it in the database,
so any worker serves the next request and a restarted server resumes the
session. ``static/study.js`` only adds the gauntlet's live countdown; the keys
(space shows a flashcard's back, 1-4 rate, 1-5 on the confidence scale) are
``data-key`` attributes that ``keys.js`` clicks. A flashcard's back is shown by
a move of its own (``/reveal``): the server refuses a rating before it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Form, Path, Request
from starlette.concurrency import run_in_threadpool
from starlette.responses import RedirectResponse, Response

from sysdrill.app import sessions as app
from sysdrill.app.session_views import SessionView
from sysdrill.app.study_vault import StudyVault
from sysdrill.app.worker_memory import WorkerMemory
from sysdrill.content.enums import CompetencyArea, Level, Track, Zone
from sysdrill.errors import AnswerUnreadable, ContentInvalid, UsageError
from sysdrill.study.filters import ItemFilter
from sysdrill.study.service import StudyService
from sysdrill.study.sessions.gauntlet import FORMATS, GauntletFormat
from sysdrill.study.sessions.state_machine import SessionKind
from sysdrill.study.settings import MAX_DAILY_LIMIT
from sysdrill.web.auth import current_study, learner_vault, login_in_thread
from sysdrill.web.context import Context, WebContext
from sysdrill.web.studied_vault import personal_deck_names
from sysdrill.web.templating import render_page

__all__ = ["Move", "make_move", "open_learner_study", "router", "start_options"]

router = APIRouter()

MAX_ID = 2**63 - 1
"""The largest id or seed a database column holds (a signed 64-bit integer)."""
SessionIdPath = Annotated[int, Path(ge=1, le=MAX_ID, description="The session's id.")]
"""A session id in a URL: larger numbers are a 422, not a database error."""


def _vault(request: Request, context: WebContext) -> StudyVault:
    """The served vault (with the learner's personal decks), kept loaded by the app instance."""
    return learner_vault(request)


@contextmanager
def open_learner_study(
    request: Request, context: WebContext, *, adopt: bool = True
) -> Iterator[tuple[StudyService, StudyVault]]:
    """The request's learner's study service and vault (a ``with`` block)."""
    vault = _vault(request, context)
    with current_study(request, adopt=adopt) as study:
        yield study, vault


Move = Callable[[StudyService, StudyVault, datetime, WorkerMemory], Any]
"""One use case applied to the learner's study service and vault at a time, with what
the worker keeps between requests (the session's machine)."""


def make_move(request: Request, context: WebContext, move: Move) -> Any:
    """Make ``move`` on the learner's study; its view."""
    with open_learner_study(request, context, adopt=False) as (study, vault):
        return move(study, vault, context.now(), context.memory)


def _redirect_after(
    request: Request, context: WebContext, session_id: SessionIdPath, move: Move
) -> Response:
    """Make ``move``, then show the session again (post, redirect, get)."""
    make_move(request, context, move)
    return RedirectResponse(f"/sessions/{session_id}", status_code=303)


def _answer_after(
    request: Request, context: WebContext, session_id: SessionIdPath, move: Move
) -> Response:
    """Make an answering ``move``; an answer that cannot be read asks again.

    The session page comes back with the form expected (never the answer) and
    nothing recorded, as the terminal re-prompts: a typo is no error page.
    """
    try:
        return _redirect_after(request, context, session_id, move)
    except AnswerUnreadable as exc:
        view = make_move(
            request,
            context,
            lambda s, v, now, kept: app.current_prompt(s, v, session_id, now=now, memory=kept),
        )
        return render_page(request, "study/session.html", {"v": view, "reprompt": str(exc)})


def _enum(kind: Any, value: str | None, name: str) -> Any:
    if not value:
        return None
    try:
        return kind(value)
    except ValueError as exc:
        known = ", ".join(member.value for member in kind)
        raise UsageError(f"Unknown {name} {value!r}; use one of {known}.") from exc


def _whole(text: str, low: int, high: int) -> bool:
    """Whether ``text`` is a whole number (ASCII digits) from ``low`` to ``high``."""
    return text.isascii() and text.isdigit() and len(text) <= 19 and low <= int(text) <= high


def start_options(form: dict[str, str]) -> app.StartOptions:
    """Read a start form (or JSON body) into the options of a session."""
    kind = _enum(SessionKind, form.get("kind") or "practice", "session kind")
    item_filter = ItemFilter(
        deck=form.get("deck") or None,
        track=_enum(Track, form.get("track"), "track"),
        level=_enum(Level, form.get("level"), "level"),
        zone=_enum(Zone, form.get("zone"), "zone"),
        topic=form.get("topic") or None,
        competency_area=_enum(CompetencyArea, form.get("area"), "competency area"),
        tag=form.get("tag") or None,
    )
    limit_text = form.get("limit") or "20"
    seed_text = form.get("seed") or ""
    if not _whole(limit_text, 1, MAX_DAILY_LIMIT):
        raise UsageError(
            f"limit must be a whole number from 1 to {MAX_DAILY_LIMIT:,}, got {limit_text[:20]!r}."
        )
    if seed_text and not _whole(seed_text.removeprefix("-"), 0, MAX_ID):
        raise UsageError(
            f"seed must be a whole number of at most 19 digits, got {seed_text[:20]!r}."
        )
    new_text = form.get("new", "").strip()
    if new_text and not _whole(new_text, 0, MAX_DAILY_LIMIT):
        raise UsageError(
            f"new must be a whole number from 0 to {MAX_DAILY_LIMIT:,}, got {new_text[:20]!r}."
        )
    return app.StartOptions(
        kind=kind,
        item_filter=item_filter,
        limit=int(limit_text),
        gauntlet_format=_enum(GauntletFormat, form.get("format") or "quick", "gauntlet format"),
        seed=int(seed_text) if seed_text else None,
        chain_id=form.get("chain") or None,
        new_limit=int(new_text) if new_text else None,
    )


async def _form(request: Request) -> dict[str, str]:
    form = await request.form()
    return {key: value for key, value in form.items() if isinstance(value, str)}


def _start_context(context: WebContext, study: StudyService, vault: StudyVault) -> dict[str, Any]:
    from sysdrill.study.sessions.selection import deck_names

    return {
        "in_progress": app.list_sessions(study, now=context.now()),
        "decks": context.vaults.derived(
            context.vault, "deck-names", lambda v: deck_names(v.items, v.decks)
        ),
        "chains": [(c.id, c.title or c.id) for c in vault.chains],
        "tracks": [t.value for t in Track],
        "levels": [lv.value for lv in Level],
        "zones": [z.value for z in Zone],
        "areas": [a.value for a in CompetencyArea],
        "formats": [(f.value, FORMATS[f].questions, FORMATS[f].minutes) for f in GauntletFormat],
    }


def _start_page(request: Request, context: WebContext, only: str | None) -> Response:
    with open_learner_study(request, context) as (study, vault):
        values = _start_context(context, study, vault)
    # The learner's personal decks after the shared ones (multi-user mode).
    values["decks"] = [*values["decks"], *personal_deck_names(request, vault, user=study.user)]
    return render_page(request, "study/start.html", {**values, "only": only})


@router.get("/practice", include_in_schema=False)
@login_in_thread
def practice_page(request: Request, context: Context) -> Response:
    """Start a practice session (or any other kind), or continue one in progress."""
    return _start_page(request, context, None)


@router.get("/quiz", include_in_schema=False)
@login_in_thread
def quiz_page(request: Request, context: Context) -> Response:
    """Take a deck in order, scored at the end."""
    return _start_page(request, context, "quiz")


@router.get("/gauntlet", include_in_schema=False)
@login_in_thread
def gauntlet_page(request: Request, context: Context) -> Response:
    """A timed mock interview."""
    return _start_page(request, context, "gauntlet")


@router.get("/chains", include_in_schema=False)
@login_in_thread
def chains_page(request: Request, context: Context) -> Response:
    """Walk a chain from recall to architecture."""
    return _start_page(request, context, "chain")


@router.get("/daily", include_in_schema=False)
@login_in_thread
def daily_page(request: Request, context: Context) -> Response:
    """Three items a day, the same all day."""
    return _start_page(request, context, "daily")


def _session_page(request: Request, view: SessionView, *, status_code: int = 200) -> Response:
    return render_page(request, "study/session.html", {"v": view}, status_code=status_code)


@router.post("/sessions", include_in_schema=False)
async def start_form(request: Request, context: Context) -> Response:
    """Start a session from a start form; an empty plan says why."""
    options = start_options(await _form(request))

    def start() -> Response:
        with open_learner_study(request, context) as (study, vault):
            view = app.start_session(
                study, vault, options, now=context.now(), memory=context.memory
            )
        if view.session_id is None:
            return render_page(request, "study/empty.html", {"v": view})
        return RedirectResponse(f"/sessions/{view.session_id}", status_code=303)

    return await run_in_threadpool(start)


@router.get("/sessions/{session_id}", include_in_schema=False)
@login_in_thread
def session_page(request: Request, context: Context, session_id: SessionIdPath) -> Response:
    """The session as it stands: the prompt, or the report once it is over."""
    try:
        with open_learner_study(request, context) as (study, vault):
            view = app.current_prompt(
                study, vault, session_id, now=context.now(), memory=context.memory
            )
    except ContentInvalid as exc:
        # The vault changed under the session: say so, and offer to end it.
        return render_page(
            request,
            "study/stale.html",
            {"message": str(exc), "session_id": session_id},
            status_code=409,
        )
    return _session_page(request, view)


@router.post("/sessions/{session_id}/answer", include_in_schema=False)
@login_in_thread
def answer_form(
    request: Request, context: Context, session_id: SessionIdPath, text: Annotated[str, Form()] = ""
) -> Response:
    """Answer the current item; options and numbers are graded on submit.

    The page after the answer (its feedback) is what the session's page shows
    until the next move, so a reload of it asks nothing twice.
    """
    answer: Move = lambda s, v, now, kept: app.answer(  # noqa: E731
        s, v, session_id, text, now=now, memory=kept
    )
    return _answer_after(request, context, session_id, answer)


@router.post("/sessions/{session_id}/part", include_in_schema=False)
@login_in_thread
def part_form(
    request: Request, context: Context, session_id: SessionIdPath, text: Annotated[str, Form()] = ""
) -> Response:
    """Answer the next part of an exercise."""
    part: Move = lambda s, v, now, kept: app.answer_part(  # noqa: E731
        s, v, session_id, text, now=now, memory=kept
    )
    return _answer_after(request, context, session_id, part)


@router.post("/sessions/{session_id}/reveal", include_in_schema=False)
@login_in_thread
def reveal_form(request: Request, context: Context, session_id: SessionIdPath) -> Response:
    """Show the flashcard's back; the rating buttons come with it."""
    reveal: Move = lambda s, v, now, kept: app.reveal(s, v, session_id, now=now, memory=kept)  # noqa: E731
    return _redirect_after(request, context, session_id, reveal)


@router.post("/sessions/{session_id}/rate", include_in_schema=False)
@login_in_thread
def rate_form(
    request: Request,
    context: Context,
    session_id: SessionIdPath,
    rating: Annotated[str, Form()] = "",
) -> Response:
    """Grade your recall on the session's scale (1-4 Again to Easy, or 1-5 confidence)."""
    rate: Move = lambda s, v, now, kept: app.rate(s, v, session_id, rating, now=now, memory=kept)  # noqa: E731
    return _redirect_after(request, context, session_id, rate)


@router.post("/sessions/{session_id}/rubric", include_in_schema=False)
@login_in_thread
def rubric_form(
    request: Request,
    context: Context,
    session_id: SessionIdPath,
    covered: Annotated[list[str], Form()] = [],  # noqa: B006 - FastAPI copies the default
) -> Response:
    """Score a gauntlet answer by the key points it covered."""
    points = [int(v) for v in covered if v.isdigit()]
    score: Move = lambda s, v, now, kept: app.score_rubric(  # noqa: E731
        s, v, session_id, points, now=now, memory=kept
    )
    return _redirect_after(request, context, session_id, score)


@router.post("/sessions/{session_id}/chain", include_in_schema=False)
@login_in_thread
def chain_form(
    request: Request,
    context: Context,
    session_id: SessionIdPath,
    accept: Annotated[str, Form()] = "",
) -> Response:
    """Take or decline the next item of the chain."""
    follow: Move = lambda s, v, now, kept: app.follow_chain(  # noqa: E731
        s, v, session_id, accept == "yes", now=now, memory=kept
    )
    return _redirect_after(request, context, session_id, follow)


@router.post("/sessions/{session_id}/skip", include_in_schema=False)
@login_in_thread
def skip_form(request: Request, context: Context, session_id: SessionIdPath) -> Response:
    """Leave the current item without a review."""
    skip: Move = lambda s, v, now, kept: app.skip(s, v, session_id, now=now, memory=kept)  # noqa: E731
    return _redirect_after(request, context, session_id, skip)


@router.post("/sessions/{session_id}/undo", include_in_schema=False)
@login_in_thread
def undo_form(request: Request, context: Context, session_id: SessionIdPath) -> Response:
    """Take back the last rating; the item is asked again."""
    undo: Move = lambda s, v, now, kept: app.undo_last_rating(  # noqa: E731
        s, v, session_id, now=now, memory=kept
    )
    return _redirect_after(request, context, session_id, undo)


@router.post("/sessions/{session_id}/finish", include_in_schema=False)
@login_in_thread
def finish_form(request: Request, context: Context, session_id: SessionIdPath) -> Response:
    """End the session and show its results."""
    with open_learner_study(request, context) as (study, vault):
        app.finish(study, vault, session_id, now=context.now(), memory=context.memory)
    return RedirectResponse(f"/sessions/{session_id}/results", status_code=303)


@router.get("/sessions/{session_id}/results", include_in_schema=False)
@login_in_thread
def results_page(request: Request, context: Context, session_id: SessionIdPath) -> Response:
    """A finished session's results (a gauntlet's shareable results page)."""
    with current_study(request) as study:
        report = app.finished_report(study, session_id)
    return render_page(request, "study/results.html", {"r": report, "session_id": session_id})
