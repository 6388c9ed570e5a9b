"""Uploaded import sources, staged on disk between the preview and the confirmation.

An upload is saved under ``<data dir>/uploads/<token>/<file name>``; the preview
page carries only the token, so confirming imports exactly the file previewed.
"""

from __future__ import annotations

import re
import secrets
import shutil
from pathlib import Path
from typing import BinaryIO

from sysdrill.errors import HostileInput, ImportFailed, StorageUnavailable, UsageError

__all__ = ["UPLOAD_LIMIT_BYTES", "discard_upload", "stage_upload", "staged_upload"]

UPLOAD_LIMIT_BYTES = 64 * 1024 * 1024
"""Largest upload accepted (an Anki package with media can be large)."""

_TOKEN = re.compile(r"[0-9a-f]{32}")
_UNSAFE = re.compile(r"[^\w.+-]+")
_CHUNK_BYTES = 1024 * 1024


def _folder(data_dir: Path) -> Path:
    return data_dir / "uploads"


def _safe_name(name: str | None) -> str:
    base = Path(name or "").name
    cleaned = _UNSAFE.sub("_", base).strip("._")
    return cleaned[:120] or "upload"


def stage_upload(data_dir: Path, name: str | None, stream: BinaryIO) -> tuple[str, Path]:
    """Save an upload and return its token and path.

    Raises:
        HostileInput: If it is larger than :data:`UPLOAD_LIMIT_BYTES` (nothing is kept).
        ImportFailed: If it is empty.
        StorageUnavailable: If it cannot be written (a full disk; nothing is kept).
    """
    token = secrets.token_hex(16)
    folder = _folder(data_dir) / token
    path = folder / _safe_name(name)
    written = 0
    try:
        folder.mkdir(parents=True)
        with path.open("wb") as out:
            while chunk := stream.read(_CHUNK_BYTES):
                written += len(chunk)
                if written > UPLOAD_LIMIT_BYTES:
                    limit_mib = UPLOAD_LIMIT_BYTES // (1024 * 1024)
                    raise HostileInput(f"the upload is larger than {limit_mib} MiB")
                out.write(chunk)
        if written == 0:
            raise ImportFailed("the uploaded file is empty; choose a file to import")
    except OSError as exc:
        shutil.rmtree(folder, ignore_errors=True)
        raise StorageUnavailable(
            f"the server cannot keep the upload ({exc.strerror}); nothing was kept. Try "
            "again later, or tell the server's admin"
        ) from exc
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return token, path


def staged_upload(data_dir: Path, token: str) -> Path:
    """The file staged under ``token``.

    Raises:
        UsageError: If the token is malformed or names no staged upload.
    """
    if not _TOKEN.fullmatch(token):
        raise UsageError("that upload token is not valid; upload the file again")
    folder = _folder(data_dir) / token
    files = sorted(folder.iterdir()) if folder.is_dir() else []
    if len(files) != 1:
        raise UsageError("that upload is gone (already imported?); upload the file again")
    return files[0]


def discard_upload(data_dir: Path, token: str) -> None:
    """Delete the upload staged under ``token`` (nothing if there is none)."""
    if _TOKEN.fullmatch(token):
        shutil.rmtree(_folder(data_dir) / token, ignore_errors=True)
