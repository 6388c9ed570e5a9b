"""Progress: coverage, reviews per day, true retention and the 30-day forecast, as charts."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request
from starlette.responses import Response

from sysdrill.study.progress import ProgressReport
from sysdrill.web.charts import render_chart
from sysdrill.web.context import WebContext, web_context
from sysdrill.web.templating import render_page

__all__ = ["learner_progress", "router"]

router = APIRouter()
Context = Annotated[WebContext, Depends(web_context)]
ChartName = Literal["coverage", "reviews", "retention", "forecast"]


def learner_progress(context: WebContext) -> ProgressReport:
    """The learner's progress over the served vault."""
    from sysdrill.app.study import open_study

    items = context.load_vault().items
    with open_study(context.db_url, vault=context.load_vault()) as study:
        return study.progress(items, now=context.now())


@router.get("/progress", include_in_schema=False)
def progress_page(request: Request, context: Context) -> Response:
    """The progress page: four charts, each with its figures as a table."""
    report = learner_progress(context)
    return render_page(request, "progress.html", {"r": report, "d": report.to_dict()})


@router.get("/progress/charts/{name}.svg", include_in_schema=False)
def progress_chart(context: Context, name: ChartName) -> Response:
    """One progress chart as an SVG image."""
    svg = render_chart(name, learner_progress(context))
    return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "no-store"})


@router.get("/api/progress", tags=["progress"])
def progress_api(context: Context) -> dict[str, Any]:
    """Coverage, true retention, reviews per day, streak, forecast and weak topics."""
    return learner_progress(context).to_dict()
