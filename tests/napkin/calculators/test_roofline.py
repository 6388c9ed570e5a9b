"""Roofline model (Williams, Waterman & Patterson 2009) with A100 and H100 figures."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sysdrill.errors import UsageError
from sysdrill.napkin.calculators.roofline import (
    Bound,
    attainable_flops,
    elementwise_intensity,
    gemm_intensity,
    ridge_point,
    roofline,
)
from sysdrill.napkin.units import get_registry

Q = get_registry().Quantity
A100_PEAK = Q(312, "TFLOP/s")  # NVIDIA A100 datasheet, dense BF16
A100_BW = Q(2.039, "TB/s")  # A100 80GB SXM HBM2e


def test_a100_ridge_point_is_about_153_flop_per_byte() -> None:
    ridge = ridge_point(peak_flops=A100_PEAK, bandwidth=A100_BW)
    assert ridge.to("FLOP / byte").magnitude == pytest.approx(312 / 2.039, rel=1e-6)
    assert round(ridge.magnitude) == 153


def test_h100_sxm_ridge_point() -> None:
    # NVIDIA H100 datasheet: 989.5 TFLOP/s dense BF16, 3.35 TB/s: ~295 FLOP/byte.
    ridge = ridge_point(peak_flops=Q(989.5, "TFLOP/s"), bandwidth=Q(3.35, "TB/s"))
    assert ridge.magnitude == pytest.approx(295.4, abs=0.1)


def test_memory_bound_kernel_gets_intensity_times_bandwidth() -> None:
    point = roofline(intensity=Q(10, "FLOP/byte"), peak_flops=A100_PEAK, bandwidth=A100_BW)
    assert point.bound is Bound.MEMORY
    assert point.attainable.to("TFLOP/s").magnitude == pytest.approx(20.39)
    assert point.fraction_of_peak == pytest.approx(20.39 / 312)


def test_compute_bound_kernel_gets_peak() -> None:
    point = roofline(intensity=Q(1000, "FLOP/byte"), peak_flops=A100_PEAK, bandwidth=A100_BW)
    assert point.bound is Bound.COMPUTE
    assert point.attainable.to("TFLOP/s").magnitude == pytest.approx(312)
    assert point.fraction_of_peak == pytest.approx(1.0)


def test_square_fp16_gemm_intensity_is_n_over_3() -> None:
    # 2n³ FLOPs over 3n² two-byte elements = n/3 FLOP/byte.
    assert gemm_intensity(m=4096, n=4096, k=4096).magnitude == pytest.approx(4096 / 3)


def test_gemm_intensity_with_fp32_elements() -> None:
    # M=N=K=1024 in FP32: 2·1024³ / (4·3·1024²) = 170.67 FLOP/byte.
    result = gemm_intensity(m=1024, n=1024, k=1024, bytes_per_element=Q(4, "B"))
    assert result.magnitude == pytest.approx(2 * 1024 / 12)


def test_fp16_vector_add_is_far_below_every_ridge() -> None:
    intensity = elementwise_intensity()
    assert intensity.magnitude == pytest.approx(1 / 6)
    assert roofline(intensity=intensity, peak_flops=A100_PEAK, bandwidth=A100_BW).bound is (
        Bound.MEMORY
    )


def test_elementwise_rejects_no_work() -> None:
    with pytest.raises(UsageError):
        elementwise_intensity(flops_per_element=0)


@settings(deadline=None)  # tests never assert on timing
@given(intensity=st.floats(min_value=1e-3, max_value=1e6))
def test_attainable_never_exceeds_either_roof(intensity: float) -> None:
    value = attainable_flops(
        intensity=Q(intensity, "FLOP/byte"), peak_flops=A100_PEAK, bandwidth=A100_BW
    )
    assert value <= A100_PEAK * (1 + 1e-12)
    assert value <= Q(intensity, "FLOP/byte") * A100_BW * (1 + 1e-12)
