"""KV-cache size against Llama 2 (Touvron et al. 2023) shapes."""

from __future__ import annotations

import pytest

from sysdrill.napkin.calculators._quantity import describe, quantity
from sysdrill.napkin.calculators.dtypes import DType
from sysdrill.napkin.calculators.inference import inference_memory, kv_cache_size
from sysdrill.napkin.units import get_registry

Q = get_registry().Quantity


def test_llama2_70b_gqa_needs_320_kib_per_token() -> None:
    # Llama 2 70B: 80 layers, 8 KV heads (GQA) of dimension 128, FP16.
    cache = kv_cache_size(layers=80, kv_heads=8, head_dim=128, sequence_length=4096)
    assert cache.per_token.to("KiB / token").magnitude == pytest.approx(320)
    assert cache.total.to("GiB").magnitude == pytest.approx(1.25)


def test_llama2_7b_mha_needs_half_a_mib_per_token() -> None:
    # Llama 2 7B: 32 layers, 32 heads of 128 with multi-head attention: 0.5 MiB/token.
    cache = kv_cache_size(layers=32, kv_heads=32, head_dim=128, sequence_length=4096, batch=8)
    assert cache.per_token.to("MiB / token").magnitude == pytest.approx(0.5)
    assert cache.total.to("GiB").magnitude == pytest.approx(16)


def test_gqa_shrinks_the_cache_by_heads_over_kv_heads() -> None:
    mha = kv_cache_size(layers=80, kv_heads=64, head_dim=128, sequence_length=1)
    gqa = kv_cache_size(layers=80, kv_heads=8, head_dim=128, sequence_length=1)
    assert mha.total == gqa.total * 8


def test_fp8_cache_halves_fp16() -> None:
    fp8 = kv_cache_size(
        layers=80, kv_heads=8, head_dim=128, sequence_length=1, bytes_per_element=Q(1, "B")
    )
    assert fp8.per_token.to("KiB / token").magnitude == pytest.approx(160)


def test_inference_memory_adds_weights_cache_and_one_layers_activations() -> None:
    # Llama 2 70B (80 layers, GQA with 8 KV heads of 128, width 8192, MLP 28672) in FP8
    # weights: 70 GB; a BF16 cache of 16 × 4096 tokens at 320 KiB/token is 21.47 GB.
    result = inference_memory(
        parameters=quantity(70e9, "param"),
        layers=80,
        kv_heads=8,
        head_dim=128,
        hidden_size=8192,
        feed_forward_size=28672,
        sequence_length=4096,
        batch=16,
        weight_dtype=DType.FP8,
    )
    assert result.weights.to("GB").magnitude == pytest.approx(70)
    assert result.kv_cache.to("byte").magnitude == pytest.approx(327_680 * 4096 * 16)
    assert result.activations.to("byte").magnitude == pytest.approx(2 * 16 * 4096 * (8192 + 28672))
    assert result.total == result.weights + result.kv_cache + result.activations
    assert describe(result.kv_cache_share) == "22.3%"


@pytest.mark.parametrize(
    ("dtype", "weight_gb"), [(DType.FP32, 28), (DType.BF16, 14), (DType.INT8, 7), (DType.INT4, 3.5)]
)
def test_weights_scale_with_the_precision_typed(dtype: DType, weight_gb: float) -> None:
    result = inference_memory(
        parameters=quantity(7e9, "param"),
        layers=32,
        kv_heads=32,
        head_dim=128,
        hidden_size=4096,
        sequence_length=1,
        weight_dtype=dtype,
    )
    assert result.weights.to("GB").magnitude == pytest.approx(weight_gb)


def test_tensor_parallelism_splits_weights_and_cache() -> None:
    common = {
        "parameters": quantity(70e9, "param"),
        "layers": 80,
        "kv_heads": 8,
        "head_dim": 128,
        "hidden_size": 8192,
        "sequence_length": 4096,
        "batch": 8,
    }
    one = inference_memory(**common)
    eight = inference_memory(**common, tensor_parallel=8)
    assert eight.weights == one.weights / 8
    assert eight.kv_cache == one.kv_cache / 8
