"""The one exception handler: sysdrill errors become status codes and one error shape.

Under ``/api/`` every error is JSON of one fixed shape::

    {"error": {"status": 404, "type": "QuestionNotFound", "message": "...", "details": []}}

Elsewhere it is the ``error.html`` page with the same status and message. A bad id
is a 404 and a bad parameter a 422, never a 500.
"""

from __future__ import annotations

import logging
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
    "STATUS_BY_ERROR",
    "error_body",
    "install_error_handler",
    "install_same_origin_guard",
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


def _describe(exc: Exception) -> tuple[int, str, str, list[dict[str, Any]]]:
    if isinstance(exc, errors.SysdrillError):
        return status_for(exc), type(exc).__name__, str(exc), []
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
    status, kind, message, details = _describe(exc)
    response = _error_response(request, status, kind, message, details, exc)
    # An unexpected error's page is sent from outside every middleware.
    add_security_headers(response.headers, request.url.path)
    return response


def refusal(request: Request, kind: str, message: str) -> Response:
    """The 403 answer to a write the app refuses: the error shape, or the error page."""
    return _error_response(request, 403, kind, message, [])


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
