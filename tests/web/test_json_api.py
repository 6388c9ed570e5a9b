"""API routes answer with JSON written in the endpoint's own thread."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import Enum
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from sysdrill.web.json_api import json_route


class Mood(Enum):
    CALM = "calm"


def _app() -> FastAPI:
    app = FastAPI()

    @app.get("/plain")
    def plain() -> dict[str, Any]:
        return {"n": 1}

    @app.get("/wrapped")
    @json_route()
    def wrapped() -> dict[str, Any]:
        return {"at": datetime(2026, 12, 1, 9, 30, tzinfo=UTC), "mood": Mood.CALM, "n": [1, 2]}

    @app.post("/made", status_code=201)
    @json_route(status_code=201)
    def made() -> dict[str, Any]:
        return {"made": True}

    return app


def test_a_json_route_writes_dates_and_enums_and_keeps_its_status() -> None:
    with TestClient(_app()) as client:
        got = client.get("/wrapped")
        made = client.post("/made")
    assert got.status_code == 200
    assert got.headers["content-type"] == "application/json"
    assert got.json() == {"at": "2026-12-01T09:30:00+00:00", "mood": "calm", "n": [1, 2]}
    assert (made.status_code, made.json()) == (201, {"made": True})


def test_a_json_route_takes_one_trip_through_the_thread_pool_not_two(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import fastapi.routing

    trips: list[str] = []
    real = fastapi.routing.run_in_threadpool

    async def counted(func: Any, *args: Any, **kwargs: Any) -> Any:
        trips.append(getattr(func, "__name__", "?"))
        return await real(func, *args, **kwargs)

    monkeypatch.setattr(fastapi.routing, "run_in_threadpool", counted)
    with TestClient(_app()) as client:
        client.get("/plain")
        plain_trips = len(trips)
        trips.clear()
        client.get("/wrapped")
    # FastAPI validates a plain route's dict in a second trip; the wrapped one needs none.
    assert plain_trips == 2
    assert len(trips) == 1


def test_a_json_route_keeps_its_documented_answer_in_the_openapi_schema() -> None:
    schema = _app().openapi()
    answer = schema["paths"]["/wrapped"]["get"]["responses"]["200"]
    assert answer["content"]["application/json"]["schema"]["type"] == "object"
