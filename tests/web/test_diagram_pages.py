"""Diagrams on the web: an inline SVG on the item page and in a session, figures kept back."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from tests.web.conftest import make_app, with_csrf

from sysdrill.content.sample import sample_vault_path

DIAGRAMS = {
    "cloud-0104": "diagram:\n  kind: pipeline-schedule\n  params:\n    stages: 8\n"
    "    microbatches: 8\n",
    "cloud-0102": "diagram:\n  kind: ring-allreduce\n  params:\n    ranks: 16\n"
    "    message_gb: 2.6\n    bandwidth_gb_per_s: 100\n",
    "cloud-0103": "diagram:\n  kind: memory-breakdown\n  params:\n    parameters_billion: 7\n"
    "    zero_stage: 2\n    data_parallel: 8\n    activation_gb: 45\n    capacity_gb: 80\n",
}

TEMPLATE = """\
id: cloud-0190
format: numeric
track: cloud
title: Bubble of a drawn pipeline
question: What share of a {stages}-stage, {micro}-micro-batch 1F1B step is bubble?
parameters:
  stages:
    choices: [2, 4, 8]
  micro:
    min: 8
    max: 32
    step: 8
answer_expr: ({stages} - 1) / ({micro} + {stages} - 1)
answer_unit: '%'
details:
  napkin_math: |
    - Bubble: ({stages} - 1) / ({micro} + {stages} - 1) = {answer}
diagram:
  kind: pipeline-schedule
  params:
    stages: "{stages}"
    microbatches: "{micro}"
"""


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    vault = tmp_path / "vault"
    shutil.copytree(sample_vault_path(), vault)
    for item_id, block in DIAGRAMS.items():
        path = vault / "questions" / "cloud" / f"{item_id}.yaml"
        path.write_text(path.read_text("utf-8") + block, encoding="utf-8")
    (vault / "questions" / "cloud" / "cloud-0190.yaml").write_text(TEMPLATE, encoding="utf-8")
    app = make_app(tmp_path / "web", vault=vault)
    with with_csrf(TestClient(app, raise_server_exceptions=False)) as found:
        yield found


def _svg(page: str) -> str:
    match = re.search(r'<svg [^>]*class="diagram".*?</svg>', page, re.S)
    assert match is not None, "no diagram on the page"
    return match.group(0)


def test_item_page_draws_every_slot_of_the_schedule_with_a_text_alternative(
    client: TestClient,
) -> None:
    page = client.get("/items/cloud-0104").text
    svg = _svg(page)

    assert svg.count('class="slot"') == 2 * 8 * 8
    assert svg.count('data-op="F"') == 64
    assert 'viewBox="0 0 640 ' in svg and 'width="100%"' in svg
    assert 'role="img" aria-labelledby="diagram-title diagram-desc"' in svg
    assert (
        '<title id="diagram-title">1F1B pipeline schedule: 8 stages, 8 micro-batches</title>'
        in (svg)
    )
    # The bubble is the answer: it waits behind "Reveal the answer".
    assert "46.7" not in page.split("<details>")[0]
    assert (
        "<strong>Read off the diagram:</strong> bubble 46.7 % of the step "
        "(87.5 % of the ideal time)" in page
    )
    # Drawn from the answer's numbers, the picture comes with the answer, not the question.
    assert page.index("<details>") < page.index("<svg")


def test_a_diagram_declared_with_the_question_is_drawn_above_it(
    client: TestClient, tmp_path: Path
) -> None:
    path = tmp_path / "vault" / "questions" / "cloud" / "cloud-0102.yaml"
    path.write_text(path.read_text("utf-8") + "  with_question: true\n", encoding="utf-8")

    page = client.get("/items/cloud-0102").text

    assert page.index("<svg") < page.index('aria-label="Question"') < page.index("<details>")


def test_the_json_twin_describes_the_diagram(client: TestClient) -> None:
    data = client.get("/api/items/cloud-0103").json()

    assert data["diagram"] == {
        "description": "Memory per GPU, ZeRO-2 over 8 GPUs: weights, gradients, "
        "optimizer states, activations",
        "results": "weights 14 GB, gradients 1.75 GB, optimizer states 10.5 GB, "
        "activations 45 GB; total 71.25 GB; fits in 80 GB",
    }


def test_a_template_item_page_draws_its_example_draw(client: TestClient) -> None:
    page = client.get("/items/cloud-0190").text
    question = re.search(r"What share of a (\d)-stage, (\d+)-micro-batch", page)
    assert question is not None
    stages, micro = int(question.group(1)), int(question.group(2))

    assert _svg(page).count('class="slot"') == 2 * stages * micro


def test_a_session_shows_the_picture_with_the_answer_not_before(
    client: TestClient, tmp_path: Path
) -> None:
    path = tmp_path / "vault" / "questions" / "cloud" / "cloud-0102.yaml"
    path.write_text(path.read_text("utf-8") + "  caption: The ring of one node.\n", "utf-8")
    started = client.post(
        "/sessions", data={"kind": "quiz", "deck": "sample-napkin-drills"}, follow_redirects=False
    )
    base = started.headers["location"]
    for _ in range(6):
        page = client.get(base).text
        if 'href="/items/cloud-0102"' in page:
            break
        client.post(f"{base}/skip")
    else:
        pytest.fail("the quiz never asked cloud-0102")
    # Asked: neither the picture nor its figures (the ring's time is the answer).
    assert "<svg" not in page and "Read off the diagram" not in page
    client.post(f"{base}/answer", data={"text": "a"})
    answered = client.get(base).text
    reveal = answered[answered.index('id="reveal"') :]
    assert 'class="slot"' in _svg(reveal)
    assert "Read off the diagram" in reveal
    assert "<figcaption>The ring of one node.</figcaption>" in reveal
