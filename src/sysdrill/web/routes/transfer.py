"""Import (upload, preview the report, confirm) and export (download a file).

An import writes the served vault, or, in single-user mode over a bundled vault
(which is never written), makes a personal deck of the one learner
(``app/personal_decks.py``), studied with the vault at once; the preview and the
report are the same in both cases.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, File, Form, Query, Request, UploadFile
from starlette.background import BackgroundTask
from starlette.responses import FileResponse, Response

from sysdrill.app.browse import choice
from sysdrill.app.interop import StagedImport
from sysdrill.content.enums import Level, Status, Track
from sysdrill.interop.import_report import ImportReport
from sysdrill.web.auth import learner_vault, request_user, require_admin
from sysdrill.web.context import Context, WebContext
from sysdrill.web.json_api import json_route
from sysdrill.web.templating import render_page
from sysdrill.web.uploads import discard_upload, stage_upload, staged_upload

__all__ = ["EXPORT_SUFFIXES", "router"]

router = APIRouter()
# Importing changes the vault every learner studies: admins only (multi-user mode).
ADMIN = [Depends(require_admin)]
Text = Annotated[str | None, Query()]

EXPORT_SUFFIXES: dict[str, str] = {
    "apkg": ".apkg",
    "anki-text": ".txt",
    "csv": ".csv",
    "staffml-json": ".json",
    "markdown": ".md",
}
"""File suffix of each export format."""

_MEDIA_TYPES = {
    ".apkg": "application/octet-stream",
    ".txt": "text/plain; charset=utf-8",
    ".csv": "text/csv; charset=utf-8",
    ".json": "application/json",
    ".md": "text/markdown; charset=utf-8",
}


def _import(
    context: WebContext, source: Path, *, format: str, deck: str | None, dry_run: bool
) -> ImportReport:
    from sysdrill.app.interop import import_items

    return import_items(
        source,
        into=context.import_vault(),
        format=format,
        deck=deck,
        dry_run=dry_run,
        now=context.now(),
    )


def _formats() -> list[str]:
    from sysdrill.interop.formats import FORMAT_NAMES

    return ["auto", *FORMAT_NAMES]


@router.get("/import", dependencies=ADMIN, include_in_schema=False)
def import_page(request: Request, context: Context) -> Response:
    """The import form: choose a file, its format and a deck."""
    return render_page(
        request,
        "import.html",
        {
            "formats": _formats(),
            "target": context.import_vault(),
            "serving": context.vault,
            "personal": context.imports_to_personal_decks,
        },
    )


Upload = Annotated[UploadFile, File()]
# Backstops on what a form may carry (the import checks names more closely).
FormatField = Annotated[str, Form(max_length=200)]
DeckField = Annotated[str, Form(max_length=10_000)]
TokenField = Annotated[str, Form(max_length=10_000)]


def _import_staged(
    request: Request, context: WebContext, path: Path, *, format: str, deck: str, dry_run: bool
) -> tuple[StagedImport, list[str]]:
    """Import (or dry-run) the staged upload at ``path`` where this server's imports go.

    Also returns the ids a re-imported personal deck takes out (none for a vault).
    """
    if not context.imports_to_personal_decks:
        report = _import(context, path, format=format, deck=deck, dry_run=dry_run)
        return StagedImport(report, source=path.name), []
    from sysdrill.app.personal_decks import import_personal_deck

    done = import_personal_deck(
        path,
        db_url=context.db_url,
        user=request_user(request),
        shared=context.load_vault(),
        title=deck,
        format=format,
        now=context.now(),
        dry_run=dry_run,
    )
    return StagedImport(done.report, source=path.name), done.removed


def _shown(staged: StagedImport, context: WebContext, removed: list[str]) -> dict[str, Any]:
    """The JSON of an import's report; ``personal_deck`` names where it went, if a deck.

    ``removed`` lists the items a re-import takes out of that deck (they are in no outcome).
    """
    shown = staged.to_dict()
    if context.imports_to_personal_decks:
        shown["personal_deck"] = staged.report.deck
        shown["removed"] = removed
    return shown


def _preview(
    request: Request, context: WebContext, source: UploadFile, format: str, deck: str
) -> dict[str, Any]:
    """Stage an upload and dry-run its import; the token confirms it later."""
    token, path = stage_upload(context.data_dir, source.filename, source.file)
    try:
        staged, removed = _import_staged(
            request, context, path, format=format, deck=deck, dry_run=True
        )
    except BaseException:
        discard_upload(context.data_dir, token)
        raise
    return _shown(StagedImport(staged.report, source=path.name, token=token), context, removed)


def _confirm(
    request: Request, context: WebContext, token: str, format: str, deck: str
) -> dict[str, Any]:
    """Import the upload staged under ``token`` for real, then discard it."""
    path = staged_upload(context.data_dir, token)
    staged, removed = _import_staged(
        request, context, path, format=format, deck=deck, dry_run=False
    )
    discard_upload(context.data_dir, token)
    return _shown(staged, context, removed)


@router.post("/import/preview", dependencies=ADMIN, include_in_schema=False)
def import_preview_page(
    request: Request,
    context: Context,
    source: Upload,
    format: FormatField = "auto",
    deck: DeckField = "",
) -> Response:
    """Stage the upload and show what importing it would do (nothing is written)."""
    shown = _preview(request, context, source, format, deck) | {"format": format, "deck": deck}
    return render_page(request, "import_report.html", shown)


@router.post("/import/confirm", dependencies=ADMIN, include_in_schema=False)
def import_confirm_page(
    request: Request,
    context: Context,
    token: TokenField,
    format: FormatField = "auto",
    deck: DeckField = "",
) -> Response:
    """Import the previewed upload for real, then show the report."""
    shown = _confirm(request, context, token, format, deck) | {"token": None}
    return render_page(request, "import_report.html", shown)


@router.post("/api/import/preview", dependencies=ADMIN, tags=["import"])
@json_route()
def import_preview_api(
    request: Request,
    context: Context,
    source: Upload,
    format: FormatField = "auto",
    deck: DeckField = "",
) -> dict[str, Any]:
    """Stage an upload and report what importing it would do; confirm with its token."""
    return _preview(request, context, source, format, deck)


@router.post("/api/import/confirm", dependencies=ADMIN, tags=["import"])
@json_route()
def import_confirm_api(
    request: Request,
    context: Context,
    token: TokenField,
    format: FormatField = "auto",
    deck: DeckField = "",
) -> dict[str, Any]:
    """Import a previewed upload (by its token): into the vault, or a personal deck.

    Single-user mode over a bundled vault makes a personal deck (``personal_deck``
    in the answer names it), studied with the vault at once.
    """
    return _confirm(request, context, token, format, deck)


@router.get("/export", include_in_schema=False)
def export_page(request: Request, context: Context) -> Response:
    """The export form: a format and optional filters, the learner's own decks among the decks."""
    vault = learner_vault(request)
    decks = sorted({d.name for d in vault.decks} | {i.deck for i in vault.items if i.deck})
    return render_page(
        request,
        "export.html",
        {
            "formats": list(EXPORT_SUFFIXES),
            "tracks": [t.value for t in Track],
            "levels": [v.value for v in Level],
            "statuses": [s.value for s in Status],
            "decks": decks,
        },
    )


def _export(
    request: Request,
    context: WebContext,
    format: str,
    track: str | None,
    level: str | None,
    deck: str | None,
    status: str | None,
) -> Response:
    from sysdrill.app.interop import export_items
    from sysdrill.errors import NothingToExport, UsageError
    from sysdrill.interop.export import ExportFilters

    if format not in EXPORT_SUFFIXES:
        allowed = ", ".join(EXPORT_SUFFIXES)
        raise UsageError(f"format must be one of {allowed}; got '{format}'")
    chosen_track = choice(track, Track, "track")
    chosen_level = choice(level, Level, "level")
    chosen_status = choice(status, Status, "status")
    filters = ExportFilters(
        tracks=(chosen_track,) if chosen_track else (),
        levels=(chosen_level,) if chosen_level else (),
        decks=(deck,) if deck else (),
        statuses=(chosen_status,) if chosen_status else (),
    )
    suffix = EXPORT_SUFFIXES[format]
    folder = Path(tempfile.mkdtemp(prefix="sysdrill-export-"))
    out = folder / f"sysdrill{suffix}"
    try:
        export_items(
            context.vault,
            format=format,
            out=out,
            filters=filters,
            now=context.now(),
            cache_dir=context.cache_dir,
            # The learner's personal decks are exported with the vault, as they are studied.
            personal_of=request_user(request),
            db_url=context.db_url,
        )
    except NothingToExport as exc:
        _remove(folder)
        # The library's message names command-line options; the page has fields.
        chosen = {"track": track, "level": level, "deck": deck, "status": status}
        named = ", ".join(f"{name} {value}" for name, value in chosen.items() if value)
        raise UsageError(
            f"no item matches {named or 'these filters'}; choose fewer or other filters"
        ) from exc
    except BaseException:
        _remove(folder)
        raise
    return FileResponse(
        out,
        media_type=_MEDIA_TYPES[suffix],
        filename=out.name,
        background=BackgroundTask(_remove, folder),
    )


def _remove(folder: Path) -> None:
    import shutil

    shutil.rmtree(folder, ignore_errors=True)


def export_params(
    track: Text = None, level: Text = None, deck: Text = None, status: Text = None
) -> dict[str, str | None]:
    """FastAPI dependency: the export filters (blank means any)."""
    return {"track": track, "level": level, "deck": deck, "status": status}


ExportFilterParams = Annotated[dict[str, str | None], Depends(export_params)]


@router.get("/export/download", include_in_schema=False)
def export_download(
    request: Request, context: Context, given: ExportFilterParams, format: str = "apkg"
) -> Response:
    """Download the vault and your own decks (or the filtered part) in the chosen format."""
    return _export(request, context, format, **given)


@router.get("/api/export", tags=["export"])
def export_api(
    request: Request, context: Context, given: ExportFilterParams, format: str = "staffml-json"
) -> Response:
    """The vault and your own decks (or the filtered part) as a file.

    Formats: apkg, anki-text, csv, staffml-json, markdown.
    """
    return _export(request, context, format, **given)
