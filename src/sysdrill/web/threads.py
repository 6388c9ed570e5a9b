"""The blocking part of an ``async`` route, done in the thread pool.

A route that reads a form awaits it on the event loop, so it is a coroutine; the
database work and the page it then renders block. Done on the loop, they would
stall every other connection of the worker meanwhile (a class on one worker
waits behind each form post); done through :func:`off_the_loop`, they take a
worker thread like the plain routes' work does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from starlette.concurrency import run_in_threadpool

__all__ = ["off_the_loop"]

_T = TypeVar("_T")


async def off_the_loop(work: Callable[[], _T]) -> _T:
    """Run ``work`` in the thread pool and return what it returns (or raise what it raises)."""
    return await run_in_threadpool(work)
