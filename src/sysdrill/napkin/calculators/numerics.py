"""Floating-point formats used in training: range, precision, rounding and loss scaling.

Binary formats with ``e`` exponent and ``m`` mantissa bits follow IEEE 754-2019
(FP64, FP32, FP16), with BF16 and NVIDIA TF32 as truncated FP32 layouts. The
FP8 formats follow the OCP 8-bit Floating Point Specification (OFP8) 1.0 and
Micikevicius et al. 2022, "FP8 Formats for Deep Learning": E5M2 keeps IEEE
infinities; E4M3 drops them and uses the top exponent for normal numbers, so
its largest value is 448 rather than 240. Values here are plain floats: these
are dimensionless numbers, not quantities with units.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

from sysdrill.errors import UsageError
from sysdrill.napkin.calculators._quantity import Percent

__all__ = [
    "FloatFormat",
    "FormatInfo",
    "LossScaledValue",
    "Representation",
    "RoundedValue",
    "apply_loss_scale",
    "format_info",
    "round_to_format",
]


class FloatFormat(Enum):
    """Floating-point formats, by name."""

    FP64 = "fp64"
    FP32 = "fp32"
    TF32 = "tf32"
    BF16 = "bf16"
    FP16 = "fp16"
    FP8_E4M3 = "fp8-e4m3"
    FP8_E5M2 = "fp8-e5m2"

    @classmethod
    def _missing_(cls, value: object) -> FloatFormat | None:
        if not isinstance(value, str):
            return None
        spelled = value.strip().lower().replace("_", "-")
        if spelled in ("fp8", "float8"):
            raise UsageError(
                f"{value!r} is ambiguous: fp8-e4m3 (weights and activations, max 448) or "
                "fp8-e5m2 (gradients, max 57,344)?"
            )
        return _FORMAT_ALIASES.get(spelled.replace("-", ""))


_FORMAT_ALIASES: dict[str, FloatFormat] = {
    "float64": FloatFormat.FP64,
    "double": FloatFormat.FP64,
    "float32": FloatFormat.FP32,
    "single": FloatFormat.FP32,
    "tensorfloat32": FloatFormat.TF32,
    "bfloat16": FloatFormat.BF16,
    "float16": FloatFormat.FP16,
    "half": FloatFormat.FP16,
    "fp8e4m3": FloatFormat.FP8_E4M3,
    "e4m3": FloatFormat.FP8_E4M3,
    "fp8e5m2": FloatFormat.FP8_E5M2,
    "e5m2": FloatFormat.FP8_E5M2,
}


_LAYOUT: dict[FloatFormat, tuple[int, int]] = {
    FloatFormat.FP64: (11, 52),
    FloatFormat.FP32: (8, 23),
    FloatFormat.TF32: (8, 10),
    FloatFormat.BF16: (8, 7),
    FloatFormat.FP16: (5, 10),
    FloatFormat.FP8_E4M3: (4, 3),
    FloatFormat.FP8_E5M2: (5, 2),
}
"""Exponent and mantissa (fraction) bits of each format."""


@dataclass(frozen=True)
class FormatInfo:
    """The range and precision of one format.

    Attributes:
        name: The format.
        bits: Storage bits (TF32 is stored in 32 bits but computes with 19).
        exponent_bits: Exponent field width.
        mantissa_bits: Stored fraction bits.
        bias: Exponent bias ``2^(e-1) - 1``.
        max_value: Largest finite value.
        min_normal: Smallest positive normal value ``2^(1-bias)``.
        min_subnormal: Smallest positive value ``2^(1-bias-m)``.
        epsilon: Gap between 1 and the next value, ``2^-m``.
        has_infinity: Whether overflow produces infinity (False for E4M3).
    """

    name: FloatFormat
    bits: int
    exponent_bits: int
    mantissa_bits: int
    bias: int
    max_value: float
    min_normal: float
    min_subnormal: float
    epsilon: float
    has_infinity: bool


def format_info(fmt: FloatFormat) -> FormatInfo:
    """Return range and precision of ``fmt`` (IEEE 754-2019; OCP OFP8 1.0 for FP8).

    ``max = (2 - 2^-m)·2^bias`` for IEEE-style formats; E4M3 reserves only the
    all-ones pattern for NaN, so its max is ``1.75·2^8 = 448``.

    Args:
        fmt: The format.
    """
    e, m = _LAYOUT[fmt]
    bias = 2 ** (e - 1) - 1
    if fmt is FloatFormat.FP8_E4M3:
        max_value = 1.75 * 2.0 ** (2**e - 1 - bias)
    else:
        max_value = (2 - 2.0**-m) * 2.0**bias
    bits = {FloatFormat.TF32: 32}.get(fmt, 1 + e + m)
    return FormatInfo(
        name=fmt,
        bits=bits,
        exponent_bits=e,
        mantissa_bits=m,
        bias=bias,
        max_value=max_value,
        min_normal=2.0 ** (1 - bias),
        min_subnormal=2.0 ** (1 - bias - m),
        epsilon=2.0**-m,
        has_infinity=fmt is not FloatFormat.FP8_E4M3,
    )


class Representation(Enum):
    """What becomes of a value stored in a format."""

    ZERO = "zero"
    NORMAL = "normal"
    SUBNORMAL = "subnormal"
    UNDERFLOW = "underflow"
    """A non-zero value that rounds to zero."""
    OVERFLOW = "overflow"
    """A value beyond the largest finite one: infinity, or NaN in E4M3."""


@dataclass(frozen=True)
class RoundedValue:
    """A value rounded to nearest-even in a format.

    Attributes:
        value: The input.
        stored: What the format holds (``inf``/``nan`` on overflow, 0 on underflow).
        representation: Normal, subnormal, zero, underflow or overflow.
        relative_error: ``|stored - value| / |value|`` (0 for exact zero; inf on overflow).
    """

    value: float
    stored: float
    representation: Representation
    relative_error: Percent


def round_to_format(*, value: float, fmt: FloatFormat) -> RoundedValue:
    """Round ``value`` to the nearest representable ``fmt`` value, ties to even (IEEE 754 §4.3).

    Args:
        value: Any finite float.
        fmt: The target format.

    Raises:
        UsageError: ``value`` is not finite.
    """
    if not math.isfinite(value):
        raise UsageError(f"value must be a finite number, got {value!r}")
    info = format_info(fmt)
    if value == 0:
        return RoundedValue(value, 0.0, Representation.ZERO, Percent(0.0))
    _, exponent = math.frexp(abs(value))
    # frexp gives |v| = f·2^exponent with f in [0.5, 1): the binade's unit exponent is exponent-1.
    unit_exponent = max(exponent - 1, 1 - info.bias)
    quantum = 2.0 ** (unit_exponent - info.mantissa_bits)
    stored = round(value / quantum) * quantum
    if abs(stored) > info.max_value:
        overflow = math.copysign(math.inf, value) if info.has_infinity else math.nan
        return RoundedValue(value, overflow, Representation.OVERFLOW, Percent(math.inf))
    if stored == 0:
        return RoundedValue(value, 0.0, Representation.UNDERFLOW, Percent(1.0))
    kind = Representation.NORMAL if abs(stored) >= info.min_normal else Representation.SUBNORMAL
    return RoundedValue(value, stored, kind, Percent(abs(stored - value) / abs(value)))


@dataclass(frozen=True)
class LossScaledValue:
    """A gradient value before and after loss scaling.

    Attributes:
        unscaled: The value stored without scaling.
        scaled: The value times the scale, stored in the format.
        recovered: ``scaled.stored / scale``: what the optimizer sees after unscaling.
    """

    unscaled: RoundedValue
    scaled: RoundedValue
    recovered: float


def apply_loss_scale(
    *, value: float, scale: float, fmt: FloatFormat = FloatFormat.FP16
) -> LossScaledValue:
    """Show how multiplying the loss (hence every gradient) by ``S`` keeps small gradients alive.

    Gradients below FP16's smallest subnormal ``2^-24`` flush to zero; scaling by
    ``S`` shifts them into range, and the optimizer divides by ``S`` in FP32
    (Micikevicius et al. 2018, "Mixed Precision Training", §3.2). Too large an
    ``S`` overflows, which dynamic loss scaling detects and backs off from.

    Args:
        value: The true gradient value.
        scale: The loss scale ``S`` (> 0).
        fmt: The format gradients are stored in.
    """
    if not (math.isfinite(scale) and scale > 0):
        raise UsageError(f"scale must be a positive number, got {scale!r}")
    unscaled = round_to_format(value=value, fmt=fmt)
    scaled = round_to_format(value=value * scale, fmt=fmt)
    return LossScaledValue(unscaled=unscaled, scaled=scaled, recovered=scaled.stored / scale)
