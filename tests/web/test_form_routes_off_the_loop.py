"""The async form routes do their blocking work in the thread pool, off the event loop."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from fastapi.testclient import TestClient

from sysdrill.web.routes import study


def _on_a_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def test_form_moves_are_made_off_the_event_loop(
    fresh_client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    made_on_loop: list[bool] = []
    real_made = study.make_move

    def noted(*args: Any) -> Any:
        made_on_loop.append(_on_a_loop())
        return real_made(*args)

    monkeypatch.setattr(study, "make_move", noted)
    started = fresh_client.post(
        "/sessions", data={"kind": "practice", "deck": "sample-fundamentals"}
    )
    assert started.status_code == 200, started.text
    session_id = int(str(started.url).rsplit("/", 1)[1])
    state = fresh_client.get(f"/api/study/sessions/{session_id}").json()
    phase = "reveal" if state["phase"] == "rate" and not state["revealed"] else state["phase"]
    form = {"answer": {"text": "42"}, "rate": {"rating": "good"}, "reveal": {}}[phase]
    moved = fresh_client.post(f"/sessions/{session_id}/{phase}", data=form)
    assert moved.status_code == 200, moved.text
    assert made_on_loop == [False]
