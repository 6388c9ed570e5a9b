"""Media files of the vault (``media/`` beside ``questions/``): images and sounds items show.

Only a plain file name of an accepted type is served (see
:mod:`sysdrill.content.media`): no folders, no ``..``, no symlink leading out of
``media/``, and the file's first bytes must be of the type its extension
names. Responses forbid sniffing and any active content, so a file that
slipped in cannot run as a page.
"""

from __future__ import annotations

from fastapi import APIRouter
from starlette.exceptions import HTTPException
from starlette.responses import FileResponse

from sysdrill.content.media import (
    MEDIA_FOLDER,
    is_safe_media_name,
    media_type_of_name,
    sniff_media_type,
)
from sysdrill.web.context import Context

__all__ = ["router"]

router = APIRouter()

_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'none'; sandbox",
    "Cache-Control": "private, max-age=86400",
}


@router.get("/media/{file_name}", include_in_schema=False)
def media_file(context: Context, file_name: str) -> FileResponse:
    """One media file of the vault, with the content type of its checked bytes."""
    name = file_name
    content_type = media_type_of_name(name)
    folder = (context.vault / MEDIA_FOLDER).resolve()
    path = (folder / name).resolve() if is_safe_media_name(name) else None
    if content_type is None or path is None or path.parent != folder or not path.is_file():
        raise HTTPException(404, f"no media file named '{name}' in the vault's {MEDIA_FOLDER}/")
    with path.open("rb") as stream:
        if sniff_media_type(stream.read(32)) != content_type:
            raise HTTPException(404, f"'{name}' is not the {content_type} file its name says")
    return FileResponse(path, media_type=content_type, headers=_HEADERS)
