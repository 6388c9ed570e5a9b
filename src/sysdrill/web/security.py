"""Security headers on every response, the one cookie policy, and trusting a TLS proxy.

From the outside in, a request meets: the proxy's forwarded headers (only with
``behind_proxy``), the security headers (:func:`install_security`), the host, body
size and text limits (:mod:`sysdrill.web.request_limits`), the same-origin check
(:mod:`sysdrill.web.errors`), then the CSRF token check (:mod:`sysdrill.web.csrf`).

Every page's scripts and styles are files under ``/static``: the Content-Security-Policy
allows no inline script or style, so markup injected into a page despite the sanitizer
still cannot run. SVG documents (charts, which carry their own ``<style>``) get a
policy of their own that allows their inline styles and nothing active. The API
explorer (``/docs``, ``/redoc``) is FastAPI's page, which loads its scripts from a CDN
with one inline script: it gets a policy naming those and that script's hash.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Mapping
from http.cookies import SimpleCookie

from fastapi import FastAPI
from starlette.datastructures import MutableHeaders
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = [
    "CONTENT_SECURITY_POLICY",
    "DEFAULT_TRUSTED_PROXIES",
    "DOCS_CONTENT_SECURITY_POLICY",
    "SECURITY_HEADERS",
    "SVG_CONTENT_SECURITY_POLICY",
    "SecurityHeadersMiddleware",
    "install_security",
    "is_https",
    "set_cookie",
]

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        # Calculator charts are SVG data: URLs in <img>.
        "img-src 'self' data:",
        "media-src 'self'",
        "object-src 'none'",
        "frame-ancestors 'none'",
        "form-action 'self'",
        "base-uri 'none'",
    )
)
"""The policy of every page: scripts, styles and forms from this server only, no framing."""

SVG_CONTENT_SECURITY_POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'"
)
"""An SVG document (a chart) may style itself; it may run nothing and load nothing."""

DOCS_CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self' https://cdn.jsdelivr.net {hashes}",
        "style-src 'self' https://cdn.jsdelivr.net https://fonts.googleapis.com",
        "font-src 'self' https://fonts.gstatic.com",
        "img-src 'self' data: https://fastapi.tiangolo.com https://cdn.redoc.ly",
        "worker-src 'self' blob:",
        "object-src 'none'",
        "frame-ancestors 'none'",
        "form-action 'self'",
        "base-uri 'none'",
    )
)
"""The API explorer's policy; ``{hashes}`` becomes the hashes of the page's inline scripts."""

SECURITY_HEADERS: Mapping[str, str] = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
}
"""Headers every response carries besides its Content-Security-Policy."""

DEFAULT_TRUSTED_PROXIES = "127.0.0.1,::1"
"""Addresses whose ``X-Forwarded-*`` headers ``behind_proxy`` trusts: a proxy on this host."""

_INLINE_SCRIPT = re.compile(rb"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", re.S | re.I)


def is_https(connection: HTTPConnection) -> bool:
    """Whether the browser reached us over TLS (behind a trusted proxy: the proxy says so)."""
    return connection.url.scheme in ("https", "wss")


def set_cookie(
    headers: MutableHeaders,
    connection: HTTPConnection,
    name: str,
    value: str,
    *,
    max_age_seconds: int | None = None,
) -> None:
    """Add a cookie to a response under the app's one cookie policy.

    Every cookie is HttpOnly (no script reads it), SameSite=Lax (another site's
    forms and scripts do not carry it), for the whole site, and Secure when the
    request came over HTTPS, so a TLS deployment never sends it in clear text.

    Args:
        headers: The response's headers (``response.headers``, or a raw
            ``http.response.start`` message wrapped in ``MutableHeaders``).
        connection: The request being answered.
        name: The cookie's name.
        value: Its value (URL-safe text).
        max_age_seconds: Lifetime in seconds; None for a browser-session cookie,
            0 to delete it.
    """
    cookie: SimpleCookie = SimpleCookie()
    cookie[name] = value
    morsel = cookie[name]
    morsel["path"] = "/"
    morsel["httponly"] = True
    morsel["samesite"] = "Lax"
    if max_age_seconds is not None:
        morsel["max-age"] = max_age_seconds
    if is_https(connection):
        morsel["secure"] = True
    headers.append("set-cookie", morsel.OutputString())


def _policy_for(path: str, content_type: str, docs_paths: frozenset[str]) -> str | None:
    """The CSP of a response, or None when it needs its body (the API explorer)."""
    if path in docs_paths:
        return None
    if content_type.startswith("image/svg+xml"):
        return SVG_CONTENT_SECURITY_POLICY
    return CONTENT_SECURITY_POLICY


def _docs_policy(body: bytes) -> str:
    hashes = " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(script).digest()).decode("ascii") + "'"
        for script in _INLINE_SCRIPT.findall(body)
    )
    return DOCS_CONTENT_SECURITY_POLICY.format(hashes=hashes).replace("  ", " ")


class SecurityHeadersMiddleware:
    """Adds the security headers to every HTTP response, keeping any a route set itself."""

    def __init__(self, app: ASGIApp, *, docs_paths: frozenset[str] = frozenset()) -> None:
        """Wrap ``app``; ``docs_paths`` are the API explorer's pages (CDN scripts)."""
        self.app = app
        self.docs_paths = docs_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one request, adding the headers as the response starts."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        if path in self.docs_paths:
            await self._buffered(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                add_security_headers(MutableHeaders(scope=message), path, self.docs_paths)
            await send(message)

        await self.app(scope, receive, send_with_headers)

    async def _buffered(self, scope: Scope, receive: Receive, send: Send) -> None:
        # The explorer page is a few kB; its policy names the hash of its inline script.
        start: Message | None = None
        body = bytearray()

        async def collect(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                start = message
                return
            body.extend(message.get("body", b""))
            if message.get("more_body", False) or start is None:
                return
            headers = MutableHeaders(scope=start)
            for name, value in SECURITY_HEADERS.items():
                headers.setdefault(name, value)
            headers.setdefault("content-security-policy", _docs_policy(bytes(body)))
            await send(start)
            await send({"type": "http.response.body", "body": bytes(body)})

        await self.app(scope, receive, collect)


def add_security_headers(
    headers: MutableHeaders, path: str, docs_paths: frozenset[str] = frozenset()
) -> None:
    """Give a response the security headers it does not already have.

    Args:
        headers: The response's headers.
        path: The request's path.
        docs_paths: The API explorer's pages (their policy is set from their body).
    """
    for name, value in SECURITY_HEADERS.items():
        headers.setdefault(name, value)
    policy = _policy_for(path, headers.get("content-type", ""), docs_paths)
    if policy is not None:
        headers.setdefault("content-security-policy", policy)


def install_security(
    app: FastAPI, *, behind_proxy: bool = False, trusted_proxies: str = DEFAULT_TRUSTED_PROXIES
) -> None:
    """Add the security headers and, behind a proxy, trust its forwarded headers.

    Call it after the CSRF and same-origin checks are installed: Starlette runs the
    middleware added last first, so the headers reach their refusals too.

    Args:
        app: The app being built.
        behind_proxy: Trust ``X-Forwarded-Proto`` and ``X-Forwarded-For`` from
            ``trusted_proxies``: the scheme (so cookies get Secure behind TLS) and
            the client address come from the proxy. Off, those headers are ignored.
        trusted_proxies: Comma-separated addresses (or ``*``) of the proxy.
    """
    docs_paths = frozenset(p for p in (app.docs_url, app.redoc_url) if p)
    app.add_middleware(SecurityHeadersMiddleware, docs_paths=docs_paths)
    if behind_proxy:
        from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=trusted_proxies)
