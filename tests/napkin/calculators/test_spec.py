"""Calculator descriptions: reading inputs, catalogue fills, and result rendering."""

from __future__ import annotations

import json
import math

import pytest

from sysdrill.errors import HardwareNotFound, UnitMismatch, UsageError
from sysdrill.napkin.calculators.registry import get_calculator
from sysdrill.napkin.calculators.spec import Calculator, CalculatorResult, Kind, Param
from sysdrill.napkin.units import get_registry

Q = get_registry().Quantity


def calculator(name: str) -> Calculator:
    calc = get_calculator(name)
    assert calc is not None
    return calc


def test_catalogue_fills_empty_inputs_and_explicit_values_win() -> None:
    roofline = calculator("roofline")
    filled = roofline.resolve({"intensity": "10"}, gpu="h100-sxm")
    assert filled["peak_flops"].to("TFLOP/s").magnitude == pytest.approx(989.5)
    assert filled["bandwidth"].to("TB/s").magnitude == pytest.approx(3.35)
    explicit = roofline.resolve({"intensity": "10", "bandwidth": "1TB/s"}, gpu="h100-sxm")
    assert explicit["bandwidth"].to("TB/s").magnitude == pytest.approx(1)


def test_precision_picks_the_catalogue_peak() -> None:
    values = calculator("ridge-point").resolve({}, gpu="h100-sxm", precision="fp8")
    assert values["peak_flops"].to("TFLOP/s").magnitude == pytest.approx(1979)


def test_link_fills_bandwidth_and_latency() -> None:
    values = calculator("all-gather").resolve({"ranks": "8", "message": "1GB"}, link="ndr")
    assert values["bandwidth"].to("GB/s").magnitude == pytest.approx(50)
    assert values["latency"].to("us").magnitude == pytest.approx(2.7)


def test_missing_input_names_the_option_and_the_catalogue_alternative() -> None:
    with pytest.raises(UsageError) as info:
        calculator("roofline").resolve({"intensity": "10"})
    assert str(info.value) == "roofline needs --peak-flops (or --gpu NAME)"
    with pytest.raises(UsageError) as info:
        calculator("kv-cache").resolve({})
    assert str(info.value) == "kv-cache needs --layers"


def test_unknown_hardware_and_wrong_kind() -> None:
    with pytest.raises(HardwareNotFound, match="no hardware named 'toaster'"):
        calculator("roofline").resolve({"intensity": "1"}, gpu="toaster")
    with pytest.raises(HardwareNotFound, match="is an accelerator, not an interconnect"):
        calculator("all-gather").resolve({"ranks": "8", "message": "1GB"}, link="h100")


def test_defaults_are_read_like_user_input() -> None:
    values = calculator("ring-allreduce").resolve(
        {"ranks": "4", "message": "1MB", "bandwidth": "1GB/s"}
    )
    assert values["latency"].magnitude == 0
    flags = calculator("activation-memory").resolve(
        {"sequence_length": "8", "hidden_size": "8", "heads": "2", "sequence_parallel": "true"}
    )
    assert flags["sequence_parallel"] is True
    assert flags["recompute"].value == "none"


def test_input_errors_carry_the_option_name() -> None:
    with pytest.raises(UnitMismatch, match="^--message: "):
        calculator("ring-allreduce").resolve({"ranks": "4", "message": "1 s", "bandwidth": "1GB/s"})
    with pytest.raises(UsageError, match="^--schedule: 'zigzag' is not one of gpipe, 1f1b"):
        calculator("pipeline-bubble").resolve(
            {"stages": "4", "micro_batches": "8", "schedule": "zigzag"}
        )


def test_result_json_replaces_infinity_with_null() -> None:
    result = CalculatorResult(
        calculator="x",
        inputs=(("n", 3),),
        outputs=(("ratio", math.inf), ("size", Q(math.inf, "byte")), ("kind", "memory-bound")),
    )
    payload = result.to_json()
    assert payload["outputs"] == {
        "ratio": None,
        "size": {"value": None, "unit": "byte"},
        "kind": "memory-bound",
    }
    json.dumps(payload, allow_nan=False)


def test_single_value_runner_uses_the_output_name() -> None:
    calc = Calculator(
        name="double",
        family="scaling",
        summary="Twice a number.",
        formula="2x",
        source="arithmetic",
        params=(Param("x", Kind.NUMBER, "A number."),),
        run=lambda v: 2 * v["x"],
        output_name="twice",
    )
    result = calc.compute(calc.resolve({"x": "21"}))
    assert result.outputs == (("twice", 42.0),)
    assert result.rows() == [("twice", "42")]
    assert result.input_rows() == [("x", "21")]


def test_default_applies_when_the_catalogue_entry_lacks_the_figure() -> None:
    # A --link fills latency; without one the default (0 s) still applies.
    values = calculator("ring-allreduce").resolve(
        {"ranks": "4", "message": "1MB", "bandwidth": "1GB/s"}, gpu="h100"
    )
    assert values["latency"].magnitude == 0
