"""Progress: the review calendar, coverage, reviews per day, true retention and the forecast."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Request
from starlette.responses import Response

from sysdrill.app.heatmap import review_calendar
from sysdrill.study.progress import ProgressReport
from sysdrill.web.auth import current_study, learner_vault
from sysdrill.web.charts import render_chart
from sysdrill.web.context import Context, WebContext
from sysdrill.web.json_api import json_route
from sysdrill.web.templating import render_page

__all__ = ["learner_progress", "router"]

router = APIRouter()
ChartName = Literal["coverage", "reviews", "retention", "forecast"]
ChartSize = Literal["wide", "narrow"]
PHONE_BANDS = 2
"""Rows the year is cut into on a phone, so a day stays big enough to see."""


def learner_progress(request: Request, context: WebContext) -> ProgressReport:
    """The learner's progress over the served vault."""
    items = learner_vault(request).items
    with current_study(request) as study:
        return study.progress(items, now=context.now())


@router.get("/progress", include_in_schema=False)
def progress_page(request: Request, context: Context) -> Response:
    """The progress page: the review calendar, then four charts with their figures as tables."""
    report = learner_progress(request, context)
    calendar = review_calendar(report.review_days, today=report.generated_at.date())
    weeks = len(calendar.weeks)
    # The phone shows the same year in bands of weeks, newest band last.
    step = -(-weeks // PHONE_BANDS)
    bands = [(start, calendar.weeks[start : start + step]) for start in range(0, weeks, step)]
    return render_page(
        request,
        "progress.html",
        {"r": report, "d": report.to_dict(), "calendar": calendar, "bands": bands},
    )


@router.get("/progress/charts/{name}.svg", include_in_schema=False)
def progress_chart(
    request: Request, context: Context, name: ChartName, size: ChartSize = "wide"
) -> Response:
    """One progress chart as an SVG image, drawn wide (desktop) or narrow (phone)."""
    svg = render_chart(name, learner_progress(request, context), narrow=size == "narrow")
    return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "no-store"})


@router.get("/api/progress", tags=["progress"])
@json_route()
def progress_api(request: Request, context: Context) -> dict[str, Any]:
    """Coverage, retention, reviews per day, the review calendar, streak, forecast, weak topics.

    ``review_days`` lists the reviews of each day of the last year that has any;
    ``calendar`` lays the same year out as week columns (Monday first), each day
    with its ``shade`` (0 for none, 4 for the busiest day).
    """
    report = learner_progress(request, context)
    calendar = review_calendar(report.review_days, today=report.generated_at.date())
    return {**report.to_dict(), "calendar": calendar.to_dict()}
