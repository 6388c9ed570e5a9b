"""The one exception handler: sysdrill errors become status codes and one error shape.

Under ``/api/`` every error is JSON of one fixed shape::

    {"error": {"status": 404, "type": "QuestionNotFound", "message": "...", "details": []}}

Elsewhere it is the ``error.html`` page with the same status and message. A bad id
is a 404 and a bad parameter a 422, never a 500.

A message shown to a web user names nothing of the server (:func:`public_message`):
a database failure is told in fixed words (the driver's text, which names the
database's host, port or file, goes to the log), and the server's folders and
database address are cut out of any other message.
"""

from __future__ import annotations

import errno
import logging
import re
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Receive, Scope, Send

from sysdrill import errors
from sysdrill.web.security import add_security_headers

__all__ = [
    "DISK_FULL_MESSAGE",
    "STATUS_BY_ERROR",
    "error_body",
    "install_error_handler",
    "install_same_origin_guard",
    "public_message",
    "refusal",
    "status_for",
]

_log = logging.getLogger(__name__)

STATUS_BY_ERROR: dict[type[errors.SysdrillError], int] = {
    errors.QuestionNotFound: 404,
    errors.DeckNotFound: 404,
    errors.ChainNotFound: 404,
    errors.HardwareNotFound: 404,
    errors.VaultNotFound: 404,
    errors.UsageError: 422,
    errors.ContentInvalid: 422,
    errors.NapkinError: 422,
    errors.SchedulingError: 422,
    errors.ImportFailed: 422,
    errors.HostileInput: 413,
    errors.ExportFailed: 422,
    errors.StorageConflict: 409,
    errors.StorageError: 503,
    errors.TierUnavailable: 503,
    errors.LoginFailed: 401,
    errors.NotLoggedIn: 401,
    errors.LoginThrottled: 429,
    errors.NotPermitted: 403,
    errors.SignupRefused: 403,
    errors.AccountExists: 409,
    errors.SysdrillError: 400,
}
"""Status code of each error class; a subclass not listed takes its nearest parent's."""


def status_for(error: errors.SysdrillError) -> int:
    """The HTTP status of a sysdrill error (the nearest class listed wins)."""
    for cls in type(error).__mro__:
        if cls in STATUS_BY_ERROR:
            return STATUS_BY_ERROR[cls]
        # Every "no such thing" error (SessionNotFound and any added later) is a 404.
        if cls.__name__.endswith("NotFound"):
            return 404
    return 400


def error_body(
    status: int, kind: str, message: str, details: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """The one JSON error shape."""
    return {"error": {"status": status, "type": kind, "message": message, "details": details or []}}


_DRIVER_MESSAGES: dict[type[errors.StorageError], str] = {
    errors.StorageUnavailable: (
        "the study database cannot be reached just now; nothing was written. Try again "
        "in a minute (the server's log has the cause)"
    ),
    errors.StorageConflict: (
        "this write clashes with data stored meanwhile; nothing was written. Reload the "
        "page and try again"
    ),
    errors.StorageError: (
        "the study database failed on this request; nothing was written. Try again "
        "(the server's log has the cause)"
    ),
}
"""What a web user is told of a database failure the driver reported, by class."""

# A database server named in a driver's message: 'at "db.internal", port 5432',
# 'on socket "/run/postgresql/.s.PGSQL.5432"', 'host "db"', 'db.internal:5432'.
_DATABASE_ADDRESS = re.compile(
    r'\bat "[^"]*", port \d+|\bon socket "[^"]*"|\bhost "[^"]*"|\bport \d+'
    r"|\b[\w.-]+:\d{2,5}\b|\w+(?:\+\w+)?://\S+"
)
# An absolute path under a folder a server keeps files in (what is left after the
# app's own folders were cut out).
_SERVER_PATH = re.compile(
    r"(?<![\w/.:])/(?:home|root|srv|var|tmp|opt|usr|etc|mnt|media|data|work|run|Users|private)"
    r"(?:/[^\s'\"/]+)+/?"
)


def _driver_failure(exc: errors.SysdrillError) -> bool:
    """Whether a storage error carries a database driver's own text (it names the server)."""
    if not isinstance(exc, errors.StorageError):
        return False
    from sysdrill.storage.translate import FOREIGN_ROOTS

    return isinstance(exc.__cause__, FOREIGN_ROOTS)


def _server_folders(app: Any) -> list[str]:
    """The folders of the server a message may name, longest first."""
    context = getattr(getattr(app, "state", None), "sysdrill", None)
    folders: set[Path] = {Path(tempfile.gettempdir()), Path.home()}
    for name in ("vault", "data_dir", "cache_dir"):
        folder = getattr(context, name, None)
        if isinstance(folder, Path):
            folders.add(folder)
    found: set[str] = set()
    for folder in folders:
        found.add(str(folder))
        try:
            found.add(str(folder.resolve()))
        except OSError:
            continue
    return sorted((f for f in found if len(f) > 1), key=len, reverse=True)


def public_message(exc: errors.SysdrillError, app: Any = None) -> str:
    """The message of ``exc`` as a web user may read it: nothing of the server in it.

    A database failure reported by the driver is told in fixed words by class
    (its own text goes to the log). In any other message, the app's folders (the
    vault, data and cache folders), the temporary folder and the home folder
    become ``…``; in a storage error's message, a database address (a URL,
    ``host:port``, a socket) becomes ``the database`` too.

    Args:
        exc: The error.
        app: The app that raised it (its folders and database URL), if known.
    """
    if _driver_failure(exc):
        _log.warning("database failure shown to a web user as a fixed message: %s", exc)
        for cls in type(exc).__mro__:
            if cls in _DRIVER_MESSAGES:
                return _DRIVER_MESSAGES[cls]
    message = str(exc)
    context = getattr(getattr(app, "state", None), "sysdrill", None)
    db_url = getattr(context, "db_url", None)
    if isinstance(db_url, str) and db_url:
        message = message.replace(db_url, "the database")
    for folder in _server_folders(app):
        message = message.replace(folder, "…")
    if isinstance(exc, errors.StorageError):
        message = _DATABASE_ADDRESS.sub("the database", message)
    return _SERVER_PATH.sub(lambda m: "…/" + m.group(0).rstrip("/").rsplit("/", 1)[-1], message)


DISK_FULL_MESSAGE = (
    "the server's disk is full, so nothing was kept or imported; try again later, or tell "
    "the server's admin"
)
"""What a web user is told when a write ran out of disk space (a 503)."""
_DISK_FULL = frozenset({errno.ENOSPC, errno.EDQUOT})


def _disk_full(exc: BaseException) -> bool:
    """Whether ``exc`` or an error it was raised from is a full disk (or quota)."""
    seen: set[int] = set()
    found: BaseException | None = exc
    while found is not None and id(found) not in seen:
        seen.add(id(found))
        if isinstance(found, OSError) and found.errno in _DISK_FULL:
            return True
        found = found.__cause__ or found.__context__
    return False


def _describe(exc: Exception, app: Any = None) -> tuple[int, str, str, list[dict[str, Any]]]:
    if _disk_full(exc):
        _log.warning("a write ran out of disk space: %s", exc)
        return 503, "StorageUnavailable", DISK_FULL_MESSAGE, []
    if isinstance(exc, errors.SysdrillError):
        return status_for(exc), type(exc).__name__, public_message(exc, app), []
    if isinstance(exc, RequestValidationError):
        details = [
            {
                "loc": [str(part) for part in error.get("loc", ())],
                "message": str(error.get("msg", "")),
            }
            for error in exc.errors()
        ]
        where = ", ".join(".".join(d["loc"][1:] or d["loc"]) for d in details)
        return 422, "InvalidParameter", f"invalid parameter: {where}", details
    if isinstance(exc, HTTPException):
        kind = "NotFound" if exc.status_code == 404 else "HTTPError"
        return exc.status_code, kind, str(exc.detail), []
    _log.exception("unexpected error", exc_info=exc)
    return 500, "InternalError", "an unexpected error happened; see the server log", []


def _error_response(
    request: Request,
    status: int,
    kind: str,
    message: str,
    details: list[dict[str, Any]],
    exc: Exception | None = None,
) -> Response:
    # A client told to wait is told for how long (HTTP's Retry-After, in seconds).
    headers = (
        {"Retry-After": str(exc.retry_after_s)}
        if isinstance(exc, errors.LoginThrottled) and exc.retry_after_s
        else None
    )
    if request.url.path.startswith("/api/") or request.url.path == "/api":
        body = error_body(status, kind, message, details)
        return JSONResponse(body, status_code=status, headers=headers)
    if isinstance(exc, errors.NotLoggedIn):
        # A page asked for without a login: the login page, then back here (a form
        # sent without a login cannot be sent again by a redirect: back to the start).
        wanted = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        if request.method != "GET":
            wanted = "/"
        return RedirectResponse(f"/login?{urlencode({'next': wanted})}", status_code=303)
    from sysdrill.web.templating import render_page

    page = render_page(
        request,
        "error.html",
        {"status": status, "kind": kind, "message": message, "details": details},
        status_code=status,
    )
    if headers:
        page.headers.update(headers)
    return page


async def _handle(request: Request, exc: Exception) -> Response:
    status, kind, message, details = _describe(exc, request.app)
    response = _error_response(request, status, kind, message, details, exc)
    # An unexpected error's page is sent from outside every middleware.
    add_security_headers(response.headers, request.url.path)
    return response


def refusal(request: Request, kind: str, message: str, *, status: int = 403) -> Response:
    """The answer to a request the app refuses (403 unless told): the error shape, or the page."""
    return _error_response(request, status, kind, message, [])


def install_error_handler(app: FastAPI) -> None:
    """Register the handler for our errors, bad parameters and unknown routes."""
    for exc_class in (errors.SysdrillError, RequestValidationError, HTTPException, Exception):
        app.add_exception_handler(exc_class, _handle)


_UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class _SameOriginGuard:
    """Refuses a write whose ``Origin`` is another site (plain ASGI: no task per request)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] in _UNSAFE_METHODS:
            request = Request(scope)
            origin = request.headers.get("origin")
            if origin is not None:
                host = request.headers.get("host", "")
                if origin == "null" or urlsplit(origin).netloc != host:
                    message = f"a write from another site ({origin}) is refused"
                    response = refusal(request, "CrossSiteRequest", message)
                    await response(scope, receive, send)
                    return
        await self.app(scope, receive, send)


def install_same_origin_guard(app: FastAPI) -> None:
    """Refuse writes sent by another site's page (cross-site request forgery).

    The first line of defence, before the CSRF token (:mod:`sysdrill.web.csrf`):
    browsers name the sending page in ``Origin``, and a write whose origin is not
    this server is refused with 403 whatever token it carries. Requests without
    ``Origin`` (scripts, ``curl``, some older browsers) still need their token.
    """
    app.add_middleware(_SameOriginGuard)
