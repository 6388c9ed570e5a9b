"""The Interview page and its JSON twins: a whole built-in interview, streaming, errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from tests.fake_llm_server import FakeEndpoint, fake_endpoint, streamed
from tests.web.conftest import make_app, with_csrf

from sysdrill.content.sample import starter_vault_path

GOOD_FIRST = (
    "Reduce-scatter leaves each rank one distinct slice of the summed result; all-gather "
    "concatenates the slices so every rank has the full sum: together an all-reduce."
)
WRONG_MATH = "Gradients: 1e9 * 4 B = 4 GB; ring factor 2 * (8 - 1) / 8 = 1.5, so 6 GB per GPU."


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = make_app(tmp_path / "web", vault=starter_vault_path())
    with with_csrf(TestClient(app, raise_server_exceptions=False)) as found:
        yield found


@pytest.fixture
def endpoint() -> Iterator[FakeEndpoint]:
    with fake_endpoint() as found:
        yield found


def _start(client: TestClient, **form: str) -> int:
    response = client.post("/interview/start", data=form, follow_redirects=False)
    assert response.status_code == 303, response.text
    return int(response.headers["location"].rsplit("/", 1)[1])


def _events(text: str) -> list[tuple[str, dict[str, Any]]]:
    found = []
    for block in text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines())
        found.append((lines["event"], json.loads(lines["data"])))
    return found


def test_the_start_page_offers_chains_topics_and_plans_and_says_nothing_leaves(
    client: TestClient,
) -> None:
    page = client.get("/interview")
    assert page.status_code == 200
    assert '<option value="ring-all-reduce-cost">' in page.text
    assert '<option value="collectives">collectives</option>' in page.text
    assert '<option value="refresher-1w">' in page.text
    assert "your answers never leave this server" in page.text
    data = client.get("/api/interviews").json()
    assert data["endpoint"] is None and data["source"] == "none" and data["interviews"] == []


def test_a_whole_built_in_interview_through_the_forms_ends_on_its_results(
    client: TestClient,
) -> None:
    interview_id = _start(client, kind="chain", chain_name="ring-all-reduce-cost", items="2")
    page = client.get(f"/interview/{interview_id}")
    assert "What do reduce-scatter and all-gather each leave on a rank" in page.text
    assert "built-in interviewer; nothing leaves this server" in page.text
    assert 'src="/static/interview.js"' in page.text
    for text, move in ((GOOD_FIRST, "answer"), (WRONG_MATH, "answer"), ("", "skip")):
        turn = client.post(
            f"/interview/{interview_id}/turn",
            data={"text": text, "move": move},
            follow_redirects=False,
        )
        assert turn.status_code == 303, turn.text
        assert turn.headers["location"] == f"/interview/{interview_id}#latest"
    page = client.get(f"/interview/{interview_id}").text
    assert "Next question (L2):" in page
    assert "<code>2 * (8 - 1) / 8 = 1.5</code>: wrong (computed 1.75)" in page
    assert f'href="/interview/{interview_id}/results"' in page
    results = client.get(f"/interview/{interview_id}/results")
    assert results.status_code == 200
    assert "Reduce-Scatter and All-Gather Make an All-Reduce" in results.text
    assert "(skipped)" in results.text
    report = client.get(f"/api/interviews/{interview_id}/results").json()
    assert [x["rating"] for x in report["items"]] == ["good", "again"]
    assert client.get("/api/progress").status_code == 200
    listed = client.get("/api/interviews").json()["interviews"]
    assert [(i["id"], i["closed"]) for i in listed] == [(interview_id, True)]


def test_a_turn_streams_as_server_sent_events(client: TestClient) -> None:
    interview_id = _start(client, kind="topic", topic_name="collectives", items="1")
    response = client.post(
        f"/interview/{interview_id}/turn/stream", data={"text": "/hint", "move": ""}
    )
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    events = _events(response.text)
    assert [name for name, _ in events] == ["reply", "done"]
    assert events[1][1]["intent"] == "hint" and events[0][1]["text"].startswith("A hint")


def test_a_model_endpoint_streams_piece_by_piece_and_the_page_names_it(
    client: TestClient, endpoint: FakeEndpoint
) -> None:
    saved = client.post(
        "/interview/endpoint",
        data={"base_url": endpoint.base_url, "model": "tiny", "api_key": "sk-hidden"},
        follow_redirects=False,
    )
    assert saved.status_code == 303
    page = client.get("/interview").text
    assert f"<code>{endpoint.base_url}</code>" in page and "sk-hidden" not in page
    interview_id = _start(client, kind="chain", chain_name="ring-all-reduce-cost", items="2")
    assert f"your answers go to <code>{endpoint.base_url}</code>" in (
        client.get(f"/interview/{interview_id}").text
    )
    endpoint.answers.append(
        streamed('Which rank holds which slice?\n{"intent": "probe", "scores": [2, 1, 0]}', size=4)
    )
    response = client.post(
        f"/interview/{interview_id}/turn/stream", data={"text": "rs then ag", "move": "answer"}
    )
    events = _events(response.text)
    pieces = [data["text"] for name, data in events if name == "reply"]
    assert len(pieces) > 3 and "".join(pieces) == "Which rank holds which slice?\n"
    done = events[-1][1]
    assert (done["source"], done["intent"]) == ("model", "probe")
    assert done["assessment"]["scores"] == [2, 1, 0]
    assert endpoint.headers[0]["Authorization"] == "Bearer sk-hidden"
    cleared = client.post("/interview/endpoint", data={"action": "clear"}, follow_redirects=False)
    assert cleared.status_code == 303
    assert client.get("/api/interviews").json()["endpoint"] is None


def test_the_json_api_runs_an_interview(client: TestClient) -> None:
    started = client.post(
        "/api/interviews", json={"kind": "chain", "name": "ring-all-reduce-cost", "items": 1}
    )
    assert started.status_code == 200, started.text
    interview_id = started.json()["id"]
    turn = client.post(f"/api/interviews/{interview_id}/turns", json={"text": GOOD_FIRST})
    assert turn.status_code == 200
    assert turn.json()["closed"] is True and turn.json()["notices"] == []
    view = client.get(f"/api/interviews/{interview_id}").json()
    assert [t["role"] for t in view["turns"]] == ["interviewer", "learner", "interviewer"]


@pytest.mark.parametrize(
    ("method", "url", "body", "status", "kind"),
    [
        ("get", "/interview/999", None, 404, "SessionNotFound"),
        ("get", "/api/interviews/999/results", None, 404, "SessionNotFound"),
        ("post", "/api/interviews/999/turns", {"text": "x"}, 404, "SessionNotFound"),
        ("post", "/api/interviews", {"kind": "chain", "name": "nope"}, 404, "ChainNotFound"),
        ("post", "/api/interviews", {"kind": "dance", "name": "x"}, 422, "InvalidParameter"),
        ("get", f"/interview/{2**40}", None, 422, "InvalidParameter"),
        (
            "put",
            "/api/interviews/endpoint",
            {"base_url": "ftp://x", "model": "m"},
            422,
            "UsageError",
        ),
    ],
)
def test_mistakes_get_the_error_shape(
    client: TestClient, method: str, url: str, body: Any, status: int, kind: str
) -> None:
    response = client.request(
        method.upper(), url, json=body, headers={"Accept": "application/json"}
    )
    assert response.status_code == status, response.text
    if url.startswith("/api/"):
        assert response.json()["error"]["type"] == kind


def test_a_finished_interview_refuses_more_turns_and_a_bad_form_is_a_422(
    client: TestClient,
) -> None:
    interview_id = _start(client, kind="chain", chain_name="ring-all-reduce-cost", items="1")
    assert client.post(f"/interview/{interview_id}/turn", data={"move": "end"}).status_code == 200
    stream = client.post(f"/interview/{interview_id}/turn/stream", data={"text": "more"})
    assert stream.status_code == 422
    more = client.post(f"/api/interviews/{interview_id}/turns", json={"text": "more"})
    assert more.json()["error"]["message"] == "This interview is over; start a new one."
    assert client.post("/interview/start", data={"kind": "dance"}).status_code == 422
    fresh = _start(client, kind="chain", chain_name="ring-all-reduce-cost", items="1")
    bad = client.post(f"/interview/{fresh}/turn", data={"text": "x", "move": "dance"})
    assert bad.status_code == 422
    empty = client.post(f"/interview/{fresh}/turn/stream", data={"text": "  ", "move": "answer"})
    assert _events(empty.text) == [
        ("error", {"type": "UsageError", "message": "Type an answer (or /hint, /skip, /end)."})
    ]


def test_learners_never_see_each_others_interviews(tmp_path: Path) -> None:
    app = make_app(tmp_path / "web", vault=starter_vault_path(), multi_user=True)
    with (
        with_csrf(TestClient(app, raise_server_exceptions=False)) as alice,
        with_csrf(TestClient(app, raise_server_exceptions=False)) as bob,
    ):
        for who, name in ((alice, "alice"), (bob, "bobby")):
            signed = who.post("/api/signup", json={"name": name, "password": "correct horse 12"})
            assert signed.status_code == 201, signed.text
        started = bob.post(
            "/api/interviews", json={"kind": "chain", "name": "ring-all-reduce-cost"}
        )
        secret = "BOB-SECRET-ANSWER-7731"
        bob_id = started.json()["id"]
        bob.post(f"/api/interviews/{bob_id}/turns", json={"text": secret})
        assert secret in bob.get(f"/interview/{bob_id}").text
        for url in (f"/interview/{bob_id}", f"/api/interviews/{bob_id}/results"):
            response = alice.get(url)
            assert response.status_code == 404 and secret not in response.text
        turn = alice.post(f"/api/interviews/{bob_id}/turns", json={"text": "mine now"})
        assert turn.status_code == 404
        assert alice.get("/api/interviews").json()["interviews"] == []
        # Only an admin sets the server's endpoint.
        refused = alice.put(
            "/api/interviews/endpoint", json={"base_url": "http://x/v1", "model": "m"}
        )
        assert refused.status_code == 403
