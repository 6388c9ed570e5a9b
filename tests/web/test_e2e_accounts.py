"""End-to-end in multi-user mode: two people sign up in their own browsers and study side by side.

Chromium and Playwright as in ``test_e2e.py`` (skipped without them, except in CI).
Each person's dashboard counts only their own reviews; the other's session page is
not found for them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests.web.conftest import make_app
from tests.web.test_e2e import (
    _answer_with_keys,
    _press_button,
    _require_browser,
    _shot,
    serve_in_thread,
)

pytestmark = pytest.mark.e2e

PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def live_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A multi-user server (uvicorn in a thread) over the sample vault."""

    _require_browser()
    app = make_app(tmp_path_factory.mktemp("e2e-accounts") / "web", multi_user=True)
    yield from serve_in_thread(app)


@pytest.fixture(scope="module")
def browser(live_url: str) -> Iterator[Any]:
    sync_playwright = _require_browser()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", headless=True, args=["--no-sandbox"]
        )
        yield launched
        launched.close()


def _sign_up(browser: Any, live_url: str, name: str) -> Any:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(live_url + "/")
    page.wait_for_url("**/login?next=%2F")
    _shot(page, f"accounts-{name}-1-login")
    page.get_by_role("link", name="Sign up").click()
    page.get_by_label("User name").fill(name)
    page.get_by_label("Password").fill(PASSWORD)
    _press_button(page, "Create my account")
    page.wait_for_url(live_url + "/")
    _shot(page, f"accounts-{name}-2-dashboard")
    assert page.get_by_role("link", name=name).count() == 1
    return page


def _reviews_total(page: Any, live_url: str) -> int:
    total: int = page.request.get(live_url + "/api/dashboard").json()["reviews_total"]
    return total


def test_two_learners_study_side_by_side_without_seeing_each_other(
    browser: Any, live_url: str
) -> None:
    ada = _sign_up(browser, live_url, "ada")
    ben = _sign_up(browser, live_url, "ben")
    ada.goto(live_url + "/practice")
    ada.get_by_label("Items at most").fill("2")
    _press_button(ada, "Start practice")
    ada_session = ada.url
    steps = 0
    while _answer_with_keys(ada):
        steps += 1
        assert steps < 12, "the session did not finish"
    _shot(ada, "accounts-ada-3-practised")
    assert _reviews_total(ada, live_url) == 2
    assert _reviews_total(ben, live_url) == 0
    ben.goto(ada_session)
    _shot(ben, "accounts-ben-3-not-ada-session")
    assert ben.locator("h1").inner_text() == "Not found"
    ben.get_by_role("button", name="Log out").click()
    ben.wait_for_url("**/login")
    assert ben.request.get(live_url + "/api/dashboard").status == 401
    assert _reviews_total(ada, live_url) == 2
