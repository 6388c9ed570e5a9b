"""Workers sharing a listening socket take new connections by how many they serve."""

from __future__ import annotations

import asyncio
import errno
import os
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from sysdrill.web import balanced_accept

# Wide steps, so that which worker wins never hangs on a busy machine's scheduling.
STEP_S = 0.1
CAP_S = 0.3


class _Worker:
    """One worker: its own thread, loop and polling of the shared socket."""

    def __init__(self, name: str, sock: socket.socket, loop_factory: Any) -> None:
        self.name = name
        self.sock = sock
        self.served: list[Any] = []
        self.lost = 0
        self.loop = loop_factory()
        self.server: Any = None
        started = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(sock, started), daemon=True)
        self.thread.start()
        assert started.wait(10)

    def _run(self, sock: socket.socket, started: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)
        worker = self

        class Answer(asyncio.Protocol):
            def connection_made(self, transport: Any) -> None:
                self.transport = transport
                worker.served.append(transport)

            def data_received(self, data: bytes) -> None:
                self.transport.write(worker.name.encode())

            def connection_lost(self, exc: Exception | None) -> None:
                worker.lost += 1

        async def start() -> None:
            balanced_accept.install(self.loop, delay_per_connection_s=STEP_S, longest_delay_s=CAP_S)
            self.server = await self.loop.create_server(Answer, sock=sock, backlog=16)
            started.set()

        self.loop.run_until_complete(start())
        self.loop.run_forever()

    def stop(self) -> None:
        def close() -> None:
            self.server.close()
            for transport in self.served:
                transport.close()
            # Once the transports have told their protocols.
            self.loop.call_later(0.05, self.loop.stop)

        self.loop.call_soon_threadsafe(close)
        self.thread.join(10)
        self.loop.close()
        self.sock.close()


def _loops() -> list[Any]:
    factories: list[Any] = [pytest.param(asyncio.new_event_loop, id="asyncio")]
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvloop is installed where uvicorn runs
        return factories
    return [*factories, pytest.param(uvloop.new_event_loop, id="uvloop")]


@pytest.fixture(params=_loops())
def loop_factory(request: pytest.FixtureRequest) -> Any:
    return request.param


@contextmanager
def _shared_socket() -> Iterator[tuple[socket.socket, int]]:
    """A bound socket as uvicorn hands its workers: not listening yet (the server listens)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    try:
        yield sock, sock.getsockname()[1]
    finally:
        sock.close()


def _own_copy(sock: socket.socket) -> socket.socket:
    # Each worker process holds its own descriptor of the one listening socket.
    return socket.socket(fileno=os.dup(sock.fileno()))


def _connect(port: int) -> tuple[socket.socket, str]:
    """A kept-open connection, and the name of the worker that answered on it."""
    client = socket.create_connection(("127.0.0.1", port), timeout=10)
    client.sendall(b"who")
    return client, client.recv(16).decode()


def test_a_new_connection_goes_to_the_worker_serving_fewer(loop_factory: Any) -> None:
    with _shared_socket() as (sock, port):
        first = _Worker("first", sock, loop_factory)
        clients = []
        try:
            clients += [_connect(port) for _ in range(2)]
            assert [name for _, name in clients] == ["first", "first"]
            second = _Worker("second", _own_copy(sock), loop_factory)
            try:
                # The second serves none, then one: it waits 0 s, then 0.1 s, where the
                # first (two) waits 0.2 s.
                clients += [_connect(port) for _ in range(2)]
                assert [name for _, name in clients[2:]] == ["second", "second"]
            finally:
                for client, _ in clients:
                    client.close()
                second.stop()
        finally:
            first.stop()


def test_a_closed_connection_no_longer_counts(loop_factory: Any) -> None:
    with _shared_socket() as (sock, port):
        first = _Worker("first", sock, loop_factory)
        second: _Worker | None = None
        try:
            kept = [_connect(port) for _ in range(2)]
            second = _Worker("second", _own_copy(sock), loop_factory)
            other, name = _connect(port)
            assert name == "second"
            for client, _ in kept:
                client.close()
            for _ in range(200):
                if first.lost == 2:
                    break
                threading.Event().wait(0.05)
            assert first.lost == 2
            # The first, beaten to that connection, listens again once its wait is over.
            threading.Event().wait(CAP_S)
            # The first serves none now, the second one: the first takes it.
            again, name = _connect(port)
            assert name == "first"
            other.close()
            again.close()
        finally:
            first.stop()
            if second is not None:
                second.stop()


def test_a_worker_out_of_descriptors_pauses_instead_of_trying_again_at_once() -> None:
    loop = asyncio.new_event_loop()
    try:
        with _shared_socket() as (sock, _):
            balanced_accept.install(loop)
            listener = loop.run_until_complete(loop.create_server(asyncio.Protocol, sock=sock))

            class Exhausted:
                def fileno(self) -> int:
                    return sock.fileno()

                def accept(self) -> Any:
                    raise OSError(errno.EMFILE, "Too many open files")

            listener.sock = Exhausted()
            loop.remove_reader(sock.fileno())  # as when the socket turned readable
            listener._accept()
            # Not listening again until the pause is over (True: a reader was removed).
            assert loop.remove_reader(sock.fileno()) is False
            listener.close()
    finally:
        loop.close()
