"""End-to-end: the Interview page in a real browser (Debian's chromium, through Playwright).

Chromium and Playwright as in ``test_e2e.py`` (skipped without them, except in CI).
A new learner finds the page in the navigation and runs a built-in interview on a
chain: a wrong napkin line, the reply with the napkin engine's verdict beside it, a
clarifying question, the end and the results. Then the same page with a model
endpoint (the fake OpenAI-compatible server): the reply grows as its server-sent
events arrive, and the page names the endpoint that receives the answers.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from tests.fake_llm_server import fake_endpoint, streamed
from tests.web import test_e2e
from tests.web.conftest import make_app
from tests.web.test_e2e import _require_browser, _shot, serve_in_thread

from sysdrill.content.sample import starter_vault_path

pytestmark = pytest.mark.e2e

CHAIN = "ring-all-reduce-cost"
FIRST_QUESTION = "What do reduce-scatter and all-gather each leave on a rank"
WRONG_LINE = "Ring factor: 2 * (8 - 1) / 8 = 1.5, so each GPU moves 1.5x the gradients."
WRONG_CLAIM = "2 * (8 - 1) / 8 = 1.5"
PHONE_WIDTH_PX = 390

# Reports every text the newest interviewer turn shows, as the page changes it.
WATCH_REPLY = """
document.addEventListener("DOMContentLoaded", () => {
  const transcript = document.getElementById("transcript");
  if (!transcript) { return; }
  new MutationObserver(() => {
    const last = transcript.querySelector("li.turn.interviewer:last-child .turn-text");
    if (last && last.textContent) { window.sawReplyText(last.textContent); }
  }).observe(transcript, { childList: true, subtree: true, characterData: true });
});
"""


@pytest.fixture(scope="module")
def live_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A single-user server over the starter vault: a new learner, no endpoint set."""
    _require_browser()
    app = make_app(tmp_path_factory.mktemp("e2e-interview") / "web", vault=starter_vault_path())
    yield from serve_in_thread(app)


# Chromium, and a desktop-sized page that fails the test on any CSP violation, as there.
browser = test_e2e.browser
page = test_e2e.page


def _shot_at_phone_width(browser: Any, url: str, name: str) -> None:
    """Screenshot ``url`` 390 px wide, and check it does not scroll sideways."""
    context = browser.new_context(viewport={"width": PHONE_WIDTH_PX, "height": 800}, is_mobile=True)
    try:
        phone = context.new_page()
        phone.goto(url)
        _shot(phone, name)
        width = phone.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE_WIDTH_PX, f"{url} is {width}px wide at {PHONE_WIDTH_PX}px"
    finally:
        context.close()


def _start_chain_interview(page: Any, items: str) -> None:
    chain = page.get_by_role("region", name="A chain")
    chain.get_by_label("A chain").select_option(CHAIN)
    chain.get_by_label("Questions").fill(items)
    with page.expect_navigation():
        chain.get_by_role("button", name="Start the interview").click()


@contextmanager
def _built_in_again_afterwards(page: Any, live_url: str) -> Iterator[None]:
    """Set the server back to the built-in interviewer at the end, as a user would."""
    try:
        yield
    finally:
        page.goto(live_url + "/interview")
        page.get_by_text("Model endpoint").click()
        with page.expect_navigation():
            page.get_by_role("button", name="Use the built-in interviewer").click()
        assert page.get_by_text("your answers never leave this server").count() == 1


def _send(page: Any, text: str, button: str) -> Any:
    """Type ``text``, press ``button``; wait for the streamed turn and the page it saves."""
    page.get_by_label("Your answer, or a clarifying question").fill(text)
    with (
        page.expect_response(lambda r: r.url.endswith("/turn/stream")) as streamed_turn,
        page.expect_navigation(),
    ):
        page.get_by_role("button", name=button).click()
    return streamed_turn.value


def test_a_new_learner_runs_a_built_in_interview_from_the_navigation(
    page: Any, browser: Any, live_url: str
) -> None:
    page.goto(live_url + "/")
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Interview").click()
    page.wait_for_url("**/interview")
    assert page.get_by_text("your answers never leave this server").count() == 1
    _shot(page, "interview-1-start")
    _shot_at_phone_width(browser, page.url, "phone-interview-1-start")

    _start_chain_interview(page, "2")
    page.wait_for_url("**/interview/*")
    assert FIRST_QUESTION in page.locator("#transcript").inner_text()
    assert "built-in interviewer; nothing leaves this server" in page.inner_text("main")

    response = _send(page, WRONG_LINE, "Answer")
    assert response.status == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    reply = page.locator("#transcript li.turn.interviewer").last
    verdict = reply.locator(".verdicts li.bad")
    assert verdict.inner_text() == f"Napkin check: {WRONG_CLAIM}: wrong (computed 1.75)"
    assert page.locator("#transcript li.turn.learner").last.inner_text().endswith(WRONG_LINE)
    _shot(page, "interview-2-wrong-napkin-line")

    _send(page, "Is the ring over 8 GPUs on one node?", "Ask a clarifying question")
    turns = page.locator("#transcript li.turn")
    assert turns.last.locator("p.muted").inner_text().startswith("Interviewer")
    assert (
        turns.nth(turns.count() - 2).inner_text().endswith("Is the ring over 8 GPUs on one node?")
    )
    _shot(page, "interview-3-clarified")
    _shot_at_phone_width(browser, page.url, "phone-interview-3-clarified")

    _send(page, "", "End the interview")
    assert page.get_by_role("button", name="Answer").count() == 0
    with page.expect_navigation():
        page.get_by_role("link", name="See the results").click()
    page.wait_for_url("**/interview/*/results")
    assert page.get_by_role("heading", level=1).inner_text().startswith("Results:")
    assert "Finished" in page.inner_text("main")
    assert page.locator("td.bad").first.inner_text().endswith("wrong (computed 1.75)")
    _shot(page, "interview-4-results")
    _shot_at_phone_width(browser, page.url, "phone-interview-4-results")

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Interview").click()
    page.wait_for_url("**/interview")
    assert page.get_by_role("heading", name="Your interviews").count() == 1


def test_a_model_interview_streams_its_reply_and_names_the_endpoint(
    page: Any, browser: Any, live_url: str
) -> None:
    seen: list[str] = []

    def saw_reply_text(text: str) -> None:
        seen.append(text)

    page.expose_function("sawReplyText", saw_reply_text)
    page.add_init_script(WATCH_REPLY)
    with fake_endpoint() as endpoint, _built_in_again_afterwards(page, live_url):
        prose = "Which rank holds which slice of the sum after reduce-scatter?"
        endpoint.answers.append(
            streamed(prose + '\n{"intent": "probe", "scores": [1, 0, 0]}', size=6, pause_s=0.08)
        )
        page.goto(live_url + "/interview")
        page.get_by_text("Model endpoint").click()
        page.get_by_label("Base URL").fill(endpoint.base_url)
        page.get_by_label("Model", exact=True).fill("tiny-test-model")
        with page.expect_navigation():
            page.get_by_role("button", name="Save endpoint").click()
        main = page.inner_text("main")
        assert f"tiny-test-model at {endpoint.base_url}" in main
        _shot(page, "interview-model-1-endpoint")

        _start_chain_interview(page, "2")
        assert f"your answers go to {endpoint.base_url}" in page.inner_text("main")
        response = _send(page, WRONG_LINE, "Answer")
        _shot(page, "interview-model-2-reply")
        _shot_at_phone_width(browser, page.url, "phone-interview-model-2-reply")

        assert response.headers["content-type"].startswith("text/event-stream")
        # The reply grew in the page piece by piece, before the saved page replaced it.
        growing = [text for text in seen if prose.startswith(text.rstrip())]
        assert len(set(growing)) >= 3, seen
        assert all(a == b[: len(a)] for a, b in zip(growing, growing[1:], strict=False))
        reply = page.locator("#transcript li.turn.interviewer").last
        assert reply.locator(".turn-text").inner_text().strip() == prose
        assert reply.locator(".verdicts li.bad").inner_text().endswith("wrong (computed 1.75)")
        assert f"{WRONG_CLAIM}: wrong (the napkin engine computes 1.75)" in endpoint.prompt(0)
        assert endpoint.requests[0]["stream"] is True
        assert endpoint.requests[0]["model"] == "tiny-test-model"
