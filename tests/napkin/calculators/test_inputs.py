"""Reading calculator inputs as people type them."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sysdrill.errors import ExpressionSyntax, UnitMismatch
from sysdrill.napkin.calculators.inputs import parse_count, parse_number, parse_quantity


@pytest.mark.parametrize(
    ("text", "unit", "expected"),
    [
        ("50GB/s", "byte / s", 50e9),
        ("50 GB/s", "byte / s", 50e9),
        ("400 Gbps", "byte / s", 50e9),
        ("1 GiB", "byte", 2**30),
        ("8KB", "byte", 8000),
        ("8 KiB", "byte", 8192),
        ("5us", "s", 5e-6),
        ("5 µs", "s", 5e-6),
        ("2 hr", "s", 7200),
        ("312 TFLOP/s", "FLOP / s", 312e12),
        ("989 TFLOPS", "FLOP / s", 989e12),
        ("4 TOPS", "FLOP / s", 4e12),
        ("7B", "param", 7e9),
        ("7B params", "param", 7e9),
        ("1.4T tokens", "token", 1.4e12),
        ("65,536", "param", 65536),
        ("3.14e23 FLOP", "FLOP", 3.14e23),
        ("$2.50/GPU-hour", "USD / GPU / hour", 2.5),
        ("1000 GPU-hours", "GPU * hour", 1000),
        ("16 B/param", "byte / param", 16),
    ],
)
def test_parse_quantity_reads_napkin_spellings(text: str, unit: str, expected: float) -> None:
    value = parse_quantity(text, unit=unit, name="--x", default_unit=unit)
    assert value.to(unit).magnitude == pytest.approx(expected)


def test_bare_number_takes_the_default_unit() -> None:
    price = parse_quantity(
        "2.5", unit="USD / GPU / hour", name="--price", default_unit="USD / GPU / hour"
    )
    assert price.magnitude == 2.5


def test_bare_number_without_default_needs_a_unit() -> None:
    with pytest.raises(UnitMismatch) as info:
        parse_quantity("1e9", unit="byte", name="--message")
    assert str(info.value) == "--message: '1e9' needs a unit (for example '1 GB')"


def test_wrong_dimension_names_the_option_and_an_example() -> None:
    with pytest.raises(UnitMismatch) as info:
        parse_quantity("50 GB", unit="byte / s", name="--bandwidth")
    assert str(info.value) == (
        "--bandwidth: '50 GB' cannot be converted to byte / s (for example '50 GB/s')"
    )


def test_plain_rate_is_not_a_bandwidth() -> None:
    with pytest.raises((UnitMismatch, ExpressionSyntax)):
        parse_quantity("50 1/s", unit="byte / s", name="--bandwidth")


def test_unknown_unit_and_non_number() -> None:
    with pytest.raises(ExpressionSyntax, match="unknown unit 'zorks'"):
        parse_quantity("5 zorks", unit="s", name="--latency")
    with pytest.raises(ExpressionSyntax, match="cannot evaluate 'fast'"):
        parse_quantity("fast", unit="s", name="--latency")


def test_glued_b_means_billion_and_spaced_b_means_bytes_as_in_the_checker() -> None:
    assert (
        parse_quantity("7B", unit="param", name="--params", default_unit="param").magnitude == 7e9
    )
    assert parse_quantity("7 B", unit="byte", name="--message").magnitude == 7
    with pytest.raises(UnitMismatch, match="'7B' needs a unit"):
        parse_quantity("7B", unit="byte", name="--message")


def test_parse_number_and_percentages() -> None:
    assert parse_number("0.4", name="--mfu") == 0.4
    assert parse_number("40%", name="--mfu") == pytest.approx(0.4)
    with pytest.raises(ExpressionSyntax, match="is not a number"):
        parse_number("forty", name="--mfu")


def test_parse_count() -> None:
    assert parse_count("8", name="--ranks") == 8
    assert parse_count("4*1024", name="--ranks") == 4096
    assert parse_count("65,536", name="--ranks") == 65536
    with pytest.raises(ExpressionSyntax, match="whole number"):
        parse_count("2.5", name="--ranks")


@settings(deadline=None)  # tests never assert on timing
@given(st.integers(min_value=0, max_value=10**15))
def test_counts_round_trip(value: int) -> None:
    assert parse_count(str(value), name="--n") == value
    assert parse_count(f"{value:,}", name="--n") == value
