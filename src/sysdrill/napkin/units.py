"""Units: the pint registry with our definitions, and the compiled form the checker uses.

pint is imported lazily: building the registry takes about half a second, and most
commands never need it.

Conventions (see docs/napkin.md):

* ``KB``, ``MB``, ``GB``, ``TB``, ``PB`` are decimal (10^3, 10^6, 10^9 ... bytes);
  ``KiB``, ``MiB``, ``GiB``, ``TiB``, ``PiB`` are binary (2^10, 2^20, 2^30 ... bytes).
* ``b``-spellings are bits: ``Gb`` is 10^9 bits, ``Gbps`` is 10^9 bits per second;
  ``GB/s`` is 10^9 bytes per second. Information is its own dimension here (pint
  itself treats bits as dimensionless), measured in bytes.
* ``FLOP`` and ``FLOPs`` count operations; ``FLOPS`` (capital S) and ``TFLOP/s`` are
  rates. ``MAC`` is 2 FLOP; ``TOPS`` is 10^12 operations per second.
* A bare ``B`` after a number is *billion* (``70B params``), never bytes; ``K``,
  ``M``, ``T`` likewise are thousand, million, trillion.

The compiled form maps a unit spelling to a float scale (in our base units: byte,
second, FLOP, dollar, kg, m, A, K and the counting units) and a dimension vector,
computed once per spelling through pint and cached, so that claims are evaluated
with float arithmetic instead of pint Quantities.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

__all__ = [
    "COUNT_DIMENSIONS",
    "Dims",
    "UnitSpec",
    "dims_div",
    "dims_mul",
    "dims_pow",
    "format_dims",
    "from_pint",
    "get_registry",
    "has_binary_prefix",
    "is_unit_spelling",
    "UNIT_TABLE_PATH",
    "compile_unit",
    "resolve_unit",
    "unit_spellings",
    "write_unit_table",
]

_DEFINITIONS = """
FLOP = [flop]
FLOPs = FLOP
MAC = 2 * FLOP
param = [param] = params
token = [token] = tokens
sample = [sample] = samples
GPU = [gpu] = GPUs
request = [request] = req = requests
node = [node] = nodes
USD = [currency] = dollar
"""
# No `$` alias: pint 0.26 refuses it (not a valid name), and "$" reaches pint only through
# our own spelling table below, which maps it to USD.

Dims = tuple[tuple[str, int], ...]
"""A dimension vector: sorted ``(dimension, exponent)`` pairs without zero exponents."""

COUNT_DIMENSIONS = frozenset({"flop", "param", "token", "sample", "gpu", "request", "node"})
"""Dimensions of counted things; napkin math often writes them on one side only."""

_SI = {"k": "kilo", "K": "kilo", "M": "mega", "G": "giga", "T": "tera", "P": "peta", "E": "exa"}
_BIN = {"Ki": "kibi", "Mi": "mebi", "Gi": "gibi", "Ti": "tebi", "Pi": "pebi", "Ei": "exbi"}
_SMALL = {"m": "milli", "u": "micro", "µ": "micro", "μ": "micro", "n": "nano", "p": "pico"}


def _spellings() -> dict[str, str]:
    """Spelling -> pint expression."""
    table: dict[str, str] = {}

    def add(names: str, expr: str) -> None:
        for name in names.split():
            table[name] = expr

    # A bare "B" after a spaced number is bytes ("36864 B"); glued ("70B") it is billion.
    add("B byte bytes Byte Bytes", "byte")
    add("bit bits", "bit")
    add("bps", "bit / second")
    for short, long in _SI.items():
        add(f"{short}B {short}Byte {short}Bytes", f"{long}byte")
        add(f"{short}b {short}bit {short}bits", f"{long}bit")
        add(f"{short}bps", f"{long}bit / second")
        add(f"{short}Bps", f"{long}byte / second")
        add(f"{short}FLOP {short}FLOPs {short}flop {short}flops", f"{long}FLOP")
        add(f"{short}FLOPS", f"{long}FLOP / second")
        add(f"{short}OPS", f"{long}FLOP / second")
        add(f"{short}MAC {short}MACs", f"{long}MAC")
        add(f"{short}Hz", f"{long}hertz")
        add(f"{short}W", f"{long}watt")
        add(f"{short}Wh", f"{long}watt * hour")
        add(f"{short}J", f"{long}joule")
    for short, long in _BIN.items():
        add(f"{short}B", f"{long}byte")
        add(f"{short}b {short}bit", f"{long}bit")
    for short, long in _SMALL.items():
        add(f"{short}W", f"{long}watt")
        add(f"{short}J", f"{long}joule")
        add(f"{short}s", f"{long}second")
        add(f"{short}Wh", f"{long}watt * hour")
    add("FLOP FLOPs flop flops", "FLOP")
    add("FLOPS", "FLOP / second")
    add("OPS", "FLOP / second")
    add("MAC MACs", "MAC")
    add("Hz", "hertz")
    add("W watt watts Watt Watts", "watt")
    add("kilowatt kilowatts", "kilowatt")
    add("megawatt megawatts Megawatt Megawatts", "megawatt")
    add("Wh", "watt * hour")
    add("J joule joules Joule Joules", "joule")
    add("mAh", "milliampere * hour")
    add("Ah", "ampere * hour")
    add("mA", "milliampere")
    add("mAs mA-s", "milliampere * second")
    add("mC", "millicoulomb")
    add("uC µC μC", "microcoulomb")
    add("mF", "millifarad")
    add("uF µF μF", "microfarad")
    add("nF", "nanofarad")
    add("pF", "picofarad")
    add("V volt volts", "volt")
    add("mV", "millivolt")
    add("s sec secs second seconds", "second")
    add("msec millisecond milliseconds", "millisecond")
    add("microsecond microseconds", "microsecond")
    add("nanosecond nanoseconds", "nanosecond")
    add("min mins minute minutes", "minute")
    add("h hr hrs hour hours", "hour")
    add("day days", "day")
    add("week weeks wk", "week")
    add("month months mo mos", "month")
    add("year years yr yrs", "year")
    add("°C degC", "kelvin")
    add("$ USD dollar dollars", "USD")
    add("param params parameter parameters", "param")
    add("token tokens tok", "token")
    add("sample samples", "sample")
    add("GPU GPUs gpu gpus", "GPU")
    add("request requests req reqs query queries", "request")
    add("QPS RPS", "request / second")
    add("node nodes", "node")
    gpus = ("H100", "H200", "A100", "V100", "B200", "T4", "L4", "A10G")
    spellings = (("GPU", "GPU"), ("gpu", "GPU"), ("node", "node"), *((g, "GPU") for g in gpus))
    for spelt, unit in spellings:
        add(f"{spelt}-hour {spelt}-hours {spelt}-hr {spelt}-hrs {spelt}-h", f"{unit} * hour")
        add(f"{spelt}-day {spelt}-days", f"{unit} * day")
    add("km", "kilometer")
    add("cm", "centimeter")
    add("mm", "millimeter")
    return table


_SPELLINGS = _spellings()


def unit_spellings() -> list[str]:
    """Every unit spelling the napkin parser knows, sorted."""
    return sorted(_SPELLINGS)


def is_unit_spelling(name: str) -> bool:
    """Whether ``name`` is a unit spelling the napkin parser knows (``"GB"``, ``"tokens"``)."""
    return name in _SPELLINGS


@dataclass(frozen=True, slots=True)
class UnitSpec:
    """A unit spelling compiled to float arithmetic.

    Attributes:
        scale: Size of one unit in base units (bytes, seconds, FLOP, dollars...).
        dims: Dimension vector.
        alt_scale: The scale with 1000- and 1024-based prefixes swapped (KB <-> KiB),
            used to detect prefix-ambiguous claims; equal to ``scale`` otherwise.
    """

    scale: float
    dims: Dims
    alt_scale: float


def _dims_from(mapping: dict[str, float], info: int) -> Dims:
    merged: dict[str, int] = {}
    for key, exp in mapping.items():
        name = key.strip("[]")
        merged[name] = merged.get(name, 0) + round(exp)
    if info:
        merged["information"] = merged.get("information", 0) + info
    return tuple(sorted((k, v) for k, v in merged.items() if v))


def has_binary_prefix(name: str) -> bool:
    """Whether a spelling uses a 1024-based prefix (``KiB``, ``Gib``)."""
    return len(name) == 3 and name[1] == "i" and name[:2] in _BIN


def _alt_spelling(name: str) -> str | None:
    """The same unit with its decimal/binary information prefix swapped, if any."""
    for short in ("K", "k", "M", "G", "T", "P", "E"):
        if name in (f"{short}B", f"{short}b"):
            return f"{short.upper()}i{name[-1]}"
    if len(name) == 3 and name[1] == "i" and name[:2] in _BIN:
        return f"{name[0]}{name[2]}"
    return None


def from_pint(quantity: Any) -> tuple[float, Dims]:
    """A pint quantity as our magnitude in base units and dimension vector.

    pint counts bits as dimensionless; here information is a dimension measured
    in bytes, so the power of ``bit`` in pint's base units becomes it.

    Args:
        quantity: A quantity of :func:`get_registry` (``50 GB/s``, ``2.5 USD/GPU/hour``).

    Returns:
        ``(magnitude, dims)``: ``(5e10, (("information", 1), ("time", -1)))``.
    """
    base = quantity.to_base_units()
    info = round(sum(power for name, power in base.unit_items() if name == "bit"))
    # pint's base is the bit; ours is the byte.
    return float(base.magnitude) / 8**info, _dims_from(dict(base.dimensionality), info)


@cache
def _compile(name: str) -> tuple[float, Dims]:
    scale, dims = from_pint(get_registry().Quantity(1, _SPELLINGS[name]))
    if name in ("°C", "degC"):
        scale = 1.0  # a temperature, not an offset: compare like with like
    return scale, dims


UNIT_TABLE_PATH = Path(__file__).with_name("unit_table.json")
"""The compiled unit table: spelling -> [scale, dims, alt_scale], generated from pint."""


@cache
def _table() -> dict[str, UnitSpec]:
    try:
        raw = json.loads(UNIT_TABLE_PATH.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {
        name: UnitSpec(scale, tuple((k, int(e)) for k, e in dims), alt)
        for name, (scale, dims, alt) in raw.items()
    }


def compile_unit(name: str) -> UnitSpec:
    """Compile a unit spelling through pint (slow: builds the registry on first use).

    Args:
        name: A spelling for which :func:`is_unit_spelling` is true.

    Returns:
        Its scale in base units, dimension vector and prefix-swapped scale.
    """
    scale, dims = _compile(name)
    alt = _alt_spelling(name)
    return UnitSpec(scale, dims, _compile(alt)[0] if alt is not None else scale)


def write_unit_table(path: Path = UNIT_TABLE_PATH) -> None:
    """Regenerate the compiled unit table from pint (run after editing the spellings)."""
    table = {name: compile_unit(name) for name in sorted(_SPELLINGS)}
    rows = [
        f"{json.dumps(name, ensure_ascii=False)}: "
        f"{json.dumps([spec.scale, [list(d) for d in spec.dims], spec.alt_scale])}"
        for name, spec in table.items()
    ]
    path.write_text("{\n" + ",\n".join(rows) + "\n}\n", encoding="utf-8")


@cache
def resolve_unit(name: str) -> UnitSpec:
    """The compiled form of a unit spelling (``"GB"``, ``"µs"``, ``"GPU-hour"``).

    Read from the table generated from pint (:func:`write_unit_table`), so that
    checking claims never builds the pint registry; a spelling missing from the
    table is compiled through pint.

    Args:
        name: A spelling for which :func:`is_unit_spelling` is true.

    Returns:
        Its scale in base units, dimension vector and prefix-swapped scale.

    Raises:
        KeyError: ``name`` is not a known spelling.
    """
    spec = _table().get(name)
    if spec is not None:
        return spec
    return compile_unit(name)


def dims_mul(a: Dims, b: Dims) -> Dims:
    """Dimension vector of a product."""
    if not b:
        return a
    if not a:
        return b
    return _merged(a, b)


@lru_cache(maxsize=4096)
def _merged(a: Dims, b: Dims) -> Dims:
    # Napkin math multiplies few distinct pairs of units, many times over.
    merged = dict(a)
    for key, exp in b:
        merged[key] = merged.get(key, 0) + exp
    return tuple(sorted((k, v) for k, v in merged.items() if v))


def dims_div(a: Dims, b: Dims) -> Dims:
    """Dimension vector of a quotient."""
    if not b:
        return a
    return dims_mul(a, tuple((k, -v) for k, v in b))


def dims_pow(a: Dims, power: int) -> Dims:
    """Dimension vector of an integer power."""
    return tuple((k, v * power) for k, v in a if v * power)


_DIM_SYMBOLS: dict[str, str] = {
    "information": "B",
    "time": "s",
    "flop": "FLOP",
    "currency": "$",
    "param": "params",
    "token": "tokens",
    "sample": "samples",
    "gpu": "GPU",
    "request": "req",
    "node": "nodes",
    "length": "m",
    "mass": "kg",
    "current": "A",
    "temperature": "°C",
}


_PER_SYMBOLS: dict[str, str] = {
    **_DIM_SYMBOLS,
    "param": "param",
    "token": "token",
    "sample": "sample",
    "node": "node",
}
"""Symbols after ``/``: singular where the plain symbol is plural."""


_NAMED_DIMS: dict[Dims, str] = {
    (("length", 2), ("mass", 1), ("time", -2)): "J",
    (("length", 2), ("mass", 1), ("time", -3)): "W",
}


def format_dims(dims: Dims) -> str:
    """A readable unit for a dimension vector in base units (``"B/s"``, ``"FLOP/B"``)."""
    if dims in _NAMED_DIMS:
        return _NAMED_DIMS[dims]
    num = [k for k, v in dims if v > 0]
    den = [k for k, v in dims if v < 0]
    exps = dict(dims)

    def term(key: str, symbols: dict[str, str]) -> str:
        exp = abs(exps[key])
        symbol = symbols.get(key, key)
        return symbol if exp == 1 else f"{symbol}^{exp}"

    text = "·".join(term(k, _DIM_SYMBOLS) for k in num) or "1"
    for key in den:
        text += "/" + term(key, _PER_SYMBOLS)  # per one thing: "B/param", "FLOP/token"
    return text


_REGISTRY_LOCK = threading.Lock()
_registry: Any = None


def get_registry() -> Any:
    """Return the shared pint ``UnitRegistry`` with sysdrill's definitions.

    Built once under a lock: quantities of two registries cannot be combined, so
    two threads asking first at the same moment must get the same one.
    """
    global _registry
    with _REGISTRY_LOCK:
        if _registry is None:
            import pint

            registry: Any = pint.UnitRegistry(autoconvert_offset_to_baseunit=True)
            for line in _DEFINITIONS.strip().splitlines():
                registry.define(line)
            _registry = registry
        return _registry
