"""Evaluating expressions with units: ``calc_expression`` and ``evaluate``."""

from __future__ import annotations

import pytest

from sysdrill.errors import ExpressionSyntax, UnitMismatch
from sysdrill.napkin import calc_expression
from sysdrill.napkin.expression import MAX_EXPRESSION_CHARS, evaluate


def test_calc_expression_gives_the_issue_example_in_milliseconds() -> None:
    result = calc_expression("2*(8-1)/8 * 100 MB / (50 GB/s)")
    assert result.display == "3.5 ms"
    assert result.unit == "ms"
    assert result.magnitude == pytest.approx(3.5)


@pytest.mark.parametrize(
    ("text", "display"),
    [
        ("2^16", "65,536"),
        ("6×10⁻⁵ * 2", "0.00012"),
        ("$3.50/GPU-hour * 116,300 GPU-hours", "$407,050"),
        ("100 Gbps", "12.5 GB/s"),
        ("70B params * 2 bytes/param", "140 GB"),
        ("45% of 312 TFLOP/s", "140.4 TFLOP/s"),
        ("1.4T tokens / (3000 tokens/s/GPU * 1024 GPU)", "5.275 days"),
        ("5 µs + 3 μs + 2 us", "10 µs"),
        ("700 W * 8", "5.6 kW"),
        ("3.7 V * 3000 mAh", "39.96 kJ"),
        ("ceil(7.2) + floor(7.8) + min(1, 2) + max(1, 2)", "18"),
        ("\\frac{2048}{128}", "16"),
        ("sqrt(16) * log2(8)", "12"),
        ("6 × 7B × 1.4T", "5.88e22"),
    ],
)
def test_calc_expression_picks_a_sensible_unit(text: str, display: str) -> None:
    assert calc_expression(text).display == display


def test_calc_expression_converts_to_a_requested_unit() -> None:
    result = calc_expression("3.5 ms", to_unit="us")
    assert result.magnitude == pytest.approx(3500)
    assert result.display == "3,500 us"
    assert calc_expression("1 GiB", to_unit="MiB").magnitude == pytest.approx(1024)
    assert calc_expression("1 GiB", to_unit="GB").magnitude == pytest.approx(1.073741824)


def test_calc_expression_refuses_a_unit_of_another_dimension() -> None:
    with pytest.raises(UnitMismatch, match="cannot express B in ms"):
        calc_expression("4 GB", to_unit="ms")


def test_calc_expression_refuses_an_unknown_target_unit() -> None:
    with pytest.raises(ExpressionSyntax, match="unknown unit 'furlongs'"):
        calc_expression("4 GB", to_unit="furlongs")


def test_adding_quantities_of_different_dimensions_is_a_unit_mismatch() -> None:
    with pytest.raises(UnitMismatch, match="different dimensions"):
        calc_expression("100 MB + 5 ms")


@pytest.mark.parametrize("text", ["", "2 *", "(3 + 4", "4 ) 5", "throughput * 2"])
def test_calc_expression_rejects_text_that_is_not_an_expression(text: str) -> None:
    with pytest.raises(ExpressionSyntax):
        calc_expression(text)


def test_calc_expression_refuses_very_long_input() -> None:
    with pytest.raises(ExpressionSyntax, match="the limit is"):
        calc_expression("1+" * MAX_EXPRESSION_CHARS + "1")


def test_deep_nesting_is_a_syntax_error_not_a_crash() -> None:
    with pytest.raises(ExpressionSyntax):
        calc_expression("(" * 900 + "1" + ")" * 900)


def test_evaluate_keeps_bits_and_bytes_apart() -> None:
    assert evaluate("8 Gb").v == pytest.approx(evaluate("1 GB").v)
    assert evaluate("1 KiB").v == 1024
    assert evaluate("1 KB").v == 1000
