"""End to end, in Debian's chromium on a phone: a tap on a multiple-choice option's words answers.

A reviewer on a 390 px phone tapped the text of an option and nothing happened: only
the small letter button answered. The whole option row is now the button, so the
tap lands on it; the letter keys still answer on a desktop (``test_e2e``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests.web import test_e2e
from tests.web.test_e2e import _shot

pytestmark = pytest.mark.e2e

PHONE = {"width": 390, "height": 844}
RIGHT_OPTION = "ZeRO stage 2 (optimizer state and gradients sharded)"
"""cloud-0103's correct option (the only cloud item at level L3 of the sample vault)."""

# test_e2e's server over the sample vault and its chromium, started again for this module.
live_url = test_e2e.live_url
browser = test_e2e.browser


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    """A touch-screen phone page, 390 px wide."""
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    opened = context.new_page()
    opened.set_default_timeout(15_000)
    yield opened
    context.close()


def test_tapping_an_options_words_on_a_phone_answers_and_grades_it(
    phone: Any, live_url: str
) -> None:
    phone.goto(live_url + "/practice")
    phone.locator("#f-track").select_option("cloud")
    phone.locator("#f-level").select_option("L3")
    with phone.expect_navigation():
        phone.get_by_role("button", name="Start practice").tap()
    words = phone.locator("form.options .option-text", has_text=RIGHT_OPTION)
    assert words.count() == 1
    # The option row spans the phone's width, not just the letter.
    row_width_px = phone.locator("form.options button.option").first.bounding_box()["width"]
    assert row_width_px > PHONE["width"] / 2
    _shot(phone, "phone-option-before-tap")
    with phone.expect_navigation():
        words.tap()
    _shot(phone, "phone-option-graded")
    shown = phone.locator("main").inner_text()
    assert phone.locator("form.options").count() == 0
    assert "Correct" in shown, shown
