"""Normalising and tokenising napkin-math notation."""

from __future__ import annotations

import pytest

from sysdrill.napkin.lexer import Kind, normalize, tokenize


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("$2 \\times 7 = 14$", "2 × 7 = 14"),
        ("$\\frac{2048}{128} = 16$", "((2048)/(128)) = 16"),
        ("$\\text{Bubble} \\approx 0.16$", "Bubble ≈ 0.16"),
        ("6×10⁻⁵", "6e-5"),
        ("2¹⁶ = 65536", "2^16 = 65536"),
        ("1 * 10^-7 * 65,536", "1e-7 * 65,536"),
        ("4.19 \\times 10^{8}", "4.19e8"),
        ("**Result: 2048.**", " Result: 2048. "),
        ("10 − 3 ÷ 3", "10 - 3 / 3"),
        ("h₁", "h_1"),
    ],
)
def test_normalize_rewrites_latex_unicode_and_markdown(raw: str, expected: str) -> None:
    assert normalize(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        # Each rewrite runs only when a cheap look finds what it needs; these lines
        # hold that and more, or only look alike.
        ("1,5 GB x 2 = 3 GB", "1.5 GB x 2 = 3 GB"),
        ("12,34567 and 65,536 and 1,234,567", "12.34567 and 65,536 and 1,234,567"),
        ("a_b * c = `d`", "a_b * c =  d "),
        ("__8__ GB", " 8  GB"),
        ("a__b___c and 2***3", "a b _c and 2 *3"),
        ("**2**16** and **bold**", " 2**16  and  bold "),
        ("2 * 10^3 = 2000 ≈ 2e3", "2e3 = 2000 ≈ 2e3"),
        ("2 × 10 = 20 ≈ 2·10", "2 × 10 = 20 ≈ 2×10"),
        ("10 × 10³ ≈ 10⁴", "10e3 ≈ 10^4"),
    ],
)
def test_normalize_gated_rewrites_run_whenever_they_apply(raw: str, expected: str) -> None:
    assert normalize(raw) == expected


def test_normalize_keeps_prices_outside_math_delimiters() -> None:
    line = "At $3.50/GPU-hour the cost is about $407,000."
    assert normalize(line) == line


def test_normalize_keeps_python_power_between_digits() -> None:
    assert normalize("2**16") == "2**16"


def _kinds(text: str) -> list[tuple[str, str]]:
    return [(t.kind.value, t.text) for t in tokenize(normalize(text))]


def test_tokenize_reads_thousands_separators_as_one_number() -> None:
    (token,) = tokenize("65,536")
    assert token.kind is Kind.NUM
    assert token.value == 65536
    assert token.exact


def test_tokenize_keeps_a_list_comma_apart() -> None:
    assert [t.text for t in tokenize("4, 8")] == ["4", ",", "8"]


@pytest.mark.parametrize(
    ("text", "value", "unit"),
    [
        ("70B", 70e9, ""),
        ("119K", 119e3, ""),
        ("428M", 428e6, ""),
        ("1.4T", 1.4e12, ""),
        ("16k", 16e3, ""),
        ("100MB", 100, "MB"),
        ("5ms", 5, "ms"),
        ("1.4Ttokens", 1.4e12, "tokens"),
    ],
)
def test_tokenize_reads_glued_suffixes_and_units(text: str, value: float, unit: str) -> None:
    (token,) = tokenize(text)
    assert token.kind is Kind.NUM
    assert token.value == pytest.approx(value)
    assert token.unit == unit
    assert not token.exact or unit


@pytest.mark.parametrize("name", ["15N", "8x22B", "1F1B", "2D", "8-bit", "Llama-2-70B", "H100"])
def test_tokenize_reads_model_and_hardware_names_as_names(name: str) -> None:
    (token,) = tokenize(name)
    assert token.kind is Kind.NAME
    assert token.text == name


def test_tokenize_splits_a_single_letter_minus_one() -> None:
    assert _kinds("N-1") == [("name", "N"), ("op", "-"), ("num", "1")]


def test_tokenize_turns_a_spaced_x_between_numbers_into_times() -> None:
    assert _kinds("4 x 4") == [("num", "4"), ("op", "×"), ("num", "4")]
    assert _kinds("Gen4 x16")[1] == ("name", "x16")


def test_tokenize_records_spaces_and_offsets() -> None:
    tokens = tokenize("a  (3+4)", 10)
    assert [(t.start, t.space_before) for t in tokens] == [
        (10, True),
        (13, True),
        (14, False),
        (15, False),
        (16, False),
        (17, False),
    ]


def test_number_literals_carry_their_rounding() -> None:
    (decimal,) = tokenize("4.19e8")
    assert decimal.ulp == pytest.approx(1e6)
    assert decimal.sig == 3
    (integer,) = tokenize("116,300")
    assert integer.ulp == 100
    assert integer.sig == 4
