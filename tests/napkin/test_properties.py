"""Property-based tests: the parser never crashes, and formatting round-trips."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sysdrill.errors import NapkinError
from sysdrill.napkin import calc_expression, check_claims
from sysdrill.napkin.expression import evaluate
from sysdrill.napkin.quantity import format_value

NOTATION = st.sampled_from(
    list("0123456789.,+-*/^()=~≈×÷−·%$ eExKMBT⁻¹²³√π")
    + ["GB", "GiB", "ms", "µs", "us", "TFLOP/s", "\\times", "\\frac{", "}{", "}", "$", "**"]
    + ["min(", "max(", "sqrt(", "log2(", "N", "H100", " = ", " ≈ ", "\n", "10^", "2¹⁶"]
)
TEXT = st.one_of(st.text(max_size=120), st.lists(NOTATION, max_size=40).map("".join))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXT)
def test_evaluate_raises_only_napkin_errors(text: str) -> None:
    try:
        evaluate(text)
    except NapkinError:
        pass


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXT)
def test_check_claims_never_raises(text: str) -> None:
    for verdict in check_claims(text):
        assert verdict.line >= 1


UNITS = st.sampled_from(
    ["", "GB", "GiB", "MB/s", "ms", "µs", "s", "TFLOP/s", "FLOP", "W", "kWh", "$", "tokens/s"]
)


@settings(max_examples=300, deadline=None)
@given(
    st.floats(min_value=1e-6, max_value=1e18, allow_nan=False, allow_infinity=False),
    UNITS,
)
def test_formatting_then_parsing_a_quantity_gives_it_back(number: float, unit: str) -> None:
    text = f"{number!r} {unit}" if unit != "$" else f"${number!r}"
    value = evaluate(text)
    magnitude, shown_unit, display = format_value(value)
    again = evaluate(display)
    assert again.dims == value.dims
    # The display keeps 4 significant digits.
    assert math.isclose(again.v, value.v, rel_tol=5e-4), (text, display)
    assert calc_expression(display).display == display


@pytest.mark.parametrize("display", ["3.5 ms", "140 GB", "12.5 GB/s", "$407,050", "65,536"])
def test_displays_parse_back_to_themselves(display: str) -> None:
    assert calc_expression(display).display == display
