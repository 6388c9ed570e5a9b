"""One unit system: every spelling the checker reads, calculators and grading read too."""

from __future__ import annotations

import math

import pytest

from sysdrill.napkin import grade_numeric_answer
from sysdrill.napkin.calculators.registry import CALCULATORS
from sysdrill.napkin.calculators.spec import Kind, Param
from sysdrill.napkin.expression import parse_unit
from sysdrill.napkin.units import Dims, from_pint, get_registry, resolve_unit, unit_spellings


def _quantity_options() -> dict[Dims, list[tuple[str, Param]]]:
    options: dict[Dims, list[tuple[str, Param]]] = {}
    for calc in CALCULATORS:
        for param in calc.params:
            if param.kind is Kind.QUANTITY:
                options.setdefault(parse_unit(param.unit)[1], []).append((calc.name, param))
    return options


OPTIONS = _quantity_options()


def _typed(spelling: str) -> str:
    """Three of a unit, as a person types it (spaced: a glued ``3B`` is three billion)."""
    return "$3" if spelling == "$" else f"3 {spelling}"


@pytest.mark.parametrize("spelling", unit_spellings())
def test_every_calculator_option_of_the_same_dimension_reads_the_spelling(spelling: str) -> None:
    spec = resolve_unit(spelling)
    for calc_name, param in OPTIONS.get(spec.dims, []):
        value, dims = from_pint(param.parse(_typed(spelling)))
        assert dims == spec.dims, (calc_name, param.option)
        assert math.isclose(value, 3 * spec.scale), (calc_name, param.option, value)


@pytest.mark.parametrize("spelling", unit_spellings())
def test_numeric_answer_grading_reads_the_spelling(spelling: str) -> None:
    base_unit = {"$": "USD"}.get(spelling, spelling)
    grade = grade_numeric_answer(
        _typed(spelling), expected_value=3, expected_unit=base_unit, tolerance=1e-9
    )
    assert grade.correct, grade.message
    assert grade.given_value == pytest.approx(3)


def test_the_main_dimensions_have_calculator_options() -> None:
    covered = {
        dims
        for dims in OPTIONS
        if dims
        in (
            (("information", 1),),
            (("information", 1), ("time", -1)),
            (("time", 1),),
            (("flop", 1),),
            (("flop", 1), ("time", -1)),
            (("currency", 1), ("gpu", -1), ("time", -1)),
            (("param", 1),),
            (("token", 1),),
        )
    }
    assert len(covered) == 8
    spellings_with_an_option = [s for s in unit_spellings() if resolve_unit(s).dims in OPTIONS]
    # 263 of the 378 spellings have a calculator option of their dimension (GPU-hours
    # named by GPU, such as A100-hours, count as GPU-hours); the rest are watts,
    # joules, hertz, volts, charge, capacitance, requests, nodes and plain dollars.
    assert len(spellings_with_an_option) == 263


@pytest.mark.parametrize("unit", sorted({p.unit for opts in OPTIONS.values() for _, p in opts}))
def test_calculator_units_mean_the_same_to_pint_and_to_our_table(unit: str) -> None:
    # Values cross into pint in the option's unit: both readings must agree.
    scale, dims = parse_unit(unit)
    pint_scale, pint_dims = from_pint(get_registry().Quantity(1, unit))
    assert dims == pint_dims
    assert math.isclose(scale, pint_scale)
