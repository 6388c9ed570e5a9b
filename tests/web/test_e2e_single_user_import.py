"""End to end, in Debian's chromium: a new user's import is studied at once (issue 29 item 3).

A single-user server over the bundled starter vault, as ``sysdrill serve`` starts by
default: upload the flashcard seed on the import page, then practise the deck from
the report page and find its cards in the vault browser and its search.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import SEEDS_DIR
from tests.web.conftest import make_app
from tests.web.test_e2e import CHROMIUM, SCREENSHOTS, _require_browser, serve_in_thread

from sysdrill.content.sample import starter_vault_path

FLASHCARDS = "004_8c6267489fed25a8.txt"
DECK = "mire-dis-train-flashcards"

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def starter_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A live single-user server over the bundled starter vault."""
    _require_browser()
    if not SEEDS_DIR.is_dir():
        pytest.skip("../shared/seeds is not beside this checkout")
    app = make_app(tmp_path_factory.mktemp("e2e-single-user"), vault=starter_vault_path())
    yield from serve_in_thread(app)


@pytest.fixture
def page(starter_url: str) -> Iterator[Any]:
    """A chromium page; the test fails if a page it visits breaks the CSP."""
    sync_playwright = _require_browser()
    violations: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox"]
        )
        try:
            opened = browser.new_page(viewport={"width": 1200, "height": 900})
            opened.set_default_timeout(15_000)
            opened.on(
                "console",
                lambda m: (
                    violations.append(m.text) if "Content Security Policy" in m.text else None
                ),
            )
            yield opened
        finally:
            browser.close()
    assert violations == [], "the pages broke their Content-Security-Policy"


def _shot(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def test_an_imported_deck_is_practised_right_after_the_import(page: Any, starter_url: str) -> None:
    page.goto(starter_url + "/import")
    page.get_by_label("File").set_input_files(str(Path(SEEDS_DIR) / FLASHCARDS))
    page.get_by_role("button", name="Preview").click()
    assert page.get_by_test_id("added").inner_text() == "89"
    page.get_by_role("button", name="Import these items").click()
    assert page.get_by_test_id("added").inner_text() == "89"
    _shot(page, "single-user-import-1-done")
    page.get_by_role("button", name="Practise this deck").click()
    page.wait_for_url("**/sessions/*")
    _shot(page, "single-user-import-2-practice")
    assert page.locator("h1").inner_text().startswith("Practice")
    question = page.locator(".question").inner_text()
    assert question.strip()
    page.locator("a", has_text="item page").click()
    page.wait_for_url("**/items/global-flashcard-*")
    assert question.strip().splitlines()[0][:30] in page.locator("main").inner_text()

    page.goto(starter_url + f"/vault?deck={DECK}")
    assert page.get_by_test_id("result-count").inner_text() == "89 items"
    page.get_by_label("Search", exact=True).fill("weight matrix backward")
    page.get_by_label("Search", exact=True).press("Enter")
    page.wait_for_url("**/vault?**")
    _shot(page, "single-user-import-3-search")
    assert page.locator(".results a", has_text="Backpropagation: During backward pass").count() == 1
