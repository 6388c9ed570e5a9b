"""Quantities as people type and read them: one reader and one formatter for all of sysdrill.

The claim checker, every calculator option and numeric answer grading read
quantities here (``50GB/s``, ``400 Gbps``, ``5us``, ``7B``, ``40%``,
``$2/GPU-hour``, ``~128 KiB``, ``2^30 B``), through the napkin expression
evaluator and the compiled unit table, so a spelling one of them reads the
others read too. Values are shown by one formatter, which picks a readable unit
for a dimension (``3.5 ms``, ``1.75 GB``, ``7B params``, ``$2.50/GPU-hour``).
"""

from __future__ import annotations

import math
from functools import cache

from sysdrill.errors import ExpressionSyntax, UnitMismatch
from sysdrill.napkin.expression import evaluate, parse_unit
from sysdrill.napkin.lexer import Kind, normalize, tokenize
from sysdrill.napkin.results import CalcResult
from sysdrill.napkin.units import (
    COUNT_DIMENSIONS,
    Dims,
    format_dims,
    is_unit_spelling,
    resolve_unit,
)
from sysdrill.napkin.values import FUNCTIONS, Value

__all__ = [
    "calc_expression",
    "format_number",
    "format_quantity",
    "format_value",
    "is_plain",
    "read_in_unit",
    "read_quantity",
]

_APPROXIMATE = "~≈≃∼"
"""Marks of an estimate (``~128 KiB``); a quantity read alone drops them."""

_WORDS = frozenset({"pi", "π", "of"})
"""Names in a quantity that are not units (``45% of 312 TFLOP/s``)."""


def read_quantity(text: str) -> Value:
    """Read one quantity or expression, such as ``"50GB/s"``, ``"~128 KiB"`` or ``"7B"``.

    Args:
        text: What was typed; the napkin checker's notation (units, ``%``, ``$``,
            ``K``/``M``/``B``/``T`` suffixes, powers, LaTeX) is accepted.

    Returns:
        The value: magnitude in base units (bytes, seconds, FLOP, dollars...) and
        its dimension vector.

    Raises:
        ExpressionSyntax: ``text`` is not a quantity, or names a unit we do not know.
        UnitMismatch: it adds quantities of different dimensions.
    """
    stripped = text.strip().lstrip(_APPROXIMATE).strip()
    tokens = tokenize(normalize(stripped))
    numbered = any(token.kind is Kind.NUM for token in tokens)
    # The evaluator reads "5 zorks" as five things counted; an input wants a unit.
    unknown = [
        token.text
        for token in tokens
        if numbered
        and token.kind is Kind.NAME
        and not is_unit_spelling(token.text)
        and token.text not in FUNCTIONS
        and token.text not in _WORDS
    ]
    if unknown:
        raise ExpressionSyntax(f"unknown unit {unknown[0]!r} in {text.strip()!r}")
    try:
        return evaluate(stripped)
    except ExpressionSyntax as exc:
        head, _, unit = stripped.rpartition(" ")
        if "exponent with units" not in str(exc) or not head or not is_unit_spelling(unit):
            raise
    # "2^30 B": the checker binds the unit to the exponent; a lone quantity means (2^30) B.
    return evaluate(f"({head}) {unit}")


def is_plain(text: str) -> bool:
    """Whether ``text`` is written without any unit, percent or currency sign (``"7B"``)."""
    return not any(
        token.kind in (Kind.PCT, Kind.DOLLAR)
        or token.unit
        or (token.kind is Kind.NAME and is_unit_spelling(token.text))
        for token in tokenize(normalize(text))
    )


def read_in_unit(text: str, *, unit: str, plain_in_unit: bool = False) -> float:
    """Read ``text`` as a number of ``unit`` (``"3600 us"`` in ``"ms"`` is 3.6).

    Args:
        text: What was typed.
        unit: The unit wanted, in our notation (``"byte / s"``, ``"ms"``, ``"%"``).
        plain_in_unit: Read a number written without a unit (``"7B"``) in ``unit``;
            otherwise a plain number is accepted only when ``unit`` is a pure number.

    Returns:
        The number of ``unit`` that ``text`` is.

    Raises:
        ExpressionSyntax: ``text`` is not a quantity, or ``unit`` is not a unit.
        UnitMismatch: ``text`` has another dimension than ``unit``.
    """
    unit_scale, unit_dims = parse_unit(unit) if unit.strip() else (1.0, ())
    value = read_quantity(text)
    if plain_in_unit and not value.dims and is_plain(text):
        return value.v
    if value.dims != unit_dims:
        given = f"{text.strip()!r} is {_kind(value.dims)}"
        raise UnitMismatch(f"{given}; the answer is {_wanted(unit, unit_dims)}")
    in_unit = value.v / unit_scale
    if not math.isfinite(in_unit):  # 1e308 s in ms: finite in seconds, not in the unit
        raise ExpressionSyntax(f"{text.strip()!r} is too large to express in {unit.strip()}")
    return in_unit


_KINDS: dict[Dims, str] = {
    (("time", 1),): "a time",
    (("information", 1),): "a size",
    (("information", 1), ("time", -1)): "a bandwidth",
    (("flop", 1),): "an amount of compute",
    (("flop", 1), ("time", -1)): "a compute rate",
    (("currency", 1),): "an amount of money",
}
"""What people call the common dimensions, for a learner's answer in the wrong one."""


def _kind(dims: Dims) -> str:
    """``a time``, ``a size``...; else the dimension's symbols (``in B/param``)."""
    if not dims:
        return "a pure number"
    return _KINDS.get(tuple(sorted(dims)), f"in {format_dims(dims)}")


def _wanted(unit: str, dims: Dims) -> str:
    """``a size, in KiB``: what the expected unit (of dimension ``dims``) measures, and the unit."""
    if not unit.strip():
        return "a pure number"
    kind = _kind(dims)
    return f"in {unit.strip()}" if kind.startswith("in ") else f"{kind}, in {unit.strip()}"


def format_number(number: float, *, digits: int = 4) -> str:
    """Format a number with up to ``digits`` significant digits, for people.

    Integers below 10^15 keep all their digits and get thousands separators;
    very large or small numbers use ``e`` notation (``5.88e22``).
    """
    if number == 0 or not math.isfinite(number):
        return "0" if number == 0 else str(number)
    magnitude = abs(number)
    if magnitude >= 1e15 or magnitude < 1e-4:
        return _scientific(number, digits)
    if number == round(number) and magnitude >= 10 ** (digits - 1):
        return f"{round(number):,}"
    text = f"{number:.{digits}g}"
    if "e" in text:
        return f"{number:,.0f}"
    # Rounding can carry into the thousands (999.95 shows as 1000): judge by the text.
    if "." not in text and abs(int(text)) >= 1000:
        return f"{int(text):,}"
    return text


def _scientific(number: float, digits: int) -> str:
    mantissa, _, exponent = f"{number:.{digits - 1}e}".partition("e")
    mantissa = mantissa.rstrip("0").rstrip(".") if "." in mantissa else mantissa
    return f"{mantissa}e{int(exponent)}"


_SI_PREFIXES = ("", "K", "M", "G", "T", "P", "E")
"""Decimal prefixes, as the unit table spells them (``KB`` is 1000 bytes)."""

_PREFIXED = {"information": "B", "flop": "FLOP"}
"""Dimensions shown with a decimal prefix, and their symbols."""

_PER = {
    "time": "s",
    "information": "B",
    "param": "param",
    "token": "token",
    "sample": "sample",
    "gpu": "GPU",
    "request": "req",
    "node": "node",
}
"""Symbols of a dimension after ``/`` (singular: ``B/param``, ``FLOP/token``)."""

_COUNTS = {"param": "params", "token": "tokens", "sample": "samples"}
"""Counted things shown with ``K``/``M``/``B``/``T`` suffixes (``7B params``)."""

_COUNT_SUFFIXES = ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K"))

_LONG_TIMES = ("years", "days", "hours", "min")
"""Units for long times, each used from two of it on (``90 s``, ``2 hours``, ``3 days``)."""

_SHORT_TIMES = ("s", "ms", "µs", "ns")

_NAMED_FAMILIES = (
    ("GW", "MW", "kW", "W", "mW", "µW"),
    ("GWh", "MWh", "kWh", "kJ", "J", "mJ", "µJ", "pJ"),
    ("GHz", "MHz", "kHz", "Hz"),
)
"""Units with their own names (power, energy, frequency), largest first."""

_MONEY = (("currency", 1),)
_PRICE_PER_GPU_HOUR = (("currency", 1), ("gpu", -1), ("time", -1))
_GPU_TIME = (("gpu", 1), ("time", 1))
_FLOP_PER_BYTE = (("flop", 1), ("information", -1))
_SECONDS_PER_HOUR = 3600.0


@cache
def _named_families() -> dict[Dims, tuple[tuple[str, float], ...]]:
    """Power, energy and frequency units by dimension, as (spelling, scale), largest first."""
    families: dict[Dims, tuple[tuple[str, float], ...]] = {}
    for spellings in _NAMED_FAMILIES:
        entries = tuple((name, resolve_unit(name).scale) for name in spellings)
        families[resolve_unit(spellings[0]).dims] = entries
    return families


def _pick(magnitude: float, family: tuple[tuple[str, float], ...]) -> tuple[str, float]:
    """The largest unit of which ``magnitude`` is at least about one (or the smallest)."""
    for spelling, scale in family:
        if magnitude >= scale * 0.9999:
            return spelling, scale
    return family[-1]


def _shown(number: float, unit: str, digits: int) -> tuple[float, str, str]:
    return number, unit, f"{format_number(number, digits=digits)} {unit}"


def format_quantity(v: float, dims: Dims, *, digits: int = 4) -> tuple[float, str, str]:
    """Choose a readable unit for a quantity and format it.

    Times up to two minutes use s/ms/µs/ns, then min, hours, days and years;
    bytes, FLOP and their rates take a decimal prefix (``1.75 GB``, ``312 TFLOP/s``)
    except FLOP counts from 10^15 up (``5.88e23 FLOP``); params, tokens and
    samples use K/M/B/T (``7B params``); dollars are ``$1,280`` or ``$2.5``;
    prices per GPU-hour keep cents (``$2.50/GPU-hour``).

    Args:
        v: Magnitude in base units (bytes, seconds, FLOP, dollars...).
        dims: Dimension vector.
        digits: Significant digits.

    Returns:
        ``(magnitude, unit, display)`` such as ``(3.5, "ms", "3.5 ms")``; the
        magnitude is in ``unit``, and the display parses back to the value.
    """
    magnitude = abs(v)
    if not dims or not math.isfinite(v):
        unit = format_dims(dims) if dims else ""
        return v, unit, f"{format_number(v, digits=digits)} {unit}".strip()
    if dims == _MONEY:
        text = f"{v:,.0f}" if magnitude >= 1000 else format_number(v, digits=digits)
        return v, "$", f"${text}"
    if dims == _PRICE_PER_GPU_HOUR:
        hourly = v * _SECONDS_PER_HOUR
        return hourly, "$/GPU-hour", f"${hourly:,.2f}/GPU-hour"
    if dims == _GPU_TIME:
        return _shown(v / _SECONDS_PER_HOUR, "GPU-hours", digits)
    if dims == _FLOP_PER_BYTE:
        return _shown(v, "FLOP/B", digits)
    if dims == (("time", 1),):
        return _time(v, digits)
    counted = _counted(dims)
    if counted is not None:
        return _count(v, counted, digits)
    family = _named_families().get(dims)
    if family is not None:
        spelling, scale = _pick(magnitude, family)
        return _shown(v / scale, spelling, digits)
    prefixed = _prefixed_unit(dims)
    if prefixed is not None:
        symbol, per = prefixed
        if symbol == "FLOP" and not per and magnitude >= 1e15:
            return v, "FLOP", f"{_scientific(v, digits)} FLOP"
        exponent = 0
        while exponent + 1 < len(_SI_PREFIXES) and magnitude >= 1000 ** (exponent + 1) * 0.9999:
            exponent += 1
        return _shown(v / 1000**exponent, f"{_SI_PREFIXES[exponent]}{symbol}{per}", digits)
    unit = format_dims(dims)
    if all(key in COUNT_DIMENSIONS for key, _ in dims):
        unit = unit.replace("·", "×")
    return _shown(v, unit, digits)


def _time(seconds: float, digits: int) -> tuple[float, str, str]:
    magnitude = abs(seconds)
    for unit in _LONG_TIMES:
        size = resolve_unit(unit).scale
        if magnitude >= 2 * size:
            return _shown(seconds / size, unit, digits)
    if seconds == 0:
        return _shown(0.0, "s", digits)
    spelling, scale = _pick(magnitude, tuple((t, resolve_unit(t).scale) for t in _SHORT_TIMES))
    return _shown(seconds / scale, spelling, digits)


def _counted(dims: Dims) -> str | None:
    """The plural name when ``dims`` is a count of params/tokens/samples, or one per second."""
    if len(dims) == 1 and dims[0][0] in _COUNTS and dims[0][1] == 1:
        return _COUNTS[dims[0][0]]
    if len(dims) == 2 and ("time", -1) in dims:
        (name, exp) = next(d for d in dims if d[0] != "time")
        if name in _COUNTS and exp == 1:
            return f"{_COUNTS[name]}/s"
    return None


def _count(v: float, unit: str, digits: int) -> tuple[float, str, str]:
    for scale, suffix in _COUNT_SUFFIXES:
        if abs(v) >= scale:
            return v, unit, f"{format_number(v / scale, digits=digits)}{suffix} {unit}"
    return _shown(v, unit, digits)


def _prefixed_unit(dims: Dims) -> tuple[str, str] | None:
    """``("B", "/s")`` when ``dims`` is bytes or FLOP per things (``B/s``, ``FLOP/token``)."""
    top = [key for key, exp in dims if exp > 0]
    if len(top) != 1 or dict(dims)[top[0]] != 1 or top[0] not in _PREFIXED:
        return None
    below = [key for key, exp in dims if exp < 0]
    if any(dict(dims)[key] != -1 or key not in _PER for key in below):
        return None
    return _PREFIXED[top[0]], "".join(f"/{_PER[key]}" for key in below)


def format_value(value: Value) -> tuple[float, str, str]:
    """Format a napkin value with :func:`format_quantity`."""
    return format_quantity(value.v, value.dims)


def calc_expression(text: str, *, to_unit: str | None = None) -> CalcResult:
    """Evaluate an expression with units and express it in a sensible unit.

    Args:
        text: The expression, e.g. ``"2*(8-1)/8 * 100 MB / (50 GB/s)"``.
        to_unit: Unit to express the result in (e.g. ``"us"``); a sensible unit
            is chosen when None.

    Returns:
        The value, its unit, and a display string such as ``"3.5 ms"``.

    Raises:
        ExpressionSyntax: The text is not an expression, or uses unknown names.
        UnitMismatch: Dimensions do not agree (in a sum, or with ``to_unit``).
    """
    value = evaluate(text)
    if to_unit is None:
        magnitude, unit, display = format_value(value)
        return CalcResult(magnitude, unit, display)
    scale, dims = parse_unit(to_unit)
    if dims != value.dims:
        have = format_dims(value.dims) if value.dims else "a pure number"
        raise UnitMismatch(f"cannot express {have} in {to_unit}; choose a unit of the same kind")
    magnitude = value.v / scale
    unit = to_unit.strip()
    return CalcResult(magnitude, unit, f"{format_number(magnitude)} {unit}".strip())
