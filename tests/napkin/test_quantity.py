"""Reading and showing quantities: the one reader and formatter of sysdrill."""

from __future__ import annotations

import pytest

from sysdrill.errors import ExpressionSyntax, UnitMismatch
from sysdrill.napkin.quantity import (
    format_number,
    format_quantity,
    is_plain,
    read_in_unit,
    read_quantity,
)
from sysdrill.napkin.units import Dims

BYTES: Dims = (("information", 1),)
RATE: Dims = (("information", 1), ("time", -1))
SECONDS: Dims = (("time", 1),)


@pytest.mark.parametrize(
    ("text", "v", "dims"),
    [
        ("50GB/s", 50e9, RATE),
        ("50GBps", 50e9, RATE),
        ("400 Gbps", 50e9, RATE),
        ("8Gb", 1e9, BYTES),
        ("5us", 5e-6, SECONDS),
        ("7B", 7e9, ()),
        ("40%", 0.4, ()),
        ("$2/GPU-hour", 2 / 3600, (("currency", 1), ("gpu", -1), ("time", -1))),
        ("~128 KiB", 128 * 1024, BYTES),
        ("≈ 3 ms", 3e-3, SECONDS),
        ("1.3e5 bytes", 1.3e5, BYTES),
        ("2^30 B", 2**30, BYTES),
        ("2¹⁶ B", 2**16, BYTES),
        ("45% of 312 TFLOP/s", 140.4e12, (("flop", 1), ("time", -1))),
    ],
)
def test_read_quantity_reads_what_the_checker_reads(text: str, v: float, dims: Dims) -> None:
    value = read_quantity(text)
    assert value.v == pytest.approx(v)
    assert value.dims == dims


def test_read_quantity_refuses_a_word_that_is_not_a_unit() -> None:
    with pytest.raises(ExpressionSyntax, match="unknown unit 'zorkbyte' in '1 zorkbyte'"):
        read_quantity("1 zorkbyte")


def test_read_in_unit_converts_and_checks_the_dimension() -> None:
    assert read_in_unit("3600 us", unit="ms") == pytest.approx(3.6)
    assert read_in_unit("7B", unit="param", plain_in_unit=True) == 7e9
    with pytest.raises(
        UnitMismatch, match="'50 GB' is a size; the answer is a bandwidth, in byte / s"
    ):
        read_in_unit("50 GB", unit="byte / s")
    with pytest.raises(UnitMismatch, match="is a pure number"):
        read_in_unit("7B", unit="byte")


def test_is_plain_means_no_unit_percent_or_dollar() -> None:
    assert is_plain("7B")
    assert is_plain("65,536")
    assert not is_plain("7 B")
    assert not is_plain("40%")
    assert not is_plain("$3")


def test_format_number_groups_thousands_and_uses_e_notation_when_huge() -> None:
    assert format_number(116388.9) == "116,389"
    assert format_number(5.88e22) == "5.88e22"
    assert format_number(0.0035) == "0.0035"
    assert format_number(0) == "0"
    assert format_number(0.157894737, digits=6) == "0.157895"


@pytest.mark.parametrize(
    ("v", "dims", "display"),
    [
        (3.5e-3, SECONDS, "3.5 ms"),
        (90, SECONDS, "90 s"),
        (7200, SECONDS, "2 hours"),
        (3 * 86400, SECONDS, "3 days"),
        (0, SECONDS, "0 s"),
        (1.75e9, BYTES, "1.75 GB"),
        (512, BYTES, "512 B"),
        (1500, BYTES, "1.5 KB"),
        (12.5e9, RATE, "12.5 GB/s"),
        (3.15e23, (("flop", 1),), "3.15e23 FLOP"),
        (312e12, (("flop", 1),), "312 TFLOP"),
        (7e9, (("param", 1),), "7B params"),
        (238_300, (("time", -1), ("token", 1)), "238.3K tokens/s"),
        (1280, (("currency", 1),), "$1,280"),
        (2.5, (("currency", 1),), "$2.5"),
        (2.5 / 3600, (("currency", 1), ("gpu", -1), ("time", -1)), "$2.50/GPU-hour"),
        (1000 * 3600, (("gpu", 1), ("time", 1)), "1,000 GPU-hours"),
        (16, (("information", 1), ("param", -1)), "16 B/param"),
        (4.2e10, (("flop", 1), ("token", -1)), "42 GFLOP/token"),
        (4096 / 3, (("flop", 1), ("information", -1)), "1,365 FLOP/B"),
        (5600, (("length", 2), ("mass", 1), ("time", -3)), "5.6 kW"),
    ],
)
def test_format_quantity_picks_a_readable_unit(v: float, dims: Dims, display: str) -> None:
    assert format_quantity(v, dims)[2] == display
    # What is shown reads back as the same quantity.
    again = read_quantity(display)
    assert again.dims == dims
    assert again.v == pytest.approx(v, rel=5e-4)


def test_rounding_up_into_the_thousands_keeps_the_separator() -> None:
    from sysdrill.napkin.quantity import format_number

    assert format_number(999.95) == "1,000"
    assert format_number(-999.97) == "-1,000"
