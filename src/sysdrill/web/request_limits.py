"""What a request must be before anything reads it: an allowed host, a bounded body, clean text.

One ASGI middleware (:class:`RequestLimitsMiddleware`), outside the same-origin and
CSRF checks and the login, so an anonymous request is refused before any of them
reads it:

1. **Host.** A request whose ``Host`` header is not one of the server's names is
   400 (``"type": "HostNotAllowed"``). A foreign page whose name resolves to
   127.0.0.1 (DNS rebinding) sends its own name there, so it never reaches the
   single-user app's settings or export. The names are the loopback ones
   (:data:`LOOPBACK_HOSTS`), the address ``serve`` binds, and those the admin lists
   (``--allowed-host``, ``SYSDRILL_ALLOWED_HOSTS``); ``*`` turns the check off.
2. **Body size.** A body over :data:`BODY_LIMIT_BYTES` (an upload route's:
   :data:`UPLOAD_BODY_LIMIT_BYTES`) is 413 (``"type": "RequestTooLarge"``): at once
   when ``Content-Length`` says so, else as soon as the bytes counted pass it.
   Bodies other than uploads are read whole here, once (they are small), and handed
   on; the CSRF check finds a plain form's token in the same bytes
   (``scope[BODY_KEY]``) rather than reading the body again.
3. **Text.** A NUL byte anywhere in the path, the query or a (non-upload) body, a
   path segment longer than :data:`MAX_PATH_SEGMENT_CHARS` or a query value longer
   than :data:`MAX_QUERY_VALUE_CHARS` is 422 (``"type": "InvalidParameter"``): no id,
   name or value of ours has them, and PostgreSQL refuses NUL in text (which made
   them a 503 "database failure" before).

It is plain ASGI (no task per request), as the other checks are.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import parse_qsl

from fastapi import FastAPI, Request
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sysdrill.web.errors import refusal
from sysdrill.web.uploads import UPLOAD_LIMIT_BYTES

__all__ = [
    "BODY_KEY",
    "BODY_LIMIT_BYTES",
    "LOOPBACK_HOSTS",
    "MAX_PATH_SEGMENT_CHARS",
    "MAX_QUERY_VALUE_CHARS",
    "UPLOAD_BODY_LIMIT_BYTES",
    "UPLOAD_PATHS",
    "RequestLimitsMiddleware",
    "allowed_host_names",
    "install_request_limits",
]

BODY_KEY = "sysdrill.body"
"""Where a request's scope holds its body, read whole by this middleware (not uploads)."""
LOOPBACK_HOSTS: tuple[str, ...] = ("127.0.0.1", "localhost", "::1")
"""Names every server answers to: this machine's own."""
BODY_LIMIT_BYTES = 1024 * 1024
"""Largest body of a request other than an upload (forms, JSON): 1 MiB."""
UPLOAD_BODY_LIMIT_BYTES = UPLOAD_LIMIT_BYTES + 1024 * 1024
"""Largest body of an upload: the file's limit plus 1 MiB for the form around it."""
UPLOAD_PATHS = frozenset(
    {"/import/preview", "/api/import/preview", "/my-decks", "/api/personal-decks"}
)
"""The routes that take a file upload (multipart), and so the larger limit."""
MAX_PATH_SEGMENT_CHARS = 300
"""Longest part of a path between two ``/``: the longest id the database keeps."""
MAX_QUERY_VALUE_CHARS = 2000
"""Longest query parameter (a search, a filter)."""

_JSON_NUL = re.compile(rb"(?<!\\)(?:\\\\)*\\u0000")
_HOST = re.compile(r"(?P<host>\[[0-9A-Fa-f:.]+\]|[^:\[\]]*)(?::\d*)?")


def allowed_host_names(bound: str | None = None, extra: Iterable[str] = ()) -> tuple[str, ...]:
    """The host names a server answers to: loopback, the address bound, then ``extra``.

    Args:
        bound: The address the server listens on (``--host``); a wildcard address
            (``0.0.0.0``, ``::``) names no host and is left out.
        extra: Names the admin allows (a proxy's public name); ``*`` allows any.

    Returns:
        The names, lower-cased, without brackets or duplicates, in that order.
    """
    names = [*LOOPBACK_HOSTS]
    if bound and bound not in ("0.0.0.0", "::", ""):
        names.append(bound)
    names.extend(extra)
    found: dict[str, None] = {}
    for name in names:
        cleaned = name.strip().lower().removeprefix("[").removesuffix("]")
        if cleaned:
            found.setdefault(cleaned, None)
    return tuple(found)


def _host_of(header: str) -> str | None:
    """The host name of a ``Host`` header without its port or brackets (None: unreadable)."""
    match = _HOST.fullmatch(header.strip())
    if match is None:
        return None
    return match["host"].lower().removeprefix("[").removesuffix("]")


def _text_problem(scope: Scope) -> str | None:
    """Why the path or query is refused (None: it is fine)."""
    path: str = scope["path"]
    if "\x00" in path:
        return "the path holds a NUL byte, which no id or name has"
    longest = max((len(part) for part in path.split("/")), default=0)
    if longest > MAX_PATH_SEGMENT_CHARS:
        return (
            f"a part of the path has {longest} characters; ids and names have at most "
            f"{MAX_PATH_SEGMENT_CHARS}"
        )
    query = scope.get("query_string", b"").decode("latin-1")
    for name, value in parse_qsl(query, keep_blank_values=True):
        if "\x00" in name or "\x00" in value:
            return f"the query parameter {name.replace(chr(0), '')!r} holds a NUL byte"
        if len(value) > MAX_QUERY_VALUE_CHARS:
            return (
                f"the query parameter {name!r} has {len(value)} characters; "
                f"at most {MAX_QUERY_VALUE_CHARS} are read"
            )
    return None


def _body_problem(body: bytes, content_type: str) -> str | None:
    """Why a (non-upload) body is refused: it holds a NUL byte, raw or escaped."""
    found = b"\x00" in body
    if not found and content_type.startswith("application/x-www-form-urlencoded"):
        found = b"%00" in body
    if not found and "json" in content_type:
        found = _JSON_NUL.search(body) is not None
    return "the request holds a NUL byte, which no field takes" if found else None


class _TooLarge(Exception):
    """The body passed its limit (raised inside this module only)."""


class RequestLimitsMiddleware:
    """Refuses a foreign host, an oversized body and NUL bytes before anything reads them."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        allowed_hosts: Iterable[str] = LOOPBACK_HOSTS,
        body_limit_bytes: int = BODY_LIMIT_BYTES,
        upload_limit_bytes: int = UPLOAD_BODY_LIMIT_BYTES,
    ) -> None:
        """Wrap ``app``; ``allowed_hosts`` are names without port (``*``: any)."""
        self.app = app
        names = frozenset(allowed_host_names(None, allowed_hosts))
        self.any_host = "*" in names
        self.allowed_hosts = names
        self.body_limit_bytes = body_limit_bytes
        self.upload_limit_bytes = upload_limit_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Check one request, then serve it or answer the refusal."""
        if scope["type"] != "http":
            # Lifespan events; the app has no WebSocket route.
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        if not self.any_host:
            host = _host_of(headers.get("host", ""))
            if host not in self.allowed_hosts:
                shown = (host or "")[:100]
                message = (
                    f"this server does not answer to the host name {shown!r}; its admin can "
                    "allow it with `sysdrill serve --allowed-host NAME`"
                )
                await self._refuse(scope, receive, send, 400, "HostNotAllowed", message)
                return
        problem = _text_problem(scope)
        if problem is not None:
            await self._refuse(scope, receive, send, 422, "InvalidParameter", problem)
            return
        upload = scope["path"] in UPLOAD_PATHS
        limit = self.upload_limit_bytes if upload else self.body_limit_bytes
        declared = headers.get("content-length", "").strip()
        if declared.isdigit() and int(declared) > limit:
            await self._too_large(scope, receive, send, limit)
            return
        if upload:
            await self._streamed(scope, receive, send, limit)
            return
        try:
            body, first = await _read_whole(receive, limit)
        except _TooLarge:
            await self._too_large(scope, receive, send, limit)
            return
        problem = _body_problem(body, headers.get("content-type", "").lower())
        if problem is not None:
            await self._refuse(scope, receive, send, 422, "InvalidParameter", problem)
            return
        scope[BODY_KEY] = body
        await self.app(scope, _replay(body, first, receive), send)

    async def _streamed(self, scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        """Hand an upload on as it comes, answering 413 once it passes ``limit``."""
        counted = 0
        refused = False
        started = False

        async def counting_receive() -> Message:
            nonlocal counted, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                counted += len(message.get("body", b""))
                if counted > limit:
                    refused = True
                    if not started:
                        await self._too_large(scope, receive, send, limit)
                    # The app sees the client gone and stops reading.
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if refused:
                return  # the 413 went out already; whatever the app says is dropped
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counting_receive, guarded_send)
        except Exception:
            if not refused:
                raise
            # The app failed on the body cut short after the 413 was sent: nothing to add.

    async def _too_large(self, scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        limit_mib = limit // (1024 * 1024)
        message = f"the request body is larger than {limit_mib} MiB, the most this route accepts"
        await self._refuse(scope, receive, send, 413, "RequestTooLarge", message)

    @staticmethod
    async def _refuse(
        scope: Scope, receive: Receive, send: Send, status: int, kind: str, message: str
    ) -> None:
        response = refusal(Request(scope), kind, message, status=status)
        # The body is not read: the connection is not kept for another request.
        response.headers["Connection"] = "close"
        await response(scope, receive, send)


async def _read_whole(receive: Receive, limit: int) -> tuple[bytes, Message | None]:
    """The whole body (raising :class:`_TooLarge` past ``limit``), and a non-body message.

    The second value is a message that came instead of the body's end (a disconnect),
    to be handed to the app as it came.
    """
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return bytes(body), message
        body.extend(message.get("body", b""))
        if len(body) > limit:
            raise _TooLarge
        if not message.get("more_body", False):
            return bytes(body), None


def _replay(body: bytes, other: Message | None, receive: Receive) -> Receive:
    """A ``receive`` handing the app ``body`` in one message, then the connection's own."""
    pending: list[Message] = [
        other if other is not None else {"type": "http.request", "body": body, "more_body": False}
    ]

    async def replayed() -> Message:
        if pending:
            return pending.pop()
        return await receive()

    return replayed


def install_request_limits(app: FastAPI, *, allowed_hosts: Iterable[str] = LOOPBACK_HOSTS) -> None:
    """Refuse foreign hosts, oversized bodies and NUL bytes before any other check.

    Call it after the CSRF and same-origin checks are installed and before the
    security headers (Starlette runs the middleware added last first): its refusals
    then carry the security headers, and nothing behind it reads a refused body.

    Args:
        app: The app being built.
        allowed_hosts: Host names (no port) the server answers to; ``*`` for any.
    """
    app.add_middleware(RequestLimitsMiddleware, allowed_hosts=tuple(allowed_hosts))
