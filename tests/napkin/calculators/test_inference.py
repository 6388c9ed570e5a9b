"""KV-cache size against Llama 2 (Touvron et al. 2023) shapes."""

from __future__ import annotations

import pytest

from sysdrill.napkin.calculators.inference import kv_cache_size
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
