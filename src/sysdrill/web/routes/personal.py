"""My decks: a learner's personal decks (upload, list, delete) and their JSON twin.

On a multi-user server the admin's import (``/import``) changes the shared vault,
which learners only read; a learner imports a file into a deck of their own,
kept in the database (``app/personal_decks.py``), that only they study and see.
In single-user mode the one ``local`` learner has personal decks too: the import
page makes them when the served vault is a bundled one (never written), and this
page lists and deletes them (``"enabled"`` is always true; it is kept for clients
of the multi-user-only days).

An upload is imported in the request that brings it (no preview step), so no
worker keeps it beyond that request.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Request, UploadFile
from starlette.responses import JSONResponse, RedirectResponse, Response

from sysdrill.app.personal_decks import (
    MAX_DECK_ITEMS,
    MAX_DECKS_PER_LEARNER,
    PersonalImport,
    delete_personal_deck,
    import_personal_deck,
    list_personal_decks,
)
from sysdrill.web.auth import request_user
from sysdrill.web.context import Context, WebContext
from sysdrill.web.json_api import json_route
from sysdrill.web.templating import render_page
from sysdrill.web.uploads import UPLOAD_LIMIT_BYTES, discard_upload, stage_upload

__all__ = ["router"]


router = APIRouter()
Upload = Annotated[UploadFile, File()]
TitleField = Annotated[str, Form()]  # at most MAX_TITLE_CHARS, checked by the import
FormatField = Annotated[str, Form(max_length=200)]


def _formats() -> list[str]:
    from sysdrill.interop.formats import FORMAT_NAMES

    return ["auto", *FORMAT_NAMES]


def _import(
    request: Request, context: WebContext, source: UploadFile, title: str, format: str
) -> PersonalImport:
    """Stage the upload (size-limited), import it into a new personal deck, drop the file."""
    token, path = stage_upload(context.data_dir, source.filename, source.file)
    try:
        return import_personal_deck(
            path,
            db_url=context.db_url,
            user=request_user(request),
            shared=context.load_vault(),
            title=title,
            format=format,
            now=context.now(),
        )
    finally:
        discard_upload(context.data_dir, token)


def _page(
    request: Request, context: WebContext, imported: PersonalImport | None = None
) -> Response:
    decks = list_personal_decks(context.db_url, user=request_user(request))
    return render_page(
        request,
        "my_decks.html",
        {
            "decks": decks,
            "imported": imported,
            "formats": _formats(),
            "multi_user": context.multi_user,
            "limits": {
                "upload_mib": UPLOAD_LIMIT_BYTES // (1024 * 1024),
                "items": MAX_DECK_ITEMS,
                "decks": MAX_DECKS_PER_LEARNER,
            },
        },
    )


@router.get("/my-decks", include_in_schema=False)
def my_decks_page(request: Request, context: Context) -> Response:
    """Your personal decks, with the form that imports another."""
    return _page(request, context)


@router.post("/my-decks", include_in_schema=False)
def import_form(
    request: Request,
    context: Context,
    source: Upload,
    title: TitleField = "",
    format: FormatField = "auto",
) -> Response:
    """Import the uploaded file into a new personal deck, then list your decks."""
    imported = _import(request, context, source, title, format)
    return _page(request, context, imported)


@router.post("/my-decks/{name}/delete", include_in_schema=False)
def delete_form(request: Request, context: Context, name: str) -> Response:
    """Delete one of your personal decks (your study state of its items is kept)."""
    delete_personal_deck(context.db_url, user=request_user(request), name=name)
    return RedirectResponse("/my-decks", status_code=303)


@router.get("/api/personal-decks", tags=["personal decks"])
@json_route()
def decks_api(request: Request, context: Context) -> dict[str, Any]:
    """Your personal decks, by name (``enabled`` is always true)."""
    decks = list_personal_decks(context.db_url, user=request_user(request))
    return {"enabled": True, "decks": [deck.to_dict() for deck in decks]}


@router.post("/api/personal-decks", status_code=201, tags=["personal decks"])
def import_api(
    request: Request,
    context: Context,
    source: Upload,
    title: TitleField = "",
    format: FormatField = "auto",
) -> Response:
    """Import a file (any import format) into a new personal deck only you see."""
    imported = _import(request, context, source, title, format)
    return JSONResponse(imported.to_dict(), status_code=201)


@router.delete("/api/personal-decks/{name}", tags=["personal decks"])
@json_route()
def delete_api(request: Request, context: Context, name: str) -> dict[str, Any]:
    """Delete one of your personal decks (your study state of its items is kept)."""
    delete_personal_deck(context.db_url, user=request_user(request), name=name)
    return {"deleted": name}
