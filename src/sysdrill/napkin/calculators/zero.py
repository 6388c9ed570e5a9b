"""ZeRO: communication volume per stage beside DDP, and DeepSpeed's memory estimates.

Communication (Rajbhandari et al. 2020, "ZeRO: Memory Optimizations Toward Training
Trillion Parameter Models", §7): DDP all-reduces the gradients, a reduce-scatter
plus an all-gather of ``Ψ`` elements each, so ``2Ψ`` per rank. ZeRO-1 and ZeRO-2
reduce-scatter the gradients and all-gather the updated parameters: still ``2Ψ``.
ZeRO-3 all-gathers the parameters in the forward pass and again in the backward
pass, then reduce-scatters the gradients: ``3Ψ``, 1.5 times DDP.

Memory follows DeepSpeed's ``estimate_zero2_model_states_mem_needs`` and
``estimate_zero3_model_states_mem_needs`` (``deepspeed.runtime.zero``, documented
on deepspeed.readthedocs.io "Memory Requirements"); stages 0 and 1 use the ZeRO
paper's Figure 1 (``16Ψ`` and ``4Ψ + 12Ψ/N``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from sysdrill.errors import UsageError
from sysdrill.napkin.calculators._quantity import (
    Percent,
    Quantity,
    as_unit,
    quantity,
    require_count,
    require_positive,
)

__all__ = [
    "DeepSpeedMemory",
    "ZeroCommunication",
    "deepspeed_memory_estimate",
    "transformer_parameters",
    "zero_communication",
]

_VOLUME_IN_PSI = {0: 2, 1: 2, 2: 2, 3: 3}
"""Elements each rank communicates per step, in units of the model size Ψ (ZeRO §7)."""


def transformer_parameters(*, layers: int, hidden_size: int, vocab_size: int = 0) -> Quantity:
    """Approximate parameters of a GPT-style transformer: ``12·L·h² + V·h`` (param).

    Each layer holds ``4h²`` in attention (Q, K, V, output) and ``8h²`` in a ``4h``
    MLP; biases and layer norms (``O(h)`` per layer) are left out (Kaplan et al.
    2020, §2.1; Narayanan et al. 2021, Appendix). ``V·h`` counts one embedding
    matrix, shared with the output layer.

    Args:
        layers: Transformer layers ``L``.
        hidden_size: Hidden dimension ``h``.
        vocab_size: Vocabulary ``V`` (0 to leave the embedding out).
    """
    big_l = require_count(layers, name="layers")
    h = require_count(hidden_size, name="hidden_size")
    v = require_count(vocab_size, name="vocab_size", minimum=0)
    return quantity(12 * big_l * h * h + v * h, "param")


@dataclass(frozen=True)
class ZeroCommunication:
    """Data-parallel traffic of one training step per rank.

    Attributes:
        volume: Elements per rank in ZeRO's accounting: ``2Ψ`` or ``3Ψ`` (param).
        relative_to_ddp: ``volume / 2Ψ``: 100% for stages 0-2, 150% for stage 3.
        bytes_sent_per_rank: ``volume·(N-1)/N·bytes``, what a ring sends (byte).
        communication_time: ``bytes_sent_per_rank / β`` (s), when a bandwidth is given.
        step_time_without_overlap: ``compute + communication`` (s), when compute is given.
        step_time_with_overlap: ``max(compute, communication)`` (s): the best overlap
            hides the smaller of the two.
        exposed_communication: Communication left over after perfect overlap (s).
    """

    volume: Quantity
    relative_to_ddp: Percent
    bytes_sent_per_rank: Quantity
    communication_time: Quantity | None = None
    step_time_without_overlap: Quantity | None = None
    step_time_with_overlap: Quantity | None = None
    exposed_communication: Quantity | None = None


def zero_communication(
    *,
    parameters: Quantity,
    zero_stage: int,
    data_parallel: int,
    bytes_per_element: Quantity,
    bandwidth: Quantity | None = None,
    compute_time: Quantity | None = None,
) -> ZeroCommunication:
    """Per-rank communication of DDP (stage 0) or ZeRO stages 1-3, with and without overlap.

    Stage 0 (DDP), 1 and 2 move ``2Ψ`` elements per rank per step and stage 3
    moves ``3Ψ`` (ZeRO paper §7.2-7.3). The bytes a ring actually sends are
    ``(N-1)/N`` of that. Without overlap a step takes compute plus communication;
    with perfect overlap it takes the larger of the two.

    Args:
        parameters: Model size ``Ψ`` (param), after any tensor/pipeline split.
        zero_stage: 0 (DDP), 1, 2 or 3.
        data_parallel: Data-parallel ranks ``N``.
        bytes_per_element: Bytes per communicated element (2 for bf16/fp16 gradients).
        bandwidth: Per-rank bus bandwidth ``β`` (byte/s), to turn bytes into time.
        compute_time: Forward plus backward time of one step (s), to compare overlap.

    Raises:
        UsageError: a stage outside 0-3, or ``compute_time`` without ``bandwidth``.
    """
    if zero_stage not in _VOLUME_IN_PSI:
        raise UsageError(f"zero_stage must be 0, 1, 2 or 3, got {zero_stage!r}")
    n = require_count(data_parallel, name="data_parallel")
    psi = require_positive(as_unit(parameters, "param", name="parameters"), name="parameters")
    width = require_positive(
        as_unit(bytes_per_element, "byte", name="bytes_per_element"), name="bytes_per_element"
    )
    factor = _VOLUME_IN_PSI[zero_stage]
    volume = psi * factor
    sent = (volume.magnitude * (n - 1) / n) * width
    result = ZeroCommunication(
        volume=volume, relative_to_ddp=Percent(factor / 2), bytes_sent_per_rank=sent
    )
    if bandwidth is None:
        if compute_time is not None:
            raise UsageError("compute_time needs a bandwidth to compare communication with")
        return result
    beta = require_positive(as_unit(bandwidth, "byte / s", name="bandwidth"), name="bandwidth")
    comm = (sent / beta).to("s")
    if compute_time is None:
        return dataclasses.replace(result, communication_time=comm)
    compute = as_unit(compute_time, "s", name="compute_time")
    overlapped = max(compute, comm)
    return dataclasses.replace(
        result,
        communication_time=comm,
        step_time_without_overlap=compute + comm,
        step_time_with_overlap=overlapped,
        exposed_communication=overlapped - compute,
    )


@dataclass(frozen=True)
class DeepSpeedMemory:
    """DeepSpeed's estimate of model-state memory.

    Attributes:
        per_gpu: Bytes each GPU needs for parameters, gradients and optimizer states.
        per_cpu: Bytes of host memory each node needs (byte).
        largest_layer: ``4·largest layer`` bytes that ZeRO-3 gathers at once (byte);
            None for the stages that keep whole parameters.
    """

    per_gpu: Quantity
    per_cpu: Quantity
    largest_layer: Quantity | None


def deepspeed_memory_estimate(
    *,
    parameters: Quantity,
    zero_stage: int,
    gpus_per_node: int = 1,
    nodes: int = 1,
    offload_optimizer: bool = False,
    offload_parameters: bool = False,
    largest_layer_parameters: Quantity | None = None,
    zero_init: bool = True,
    buffer_factor: float = 1.5,
) -> DeepSpeedMemory:
    """Per-GPU and per-node CPU memory for model states, as DeepSpeed estimates them.

    With ``Ψ`` parameters, ``N`` GPUs in all, ``G`` per node, ``n`` nodes and a
    buffer factor ``f`` (1.5):

    - stage 0 (DDP): GPU ``16Ψ``; stage 1: GPU ``4Ψ + 12Ψ/N`` (ZeRO paper, Figure 1);
      both load the model on the CPU like stage 2: ``4Ψ·G·f``;
    - stage 2: GPU ``4Ψ + 16Ψ/N``, CPU ``4Ψ·G·f``; with the optimizer offloaded
      (ZeRO-Offload, also used for stage 1) GPU ``2Ψ``, CPU ``Ψ·max(4N, 16)·f``;
    - stage 3, ``ℓ`` the largest layer's parameters: GPU ``4ℓ + 18Ψ/N``; optimizer
      offloaded ``4ℓ + 2Ψ/N``; optimizer and parameters offloaded ``4ℓ``. CPU with
      ``zero.Init``: ``4ℓ·G·f`` without offload, ``16Ψ·f/n`` or ``18Ψ·f/n`` with;
      without ``zero.Init`` the model is first loaded whole in each process, so
      ``4Ψ·G·f`` (``max`` with the offload figure).

    Args:
        parameters: Model size ``Ψ`` (param).
        zero_stage: 0, 1, 2 or 3.
        gpus_per_node: GPUs per node ``G``.
        nodes: Nodes ``n``.
        offload_optimizer: Keep optimizer states (and their update) on the CPU.
        offload_parameters: Also keep parameters on the CPU (stage 3 only).
        largest_layer_parameters: Parameters of the largest module (stage 3).
        zero_init: Stage 3 builds the model already partitioned (``deepspeed.zero.Init``).
        buffer_factor: Headroom DeepSpeed multiplies CPU memory by (1.5).

    Raises:
        UsageError: an unknown stage, an offload the stage does not support, or
            stage 3 without the largest layer.
    """
    if zero_stage not in (0, 1, 2, 3):
        raise UsageError(f"zero_stage must be 0, 1, 2 or 3, got {zero_stage!r}")
    if offload_optimizer and zero_stage == 0:
        raise UsageError("optimizer offload needs ZeRO stage 1, 2 or 3 (ZeRO-Offload)")
    if offload_parameters and (zero_stage != 3 or not offload_optimizer):
        raise UsageError("parameter offload needs ZeRO stage 3 with the optimizer offloaded")
    per_node = require_count(gpus_per_node, name="gpus_per_node")
    n_nodes = require_count(nodes, name="nodes")
    gpus = per_node * n_nodes
    psi = float(
        require_positive(
            as_unit(parameters, "param", name="parameters"), name="parameters"
        ).magnitude
    )
    f = buffer_factor
    layer = 0.0
    if zero_stage == 3:
        if largest_layer_parameters is None:
            raise UsageError("ZeRO-3 needs the largest layer's parameters (--largest-layer)")
        layer = float(
            as_unit(largest_layer_parameters, "param", name="largest_layer_parameters").magnitude
        )
    loaded = psi * 4 * per_node * f
    if zero_stage in (1, 2) and offload_optimizer:
        gpu, cpu = 2 * psi, psi * max(4 * gpus, 16) * f
    elif zero_stage == 0:
        gpu, cpu = 16 * psi, loaded
    elif zero_stage == 1:
        gpu, cpu = 4 * psi + 12 * psi / gpus, loaded
    elif zero_stage == 2:
        gpu, cpu = 4 * psi + 16 * psi / gpus, loaded
    elif offload_parameters:
        gpu = 4 * layer
        cpu = psi * 18 * f / n_nodes if zero_init else psi * max(4 * per_node, 18 / n_nodes) * f
    elif offload_optimizer:
        gpu = 4 * layer + 2 * psi / gpus
        cpu = psi * 16 * f / n_nodes if zero_init else psi * max(4 * per_node, 16 / n_nodes) * f
    else:
        gpu = 4 * layer + 18 * psi / gpus
        cpu = layer * 4 * per_node * f if zero_init else loaded
    return DeepSpeedMemory(
        per_gpu=quantity(gpu, "byte"),
        per_cpu=quantity(cpu, "byte"),
        largest_layer=quantity(4 * layer, "byte") if zero_stage == 3 else None,
    )
