"""Tensor-parallel (Megatron-style) communication, and how it compares with data parallelism.

Megatron-LM splits each transformer layer's attention and MLP across ``t``
GPUs; each of the two blocks needs one all-reduce of the ``b·s·h`` activations
in the forward pass and one in the backward pass, four per layer per
micro-batch (Shoeybi et al. 2019, "Megatron-LM", §3, Figure 4). Sequence
parallelism replaces each all-reduce by a reduce-scatter plus an all-gather of
the same volume (Korthikanti et al. 2022, §4.2.2).
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

__all__ = [
    "ALL_REDUCES_PER_LAYER",
    "TensorParallelTraffic",
    "TpDpComparison",
    "tensor_parallel_traffic",
    "tp_vs_dp_communication",
]

ALL_REDUCES_PER_LAYER = 4
"""Two in the forward pass (after attention and after the MLP), two in the backward pass."""


@dataclass(frozen=True)
class TensorParallelTraffic:
    """Tensor-parallel traffic of one GPU.

    Attributes:
        all_reduces_per_layer: All-reduces per layer per micro-batch (forward + backward).
        bytes_per_all_reduce: Size of each all-reduced activation, ``b·s·h·bytes`` (byte).
        bytes_sent_per_layer: What one GPU sends per layer per micro-batch with ring
            all-reduces, ``4·2(t-1)/t·b·s·h·bytes`` (byte).
        bytes_sent_per_step: ``bytes_sent_per_layer`` over all layers and micro-batches (byte).
    """

    all_reduces_per_layer: int
    bytes_per_all_reduce: Quantity
    bytes_sent_per_layer: Quantity
    bytes_sent_per_step: Quantity


def tensor_parallel_traffic(
    *,
    layers: int,
    micro_batch: int,
    sequence_length: int,
    hidden_size: int,
    tensor_parallel: int,
    micro_batches: int = 1,
    bytes_per_element: Quantity | None = None,
) -> TensorParallelTraffic:
    """Bytes a tensor-parallel GPU moves per layer and per training step.

    ``4`` all-reduces per layer per micro-batch of ``b·s·h`` elements each
    (Shoeybi et al. 2019, §3); a ring all-reduce sends ``2(t-1)/t`` of the
    buffer from each GPU (Patarasuk & Yuan 2009).

    Args:
        layers: Transformer layers on this GPU ``L``.
        micro_batch: Sequences per micro-batch ``b``.
        sequence_length: Tokens per sequence ``s``.
        hidden_size: Hidden dimension ``h``.
        tensor_parallel: Tensor-parallel degree ``t``.
        micro_batches: Micro-batches per step (gradient accumulation or pipelining).
        bytes_per_element: Activation element size (byte); 2 bytes (BF16/FP16) when None.
    """
    count = require_count(layers, name="layers")
    elements = (
        require_count(micro_batch, name="micro_batch")
        * require_count(sequence_length, name="sequence_length")
        * require_count(hidden_size, name="hidden_size")
    )
    t = require_count(tensor_parallel, name="tensor_parallel")
    steps = require_count(micro_batches, name="micro_batches")
    width = quantity(2, "byte") if bytes_per_element is None else bytes_per_element
    width = require_positive(
        as_unit(width, "byte", name="bytes_per_element"), name="bytes_per_element"
    )
    buffer = width * elements
    per_layer = buffer * (ALL_REDUCES_PER_LAYER * 2 * (t - 1) / t)
    return TensorParallelTraffic(
        all_reduces_per_layer=ALL_REDUCES_PER_LAYER,
        bytes_per_all_reduce=buffer,
        bytes_sent_per_layer=per_layer,
        bytes_sent_per_step=per_layer * count * steps,
    )


@dataclass(frozen=True)
class TpDpComparison:
    """Bytes one GPU sends per step for tensor and for data parallelism.

    Attributes:
        tensor_parallel_bytes: Activation all-reduces of one step (byte).
        data_parallel_bytes: The gradient all-reduce of one step (byte).
        tensor_to_data_ratio: ``tensor_parallel_bytes / data_parallel_bytes``.
    """

    tensor_parallel_bytes: Quantity
    data_parallel_bytes: Quantity
    tensor_to_data_ratio: float


def tp_vs_dp_communication(
    *,
    parameters: Quantity,
    layers: int,
    micro_batch: int,
    sequence_length: int,
    hidden_size: int,
    tensor_parallel: int,
    data_parallel: int,
    micro_batches: int = 1,
    bytes_per_element: Quantity | None = None,
) -> TpDpComparison:
    """Compare per-GPU traffic of tensor parallelism with the data-parallel gradient all-reduce.

    TP: ``L·M·4·2(t-1)/t·b·s·h·bytes`` per step, growing with tokens. DP: a ring
    all-reduce of the GPU's gradient shard, ``2(d-1)/d·(Ψ/t)·bytes``, once per
    step whatever the batch (Shoeybi et al. 2019; Patarasuk & Yuan 2009). This is
    why TP stays inside a fast NVLink domain while DP crosses the network.

    Args:
        parameters: Model size ``Ψ`` (param).
        layers: Transformer layers ``L``.
        micro_batch: Sequences per micro-batch ``b``.
        sequence_length: Tokens per sequence ``s``.
        hidden_size: Hidden dimension ``h``.
        tensor_parallel: Tensor-parallel degree ``t``.
        data_parallel: Data-parallel degree ``d``.
        micro_batches: Micro-batches accumulated per step ``M``.
        bytes_per_element: Activation and gradient element size (byte); 2 when None.
    """
    d = require_count(data_parallel, name="data_parallel")
    tp = tensor_parallel_traffic(
        layers=layers,
        micro_batch=micro_batch,
        sequence_length=sequence_length,
        hidden_size=hidden_size,
        tensor_parallel=tensor_parallel,
        micro_batches=micro_batches,
        bytes_per_element=bytes_per_element,
    )
    width = tp.bytes_per_all_reduce / (micro_batch * sequence_length * hidden_size)
    psi = require_positive(as_unit(parameters, "param", name="parameters"), name="parameters")
    gradient_bytes = psi.magnitude / tensor_parallel * width
    dp = gradient_bytes * (2 * (d - 1) / d)
    ratio = float("inf") if dp.magnitude == 0 else float((tp.bytes_sent_per_step / dp).to(""))
    return TpDpComparison(
        tensor_parallel_bytes=tp.bytes_sent_per_step,
        data_parallel_bytes=dp,
        tensor_to_data_ratio=ratio,
    )
