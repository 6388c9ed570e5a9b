"""Report a problem with an item, and the authors' list of reports."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, Request
from pydantic import BaseModel, Field
from starlette.responses import RedirectResponse, Response

from sysdrill.app.problem_reports import MESSAGE_LIMIT_CHARS, list_problem_reports, report_problem
from sysdrill.web.auth import request_user, require_admin
from sysdrill.web.context import Context, WebContext
from sysdrill.web.json_api import json_route
from sysdrill.web.routes.vault import find_item
from sysdrill.web.templating import render_page

__all__ = ["ReportIn", "router"]

router = APIRouter()
# Reports name their senders: only admins (the vault's authors) read them.
ADMIN = [Depends(require_admin)]


class ReportIn(BaseModel):
    """A problem report about one item."""

    kind: str = Field(
        max_length=200, description="wrong-answer, wrong-math, unclear, typo or other"
    )
    message: str = Field(max_length=MESSAGE_LIMIT_CHARS)


def _store(
    request: Request, context: WebContext, item_id: str, kind: str, message: str
) -> dict[str, Any]:
    find_item(context.load_vault(), item_id)
    report = report_problem(
        context.db_url,
        item_id=item_id,
        kind=kind,
        message=message,
        now=context.now(),
        user=request_user(request),
    )
    return report.to_dict()


@router.post("/items/{item_id}/report", include_in_schema=False)
def report_form(
    request: Request,
    context: Context,
    item_id: str,
    kind: Annotated[str, Form(max_length=200)],
    message: Annotated[str, Form(max_length=MESSAGE_LIMIT_CHARS)],
) -> Response:
    """Store a report sent from the item page, then go back to the item."""
    _store(request, context, item_id, kind, message)
    return RedirectResponse(f"/items/{item_id}?reported=true", status_code=303)


@router.post("/api/items/{item_id}/reports", tags=["reports"], status_code=201)
@json_route(status_code=201)
def report_api(
    request: Request, context: Context, item_id: str, report: ReportIn
) -> dict[str, Any]:
    """Store a problem report about an item (it records who sent it)."""
    return _store(request, context, item_id, report.kind, report.message)


@router.get("/reports", include_in_schema=False, dependencies=ADMIN)
def reports_page(request: Request, context: Context) -> Response:
    """The authors' page: every problem report, newest first."""
    reports = [r.to_dict() for r in list_problem_reports(context.db_url)]
    return render_page(request, "reports.html", {"reports": reports})


@router.get("/api/reports", tags=["reports"], dependencies=ADMIN)
@json_route()
def reports_api(context: Context) -> dict[str, Any]:
    """Every problem report, newest first."""
    return {"reports": [r.to_dict() for r in list_problem_reports(context.db_url)]}
