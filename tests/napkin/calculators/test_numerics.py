"""Float formats against IEEE 754-2019 and the OCP FP8 specification."""

from __future__ import annotations

import math
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sysdrill.errors import UsageError
from sysdrill.napkin.calculators.numerics import (
    FloatFormat,
    Representation,
    apply_loss_scale,
    format_info,
    round_to_format,
)


@pytest.mark.parametrize(
    ("fmt", "bits", "max_value", "min_normal", "min_subnormal", "epsilon"),
    [
        # IEEE 754 binary32.
        (FloatFormat.FP32, 32, 3.4028234663852886e38, 2.0**-126, 2.0**-149, 2.0**-23),
        # IEEE 754 binary16: max 65504, min normal 6.10e-5, min subnormal 5.96e-8.
        (FloatFormat.FP16, 16, 65504.0, 2.0**-14, 2.0**-24, 2.0**-10),
        # BF16: FP32 range with 7 fraction bits, epsilon 2^-7.
        (FloatFormat.BF16, 16, 3.3895313892515355e38, 2.0**-126, 2.0**-133, 2.0**-7),
        # NVIDIA TF32 (A100 whitepaper): 8 exponent bits, 10 fraction bits.
        (FloatFormat.TF32, 32, (2 - 2.0**-10) * 2.0**127, 2.0**-126, 2.0**-136, 2.0**-10),
        # OCP OFP8 / Micikevicius et al. 2022, Table 1: E4M3 max 448, min subnormal 2^-9.
        (FloatFormat.FP8_E4M3, 8, 448.0, 2.0**-6, 2.0**-9, 2.0**-3),
        # E5M2: max 57344, min normal 2^-14, min subnormal 2^-16.
        (FloatFormat.FP8_E5M2, 8, 57344.0, 2.0**-14, 2.0**-16, 2.0**-2),
        (FloatFormat.FP64, 64, 1.7976931348623157e308, 2.0**-1022, 5e-324, 2.0**-52),
    ],
)
def test_format_constants(
    fmt: FloatFormat,
    bits: int,
    max_value: float,
    min_normal: float,
    min_subnormal: float,
    epsilon: float,
) -> None:
    info = format_info(fmt)
    assert info.bits == bits
    assert info.max_value == max_value
    assert info.min_normal == min_normal
    assert info.min_subnormal == min_subnormal
    assert info.epsilon == epsilon


def test_only_e4m3_lacks_infinity() -> None:
    assert not format_info(FloatFormat.FP8_E4M3).has_infinity
    assert format_info(FloatFormat.FP8_E5M2).has_infinity


def test_fp16_overflow_and_round_to_max() -> None:
    # 65519 still rounds to 65504; 65520 is the tie that rounds up to infinity.
    assert round_to_format(value=65519, fmt=FloatFormat.FP16).stored == 65504
    over = round_to_format(value=65520, fmt=FloatFormat.FP16)
    assert over.representation is Representation.OVERFLOW
    assert over.stored == math.inf


def test_e4m3_overflow_is_nan() -> None:
    result = round_to_format(value=1000, fmt=FloatFormat.FP8_E4M3)
    assert result.representation is Representation.OVERFLOW
    assert math.isnan(result.stored)


def test_bf16_rounds_ties_to_even() -> None:
    # 1 + 2^-8 sits halfway between 1 and 1 + 2^-7: ties go to the even mantissa, 1.
    assert round_to_format(value=1 + 2.0**-8, fmt=FloatFormat.BF16).stored == 1.0
    assert round_to_format(value=1 + 3 * 2.0**-8, fmt=FloatFormat.BF16).stored == 1 + 2.0**-6


def test_fp16_underflow_and_subnormals() -> None:
    assert round_to_format(value=1e-8, fmt=FloatFormat.FP16).representation is (
        Representation.UNDERFLOW
    )
    assert round_to_format(value=1e-6, fmt=FloatFormat.FP16).representation is (
        Representation.SUBNORMAL
    )
    assert round_to_format(value=0.0, fmt=FloatFormat.FP16).representation is Representation.ZERO


def test_loss_scale_rescues_small_fp16_gradients() -> None:
    # Micikevicius et al. 2018 §3.2: gradients below 2^-24 vanish in FP16; scaling the
    # loss shifts them into range and the optimizer divides the scale back out.
    result = apply_loss_scale(value=1e-8, scale=1024, fmt=FloatFormat.FP16)
    assert result.unscaled.stored == 0
    assert result.scaled.representation is Representation.SUBNORMAL
    assert result.recovered == pytest.approx(1e-8, rel=0.01)


def test_too_large_a_loss_scale_overflows() -> None:
    result = apply_loss_scale(value=10.0, scale=2.0**16, fmt=FloatFormat.FP16)
    assert result.scaled.representation is Representation.OVERFLOW


def test_bad_inputs_are_rejected() -> None:
    with pytest.raises(UsageError):
        round_to_format(value=math.inf, fmt=FloatFormat.FP16)
    with pytest.raises(UsageError):
        apply_loss_scale(value=1.0, scale=0, fmt=FloatFormat.FP16)


def _struct_round(value: float, code: str) -> float | None:
    try:
        return float(struct.unpack(f"<{code}", struct.pack(f"<{code}", value))[0])
    except OverflowError:
        return None


@settings(deadline=None)  # tests never assert on timing
@given(st.floats(allow_nan=False, allow_infinity=False, width=64))
def test_fp16_rounding_matches_the_ieee_struct_codec(value: float) -> None:
    expected = _struct_round(value, "e")
    result = round_to_format(value=value, fmt=FloatFormat.FP16)
    if expected is None:
        assert result.representation is Representation.OVERFLOW
    else:
        assert result.stored == expected


@settings(deadline=None)  # tests never assert on timing
@given(st.floats(allow_nan=False, allow_infinity=False, width=64))
def test_fp32_rounding_matches_the_ieee_struct_codec(value: float) -> None:
    expected = _struct_round(value, "f")
    result = round_to_format(value=value, fmt=FloatFormat.FP32)
    if expected is None or math.isinf(expected):
        assert result.representation is Representation.OVERFLOW
    else:
        assert result.stored == expected
