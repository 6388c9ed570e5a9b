"""A power written right after a unit raises the unit, however it is written.

``cm²``, ``cm^{2}``, ``\\text{cm}^{2}`` and ``cm^2`` are one unit (square centimetres),
so ``4 cm²`` is 4 square centimetres, not ``(4 cm)²``. A power after a number, or
after a closing parenthesis, still raises that number or that quantity.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sysdrill.napkin import Verdict, calc_expression, check_claims
from sysdrill.napkin.expression import evaluate
from sysdrill.napkin.lexer import normalize

_SUPERSCRIPT_DIGITS = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def superscript(power: int) -> str:
    """``-2`` as ``⁻²``."""
    return str(power).translate(_SUPERSCRIPT_DIGITS)


def same_quantity(text: str, other: str) -> bool:
    first, second = evaluate(text), evaluate(other)
    return first.dims == second.dims and math.isclose(first.v, second.v, rel_tol=1e-12)


@pytest.mark.parametrize(
    "written",
    ["4 cm²", "4 cm^{2}", "$4\\,\\text{cm}^{2}$", "4\\,\\mathrm{cm}^{2}", "4 cm^(2)"],
)
def test_a_squared_unit_is_an_area_of_that_many_square_units(written: str) -> None:
    area = evaluate(written)
    assert math.isclose(area.v, 4e-4)  # 4 cm² in m², not (4 cm)² = 16 cm²
    assert same_quantity(written, "4 cm^2")


@pytest.mark.parametrize("written", ["3 s⁻¹", "3 s^{-1}", "3 s^-1", "3 s^(-1)"])
def test_a_negative_power_of_a_unit_divides_by_the_unit_only(written: str) -> None:
    assert calc_expression(written).display == "3 Hz"


def test_a_cubed_unit_holds_a_volume() -> None:
    assert math.isclose(evaluate("2 mm³").v, 2e-9)
    assert same_quantity("2 mm³", "2 mm^3")


def test_a_power_after_the_last_unit_of_a_rate_applies_to_that_unit() -> None:
    density = evaluate("15 mW/cm²")
    assert math.isclose(density.v, 150.0)  # 15e-3 W per 1e-4 m²
    assert same_quantity("15 mW/cm²", "15 mW/cm^2")
    assert same_quantity("15 mW/cm²", "15\\,\\text{mW}/\\text{cm}^{2}")


@pytest.mark.parametrize(
    ("written", "value"),
    [
        ("2¹⁶", 65536.0),
        ("2^{16}", 65536.0),
        ("10^{9}", 1e9),
        ("6×10⁻⁵", 6e-5),
        ("3 \\times 10^{-4}", 3e-4),
        ("2⁻³", 0.125),
        ("2¹⁰ B", 1024.0),
        ("2^(10) B", 1024.0),
        ("10^-3 s", 1e-3),
        ("2^-5 B", 1 / 32),
    ],
)
def test_a_power_after_a_number_still_raises_the_number(written: str, value: float) -> None:
    assert math.isclose(evaluate(written).v, value)


@pytest.mark.parametrize("written", ["(4 cm)²", "(4 cm)^{2}", "(4 cm)^2"])
def test_a_power_after_parentheses_still_squares_the_whole_quantity(written: str) -> None:
    assert math.isclose(evaluate(written).v, 16e-4)


def test_a_superscript_before_a_digit_keeps_its_own_exponent() -> None:
    # "2²3" must not read as 2^23; the exponent stays in parentheses.
    assert normalize("2²3") == "2^(2)3"


def test_a_product_of_superscript_powers_of_ten_is_not_read_as_scientific_notation() -> None:
    # "10⁹ × 10³" is 10^9 times 10^3, not 10 to the power 9e3.
    assert [v.verdict for v in check_claims("10⁹ × 10³ = 10¹²")] == [Verdict.OK]
    (wrong,) = check_claims("10⁹ × 10³ = 10¹³")
    assert wrong.verdict is Verdict.WRONG
    assert wrong.computed == pytest.approx(1e12)


@pytest.mark.parametrize(
    "line",
    [
        "Sensor area: 1200 mm² = 12 cm².",
        "$1200\\,\\text{mm}^{2} = 12\\,\\text{cm}^{2}$",
        "Harvest: 15 mW/cm² * 40 cm² * 0.25 = 150 mW",
        "Harvest: 15 mW/cm^{2} × 40 cm^{2} × 0.25 = 150 mW",
        "Tank: 2 mm³ * 500 = 1000 mm³",
    ],
)
def test_claims_with_squared_and_cubed_units_hold(line: str) -> None:
    verdicts = check_claims(line)
    assert [v.verdict for v in verdicts] == [Verdict.OK], verdicts


def test_a_wrong_area_product_is_caught_with_the_right_expected_value() -> None:
    (verdict,) = check_claims("Harvest: 15 mW/cm² * 40 cm² * 0.25 = 600 mW")
    assert verdict.verdict is Verdict.WRONG
    assert verdict.computed == pytest.approx(150.0)
    assert verdict.unit == "mW"


def test_napkin_check_reads_superscript_and_latex_areas_alike(run_cli) -> None:
    text = "1200 mm² = 12 cm²\n$1200\\,\\text{mm}^{2} = 12\\,\\text{cm}^{2}$\n"
    result = run_cli("napkin", "check", "-", input=text)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.stdout.count(" ok ") == 2
    assert "2 claims: 2 ok" in result.stdout


def test_calc_reads_a_superscript_unit_as_the_typed_power(run_cli) -> None:
    superscripted = run_cli("calc", "4 cm²")
    typed = run_cli("calc", "4 cm^2")
    assert superscripted.exit_code == typed.exit_code == 0
    assert superscripted.stdout == typed.stdout == "0.0004 m^2\n"


UNITS = st.sampled_from(["cm", "mm", "km", "s", "ms", "µs", "GB", "W", "mW", "J", "mJ"])
POWERS = st.integers(min_value=-3, max_value=3).filter(bool)


@given(count=st.integers(min_value=1, max_value=10**6), unit=UNITS, power=POWERS)
def test_every_spelling_of_a_unit_power_is_one_quantity(count: int, unit: str, power: int) -> None:
    typed = evaluate(f"{count} {unit}^{power}")
    spellings = [
        f"{count} {unit}^{{{power}}}",
        f"{count} {unit}{superscript(power)}",
        f"${count}\\,\\text{{{unit}}}^{{{power}}}$",
    ]
    for spelling in spellings:
        value = evaluate(spelling)
        assert value.dims == typed.dims, spelling
        assert math.isclose(value.v, typed.v, rel_tol=1e-12), spelling
    # The power belongs to the unit: the count is taken once, whatever the power.
    one_unit = evaluate(f"1 {unit}^{power}")
    assert math.isclose(typed.v, count * one_unit.v, rel_tol=1e-12)
