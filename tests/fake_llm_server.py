"""A fake OpenAI-compatible endpoint on loopback, for the mock interview's tests.

A real HTTP server in a thread (the standard library's), so the client's
streaming, timeouts and retries run over a socket exactly as against Ollama or
llama.cpp. Each request takes the next scripted answer; every request body is
kept, so a test can read the prompt it was sent.
"""

from __future__ import annotations

import json
import threading
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


def streamed(text: str, *, size: int = 7) -> Answer:
    """``text`` streamed in pieces of ``size`` characters."""
    return Answer(pieces=[text[i : i + size] for i in range(0, len(text), size)])


@dataclass
class FakeEndpoint:
    """The server's address, its scripted answers and what it was sent."""

    base_url: str
    answers: list[Answer] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)

    def prompt(self, n: int = -1) -> str:
        """The system message of request ``n``."""
        return str(self.requests[n]["messages"][0]["content"])


def _chunk(text: str) -> bytes:
    data = {
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {"content": text}}],
    }
    return f"data: {json.dumps(data)}\n\n".encode()


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
            body = b"".join(_chunk(piece) for piece in answer.pieces) + b"data: [DONE]\n\n"
            self._send(200, body, "text/event-stream")

        def _send(self, status: int, body: bytes, kind: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    endpoint.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield endpoint
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def closed_port_url() -> str:
    """A loopback URL where nothing listens (a port bound, then released)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"
