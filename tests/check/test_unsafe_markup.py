"""``unsafe-markup`` flags markup, never markup the text only shows (issue 16)."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    "shown",
    [
        "or &lt;script&gt;alert(1)&lt;/script&gt; about 40 ms",
        "or `<script>alert(1)</script>` about 40 ms",
        "or \\<script> about 40 ms",
    ],
    ids=["entities", "code-span", "backslash"],
)
def test_escaped_html_shown_as_text_is_not_reported(planted, shown: str) -> None:
    planted.edit("or about 40 ms", shown)

    assert planted.lines_of("unsafe-markup") == []


def test_markup_beside_a_code_span_is_still_reported(planted) -> None:
    planted.edit("or about 40 ms", "or `x` <script>alert(1)</script> about 40 ms")

    assert planted.lines_of("unsafe-markup") == [("questions/cloud/cloud-0001.yaml", 16)]


def test_markup_after_an_escaped_backslash_is_still_reported(planted) -> None:
    planted.edit("or about 40 ms", "or \\\\<script> about 40 ms")

    assert planted.lines_of("unsafe-markup") == [("questions/cloud/cloud-0001.yaml", 16)]
