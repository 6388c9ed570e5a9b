"""CSRF tokens: every write must carry a token that another site cannot read or make.

A signed double-submit token, bound to the login and dated. A browser gets a random
value in the ``sysdrill_csrf`` cookie (HttpOnly, SameSite=Lax, see
:func:`sysdrill.web.security.set_cookie`); a token is ``ISSUED.MAC``: the time it was
issued (whole seconds since 1970, UTC) and an HMAC, under the server's secret key, of
that cookie value, of the SHA-256 of the browser's login cookie (``sysdrill_session``;
empty when logged out) and of the issue time. Pages put the token in a hidden
``csrf_token`` field of each form (``{{ csrf_field() }}`` in a template); scripts send
it in the ``X-CSRF-Token`` header; ``GET /api/csrf`` hands one (and its cookie) to API
clients. A write (POST, PUT, PATCH, DELETE) is served only when its token was made for
its own CSRF cookie *and* its own login, at most :data:`TOKEN_MAX_AGE` ago. Another
site's page cannot read the cookie or a token (with SameSite=Lax its forms do not even
carry the cookie); without the key it cannot compute a token; and a cookie and token
it got for its own login, planted in a victim's browser, do not go with the victim's
login. Logging in or out changes the login cookie, so every earlier token stops
working (the CSRF cookie is renewed then too).

Nothing is kept per process: the key is ``SYSDRILL_SECRET_KEY`` or one stored in the
database (:mod:`sysdrill.app.server_secret`), so any worker checks any token and a
restart voids none. The check is this module's middleware, the one place for every
route, page or API.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import parse_qs

from fastapi import APIRouter, FastAPI, Request
from jinja2 import pass_context
from markupsafe import Markup
from starlette.datastructures import MutableHeaders
from starlette.requests import HTTPConnection
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sysdrill.web.auth import SESSION_COOKIE
from sysdrill.web.context import WebContext
from sysdrill.web.errors import refusal
from sysdrill.web.request_limits import BODY_KEY
from sysdrill.web.security import set_cookie

__all__ = [
    "COOKIE_NAME",
    "FIELD_NAME",
    "HEADER_NAME",
    "MULTIPART_PREFIX_BYTES",
    "TOKEN_MAX_AGE",
    "CsrfMiddleware",
    "CsrfSigner",
    "CsrfState",
    "csrf_field",
    "install_csrf",
    "renew_csrf_cookie",
    "router",
]

COOKIE_NAME = "sysdrill_csrf"
"""The cookie holding the browser's random value."""
FIELD_NAME = "csrf_token"
"""The hidden form field holding the token."""
HEADER_NAME = "X-CSRF-Token"
"""The request header holding the token (scripts, API clients)."""
TOKEN_MAX_AGE = timedelta(hours=24)
"""How long a token is accepted after it was issued (a page left open longer is reloaded)."""

MULTIPART_PREFIX_BYTES = 256 * 1024
"""How far into a multipart form (an upload) its token is looked for: forms put it first."""

_UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_COOKIE_VALUE = re.compile(r"[A-Za-z0-9_-]{43}")
_TOKEN = re.compile(r"([0-9]{1,12})\.([0-9a-f]{64})")
_CLOCK_SKEW_S = 300  # workers' clocks may differ a little: a token "from the future" within it
_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")
_RELOAD = "reload the page and submit again"


class CsrfSigner:
    """Makes and checks tokens with the server's key, loaded once on first use.

    The key is loaded lazily so a request that never needs a token (static files,
    reads with no form) never opens the database.
    """

    def __init__(self, load_key: Callable[[], bytes]) -> None:
        """Sign with the key ``load_key`` returns (called once, on first use)."""
        self._load_key = load_key
        self._key: bytes | None = None
        self._lock = threading.Lock()

    def _signing_key(self) -> bytes:
        if self._key is None:
            with self._lock:
                if self._key is None:
                    # Derived, so the one secret can sign other things without
                    # a CSRF token ever doubling as one of them.
                    self._key = hmac.new(self._load_key(), b"sysdrill csrf", "sha256").digest()
        return self._key

    def _mac(self, cookie_value: str, session_sha256: str, issued_s: int) -> str:
        message = f"{cookie_value}\0{session_sha256}\0{issued_s}".encode("ascii")
        return hmac.new(self._signing_key(), message, hashlib.sha256).hexdigest()

    def token_for(self, cookie_value: str, *, session: str, now: datetime) -> str:
        """The token for CSRF cookie ``cookie_value`` and login cookie ``session``, issued now.

        Args:
            cookie_value: The browser's CSRF cookie.
            session: The browser's login cookie ('' when logged out).
            now: The current time (UTC).
        """
        issued_s = int(now.timestamp())
        return f"{issued_s}.{self._mac(cookie_value, _digest(session), issued_s)}"

    def refusal(self, cookie_value: str, token: str, *, session: str, now: datetime) -> str | None:
        """Why ``token`` does not go with these cookies now, or None when it does.

        The MAC is compared in constant time; an untrusted token is never decoded
        past the format check.
        """
        found = _TOKEN.fullmatch(token)
        if found is None:
            return "does not match its cookie"
        issued_s = int(found.group(1))
        expected = self._mac(cookie_value, _digest(session), issued_s).encode("ascii")
        if not hmac.compare_digest(expected, found.group(2).encode("ascii")):
            return "does not match its cookie"
        age_s = now.timestamp() - issued_s
        if age_s > TOKEN_MAX_AGE.total_seconds() or age_s < -_CLOCK_SKEW_S:
            return "has expired"
        return None


def _digest(session: str) -> str:
    return hashlib.sha256(session.encode("utf-8", "replace")).hexdigest()


@dataclass(slots=True)
class CsrfState:
    """One request's CSRF cookie value, and whether a new one must be sent back."""

    signer: CsrfSigner
    cookie_value: str | None
    session: str
    """The login cookie the request came with ('' for none): tokens are bound to it."""
    now: datetime
    """When the request came (UTC)."""
    new_cookie: bool = field(default=False)

    def token(self) -> str:
        """The token for this browser and login, giving it a cookie first if it has none."""
        if self.cookie_value is None:
            self.cookie_value = secrets.token_urlsafe(32)
            self.new_cookie = True
        return self.signer.token_for(self.cookie_value, session=self.session, now=self.now)

    def renew(self) -> None:
        """Give this browser a new cookie (so every earlier token stops working)."""
        self.cookie_value = secrets.token_urlsafe(32)
        self.new_cookie = True

    def refusal(self, token: str | None, *, api: bool) -> str | None:
        """Why a write carrying ``token`` is refused, or None when it is genuine."""
        how = (
            f"send the {HEADER_NAME} header with the token from GET /api/csrf and its cookie"
            if api
            else _RELOAD
        )
        if self.cookie_value is None:
            return f"this write came without the {COOKIE_NAME} cookie; {how}"
        if not token:
            return f"this write carries no CSRF token; {how}"
        why = self.signer.refusal(self.cookie_value, token, session=self.session, now=self.now)
        if why is not None:
            return f"the CSRF token of this write {why}; {how}"
        return None


def _state(connection: HTTPConnection) -> CsrfState:
    state: CsrfState = connection.scope["state"]["csrf"]
    return state


def renew_csrf_cookie(request: Request) -> None:
    """Send this browser a new CSRF cookie with the response (call it at login and logout).

    A token issued before, perhaps to a cookie another site managed to plant,
    then matches nothing.
    """
    _state(request).renew()


def csrf_field(request: Request) -> Markup:
    """The hidden form field carrying the request's token (a template global)."""
    token = _state(request).token()
    return Markup(f'<input type="hidden" name="{FIELD_NAME}" value="{token}">')


def _csrf_field_global(context: Any) -> Markup:
    return csrf_field(context["request"])


class _BodyReader:
    """Reads a request's body from ``receive``, keeping what it read for the app."""

    def __init__(self, receive: Receive) -> None:
        self._receive = receive
        self.messages: list[Message] = []
        self.size_bytes = 0
        self.ended = False

    async def chunk(self) -> bytes:
        """The next piece of the body (empty once it has ended)."""
        if self.ended:
            return b""
        message = await self._receive()
        self.messages.append(message)
        if message["type"] != "http.request" or not message.get("more_body", False):
            self.ended = True
        body: bytes = message.get("body", b"")
        self.size_bytes += len(body)
        return body

    def replay(self) -> Receive:
        """A ``receive`` handing the app what was read, then the rest of the body."""
        pending = list(self.messages)

        async def replayed() -> Message:
            if pending:
                return pending.pop(0)
            return await self._receive()

        return replayed


def _urlencoded_token(scope: Scope) -> str | None:
    """The token field of a plain form, from the body the request limits read whole.

    :mod:`sysdrill.web.request_limits` runs first and keeps the body in the scope
    (bounded there); without it, there is no body to look in.
    """
    body = scope.get(BODY_KEY)
    if not isinstance(body, bytes):
        return None
    values = parse_qs(body.decode("latin-1"), keep_blank_values=True).get(FIELD_NAME)
    return values[0] if values else None


async def _multipart_token(reader: _BodyReader, content_type: str) -> str | None:
    """The token field, parsed from the start of the body (never the whole upload)."""
    from python_multipart.multipart import MultipartParser, parse_options_header

    boundary = parse_options_header(content_type)[1].get(b"boundary")
    if not boundary:
        return None
    part: dict[str, bytearray] = {}
    found: list[str] = []

    def on_part_begin() -> None:
        part.update(field=bytearray(), value=bytearray(), name=bytearray(), data=bytearray())

    def on_header_field(data: bytes, start: int, end: int) -> None:
        part["field"].extend(data[start:end])

    def on_header_value(data: bytes, start: int, end: int) -> None:
        part["value"].extend(data[start:end])

    def on_header_end() -> None:
        if bytes(part["field"]).lower() == b"content-disposition":
            name = parse_options_header(bytes(part["value"]))[1].get(b"name", b"")
            part["name"] = bytearray(name)
        part["field"], part["value"] = bytearray(), bytearray()

    def on_part_data(data: bytes, start: int, end: int) -> None:
        if part["name"] == FIELD_NAME.encode() and len(part["data"]) < 1024:
            part["data"].extend(data[start:end])

    def on_part_end() -> None:
        if part["name"] == FIELD_NAME.encode():
            found.append(part["data"].decode("latin-1"))

    parser = MultipartParser(
        boundary,
        {
            "on_part_begin": on_part_begin,
            "on_header_field": on_header_field,
            "on_header_value": on_header_value,
            "on_header_end": on_header_end,
            "on_part_data": on_part_data,
            "on_part_end": on_part_end,
        },
    )
    while not found and not reader.ended and reader.size_bytes < MULTIPART_PREFIX_BYTES:
        room = MULTIPART_PREFIX_BYTES - reader.size_bytes
        chunk = await reader.chunk()
        try:
            parser.write(chunk[:room])
        except ValueError:  # python-multipart's parse errors; the route reports them
            return None
    return found[0] if found else None


def _refuse(scope: Scope, message: str) -> Response:
    return refusal(Request(scope), "CsrfTokenInvalid", message)


class CsrfMiddleware:
    """Refuses a write without its genuine token; sends a new browser its cookie."""

    def __init__(self, app: ASGIApp, *, signer: CsrfSigner, clock: Callable[[], datetime]) -> None:
        """Wrap ``app``, checking tokens with ``signer`` at the time ``clock`` tells."""
        self.app = app
        self.signer = signer
        self.clock = clock

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Check one request, then serve it."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        connection = HTTPConnection(scope)
        cookie_value = connection.cookies.get(COOKIE_NAME)
        if cookie_value is not None and not _COOKIE_VALUE.fullmatch(cookie_value):
            cookie_value = None
        session = connection.cookies.get(SESSION_COOKIE, "")
        state = CsrfState(self.signer, cookie_value, session=session, now=self.clock())
        scope.setdefault("state", {})["csrf"] = state
        if scope["method"] in _UNSAFE_METHODS:
            token = connection.headers.get(HEADER_NAME)
            content_type = connection.headers.get("content-type", "")
            if token is None and content_type.startswith(_FORM_TYPES[0]):
                token = _urlencoded_token(scope)
            elif token is None and content_type.startswith(_FORM_TYPES[1]):
                reader = _BodyReader(receive)
                token = await _multipart_token(reader, content_type)
                receive = reader.replay()
            api = scope["path"].startswith("/api/")
            reason = state.refusal(token, api=api)
            if reason is not None:
                await _refuse(scope, reason)(scope, receive, send)
                return

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start" and state.new_cookie:
                assert state.cookie_value is not None
                set_cookie(
                    MutableHeaders(scope=message), connection, COOKIE_NAME, state.cookie_value
                )
            await send(message)

        await self.app(scope, receive, send_with_cookie)


router = APIRouter()


@router.get("/api/csrf")
def api_csrf(request: Request) -> dict[str, Any]:
    """A CSRF token for API clients, with its cookie (send both back with each write).

    Scripts and tools keep the ``sysdrill_csrf`` cookie this response sets and send
    the token in the ``X-CSRF-Token`` header of every POST, PUT, PATCH and DELETE.
    """
    return {
        "csrf_token": _state(request).token(),
        "header": HEADER_NAME,
        "field": FIELD_NAME,
        "cookie": COOKIE_NAME,
    }


def install_csrf(app: FastAPI) -> None:
    """Check CSRF tokens on every write to ``app`` and serve ``GET /api/csrf``.

    Also gives the templates ``csrf_field()`` (the shared environment gets the same
    function from every app; it reads the token from the request it renders).

    Raises:
        UsageError: If ``SYSDRILL_SECRET_KEY`` is set but too short.
    """
    from sysdrill.app.server_secret import configured_secret_key, server_secret
    from sysdrill.web.templating import templates

    context: WebContext = app.state.sysdrill
    configured_secret_key()  # a key too short stops the app from starting, not a request

    def load_key() -> bytes:
        return server_secret(context.db_url, now=context.now())

    app.add_middleware(CsrfMiddleware, signer=CsrfSigner(load_key), clock=context.now)
    app.include_router(router)
    app.state.routers.append(router)
    templates().env.globals["csrf_field"] = pass_context(_csrf_field_global)
