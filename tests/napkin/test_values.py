"""Values of literals and the arithmetic on them."""

from __future__ import annotations

import pytest

from sysdrill.napkin.lexer import Kind, tokenize
from sysdrill.napkin.values import (
    Value,
    literal_in_unit,
    literal_unit,
    literal_value,
    mul,
    power,
    unit_value,
)


def _fields(value: Value) -> tuple[object, ...]:
    return tuple(getattr(value, name) for name in Value.__slots__)


@pytest.mark.parametrize(
    ("text", "unit"),
    [
        ("80", "GB"),
        ("3.35", "TB"),
        ("65,536", "B"),
        ("1.5e3", "ms"),
        ("7B", "FLOP"),
        ("2", "GiB"),
        ("0.25", "$"),
    ],
)
def test_a_literal_in_its_unit_is_the_literal_times_the_unit(text: str, unit: str) -> None:
    (token,) = tokenize(text)
    assert token.kind is Kind.NUM
    for reverse in (False, True):
        written = unit_value(unit, reverse)
        one_step = literal_in_unit(token, written)
        assert _fields(one_step) == _fields(literal_unit(literal_value(token), written))
        assert one_step.v == token.value * written.v
        assert one_step.unit == unit


def test_a_literal_in_a_unit_that_could_not_be_read_is_that_unit() -> None:
    (token,) = tokenize("4")
    overflowed = power(unit_value("GB"), Value(1e6, 1e6, 1e6, exact=True))
    assert overflowed.why == "overflow"
    assert literal_in_unit(token, overflowed) is overflowed
    assert mul(literal_value(token), overflowed) is overflowed
