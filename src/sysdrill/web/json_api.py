"""JSON answers of the API routes, written in the thread that computed them.

FastAPI validates what a plain (non-async) route returns against its return
annotation in a second trip through the thread pool. Under load that second trip
waits behind every request queued for a thread: it doubled the latency of a
session start. A route wrapped by :func:`json_route` returns its data already
written as JSON (orjson), so FastAPI passes the answer through untouched, while
the annotation still documents the route in the OpenAPI schema.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, ParamSpec

import orjson
from starlette.responses import Response

__all__ = ["json_answer", "json_route"]

_P = ParamSpec("_P")


def json_answer(data: Any, *, status_code: int = 200) -> Response:
    """``data`` (dicts, lists, strings, numbers, dates, enums) as a JSON response."""
    return Response(orjson.dumps(data), status_code=status_code, media_type="application/json")


def json_route(
    status_code: int = 200,
) -> Callable[[Callable[_P, Any]], Callable[_P, Response]]:
    """Make a plain route return its data as a ready JSON response (see the module).

    Args:
        status_code: The answer's status; the route's own ``status_code`` is not
            applied to a response the route makes itself, so give it here too.
    """

    def wrap(endpoint: Callable[_P, Any]) -> Callable[_P, Response]:
        @functools.wraps(endpoint)
        def answer(*args: _P.args, **kwargs: _P.kwargs) -> Response:
            return json_answer(endpoint(*args, **kwargs), status_code=status_code)

        # The route's annotations are strings (postponed evaluation) naming things of
        # its own module; FastAPI before 0.116 would look them up in this module.
        answer.__signature__ = inspect.signature(endpoint, eval_str=True)  # type: ignore[attr-defined]
        return answer

    return wrap
