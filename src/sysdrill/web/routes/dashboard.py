"""The dashboard: due today, streak, 30-day forecast, and where the learner stopped."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import Response

from sysdrill.app.review_undo import UndoneReview
from sysdrill.web.auth import current_study, learner_vault
from sysdrill.web.context import Context, WebContext
from sysdrill.web.json_api import json_route
from sysdrill.web.templating import render_page

__all__ = ["dashboard_data", "router"]

router = APIRouter()


def dashboard_data(request: Request, context: WebContext) -> dict[str, Any]:
    """The dashboard's figures: due today, streak, forecast, totals, sessions to go on with."""
    from sysdrill.app.progress import progress_summary
    from sysdrill.app.sessions import list_sessions

    vault = learner_vault(request)
    now = context.now()
    with current_study(request) as study:
        report = progress_summary(study, vault, now=now)
        in_progress = list_sessions(study, now=now)
        sessions = study.sessions()
    finished = [s for s in sessions if s.ended_at is not None]
    last = max(finished, key=lambda s: s.started_at, default=None)
    return {
        "due_today": report.forecast[0].count if report.forecast else 0,
        "streak_days": report.streak_days,
        "items_total": report.items_total,
        "items_seen": report.items_seen,
        "items_mastered": report.items_mastered,
        "reviews_total": report.reviews_total,
        "forecast": [{"day": d.day.isoformat(), "count": d.count} for d in report.forecast],
        "deadline": report.deadline.isoformat() if report.deadline else None,
        "in_progress": in_progress,
        "last_finished": None
        if last is None
        else {
            "kind": last.kind,
            "started_at": last.started_at.isoformat(),
            "session_id": last.session_id,
        },
    }


@router.get("/", include_in_schema=False)
def dashboard_page(request: Request, context: Context) -> Response:
    """The dashboard page."""
    data = dashboard_data(request, context)
    return render_page(request, "dashboard.html", {"d": data})


@router.get("/api/dashboard", tags=["dashboard"])
@json_route()
def dashboard_api(request: Request, context: Context) -> dict[str, Any]:
    """Due today, streak, forecast and the last session, as JSON."""
    return dashboard_data(request, context)


def _undo(request: Request, context: WebContext) -> UndoneReview:
    from sysdrill.app.review_undo import undo_last_review

    with current_study(request) as study:
        return undo_last_review(
            study, learner_vault(request), now=context.now(), memory=context.memory
        )


@router.post("/undo-last-review", include_in_schema=False)
def undo_form(request: Request, context: Context) -> Response:
    """Take back your last review, then show the dashboard saying which one."""
    undone = _undo(request, context)
    data = dashboard_data(request, context)
    return render_page(request, "dashboard.html", {"d": data, "undone": undone})


@router.post("/api/reviews/undo-last", tags=["dashboard"])
@json_route()
def undo_api(request: Request, context: Context) -> dict[str, Any]:
    """Take back your last review in this vault: the item's schedule is as before it."""
    return _undo(request, context).to_dict()
