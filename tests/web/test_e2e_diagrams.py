"""End-to-end: diagrams drawn from an item's numbers, in a real browser, wide and narrow.

Like the other ``test_e2e*`` modules this runs Debian's chromium through Playwright and
skips where either is missing (``SYSDRILL_REQUIRE_E2E=1`` makes that a failure); it
saves its screenshots under ``tests/e2e/screenshots/``.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from typing import Any

import pytest
from tests.web.conftest import make_app
from tests.web.test_e2e import (  # browser: the shared fixture, on this module's live_url
    SCREENSHOTS,
    _require_browser,
    browser,  # noqa: F401
    serve_in_thread,
)

from sysdrill.content.sample import default_vault_path

pytestmark = pytest.mark.e2e

SHOWN = {
    "cloud-2126": "interleaved 1F1B pipeline schedule",
    "cloud-2011": "Ring all-reduce over 32 ranks",
    "cloud-0103": "Memory per GPU, ZeRO-2 over 8 GPUs",
    "cloud-3007": "Roofline: peak 989 TFLOP/s",
    "cloud-4026": "1F1B pipeline schedule",
}
"""Starter-vault items with a diagram, one per kind, and how their text alternative starts."""


@pytest.fixture(scope="module")
def live_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server over those items of the starter vault (the sample vault has no diagrams)."""
    _require_browser()
    root = tmp_path_factory.mktemp("e2e-diagrams")
    vault = root / "vault"
    (vault / "questions" / "cloud").mkdir(parents=True)
    for item_id in SHOWN:
        source = default_vault_path() / "questions" / "cloud" / f"{item_id}.yaml"
        shutil.copy(source, vault / "questions" / "cloud")
    yield from serve_in_thread(make_app(root / "web", vault=vault))


@pytest.mark.parametrize(("width", "scheme"), [(1200, "light"), (390, "dark")])
def test_diagram_items_draw_their_svg_at_desktop_and_phone_width(
    browser: Any,  # noqa: F811 (the fixture imported above)
    live_url: str,
    width: int,
    scheme: str,
) -> None:
    context = browser.new_context(
        viewport={"width": width, "height": 900}, color_scheme=scheme, is_mobile=width < 500
    )
    page = context.new_page()
    violations: list[str] = []
    page.on(
        "console",
        lambda message: (
            violations.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    try:
        for item_id, described in SHOWN.items():
            page.goto(f"{live_url}/items/{item_id}")
            # The picture is drawn from the answer's numbers: it comes with the answer.
            page.get_by_text("Reveal the answer").click()
            diagram = page.get_by_role("img", name=described)
            diagram.wait_for()
            drawn = diagram.bounding_box()
            frame = page.locator("figure.diagram").bounding_box()
            assert drawn is not None and frame is not None
            # Wide screens show the whole picture across the column; on a phone it keeps
            # a readable 480px and scrolls inside its own frame, which stays on screen.
            assert drawn["width"] >= min(frame["width"], 480) - 1
            assert frame["x"] + frame["width"] <= width
            assert page.locator("svg.diagram .slot").count() >= 1
            scroll = page.evaluate("document.documentElement.scrollWidth")
            assert scroll <= width, f"{item_id} is {scroll}px wide at {width}px"
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(
                path=str(SCREENSHOTS / f"diagram-{item_id}-{width}.png"), full_page=True
            )
    finally:
        context.close()
    assert violations == []


def _starter_items_with_diagrams() -> list[str]:
    from sysdrill.content.loader import load_vault

    vault = load_vault(default_vault_path())
    return sorted(item.id for item in vault.items if item.diagram is not None)


@pytest.fixture(scope="module")
def starter_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server over the whole starter vault, as `sysdrill serve` runs by default."""
    _require_browser()
    root = tmp_path_factory.mktemp("e2e-diagrams-starter")
    yield from serve_in_thread(make_app(root / "web", vault=default_vault_path()))


def test_every_starter_item_with_a_diagram_draws_it_in_the_browser(
    browser: Any,  # noqa: F811 (the fixture imported above)
    starter_url: str,
) -> None:
    items = _starter_items_with_diagrams()
    # The content target: at least 40 items of the starter vault carry a picture.
    assert len(items) >= 40
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    try:
        for item_id in items:
            page.goto(f"{starter_url}/items/{item_id}")
            page.get_by_text("Reveal the answer").click()
            drawn = page.locator("figure.diagram svg.diagram")
            drawn.wait_for()
            assert drawn.bounding_box() is not None, item_id
            assert drawn.get_attribute("role") == "img", item_id
            drawn.scroll_into_view_if_needed()
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOTS / f"diagram-all-{item_id}.png"))
    finally:
        context.close()
