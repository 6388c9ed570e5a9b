"""Workers share new connections evenly: the one with fewer open connections takes each.

Uvicorn's workers all listen on one socket, and the kernel wakes every worker
for each new connection: the first to call ``accept`` gets it. Which one that
is says nothing about how many connections each already serves, and a browser
(or a reverse proxy) keeps its connection for the whole visit, so a class of
fifty often ends up split 22 to 28 for good; the learners on the busier worker
then wait a third longer at every move. Node's cluster module hands out
connections round-robin from one process for the same reason.

Here each worker takes its time before it accepts: a millisecond per connection
it already serves (:data:`DELAY_PER_CONNECTION_S`, at most
:data:`LONGEST_DELAY_S`). Both workers wake; the one serving fewer connections
calls ``accept`` first and gets the connection, and the other finds the queue
empty and waits for the next one. No state is shared between the workers: the
kernel's wake-up is the message. A new connection waits those few milliseconds
once; requests on it do not.

:func:`install` puts this in the way of uvicorn's listening socket by wrapping
the running loop's ``create_server`` before uvicorn calls it (from the app's
start-up, which uvicorn runs first). Only with several workers.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from typing import Any

__all__ = ["DELAY_PER_CONNECTION_S", "LONGEST_DELAY_S", "install"]

DELAY_PER_CONNECTION_S = 0.001
"""How long a worker waits before accepting, per connection it already serves."""
LONGEST_DELAY_S = 0.1
"""The wait's cap (a worker left alone still accepts within this)."""
PAUSE_AFTER_FAILURE_S = 1.0
"""How long a worker stops accepting after ``accept`` failed for want of resources (out
of file descriptors: trying again at once would spin), as asyncio's own servers do."""


class _Listener:
    """A listening socket served by this process's loop with the delayed accept."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        protocol_factory: Callable[[], asyncio.BaseProtocol],
        sock: socket.socket,
        ssl: Any,
        backlog: int,
        delay_per_connection_s: float,
        longest_delay_s: float,
    ) -> None:
        self.loop = loop
        self.delay_per_connection_s = delay_per_connection_s
        self.longest_delay_s = longest_delay_s
        self.protocol_factory = protocol_factory
        self.sock = sock
        self.ssl = ssl
        self.open_connections = 0
        self.closed = False
        self.sockets = [sock]
        sock.setblocking(False)
        # As the loop's own server would: a socket handed over bound but not yet listening.
        sock.listen(backlog)
        loop.add_reader(sock.fileno(), self._readable)

    def _readable(self) -> None:
        # Stop watching while waiting, or every wake-up would schedule another accept.
        self.loop.remove_reader(self.sock.fileno())
        delay_s = min(self.open_connections * self.delay_per_connection_s, self.longest_delay_s)
        self.loop.call_later(delay_s, self._accept)

    def _accept(self) -> None:
        if self.closed:
            return
        try:
            conn, _ = self.sock.accept()
        except (BlockingIOError, InterruptedError, ConnectionAbortedError):
            pass  # another worker took it first, or the client gave up
        except OSError:
            self.loop.call_later(PAUSE_AFTER_FAILURE_S, self._listen)
            return
        else:
            self.open_connections += 1
            self.loop.create_task(self._serve(conn))
        self._listen()

    def _listen(self) -> None:
        if not self.closed:
            self.loop.add_reader(self.sock.fileno(), self._readable)

    async def _serve(self, conn: socket.socket) -> None:
        def counted() -> asyncio.BaseProtocol:
            protocol = self.protocol_factory()
            lost = protocol.connection_lost

            def connection_lost(exc: Exception | None) -> None:
                self.open_connections -= 1
                lost(exc)

            protocol.connection_lost = connection_lost  # type: ignore[method-assign]
            return protocol

        try:
            await self.loop.connect_accepted_socket(counted, conn, ssl=self.ssl)
        except OSError:
            self.open_connections -= 1
            conn.close()

    # -- what uvicorn asks of a server -------------------------------------------------

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.loop.remove_reader(self.sock.fileno())

    async def wait_closed(self) -> None:
        return None

    def is_serving(self) -> bool:
        return not self.closed


def install(
    loop: asyncio.AbstractEventLoop,
    *,
    delay_per_connection_s: float = DELAY_PER_CONNECTION_S,
    longest_delay_s: float = LONGEST_DELAY_S,
) -> None:
    """Make the servers ``loop`` creates on an already bound socket accept as above.

    Args:
        loop: The running loop uvicorn will create its server with.
        delay_per_connection_s: The wait before an accept per open connection (s).
        longest_delay_s: The wait's cap (s).
    """
    real = loop.create_server

    async def create_server(
        protocol_factory: Callable[[], asyncio.BaseProtocol], *args: Any, **kwargs: Any
    ) -> Any:
        sock = kwargs.get("sock")
        if args or sock is None:
            return await real(protocol_factory, *args, **kwargs)
        backlog = kwargs.get("backlog") or 100
        ssl = kwargs.get("ssl")
        return _Listener(
            loop, protocol_factory, sock, ssl, backlog, delay_per_connection_s, longest_delay_s
        )

    loop.create_server = create_server  # type: ignore[method-assign]
