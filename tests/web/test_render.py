"""The one renderer: Markdown, LaTeX as MathML, and untrusted input rendered inert."""

from __future__ import annotations

import pytest

from sysdrill.web.render import render_inline, render_markdown, render_svg


def test_markdown_renders_emphasis_lists_and_code() -> None:
    html = str(render_markdown("**bold** and `x = 1`\n\n- one\n- two"))
    assert "<strong>bold</strong>" in html
    assert "<code>x = 1</code>" in html
    assert "<li>one</li>" in html


def test_numbered_steps_split_by_bullets_keep_their_numbers() -> None:
    html = str(render_markdown("1. **Given:**\n- 8 GPUs\n\n2. **Work:**\n- 2 * 8 = 16\n"))
    assert '<ol start="2">' in html


def test_a_raw_html_list_with_a_handler_stays_text() -> None:
    html = str(render_markdown('<ol start="2" onclick="alert(1)"><li>x</li></ol>'))
    assert "<ol" not in html


@pytest.mark.parametrize(
    ("source", "display"),
    [
        (r"$\frac{a}{b}$", "inline"),
        (r"\(\frac{a}{b}\)", "inline"),
        (r"$$\frac{a}{b}$$", "block"),
        (r"\[\frac{a}{b}\]", "block"),
    ],
)
def test_latex_math_becomes_mathml(source: str, display: str) -> None:
    html = str(render_markdown(f"ratio {source} here"))
    assert f'<math display="{display}">' in html
    assert "<mfrac><mrow><mi>a</mi></mrow><mrow><mi>b</mi></mrow></mfrac>" in html


def test_underscores_inside_math_are_not_emphasis() -> None:
    html = str(render_inline(r"$t_{step}$ and $a_b$"))
    assert "<em>" not in html
    assert "<msub>" in html


def test_prices_are_not_math() -> None:
    assert str(render_inline("costs $2.50 and $3 per hour")) == "costs $2.50 and $3 per hour"


def test_dollars_in_code_spans_stay_code() -> None:
    assert "<code>$x$</code>" in str(render_inline("run `$x$` literally"))


def test_unreadable_latex_is_shown_as_code() -> None:
    assert "<code>\\frac{</code>" in str(render_inline(r"$\frac{$"))


@pytest.mark.parametrize(
    "payload",
    [
        "<script>alert(1)</script>",
        '<img src=x onerror="alert(1)">',
        "[click](javascript:alert(1))",
        '<a href="javascript:alert(1)">x</a>',
        '<svg onload="alert(1)"><circle r="1"/></svg>',
        "<iframe src='https://example.com'></iframe>",
    ],
)
def test_untrusted_markdown_renders_inert(payload: str) -> None:
    html = str(render_markdown(payload)).lower()
    assert "<script" not in html
    assert "<img" not in html
    assert '<a href="javascript' not in html
    assert "<svg" not in html
    assert "<iframe" not in html


def test_latex_text_cannot_smuggle_markup() -> None:
    html = str(render_inline(r"$\text{<script>alert(1)</script>}$"))
    assert "<script" not in html
    assert "<math" in html


def test_raw_html_is_shown_as_text() -> None:
    assert "&lt;script&gt;" in str(render_markdown("<script>alert(1)</script>"))


def test_svg_keeps_shapes_and_drops_scripts_handlers_and_links() -> None:
    svg = (
        '<?xml version="1.0"?><svg viewBox="0 0 10 10" onload="alert(1)">'
        '<script>alert(2)</script><rect width="5" height="5" fill="red" onclick="x()"/>'
        '<a href="javascript:alert(3)"><text x="1" y="2">hi</text></a>'
        '<foreignObject><div onmouseover="alert(4)">x</div></foreignObject></svg>'
    )
    html = str(render_svg(svg))
    assert '<rect width="5" height="5" fill="red">' in html
    assert "<text" in html
    for bad in ("script", "onload", "onclick", "javascript", "foreignobject", "onmouseover"):
        assert bad not in html.lower()


def test_empty_text_renders_nothing() -> None:
    assert str(render_markdown(None)) == ""
    assert str(render_inline("")) == ""
