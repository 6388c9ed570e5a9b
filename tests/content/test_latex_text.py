"""LaTeX math as plain text, readable and for the napkin parser."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor

import pytest

from sysdrill.content import latex_text
from sysdrill.content.latex_text import LatexStyle, latex_to_text

READABLE = LatexStyle.READABLE
NOTATION = LatexStyle.NOTATION


@pytest.mark.parametrize(
    ("tex", "readable", "notation"),
    [
        (r"5.88 \times 10^{22}", "5.88 × 10^22", "5.88 × 10^(22)"),
        (r"\frac{P-1}{M+P-1}", "(P-1)/(M+P-1)", "((P-1)/(M+P-1))"),
        (r"\dfrac{a}{b}", "a/b", "((a)/(b))"),
        (r"\sqrt{\frac{x}{2}} \approx 3", "√(x/2) ≈ 3", "sqrt(((x)/(2))) ≈ 3"),
        (r"\alpha \leq 0.5\,\text{ms}", "α ≤ 0.5 ms", "alpha ≤ 0.5 ms"),
        (r"10\,\mu\text{s}", "10 µs", "10 µs"),
        (r"x_{i j} \cdot 2", "x_i j · 2", "x_ij · 2"),
        (r"\mathbb{E}[g] = \nabla \mathcal{L}", "𝔼[g] = ∇ ℒ", "mathbbE[g] = nabla mathcalL"),
        (r"a \lt b \implies c", "a < b ⟹ c", "a < b ⟹ c"),
    ],
)
def test_commands_become_symbols_in_each_style(tex: str, readable: str, notation: str) -> None:
    assert latex_to_text(tex, style=READABLE) == readable
    assert latex_to_text(tex, style=NOTATION) == notation


def test_unknown_commands_stay_as_written_for_people_and_by_name_for_the_parser() -> None:
    assert latex_to_text(r"\unknown{x} + 1") == r"\unknown{x} + 1"
    assert latex_to_text(r"\log n + \unknown{x}", style=NOTATION) == "log n + unknownx"


def test_dollars_percent_and_tilde_are_plain_characters() -> None:
    line = r"At $3.50/GPU-hour, 50% ~ 4 \times 2 & \$5 or 7\%"
    assert latex_to_text(line, style=NOTATION) == "At $3.50/GPU-hour, 50% ~ 4 × 2 & $5 or 7%"


@pytest.mark.parametrize("style", list(LatexStyle))
def test_unclosed_groups_give_their_text_without_structure(style: LatexStyle) -> None:
    assert latex_to_text(r"\frac{a", style=style) == "a"
    assert latex_to_text(r"\sqrt{2", style=style) == "√2"
    assert latex_to_text(r"2^{10", style=style) == "2^10"


def test_threads_share_the_converter_and_agree_with_a_serial_run() -> None:
    lines = [rf"\frac{{{n}}}{{{n + 1}}} \times 10^{{{n % 7}}} \approx {n}" for n in range(200)]
    serial = [latex_to_text(line, style=NOTATION) for line in lines]
    with ThreadPoolExecutor(max_workers=8) as pool:
        threaded = list(pool.map(lambda line: latex_to_text(line, style=NOTATION), lines))
    assert threaded == serial
    assert serial[3] == "((3)/(4)) × 10^(3) ≈ 3"


def test_a_command_name_ends_at_the_first_letter_outside_ascii() -> None:
    assert latex_to_text(r"2\timesµs", style=NOTATION) == "2×µs"
    assert latex_to_text(r"\alphaβ") == "αβ"


def test_prose_around_the_latex_is_kept_exactly() -> None:
    line = r"At 50%, a {cost} of $3 is \approx 4 -- so ``fine'' & done"
    expected = "At 50%, a cost of $3 is ≈ 4 -- so ``fine'' & done"
    assert latex_to_text(line, style=NOTATION) == expected
    assert latex_to_text("no commands at all, 100% plain") == "no commands at all, 100% plain"


def _common_latex(rng: random.Random, depth: int = 0) -> str:
    """A random span written with the commands the fast reader converts itself."""
    number = rng.choice(["2", "3.35", "1{,}024", "10^{12}", "x_{i j}", "N", "70"])
    if depth > 2:
        return number
    pick = rng.randrange(9)
    inner = _common_latex(rng, depth + 1)
    other = _common_latex(rng, depth + 1)
    if pick == 0:
        return rf"\frac{{{inner}}}{{{other}}}"
    if pick == 1:
        return rf"\sqrt{{{inner}}}"
    if pick == 2:
        return rf"{inner}\text{{ {rng.choice(['GB', 'ms', 'TB/s'])}}}"
    if pick == 3:
        command = rng.choice([r"\times", r"\approx", r"\cdot", r"\leq", r"\to", r"\,", r"\;"])
        return f"{inner}{rng.choice(['', ' ', '  '])}{command}{rng.choice(['', ' '])}{other}"
    if pick == 4:
        return rf"{inner} = {other}\% of \$5"
    if pick == 5:
        return rf"\left({inner}\right)^{{{other}}}"
    if pick == 6:
        return rf"\mu\text{{s}} {inner} \alpha \log {other}"
    return f"{inner} {rng.choice(['+', '-', '/', '~', '&', '→'])} {other}"


RANDOM_PIECES = [
    *r"0123456789.,+-*/^()=~≈×%$ {}_\[]&µ",
    *[r"\times", r"\frac{", "}{", r"\text{", r"\sqrt{", r"\sqrt[3]{", r"\unknown", r"\{"],
    *[r"\%", r"\$", r"\,", r"\\", r"\log", r"\mathbb{", r"\alphaβ", "``", "--", "\n"],
]


@pytest.mark.parametrize("style", list(LatexStyle))
def test_the_fast_reader_gives_the_text_pylatexenc_gives(style: LatexStyle) -> None:
    rng = random.Random(11)
    common = [_common_latex(rng) for _ in range(600)]
    odd = ["".join(rng.choices(RANDOM_PIECES, k=rng.randint(1, 12))) for _ in range(600)]
    fast = 0
    for span in common + odd:
        source = latex_text._prepared(span)
        try:
            text = latex_text._FastReader(style, source).text()
        except latex_text._Unusual:
            continue
        fast += 1
        assert text == latex_text._parse(source, style), source
    assert fast >= 600  # every common span and some of the random ones
