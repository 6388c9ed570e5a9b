"""Describing a calculator for front ends: its inputs, how to read them, and its outputs.

The ``sysdrill calc NAME`` subcommands (and any other front end) are built from
these descriptions, so a calculator's options, help and output format are
written once, here in the library, and the CLI only parses and prints.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from sysdrill.errors import HardwareNotFound, UsageError
from sysdrill.napkin.calculators._quantity import Percent, describe
from sysdrill.napkin.calculators.inputs import parse_count, parse_number, parse_quantity
from sysdrill.napkin.units import get_registry

__all__ = [
    "Calculator",
    "CalculatorResult",
    "Fill",
    "GPU_FILLS",
    "Kind",
    "Param",
    "result_fields",
]


class Kind(Enum):
    """How an input's text is read."""

    QUANTITY = "quantity"
    """A number with a unit, converted to :attr:`Param.unit`."""
    COUNT = "count"
    """A whole number (``8``, ``16K``)."""
    NUMBER = "number"
    """A plain number or percentage (``0.4``, ``40%``)."""
    CHOICE = "choice"
    """One of :attr:`Param.choices` (an Enum's values)."""
    FLAG = "flag"
    """A yes/no switch."""


class Fill(Enum):
    """Catalogue figures that ``--gpu`` or ``--link`` can supply for an input."""

    PEAK_FLOPS = "peak-flops"
    MEMORY_BANDWIDTH = "memory-bandwidth"
    MEMORY_CAPACITY = "memory-capacity"
    LINK_BANDWIDTH = "link-bandwidth"
    LINK_LATENCY = "link-latency"
    GPU_LINK_BANDWIDTH = "gpu-link-bandwidth"
    """Bandwidth of the ``--gpu``'s own interconnect (NVLink inside a node)."""
    GPU_LINK_LATENCY = "gpu-link-latency"
    """Latency of the ``--gpu``'s own interconnect."""


GPU_FILLS = frozenset(
    {
        Fill.PEAK_FLOPS,
        Fill.MEMORY_BANDWIDTH,
        Fill.MEMORY_CAPACITY,
        Fill.GPU_LINK_BANDWIDTH,
        Fill.GPU_LINK_LATENCY,
    }
)
"""The figures ``--gpu NAME`` supplies."""


@dataclass(frozen=True)
class Param:
    """One calculator input.

    Attributes:
        name: Keyword argument name (``message``); the option is ``--message``.
        kind: How the text is read.
        help: One line for ``--help``, naming the unit.
        unit: For quantities, the unit the calculator works in (pint syntax).
        bare_unit: For quantities, the unit a bare number gets (None: a unit is required).
        default: Text used when the option is absent (read like user input); None: required.
        choices: For choices, the Enum whose values are accepted.
        fill: A catalogue figure that ``--gpu``/``--link`` can supply instead.
        optional: The calculator accepts None for this input.
        percent: For numbers, a fraction shown back as a percentage (``40%``).
    """

    name: str
    kind: Kind
    help: str
    unit: str = ""
    bare_unit: str | None = None
    default: str | None = None
    choices: type[Enum] | None = None
    fill: Fill | None = None
    optional: bool = False
    percent: bool = False

    @property
    def option(self) -> str:
        """The command-line option, ``--micro-batch`` for ``micro_batch``."""
        return "--" + self.name.replace("_", "-")

    def parse(self, text: str) -> Any:
        """Read ``text`` as this input's value.

        Raises:
            ExpressionSyntax: the text is not a value of this kind.
            UnitMismatch: a quantity's unit does not convert to :attr:`unit`.
            UsageError: a choice that is not one of :attr:`choices`.
        """
        if self.kind is Kind.QUANTITY:
            return parse_quantity(
                text, unit=self.unit, name=self.option, default_unit=self.bare_unit
            )
        if self.kind is Kind.COUNT:
            return parse_count(text, name=self.option)
        if self.kind is Kind.NUMBER:
            number = parse_number(text, name=self.option)
            return Percent(number) if self.percent else number
        if self.kind is Kind.CHOICE:
            assert self.choices is not None
            try:
                return self.choices(text.strip().lower())
            except UsageError as exc:  # the choice itself is ambiguous ("fp8")
                raise UsageError(f"{self.option}: {exc}") from None
            except ValueError:
                allowed = ", ".join(str(c.value) for c in self.choices)
                raise UsageError(f"{self.option}: {text!r} is not one of {allowed}") from None
        return text.strip().lower() in ("1", "true", "yes", "on")


@dataclass(frozen=True)
class CalculatorResult:
    """Outputs of one calculator run, in display order.

    Attributes:
        calculator: The calculator's name.
        inputs: ``(name, value)`` pairs of the inputs used, including defaults and
            figures taken from the hardware catalogue.
        outputs: ``(name, value)`` pairs; values are quantities, numbers, booleans or text.
    """

    calculator: str
    inputs: tuple[tuple[str, Any], ...]
    outputs: tuple[tuple[str, Any], ...]

    def rows(self) -> list[tuple[str, str]]:
        """Return output ``(label, text)`` pairs for people (``("time", "3.5 ms")``).

        Outputs the inputs did not ask for (None, such as a time without a bandwidth)
        are left out; JSON keeps them as null.
        """
        return _rows(tuple((name, value) for name, value in self.outputs if value is not None))

    def input_rows(self) -> list[tuple[str, str]]:
        """Return input ``(label, text)`` pairs for people, skipping absent optional inputs."""
        return _rows(tuple((name, value) for name, value in self.inputs if value is not None))

    def to_json(self) -> dict[str, Any]:
        """Return a JSON-ready dict; quantities become ``{"value": ..., "unit": ...}``.

        Values are in the calculator's working unit, named by pint's long names
        (``"byte / second"``).

        Infinite or undefined numbers become None (JSON has no infinity).
        """
        return {
            "calculator": self.calculator,
            "inputs": _json_values(self.inputs),
            "outputs": _json_values(self.outputs),
        }


def _rows(pairs: tuple[tuple[str, Any], ...]) -> list[tuple[str, str]]:
    return [(name.replace("_", " "), describe(value)) for name, value in pairs]


def _json_values(pairs: tuple[tuple[str, Any], ...]) -> dict[str, Any]:
    registry = get_registry()
    data: dict[str, Any] = {}
    for name, value in pairs:
        if isinstance(value, registry.Quantity):
            data[name] = {
                "value": _finite(float(value.magnitude)),
                "unit": str(value.units),
            }
        elif isinstance(value, Enum):
            data[name] = value.value
        elif isinstance(value, float):
            data[name] = _finite(float(value))
        else:
            data[name] = value
    return data


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


Runner = Callable[[dict[str, Any]], Any]


@dataclass(frozen=True)
class Calculator:
    """A calculator as front ends see it.

    Attributes:
        name: Subcommand name (``ring-allreduce``).
        family: Module family (``collectives``).
        summary: One line: what it computes.
        formula: The formula, in plain text.
        source: Where the formula is published.
        params: Its inputs, in option order.
        run: Called with the parsed inputs by keyword name; returns a dataclass,
            a mapping of outputs, or a single value.
        output_name: Name of the single output when ``run`` returns one value.
        example: Shell-quoted arguments of a worked example (used in docs and tests).
    """

    name: str
    family: str
    summary: str
    formula: str
    source: str
    params: tuple[Param, ...]
    run: Runner
    output_name: str = "result"
    example: str = ""

    @property
    def fills(self) -> frozenset[Fill]:
        """The catalogue figures this calculator can take from ``--gpu``/``--link``."""
        return frozenset(p.fill for p in self.params if p.fill is not None)

    def resolve(
        self,
        raw: Mapping[str, str | None],
        *,
        gpu: str | None = None,
        precision: str = "bf16",
        link: str | None = None,
    ) -> dict[str, Any]:
        """Read every input: typed text first, then ``--gpu``/``--link`` figures, then defaults.

        Args:
            raw: Option text by input name (None when absent).
            gpu: Accelerator whose peak and memory bandwidth fill inputs left empty.
            precision: Precision of the accelerator peak to use (``bf16``, ``fp8``...).
            link: Interconnect whose bandwidth and latency fill inputs left empty.

        Raises:
            UsageError: a required input has no value.
            ExpressionSyntax, UnitMismatch: an input cannot be read.
            HardwareNotFound: ``gpu`` or ``link`` is not in the catalogue.
        """
        from sysdrill.napkin import hardware

        accelerator = hardware.get_accelerator(gpu) if gpu else None
        interconnect = hardware.get_interconnect(link) if link else None
        values: dict[str, Any] = {}
        for param in self.params:
            text = raw.get(param.name)
            value: Any = None
            if text is not None:
                value = param.parse(text)
            elif param.fill is not None:
                value = _fill(param.fill, accelerator, interconnect, precision)
                value = None if value is None else value.to(param.unit)
            if value is None and text is None and param.default is not None:
                value = param.parse(param.default)
            values[param.name] = value
            if value is None and not param.optional:
                raise UsageError(f"{self.name} needs {param.option}{_fill_hint(param)}")
        return values

    def compute(self, values: dict[str, Any]) -> CalculatorResult:
        """Run the calculator on resolved inputs.

        Raises:
            SysdrillError: the calculator rejects the inputs (its message names the fix).
        """
        result = self.run(values)
        if dataclasses.is_dataclass(result) and not isinstance(result, type):
            outputs = result_fields(result)
        elif isinstance(result, Mapping):
            outputs = tuple(result.items())
        else:
            outputs = ((self.output_name, result),)
        return CalculatorResult(calculator=self.name, inputs=tuple(values.items()), outputs=outputs)


def _fill(fill: Fill, accelerator: Any, interconnect: Any, precision: str) -> Any:
    if fill is Fill.PEAK_FLOPS and accelerator is not None:
        from sysdrill.napkin.calculators.dtypes import DType
        from sysdrill.napkin.hardware import Precision

        known = [p.value for p in Precision]
        try:
            precision = DType(precision).value
        except ValueError:
            pass
        if precision not in known:
            raise UsageError(f"--dtype: {precision!r} is not one of {', '.join(known)}")
        try:
            return accelerator.peak_flops(precision)
        except HardwareNotFound as exc:
            raise HardwareNotFound(f"{exc}; choose one with --dtype") from exc
    if fill is Fill.MEMORY_BANDWIDTH and accelerator is not None:
        return accelerator.memory_bandwidth()
    if fill is Fill.MEMORY_CAPACITY and accelerator is not None:
        return accelerator.memory_capacity()
    if fill in (Fill.GPU_LINK_BANDWIDTH, Fill.GPU_LINK_LATENCY) and accelerator is not None:
        from sysdrill.napkin.hardware import get_interconnect

        if accelerator.interconnect is None:
            return None
        own = get_interconnect(accelerator.interconnect)
        return own.bandwidth() if fill is Fill.GPU_LINK_BANDWIDTH else own.latency()
    if fill is Fill.LINK_BANDWIDTH and interconnect is not None:
        return interconnect.bandwidth()
    if fill is Fill.LINK_LATENCY and interconnect is not None:
        return interconnect.latency()
    return None


def _fill_hint(param: Param) -> str:
    if param.fill in GPU_FILLS:
        return " (or --gpu NAME)"
    if param.fill in (Fill.LINK_BANDWIDTH, Fill.LINK_LATENCY):
        return " (or --link NAME)"
    return ""


def result_fields(result: Any) -> tuple[tuple[str, Any], ...]:
    """Flatten a result dataclass to ``(name, value)`` pairs; enums become their values.

    Nested dataclasses are flattened with their field name as a prefix (``scaled_stored``).
    """
    pairs: list[tuple[str, Any]] = []
    for item in dataclasses.fields(result):
        value = getattr(result, item.name)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            pairs.extend((f"{item.name}_{name}", inner) for name, inner in result_fields(value))
        elif isinstance(value, Enum):
            pairs.append((item.name, value.value))
        else:
            pairs.append((item.name, value))
    return tuple(pairs)
