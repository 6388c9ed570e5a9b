"""Inference memory: the key/value cache of a decoder-only transformer.

Each layer caches one key and one value vector per KV head per token, so the
cache is ``2 · layers · kv_heads · head_dim · seq · batch · bytes``. Multi-head
attention has ``kv_heads = heads``; grouped-query attention shares each KV head
among several query heads (Ainslie et al. 2023, "GQA"), and multi-query
attention keeps one (Shazeer 2019).
"""

from __future__ import annotations

from dataclasses import dataclass

from sysdrill.napkin.calculators._quantity import (
    Quantity,
    as_unit,
    quantity,
    require_count,
    require_positive,
)

__all__ = ["KvCache", "kv_cache_size"]


@dataclass(frozen=True)
class KvCache:
    """Size of a KV cache.

    Attributes:
        per_token: ``2·L·kv_heads·head_dim·bytes`` (byte/token).
        total: ``per_token · seq · batch`` (byte).
    """

    per_token: Quantity
    total: Quantity


def kv_cache_size(
    *,
    layers: int,
    kv_heads: int,
    head_dim: int,
    sequence_length: int,
    batch: int = 1,
    bytes_per_element: Quantity | None = None,
) -> KvCache:
    """KV-cache bytes ``2 · layers · kv_heads · head_dim · seq · batch · bytes``.

    Worked example: Llama 2 70B (80 layers, 8 KV heads of 128 under GQA, FP16)
    needs 320 KiB per token; with 64 heads of MHA it would need 8 times more
    (Touvron et al. 2023, "Llama 2", Table 1 and §2.2 on GQA).

    Args:
        layers: Transformer layers ``L``.
        kv_heads: Key/value heads (equal to attention heads for MHA).
        head_dim: Dimension of each head.
        sequence_length: Cached tokens per sequence.
        batch: Concurrent sequences.
        bytes_per_element: Cache element size (byte); 2 (FP16/BF16) when None.
    """
    width = quantity(2, "byte") if bytes_per_element is None else bytes_per_element
    width = require_positive(
        as_unit(width, "byte", name="bytes_per_element"), name="bytes_per_element"
    )
    elements = (
        2
        * require_count(layers, name="layers")
        * require_count(kv_heads, name="kv_heads")
        * require_count(head_dim, name="head_dim")
    )
    per_token = width * elements / quantity(1, "token")
    tokens = quantity(
        require_count(sequence_length, name="sequence_length") * require_count(batch, name="batch"),
        "token",
    )
    return KvCache(per_token=per_token, total=(per_token * tokens).to("byte"))
