"""Reading a claim's unwritten conventions (napkin/conventions.py)."""

from __future__ import annotations

from sysdrill.napkin.conventions import claim_hints, converts_macs, states_conversion
from sysdrill.napkin.lexer import tokenize
from sysdrill.napkin.values import Value, unit_value


def _literal(number: float, unit: str) -> Value:
    spelling = unit_value(unit)
    return Value(
        number * spelling.v, number, number * spelling.v, spelling.dims, unit=unit, scale=spelling.v
    )


def test_two_quantities_of_different_counted_units_state_a_conversion() -> None:
    assert states_conversion(_literal(1, "node"), _literal(8, "GPU"))
    assert not states_conversion(_literal(1, "GB"), _literal(1024, "MB"))
    # A count written on one side only is soft: seconds against GPU-hours compare.
    assert not states_conversion(_literal(4.19e8, "s"), _literal(116_400, "GPU-hours"))


def test_a_written_times_two_converts_macs_only_when_the_right_side_is_in_flops() -> None:
    assert converts_macs(tokenize("4.1 GMACs × 2"), tokenize("8.2 GFLOPs"))
    assert not converts_macs(tokenize("4.1 GMACs × 2"), tokenize("8.2 GMACs"))
    assert not converts_macs(tokenize("300M MACs"), tokenize("0.6 GFLOPs"))


def test_hints_are_the_written_units_and_the_bare_numbers_of_the_left_side() -> None:
    tokens = tokenize("2.46e6 s / 86,400 = 28.5 days")
    hints = claim_hints(tokens, 4, 0, len(tokens))
    assert hints.bare == (86_400.0,)
    assert [unit.unit for unit in hints.units] == ["s", "days"]
