"""Anki field HTML to Markdown: what real decks hold survives (issue 16, text fidelity)."""

from __future__ import annotations

import pytest

from sysdrill.interop.export.cards import FieldRenderer
from sysdrill.interop.formats._common import html_to_markdown


@pytest.mark.parametrize(
    ("html", "markdown"),
    [
        ("10<sup>4</sup> tokens", "10^{4} tokens"),
        ("H<sub>2</sub>O", "H_{2}O"),
        ("<ruby>漢字<rp>(</rp><rt>かんじ</rt><rp>)</rp></ruby>を読む", "漢字(かんじ)を読む"),
        (
            "<table><tr><th>GPU</th><th>HBM</th></tr><tr><td>H100</td><td>80 GB|HBM3</td></tr>"
            "</table>",
            "| GPU | HBM |\n| --- | --- |\n| H100 | 80 GB\\|HBM3 |",
        ),
        ("<pre><code>if a &lt; b:\n    x = 1</code></pre>", "```\nif a < b:\n    x = 1\n```"),
        ("Shown: &lt;script&gt;alert(1)", "Shown: &lt;script>alert(1)"),
        ("<code>&lt;b&gt;</code> AT&amp;T", "`<b>` AT&T"),
        ("<ol><li>one</li><li>two</li></ol>", "1. one\n2. two"),
        (
            "<ul><li>one<ol><li>a</li><li>b</li></ol></li><li>two</li></ul>",
            "- one\n  1. a\n  2. b\n- two",
        ),
    ],
    ids=[
        "sup",
        "sub",
        "ruby",
        "table",
        "code-block",
        "escaped-html",
        "code-span",
        "list",
        "nested-list",
    ],
)
def test_html_to_markdown_keeps_structure(html: str, markdown: str) -> None:
    assert html_to_markdown(html)[0] == markdown


def test_superscript_and_subscript_go_back_to_html_on_export() -> None:
    render = FieldRenderer()

    assert render("10^{4} tokens and H_{2}O") == "<p>10<sup>4</sup> tokens and H<sub>2</sub>O</p>"
    assert render("math $x^{2}$ stays math") == "<p>math \\(x^{2}\\) stays math</p>"


def test_escaped_html_is_shown_as_text_after_export() -> None:
    text, _ = html_to_markdown("Shown: &lt;script&gt;alert(1)")

    assert FieldRenderer()(text) == "<p>Shown: &lt;script&gt;alert(1)</p>"
