"""Readable math and plain text for terminals."""

from __future__ import annotations

import pytest

from sysdrill.study.sessions.text import keep_line_breaks, plain_text, readable_math


@pytest.mark.parametrize(
    ("tex", "plain"),
    [
        (r"$5.88 \times 10^{22}$", "5.88 × 10^22"),
        (r"$\frac{P-1}{M+P-1}$", "(P-1)/(M+P-1)"),
        (r"$\frac{a}{b}$", "a/b"),
        (r"$$\sqrt{\frac{x}{2}} \approx 3$$", "√(x/2) ≈ 3"),
        (r"$\alpha \leq 0.5\,\text{ms}$", "α ≤ 0.5 ms"),
        (r"$50\%$", "50%"),
        (r"$\unknown{x}$", r"\unknown{x}"),
    ],
)
def test_latex_becomes_plain_symbols(tex, plain):
    assert readable_math(tex) == plain


def test_text_around_math_and_dollar_amounts_stay():
    text = r"It costs $5 and $6, and takes $2 \times 3$ s."
    assert readable_math(text) == "It costs $5 and $6, and takes 2 × 3 s."


def test_plain_text_drops_bold_and_heading_markers():
    assert (
        plain_text("### Conclusion\n**The Pitfall:** $a \\cdot b$")
        == "Conclusion\nThe Pitfall: a · b"
    )


def test_line_breaks_become_hard_breaks_and_paragraphs_stay():
    text = "**The Pitfall:** a\n**The Rationale:** b\n\nNext paragraph"
    assert keep_line_breaks(text) == "**The Pitfall:** a  \n**The Rationale:** b\n\nNext paragraph"
