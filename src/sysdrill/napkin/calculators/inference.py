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
    Percent,
    Quantity,
    as_unit,
    quantity,
    require_count,
    require_positive,
)
from sysdrill.napkin.calculators.dtypes import DType
from sysdrill.napkin.calculators.dtypes import bytes_per_element as element_size

__all__ = ["InferenceMemory", "KvCache", "inference_memory", "kv_cache_size"]


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


@dataclass(frozen=True)
class InferenceMemory:
    """Memory of one serving replica (bytes).

    Attributes:
        weights: ``N·bytes(weight dtype)``.
        kv_cache: ``2·L·kv_heads·head_dim·(prompt + generated)·batch·bytes(kv dtype)``.
        activations: Peak transient activations of one layer in the prefill.
        total: The sum.
        kv_cache_share: KV cache over the total.
    """

    weights: Quantity
    kv_cache: Quantity
    activations: Quantity
    total: Quantity
    kv_cache_share: Percent


def inference_memory(
    *,
    parameters: Quantity,
    layers: int,
    kv_heads: int,
    head_dim: int,
    hidden_size: int,
    sequence_length: int,
    batch: int = 1,
    weight_dtype: DType = DType.BF16,
    kv_dtype: DType = DType.BF16,
    activation_dtype: DType = DType.BF16,
    feed_forward_size: int | None = None,
    tensor_parallel: int = 1,
) -> InferenceMemory:
    """Weights + KV cache + activations of a decoder-only transformer at inference.

    Weights are ``N`` times the weight format's size (int8 and fp8 1 byte, int4
    half a byte). The KV cache is :func:`kv_cache_size` in the cache's format.
    Inference keeps no activations for a backward pass, so only one layer's
    working set is live: during the prefill of ``batch × sequence_length``
    tokens the widest tensors are the MLP's input and its ``f``-wide hidden,
    ``b·s·(h + f)`` elements (``f = 4h`` by default). This is the napkin form;
    framework workspaces and the attention score matrix without FlashAttention
    (``b·heads·s²``) come on top. Tensor parallelism divides weights, KV heads
    and the MLP hidden across ``t`` GPUs (Pope et al. 2022, "Efficiently Scaling
    Transformer Inference", §2-3).

    Args:
        parameters: Model parameters ``N`` (param).
        layers: Layers ``L``.
        kv_heads: Key/value heads (attention heads for MHA).
        head_dim: Size of each head.
        hidden_size: Model width ``h``.
        sequence_length: Prompt plus generated tokens per sequence ``s``.
        batch: Concurrent sequences ``b``.
        weight_dtype: Weight format.
        kv_dtype: KV-cache format.
        activation_dtype: Activation format.
        feed_forward_size: MLP width ``f`` (default ``4h``).
        tensor_parallel: GPUs ``t`` the model is split over; results are per GPU.
    """
    n = require_positive(as_unit(parameters, "param", name="parameters"), name="parameters")
    t = require_count(tensor_parallel, name="tensor_parallel")
    h = require_count(hidden_size, name="hidden_size")
    f = require_count(feed_forward_size or 4 * h, name="feed_forward_size")
    b = require_count(batch, name="batch")
    s = require_count(sequence_length, name="sequence_length")
    weights = (n * element_size(weight_dtype) / quantity(1, "param")).to("byte") / t
    cache = (
        kv_cache_size(
            layers=layers,
            kv_heads=kv_heads,
            head_dim=head_dim,
            sequence_length=s,
            batch=b,
            bytes_per_element=element_size(kv_dtype),
        ).total
        / t
    )
    activations = (element_size(activation_dtype) * b * s * (h + f / t)).to("byte")
    total = weights + cache + activations
    return InferenceMemory(
        weights=weights,
        kv_cache=cache,
        activations=activations,
        total=total,
        kv_cache_share=Percent(float((cache / total).to(""))),
    )
