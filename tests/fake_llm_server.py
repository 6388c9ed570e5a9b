"""A fake OpenAI-compatible endpoint on loopback, for the mock interview's tests.

A real HTTP server in a thread (the standard library's), so the client's
streaming, timeouts and retries run over a socket exactly as against Ollama or
llama.cpp. Each request takes the next scripted answer; every request body is
kept, so a test can read the prompt it was sent.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Answer:
    """One scripted answer: a stream of text pieces, a status, or raw bytes."""

    pieces: list[str] = field(default_factory=list)
    status: int = 200
    raw: bytes | None = None
    """Sent as is (with ``content_type``) instead of a stream."""
    content_type: str = "text/event-stream"
    pause_s: float = 0.0
    """Seconds between pieces, so a browser sees the reply grow (0: all at once)."""


def streamed(text: str, *, size: int = 7, pause_s: float = 0.0) -> Answer:
    """``text`` streamed in pieces of ``size`` characters, ``pause_s`` seconds apart."""
    pieces = [text[i : i + size] for i in range(0, len(text), size)]
    return Answer(pieces=pieces, pause_s=pause_s)


@dataclass
class FakeEndpoint:
    """The server's address, its scripted answers and what it was sent."""

    base_url: str
    answers: list[Answer] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    relayed: list[bytes] = field(default_factory=list)
    """The raw answers a relay passed back from the real server, one per request."""

    def prompt(self, n: int = -1) -> str:
        """The system message of request ``n``."""
        return str(self.requests[n]["messages"][0]["content"])


def _chunk(text: str) -> bytes:
    data = {
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {"content": text}}],
    }
    return f"data: {json.dumps(data)}\n\n".encode()


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that hangs up mid-stream (a timeout test, the app giving up) is
        # what some tests do on purpose; its traceback on stderr would be noise.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@contextmanager
def _serving(handler: type[BaseHTTPRequestHandler], endpoint: FakeEndpoint) -> Iterator[None]:
    """Serve ``handler`` on a free loopback port (set in ``endpoint``) until the block ends."""
    server = _QuietServer(("127.0.0.1", 0), handler)
    endpoint.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@contextmanager
def fake_endpoint() -> Iterator[FakeEndpoint]:
    """Serve a fake endpoint on 127.0.0.1 until the block ends."""
    endpoint = FakeEndpoint(base_url="")

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            endpoint.requests.append(json.loads(self.rfile.read(length)))
            endpoint.headers.append(dict(self.headers))
            if self.path != "/v1/chat/completions":
                self._send(404, b'{"error": "not found"}', "application/json")
                return
            answer = endpoint.answers.pop(0) if endpoint.answers else streamed("Go on.")
            if answer.status != 200:
                self._send(
                    answer.status, b'{"error": {"message": "overloaded"}}', "application/json"
                )
                return
            if answer.raw is not None:
                self._send(200, answer.raw, answer.content_type)
                return
            parts = [_chunk(piece) for piece in answer.pieces] + [b"data: [DONE]\n\n"]
            self._send(200, b"".join(parts), "text/event-stream", parts, answer.pause_s)

        def _send(
            self,
            status: int,
            body: bytes,
            kind: str,
            parts: list[bytes] | None = None,
            pause_s: float = 0.0,
        ) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if not pause_s or parts is None:
                self.wfile.write(body)
                return
            for part in parts:
                self.wfile.write(part)
                self.wfile.flush()
                time.sleep(pause_s)

    with _serving(Handler, endpoint):
        yield endpoint


def closed_port_url() -> str:
    """A loopback URL where nothing listens (a port bound, then released)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


@contextmanager
def recording_relay(upstream: str) -> Iterator[FakeEndpoint]:
    """Relay chat requests to a real endpoint at ``upstream``, keeping each request body.

    The answer passes through as it arrives, so streaming is what the real server
    does; the test reads the prompts from the returned endpoint's ``requests``.
    """
    import httpx

    endpoint = FakeEndpoint(base_url="")

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"  # the answer ends when the connection closes

        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            endpoint.requests.append(json.loads(body))
            endpoint.headers.append(dict(self.headers))
            target = upstream.rstrip("/") + self.path.removeprefix("/v1")
            kind = {"Content-Type": "application/json"}
            with httpx.stream("POST", target, content=body, headers=kind, timeout=300) as got:
                self.send_response(got.status_code)
                self.send_header(
                    "Content-Type", got.headers.get("content-type", kind["Content-Type"])
                )
                self.end_headers()
                answer = b""
                for piece in got.iter_raw():
                    answer += piece
                    self.wfile.write(piece)
                    self.wfile.flush()
                endpoint.relayed.append(answer)

    with _serving(Handler, endpoint):
        yield endpoint
