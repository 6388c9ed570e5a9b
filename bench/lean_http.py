"""A small HTTP/1.1 client for load benchmarks: one kept-alive connection, its own cookies.

The load benchmark runs its simulated learners on the machine that runs the
server, so every millisecond of CPU the load generator spends is taken from the
server it measures. A general client (httpx) spends about a millisecond of CPU
per request on URL parsing, cookie jars and its transport layers; this one
writes the request line and reads the answer off one socket, which is all a
JSON API client of a known server on 127.0.0.1 needs.

It speaks only what ``sysdrill serve`` answers with: ``Content-Length`` or
chunked bodies, ``Set-Cookie`` name=value pairs (``Max-Age=0`` deletes), and
the CSRF double-submit (a token from ``GET /api/csrf`` sent as
``X-CSRF-Token`` with every write, fetched again when the CSRF cookie changes).
"""

from __future__ import annotations

import asyncio
from typing import Any

import orjson

__all__ = ["CSRF_COOKIE", "Answer", "Broken", "LeanClient"]

CSRF_COOKIE = "sysdrill_csrf"
_WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class Broken(Exception):
    """The connection broke (or timed out) before a whole answer came back."""


class Answer:
    """A status code and a body."""

    __slots__ = ("body", "status")

    def __init__(self, status: int, body: bytes) -> None:
        self.status = status
        self.body = body

    def json(self) -> Any:
        return orjson.loads(self.body)

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")


class LeanClient:
    """One simulated user: a keep-alive connection to ``host:port`` and its cookies."""

    def __init__(self, host: str, port: int, *, timeout_s: float = 30.0) -> None:
        self.host = host
        self.port = port
        self.timeout_s = timeout_s
        self.cookies: dict[str, str] = {}
        self._stream: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        self._csrf: tuple[str | None, str] | None = None

    async def close(self) -> None:
        if self._stream is not None:
            self._stream[1].close()
            self._stream = None

    async def request(self, method: str, path: str, body: Any = None) -> Answer:
        """Send one request (JSON body if given) and read its whole answer.

        Raises:
            Broken: If the connection broke or the answer took longer than the timeout.
        """
        headers = ""
        if method in _WRITES and path != "/api/csrf":
            headers += f"X-CSRF-Token: {await self._csrf_token()}\r\n"
        return await self._send(method, path, body, headers)

    async def _csrf_token(self) -> str:
        cookie = self.cookies.get(CSRF_COOKIE)
        if self._csrf is None or self._csrf[0] != cookie:
            answer = await self._send("GET", "/api/csrf", None, "")
            if answer.status != 200:
                raise Broken(f"GET /api/csrf answered {answer.status}")
            self._csrf = (self.cookies.get(CSRF_COOKIE), str(answer.json()["csrf_token"]))
        return self._csrf[1]

    async def _send(self, method: str, path: str, body: Any, headers: str) -> Answer:
        try:
            return await asyncio.wait_for(
                self._exchange(method, path, body, headers), self.timeout_s
            )
        except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError) as exc:
            await self.close()
            raise Broken(f"{type(exc).__name__}: {exc}") from exc

    async def _exchange(self, method: str, path: str, body: Any, headers: str) -> Answer:
        if self._stream is None:
            self._stream = await asyncio.open_connection(self.host, self.port)
        reader, writer = self._stream
        payload = b"" if body is None else orjson.dumps(body)
        if self.cookies:
            headers += "Cookie: " + "; ".join(f"{k}={v}" for k, v in self.cookies.items()) + "\r\n"
        if body is not None:
            headers += "Content-Type: application/json\r\n"
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
            f"Content-Length: {len(payload)}\r\n{headers}\r\n"
        )
        writer.write(head.encode() + payload)
        status_line = await reader.readuntil(b"\r\n")
        if not status_line:
            raise asyncio.IncompleteReadError(b"", None)
        status = int(status_line.split(None, 2)[1])
        length = -1
        chunked = False
        keep_alive = True
        while True:
            line = await reader.readuntil(b"\r\n")
            if line == b"\r\n":
                break
            name, _, value = line.decode("latin-1").partition(":")
            name = name.strip().lower()
            value = value.strip()
            if name == "content-length":
                length = int(value)
            elif name == "transfer-encoding":
                chunked = "chunked" in value.lower()
            elif name == "connection":
                keep_alive = value.lower() != "close"
            elif name == "set-cookie":
                self._take_cookie(value)
        if chunked:
            parts = []
            while True:
                size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                if size == 0:
                    await reader.readuntil(b"\r\n")
                    break
                parts.append(await reader.readexactly(size))
                await reader.readexactly(2)
            content = b"".join(parts)
        elif length >= 0:
            content = await reader.readexactly(length)
        else:
            content = await reader.read()
            keep_alive = False
        if not keep_alive:
            await self.close()
        return Answer(status, content)

    def _take_cookie(self, header: str) -> None:
        pair, *attributes = header.split(";")
        name, _, value = pair.strip().partition("=")
        expired = any(a.strip().lower() in ("max-age=0", "max-age=-1") for a in attributes)
        if expired or not value.strip('"'):
            self.cookies.pop(name, None)
        else:
            self.cookies[name] = value
