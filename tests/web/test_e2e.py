"""End-to-end: a real browser (Debian's chromium, driven by Playwright) on a live server.

These tests skip when Playwright or ``/usr/bin/chromium`` is missing, except where
``SYSDRILL_REQUIRE_E2E=1`` (CI, whose ``.ci/run`` installs chromium): there a missing
browser fails. Each test saves a screenshot of every page it visits under
``tests/e2e/screenshots/`` (ignored by git).
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.web.conftest import HOSTILE_ITEM, HOSTILE_SVG, make_app

from sysdrill.content.sample import sample_vault_path

CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOTS = Path(__file__).resolve().parents[1] / "e2e" / "screenshots"
FLASHCARDS = "004_8c6267489fed25a8.txt"

pytestmark = pytest.mark.e2e


def _require_browser() -> Any:
    required = os.environ.get("SYSDRILL_REQUIRE_E2E") == "1"
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        if required:
            pytest.fail("SYSDRILL_REQUIRE_E2E=1 but Playwright is not installed")
        pytest.skip("Playwright is not installed")
    if not CHROMIUM.exists():
        if required:
            pytest.fail(
                f"SYSDRILL_REQUIRE_E2E=1 but {CHROMIUM} is missing (apt-get install chromium)"
            )
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium)")
    return sync_playwright


def serve_in_thread(app: Any) -> Iterator[str]:
    """Serve ``app`` with uvicorn in a thread on a free port; yield its URL, then stop it."""
    import uvicorn

    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            pytest.fail("the server did not start")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def live_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A uvicorn server in a thread, serving a writable copy of the sample vault."""

    _require_browser()
    root = tmp_path_factory.mktemp("e2e")
    vault = root / "vault"
    shutil.copytree(sample_vault_path(), vault)
    (vault / "questions" / "cloud" / "cloud-0199.yaml").write_text(HOSTILE_ITEM, "utf-8")
    (vault / "visuals" / "cloud").mkdir(parents=True)
    (vault / "visuals" / "cloud" / "hostile.svg").write_text(HOSTILE_SVG, "utf-8")
    app = make_app(root / "web", vault=vault)
    yield from serve_in_thread(app)


@pytest.fixture(scope="module")
def browser(live_url: str) -> Iterator[Any]:
    sync_playwright = _require_browser()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox"]
        )
        yield launched
        launched.close()


def _watch_policy(page: Any) -> list[str]:
    """The Content-Security-Policy violations the browser logs on ``page``, as they come."""
    violations: list[str] = []

    def on_console(message: Any) -> None:
        if "Content Security Policy" in message.text:
            violations.append(f"{page.url}: {message.text}")

    page.on("console", on_console)
    return violations


@pytest.fixture
def page(browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A browser page; the test fails if any page it visits breaks the CSP."""
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    opened = context.new_page()
    opened.set_default_timeout(15_000)
    violations = _watch_policy(opened)
    yield opened
    context.close()
    assert violations == [], "the pages broke their Content-Security-Policy"


def _shot(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def test_search_opens_the_item_and_reveals_checked_claims(page: Any, live_url: str) -> None:
    page.goto(live_url + "/")
    _shot(page, "search-1-dashboard")
    page.get_by_role("link", name="Vault", exact=True).click()
    page.get_by_label("Search", exact=True).fill("pipeline bubble")
    page.get_by_label("Search", exact=True).press("Enter")
    page.wait_for_url("**/vault?**")
    _shot(page, "search-2-results")
    first = page.locator(".results a").first
    assert first.get_attribute("href") == "/items/cloud-0104"
    first.click()
    page.wait_for_url("**/items/cloud-0104")
    page.get_by_text("Reveal the answer").click()
    claims = page.locator(".claims li")
    assert claims.count() >= 1
    assert claims.first.get_attribute("data-verdict") in ("ok", "wrong", "skipped")
    _shot(page, "search-3-item-revealed")


def test_xss_payloads_stay_inert(page: Any, live_url: str) -> None:
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(live_url + "/items/cloud-0199")
    page.get_by_text("Reveal the answer").click()
    page.mouse.move(10, 10)
    page.wait_for_timeout(300)
    _shot(page, "xss-item")
    assert dialogs == []
    assert page.locator("main script").count() == 0
    assert page.locator("main img").count() == 0
    assert page.locator("main iframe").count() == 0
    assert page.locator("main svg rect").count() == 1
    assert page.locator("main math").count() >= 1


def test_phone_width_pages_do_not_scroll_sideways(browser: Any, live_url: str) -> None:
    context = browser.new_context(viewport={"width": 375, "height": 740}, is_mobile=True)
    page = context.new_page()
    try:
        for path in ("/", "/vault", "/items/cloud-0103", "/progress", "/calculators/roofline"):
            page.goto(live_url + path)
            width = page.evaluate("document.documentElement.scrollWidth")
            _shot(page, "phone" + path.replace("/", "-").rstrip("-"))
            assert width <= 375, f"{path} is {width}px wide at 375px"
    finally:
        context.close()


def test_keyboard_only_search_and_chain_navigation(page: Any, live_url: str) -> None:
    page.goto(live_url + "/vault")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Skip to content"
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "q"
    page.keyboard.type("ZeRO stage")
    page.keyboard.press("Enter")
    page.wait_for_url("**/vault?**")
    _shot(page, "keyboard-1-results")
    page.goto(live_url + "/items/cloud-0103")
    page.keyboard.press("n")
    page.wait_for_url("**/items/cloud-0104")
    _shot(page, "keyboard-2-next-in-chain")


def test_roofline_calculator_draws_the_chart(page: Any, live_url: str) -> None:
    page.goto(live_url + "/calculators/roofline")
    page.get_by_label("Accelerator").select_option("h100-sxm")
    page.get_by_label("Precision of its peak").select_option("fp8")
    page.get_by_label("intensity").fill("100")
    page.get_by_role("button", name="Calculate").click()
    page.wait_for_url("**/calculators/roofline?**")
    chart = page.locator(".chart img")
    assert chart.evaluate("img => img.complete && img.naturalWidth > 0")
    _shot(page, "calculator-roofline")


def test_upload_the_flashcard_seed_and_see_89_cards(
    page: Any, live_url: str, seeds_dir: Path
) -> None:
    page.goto(live_url + "/import")
    _shot(page, "import-1-form")
    page.get_by_label("File").set_input_files(str(seeds_dir / FLASHCARDS))
    page.get_by_role("button", name="Preview").click()
    assert page.get_by_test_id("added").inner_text() == "89"
    _shot(page, "import-2-preview")
    page.get_by_role("button", name="Import these items").click()
    assert page.get_by_test_id("added").inner_text() == "89"
    _shot(page, "import-3-done")
    page.goto(live_url + "/vault?deck=mire-dis-train-flashcards")
    _shot(page, "import-4-vault")
    assert page.get_by_test_id("result-count").inner_text() == "89 items"


def test_dark_theme_follows_the_system_setting(browser: Any, live_url: str) -> None:
    context = browser.new_context(viewport={"width": 1000, "height": 900}, color_scheme="dark")
    page = context.new_page()
    try:
        page.goto(live_url + "/items/cloud-0103")
        page.get_by_text("Reveal the answer").click()
        _shot(page, "dark-item")
        background = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert background == "rgb(21, 23, 27)"
    finally:
        context.close()


def _dashboard(live_url: str) -> dict[str, Any]:
    import json
    import urllib.request

    with urllib.request.urlopen(live_url + "/api/dashboard") as response:
        data: dict[str, Any] = json.load(response)
        return data


def _press_button(page: Any, name: str) -> None:
    """Reach a button with the keyboard alone and press it."""
    page.get_by_role("button", name=name).focus()
    with page.expect_navigation():
        page.keyboard.press("Enter")


def _answer_with_keys(page: Any, part_answer: str = "my answer to this part") -> bool:
    """Take one step of a session with the keyboard; False once it is finished."""
    if page.locator("form[action$='/finish'] button", has_text="See the results").count():
        return False
    if page.locator("form[action$='/reveal']").count():
        with page.expect_navigation():
            page.keyboard.press(" ")
    elif page.locator("form[action$='/rate']").count():
        key = "4" if page.get_by_text("How well did you recall it?").count() else "3"
        with page.expect_navigation():
            page.keyboard.press(key)
    elif page.locator("form[action$='/rubric']").count():
        _press_button(page, "Score")
    elif page.locator("form.options").count():
        with page.expect_navigation():
            page.keyboard.press("a")
    elif page.locator("form[action$='/chain']").count():
        with page.expect_navigation():
            page.keyboard.press("n")
    elif page.locator("#part-answer").count():
        page.locator("#part-answer").focus()
        page.keyboard.type(part_answer)
        page.keyboard.press("Tab")
        with page.expect_navigation():
            page.keyboard.press("Enter")
    elif page.locator("#answer").count():
        page.locator("#answer").focus()
        page.keyboard.type("3.5 ms")
        page.keyboard.press("Tab")
        with page.expect_navigation():
            page.keyboard.press("Enter")
    else:
        return False
    return True


def test_keyboard_only_practice_of_two_items_changes_the_counts(page: Any, live_url: str) -> None:
    before = _dashboard(live_url)
    page.goto(live_url + "/practice")
    page.get_by_label("Items at most").fill("2")
    _press_button(page, "Start practice")
    _shot(page, "practice-1-first-item")
    steps = 0
    while _answer_with_keys(page):
        steps += 1
        _shot(page, f"practice-2-step-{steps}")
        assert steps < 12, "the session did not finish"
    _press_button(page, "See the results")
    _shot(page, "practice-3-results")
    after = _dashboard(live_url)
    assert after["reviews_total"] == before["reviews_total"] + 2
    assert after["items_seen"] == before["items_seen"] + 2


def test_quick_gauntlet_runs_to_its_results_page(page: Any, live_url: str) -> None:
    page.goto(live_url + "/gauntlet")
    _shot(page, "gauntlet-1-start")
    _press_button(page, "Start gauntlet")
    assert page.locator("#countdown").count() == 1
    steps = 0
    while _answer_with_keys(page):
        steps += 1
        assert steps < 30, "the gauntlet did not finish"
    _shot(page, "gauntlet-2-done")
    _press_button(page, "See the results")
    page.wait_for_url("**/results")
    _shot(page, "gauntlet-3-results")
    assert page.locator("h1").count() == 1


def test_an_exercise_is_answered_part_by_part(page: Any, live_url: str) -> None:
    page.goto(live_url + "/quiz")
    page.get_by_label("Deck").select_option("sample-exercises")
    _press_button(page, "Start quiz")
    labels = []
    # (a) and (b) are numeric parts, graded; (c) is compared by the learner.
    answers = ["~48.8 hours", "4600 s", "my answer to this part"]
    while page.locator("#part-answer").count():
        labels.append(page.locator("label[for='part-answer']").inner_text())
        _shot(page, f"exercise-part-{len(labels)}")
        assert len(labels) <= len(answers)
        _answer_with_keys(page, answers[len(labels) - 1])
    assert labels == ["Your answer to (a)", "Your answer to (b)", "Your answer to (c)"]
    _shot(page, "exercise-revealed")
    # Every part's answer is shown back with the model answers.
    shown = page.locator("main").inner_text()
    assert all(answer in shown for answer in answers), shown


def test_the_policy_stops_a_script_injected_into_a_page(browser: Any, live_url: str) -> None:
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(live_url + "/items/cloud-0199")
        with page.expect_console_message(
            lambda message: "Content Security Policy" in message.text
        ) as logged:
            page.evaluate(
                "() => { const s = document.createElement('script');"
                " s.textContent = 'window.injected = 1'; document.body.appendChild(s); }"
            )
        assert "script-src 'self'" in logged.value.text
        assert page.evaluate("() => window.injected") is None
    finally:
        context.close()


def test_the_gauntlet_countdown_ticks_under_the_policy(page: Any, live_url: str) -> None:
    page.goto(live_url + "/gauntlet")
    _press_button(page, "Start gauntlet")
    shown = page.locator("#countdown").inner_text()
    page.wait_for_function(
        "shown => document.getElementById('countdown').textContent !== shown", arg=shown
    )
