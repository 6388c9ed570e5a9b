"""A lean request handler for the session moves' JSON routes, the bulk of a busy server.

FastAPI's generic handler solves every route's dependencies afresh (the login
check, the app context, the path parameter, the JSON body) through machinery
that costs more CPU per move than the move's own use case on a kept session. A
:class:`LeanMoveRoute` is still an ordinary :class:`~fastapi.routing.APIRoute`
(the same path, documentation, middleware, error handler and isolation walk),
but when its shape is exactly the moves' shape it handles a request itself:

- the login check of every route (:func:`sysdrill.web.auth.require_login`);
- the app context;
- ``session_id`` from the path, validated as an int;
- the JSON body, validated by the endpoint's body model;
- the endpoint, in the thread pool, whose answer is already a response
  (:func:`sysdrill.web.json_api.json_route`).

Invalid input raises the same :class:`~fastapi.exceptions.RequestValidationError`
FastAPI would. A route of any other shape (another dependency, another parameter,
an endpoint that returns data) keeps FastAPI's handler, so a dependency added
later is never skipped.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine
from typing import Any, get_args

from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from pydantic import BaseModel, TypeAdapter, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from sysdrill.web.auth import require_login
from sysdrill.web.context import Context, web_context
from sysdrill.web.json_api import is_json_route

__all__ = ["LeanMoveRoute"]

_SESSION_ID: TypeAdapter[int] = TypeAdapter(int)
_SHAPE = ("request", "context", "session_id", "body")
_KNOWN_DEPENDENCIES = frozenset({require_login, get_args(Context)[1].dependency})

Handler = Callable[[Request], Coroutine[Any, Any, Response]]


def _body_model(endpoint: Callable[..., Any]) -> type[BaseModel] | None:
    """The endpoint's body model if its parameters are the moves' shape, else None."""
    parameters = inspect.signature(endpoint).parameters
    if tuple(parameters) != _SHAPE:
        return None
    body = parameters["body"].annotation
    if not (isinstance(body, type) and issubclass(body, BaseModel)):
        return None
    if parameters["session_id"].annotation is not int:
        return None
    return body


def _located(errors: list[Any], *where: str) -> list[dict[str, Any]]:
    """Pydantic's errors, located as FastAPI locates a request's (``body``, ``path``...)."""
    return [{**error, "loc": (*where, *error.get("loc", ()))} for error in errors]


class LeanMoveRoute(APIRoute):
    """A route whose requests skip FastAPI's generic handler when its shape allows (above)."""

    lean: bool = False
    """Whether this route's requests take the lean handler."""

    def get_route_handler(self) -> Handler:
        """The lean handler for a route of the moves' shape; FastAPI's for any other."""
        endpoint = self.dependant.call
        model = None if endpoint is None else _body_model(endpoint)
        calls = {dependency.call for dependency in self.dependant.dependencies}
        if (
            endpoint is None
            or model is None
            or not is_json_route(endpoint)
            or not calls <= _KNOWN_DEPENDENCIES
            or list(self.param_convertors) != ["session_id"]
        ):
            standard: Handler = super().get_route_handler()
            return standard
        self.lean = True
        return _lean_handler(endpoint, model)


def _lean_handler(endpoint: Callable[..., Any], model: type[BaseModel]) -> Handler:
    async def handle(request: Request) -> Response:
        await require_login(request)
        raw = await request.body()
        try:
            session_id = _SESSION_ID.validate_python(request.path_params["session_id"])
        except ValidationError as exc:
            raise RequestValidationError(_located(exc.errors(), "path", "session_id")) from exc
        try:
            body = model.model_validate_json(raw or b"null")
        except ValidationError as exc:
            raise RequestValidationError(_located(exc.errors(), "body"), body=raw) from exc
        answer: Response = await run_in_threadpool(
            endpoint,
            request=request,
            context=web_context(request),
            session_id=session_id,
            body=body,
        )
        return answer

    return handle
