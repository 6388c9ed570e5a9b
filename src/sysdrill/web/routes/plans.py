"""Study plans in the browser: the vault's plans, the active one's progress, start and stop."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool
from starlette.responses import RedirectResponse, Response

from sysdrill.web.auth import current_study
from sysdrill.web.context import Context, WebContext
from sysdrill.web.json_api import json_route
from sysdrill.web.templating import render_page

__all__ = ["plans_view", "router"]

router = APIRouter()


class StartPlanBody(BaseModel):
    """A plan to start."""

    name: str = Field(max_length=300)
    adaptive: bool = False


def plans_view(request: Request, context: WebContext) -> dict[str, Any]:
    """The vault's plans and the learner's progress through the active one (JSON-ready)."""
    from sysdrill.app.plans import list_plans, show_plan

    vault = context.load_vault()
    with current_study(request) as study:
        progress = show_plan(study, vault, now=context.now())
    return {
        "plans": [
            {
                "name": plan.name,
                "title": plan.title,
                "description": plan.description,
                "days": plan.days,
                "new_per_day": plan.new_per_day,
            }
            for plan in list_plans(vault)
        ],
        "active": None if progress is None else progress.to_dict(),
    }


def _start(request: Request, context: WebContext, name: str, *, adaptive: bool) -> dict[str, Any]:
    from sysdrill.app.plans import start_plan

    vault = context.load_vault()
    with current_study(request) as study:
        return start_plan(study, vault, name, adaptive=adaptive, now=context.now()).to_dict()


def _stop(request: Request, context: WebContext) -> dict[str, Any]:
    from sysdrill.app.plans import stop_plan

    with current_study(request) as study:
        return {"stopped": stop_plan(study, now=context.now()).name}


@router.get("/plans", include_in_schema=False)
def plans_page(request: Request, context: Context) -> Response:
    """The plans page: each plan with a start button, or the active plan's progress."""
    return render_page(request, "plans/plans.html", plans_view(request, context))


@router.post("/plans/start", include_in_schema=False)
async def start_form(request: Request, context: Context) -> Response:
    """Start the plan named in the form, then show the plans page."""
    form = await request.form()
    name = form.get("name")
    chosen = name if isinstance(name, str) else ""
    adaptive = form.get("adaptive") == "on"
    await run_in_threadpool(lambda: _start(request, context, chosen, adaptive=adaptive))
    return RedirectResponse("/plans", status_code=303)


@router.post("/plans/stop", include_in_schema=False)
def stop_form(request: Request, context: Context) -> Response:
    """Stop the active plan, then show the plans page."""
    _stop(request, context)
    return RedirectResponse("/plans", status_code=303)


@router.get("/api/plans", tags=["plans"])
@json_route()
def plans_api(request: Request, context: Context) -> dict[str, Any]:
    """The vault's plans and progress through the active one (``active`` null when none)."""
    return plans_view(request, context)


@router.post("/api/plans/start", tags=["plans"])
@json_route()
def start_api(request: Request, context: Context, body: StartPlanBody) -> dict[str, Any]:
    """Start a plan today; its last day becomes the deadline when none is set."""
    return _start(request, context, body.name, adaptive=body.adaptive)


@router.post("/api/plans/stop", tags=["plans"])
@json_route()
def stop_api(request: Request, context: Context) -> dict[str, Any]:
    """Stop the active plan (reviews and the deadline stay)."""
    return _stop(request, context)
