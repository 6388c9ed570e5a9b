"""Tensor formats read as people type them."""

from __future__ import annotations

import pytest

from sysdrill.napkin.calculators.dtypes import DType, bytes_per_element


@pytest.mark.parametrize(
    ("typed", "dtype"),
    [
        ("bf16", DType.BF16),
        ("BF16", DType.BF16),
        ("bfloat16", DType.BF16),
        ("fp16", DType.FP16),
        ("half", DType.FP16),
        ("float32", DType.FP32),
        ("tf32", DType.TF32),
        ("fp8-e4m3", DType.FP8),
        ("E5M2", DType.FP8),
        ("int8", DType.INT8),
    ],
)
def test_framework_spellings_name_one_format(typed: str, dtype: DType) -> None:
    assert DType(typed) is dtype


def test_unknown_format_is_refused() -> None:
    with pytest.raises(ValueError):
        DType("fp12")


@pytest.mark.parametrize(
    ("dtype", "size"),
    [(DType.FP32, 4), (DType.TF32, 4), (DType.BF16, 2), (DType.FP8, 1), (DType.INT4, 0.5)],
)
def test_element_sizes(dtype: DType, size: float) -> None:
    assert bytes_per_element(dtype).to("byte").magnitude == size
