"""Progress: coverage, reviews per day, true retention and the 30-day forecast, as charts."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Request
from starlette.responses import Response

from sysdrill.study.progress import ProgressReport
from sysdrill.web.auth import current_study, learner_vault
from sysdrill.web.charts import render_chart
from sysdrill.web.context import Context, WebContext
from sysdrill.web.json_api import json_route
from sysdrill.web.templating import render_page

__all__ = ["learner_progress", "router"]

router = APIRouter()
ChartName = Literal["coverage", "reviews", "retention", "forecast"]


def learner_progress(request: Request, context: WebContext) -> ProgressReport:
    """The learner's progress over the served vault."""
    items = learner_vault(request).items
    with current_study(request) as study:
        return study.progress(items, now=context.now())


@router.get("/progress", include_in_schema=False)
def progress_page(request: Request, context: Context) -> Response:
    """The progress page: four charts, each with its figures as a table."""
    report = learner_progress(request, context)
    return render_page(request, "progress.html", {"r": report, "d": report.to_dict()})


@router.get("/progress/charts/{name}.svg", include_in_schema=False)
def progress_chart(request: Request, context: Context, name: ChartName) -> Response:
    """One progress chart as an SVG image."""
    svg = render_chart(name, learner_progress(request, context))
    return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "no-store"})


@router.get("/api/progress", tags=["progress"])
@json_route()
def progress_api(request: Request, context: Context) -> dict[str, Any]:
    """Coverage, true retention, reviews per day, streak, forecast and weak topics."""
    return learner_progress(request, context).to_dict()
