"""Edit an item's text from its page: the form, its check, and the JSON twin.

Only those who may write the served vault edit it: the one local user in
single-user mode, an admin on a multi-user server (learners study the shared
vault and never change it). The bundled starter vault is never edited
(:func:`sysdrill.app.item_edit.edit_refusal`).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, Request
from starlette.concurrency import run_in_threadpool
from starlette.responses import RedirectResponse, Response

from sysdrill.app.item_edit import EDITABLE_FIELDS, SavedEdit, edit_refusal, editable_item
from sysdrill.app.study_vault import StudyVault
from sysdrill.errors import ContentInvalid, NotPermitted
from sysdrill.web.auth import current_account, learner_vault, require_admin
from sysdrill.web.context import Context, web_context
from sysdrill.web.csrf import FIELD_NAME
from sysdrill.web.json_api import json_route
from sysdrill.web.templating import render_page

__all__ = ["may_edit", "router"]

router = APIRouter()

MAX_FIELD_CHARS = 20_000
"""Longest value accepted for one field (an item file holds at most 256 KiB)."""


def may_edit(request: Request, vault: StudyVault, item_id: str) -> bool:
    """Whether the item page offers "Edit" to this request's user."""
    if web_context(request).multi_user:
        account = current_account(request)
        if account is None or not account.is_admin:
            return False
    return edit_refusal(vault, item_id) is None


def _editable_vault(request: Request, item_id: str) -> StudyVault:
    """The served vault, once the item is known to be editable in it.

    Raises:
        QuestionNotFound: If there is no such item.
        NotPermitted: If the item cannot be edited here.
    """
    vault = learner_vault(request)
    reason = edit_refusal(vault, item_id)
    if reason is not None:
        raise NotPermitted(reason)
    return vault


def _form_fields(values: dict[str, str]) -> list[dict[str, Any]]:
    return [
        {"name": name, "label": label, "value": values.get(name, ""), "single": name == "title"}
        for name, (_, label) in EDITABLE_FIELDS.items()
    ]


def _save(request: Request, item_id: str, changes: dict[str, str]) -> SavedEdit:
    from sysdrill.app.item_edit import save_item_fields

    too_long = [name for name, value in changes.items() if len(value) > MAX_FIELD_CHARS]
    if too_long:
        raise ContentInvalid(
            f"{', '.join(too_long)}: at most {MAX_FIELD_CHARS:,} characters a field."
        )
    return save_item_fields(_editable_vault(request, item_id), item_id, changes)


@router.get("/items/{item_id}/edit", include_in_schema=False, dependencies=[Depends(require_admin)])
def edit_page(request: Request, context: Context, item_id: str) -> Response:
    """The item's text fields in a form, to change and save."""
    current = editable_item(_editable_vault(request, item_id), item_id)
    return render_page(
        request,
        "item_edit.html",
        {"item_id": item_id, "title": current.title, "fields": _form_fields(current.fields)},
    )


@router.post(
    "/items/{item_id}/edit", include_in_schema=False, dependencies=[Depends(require_admin)]
)
async def edit_form(request: Request, context: Context, item_id: str) -> Response:
    """Save the form's fields once check finds no new error; else show them with why not."""
    form = await request.form()
    changes = {
        key: str(value)
        for key, value in form.items()
        if key != FIELD_NAME and key in EDITABLE_FIELDS and isinstance(value, str)
    }
    try:
        await run_in_threadpool(_save, request, item_id, changes)
    except ContentInvalid as exc:
        return render_page(
            request,
            "item_edit.html",
            {
                "item_id": item_id,
                "title": changes.get("title") or item_id,
                "fields": _form_fields(changes),
                "error": str(exc),
            },
            status_code=422,
        )
    return RedirectResponse(f"/items/{quote(item_id, safe='')}?edited=true", status_code=303)


@router.get("/api/items/{item_id}/text", tags=["vault"], dependencies=[Depends(require_admin)])
@json_route()
def item_text_api(request: Request, context: Context, item_id: str) -> dict[str, Any]:
    """The item's editable text fields, as its file holds them."""
    current = editable_item(_editable_vault(request, item_id), item_id)
    return {"item_id": item_id, "fields": current.fields}


@router.put("/api/items/{item_id}/text", tags=["vault"], dependencies=[Depends(require_admin)])
@json_route()
def item_text_put_api(
    request: Request, context: Context, item_id: str, changes: dict[str, str]
) -> dict[str, Any]:
    """Set some text fields (``title``, ``question``...) and save the file, checked first."""
    saved = _save(request, item_id, changes)
    return {"item_id": item_id, "changed": saved.changed, "message": saved.message}
