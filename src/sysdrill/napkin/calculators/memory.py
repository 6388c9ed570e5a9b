"""Training memory: model state per GPU under DDP, ZeRO and FSDP, and activations.

Model state is weights + gradients + optimizer state, counted in bytes per
parameter (Rajbhandari et al. 2020, "ZeRO: Memory Optimizations Toward Training
Trillion Parameter Models"). Activation memory follows Korthikanti et al. 2022,
"Reducing Activation Recomputation in Large Transformer Models", Table 2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

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
    "BytesPerParameter",
    "CheckpointedActivations",
    "FsdpPeakMemory",
    "MemoryFit",
    "ModelStateMemory",
    "Optimizer",
    "Precision",
    "Recompute",
    "activation_memory_per_layer",
    "bytes_per_parameter",
    "checkpointed_activation_memory",
    "fsdp_peak_memory",
    "memory_fit",
    "model_state_memory",
    "best_checkpoint_interval",
    "sqrt_checkpoint_interval",
]


class Precision(Enum):
    """How weights and gradients are stored during training."""

    FP32 = "fp32"
    """Everything in 32-bit floats."""
    MIXED = "mixed"
    """FP16/BF16 weights and gradients with an FP32 master copy (Micikevicius et al. 2018)."""

    @classmethod
    def _missing_(cls, value: object) -> Precision | None:
        # People name the compute format: bf16/fp16 training keeps an FP32 master copy,
        # and TF32 only rounds inside the matmul, so its state is FP32.
        spelled = str(value).strip().lower().replace("-", "").replace("_", "")
        if spelled in ("bf16", "fp16", "bfloat16", "float16", "amp", "mixedprecision"):
            return cls.MIXED
        if spelled in ("tf32", "float32", "single"):
            return cls.FP32
        return None


class Optimizer(Enum):
    """Optimizers whose state size per parameter is known."""

    ADAM = "adam"
    """Adam/AdamW: two FP32 moments (8 bytes/param)."""
    ADAM_8BIT = "adam-8bit"
    """Block-wise 8-bit Adam: two 1-byte moments (Dettmers et al. 2022)."""
    SGD_MOMENTUM = "sgd-momentum"
    """SGD with one FP32 momentum buffer (4 bytes/param)."""
    SGD = "sgd"
    """Plain SGD: no optimizer state."""


class Recompute(Enum):
    """Activation recomputation strategy (Korthikanti et al. 2022)."""

    NONE = "none"
    SELECTIVE = "selective"
    """Recompute only the attention softmax/dropout/score part (the ``5as/h`` term)."""
    FULL = "full"
    """Keep only each layer's input and recompute the layer in the backward pass."""


_MOMENT_BYTES: dict[Optimizer, int] = {
    Optimizer.ADAM: 8,
    Optimizer.ADAM_8BIT: 2,
    Optimizer.SGD_MOMENTUM: 4,
    Optimizer.SGD: 0,
}


@dataclass(frozen=True)
class BytesPerParameter:
    """Bytes each parameter costs in training (all in byte/param)."""

    weights: Quantity
    gradients: Quantity
    optimizer_states: Quantity
    """Optimizer moments plus, in mixed precision, the FP32 master weights."""
    total: Quantity


def bytes_per_parameter(
    *, optimizer: Optimizer = Optimizer.ADAM, precision: Precision = Precision.MIXED
) -> BytesPerParameter:
    """Return the model-state bytes per parameter for an optimizer and precision.

    Mixed-precision Adam is ``2 + 2 + 12 = 16`` bytes: FP16 weights and
    gradients, then an FP32 master copy, momentum and variance (ZeRO paper §3.1,
    ``K = 12``). FP32 Adam is ``4 + 4 + 8``. 8-bit Adam keeps its two moments in
    one byte each (Dettmers et al. 2022, "8-bit Optimizers via Block-wise
    Quantization"); SGD with momentum keeps one FP32 buffer.

    Args:
        optimizer: The optimizer.
        precision: FP32 or mixed precision.
    """
    if precision is Precision.FP32:
        weights, gradients, states = 4, 4, _MOMENT_BYTES[optimizer]
    else:
        weights, gradients, states = 2, 2, 4 + _MOMENT_BYTES[optimizer]
    unit = "byte / param"
    return BytesPerParameter(
        weights=quantity(weights, unit),
        gradients=quantity(gradients, unit),
        optimizer_states=quantity(states, unit),
        total=quantity(weights + gradients + states, unit),
    )


@dataclass(frozen=True)
class ModelStateMemory:
    """Model state held by one GPU (all in bytes)."""

    weights: Quantity
    gradients: Quantity
    optimizer_states: Quantity
    total: Quantity
    parameters_per_model_shard: Quantity
    """Parameters after tensor and pipeline partitioning (param)."""


def model_state_memory(
    *,
    parameters: Quantity,
    optimizer: Optimizer = Optimizer.ADAM,
    precision: Precision = Precision.MIXED,
    zero_stage: int = 0,
    data_parallel: int = 1,
    tensor_parallel: int = 1,
    pipeline_parallel: int = 1,
) -> ModelStateMemory:
    """Per-GPU model-state memory under DDP (stage 0) or ZeRO stages 1-3.

    With ``Ψ' = Ψ/(TP·PP)`` parameters per model shard and ``N_d`` data-parallel
    ranks (Rajbhandari et al. 2020, Figure 1): DDP ``(2+2+K)Ψ'``; ZeRO-1 shards
    optimizer states ``2Ψ' + 2Ψ' + KΨ'/N_d``; ZeRO-2 also gradients
    ``2Ψ' + (2+K)Ψ'/N_d``; ZeRO-3 (= FSDP FULL_SHARD) everything ``(2+2+K)Ψ'/N_d``.

    Args:
        parameters: Model size ``Ψ`` (param).
        optimizer: The optimizer (sets ``K``).
        precision: FP32 or mixed precision.
        zero_stage: 0 (plain data parallelism), 1, 2 or 3.
        data_parallel: Data-parallel degree ``N_d`` that ZeRO shards across.
        tensor_parallel: Tensor-parallel degree.
        pipeline_parallel: Pipeline-parallel degree.

    Raises:
        UsageError: a stage outside 0-3 or a degree below 1.
    """
    if zero_stage not in (0, 1, 2, 3):
        raise UsageError(f"zero_stage must be 0, 1, 2 or 3, got {zero_stage!r}")
    nd = require_count(data_parallel, name="data_parallel")
    tp = require_count(tensor_parallel, name="tensor_parallel")
    pp = require_count(pipeline_parallel, name="pipeline_parallel")
    psi = require_positive(as_unit(parameters, "param", name="parameters"), name="parameters")
    shard = psi / (tp * pp)
    per = bytes_per_parameter(optimizer=optimizer, precision=precision)
    weights = (shard * per.weights).to("byte")
    gradients = (shard * per.gradients).to("byte")
    states = (shard * per.optimizer_states).to("byte")
    if zero_stage >= 1:
        states = states / nd
    if zero_stage >= 2:
        gradients = gradients / nd
    if zero_stage >= 3:
        weights = weights / nd
    return ModelStateMemory(
        weights=weights,
        gradients=gradients,
        optimizer_states=states,
        total=weights + gradients + states,
        parameters_per_model_shard=shard,
    )


@dataclass(frozen=True)
class FsdpPeakMemory:
    """Peak model-state memory of one GPU under FSDP FULL_SHARD (bytes)."""

    sharded_state: Quantity
    gathered_layers: Quantity
    """Unsharded weights and gradients of the layers being computed."""
    total: Quantity


def fsdp_peak_memory(
    *,
    parameters: Quantity,
    layers: int,
    gpus: int,
    optimizer: Optimizer = Optimizer.ADAM,
    precision: Precision = Precision.MIXED,
    gathered_layers: int = 1,
) -> FsdpPeakMemory:
    """Peak per-GPU model state under FSDP with one (or a few) layers gathered.

    ``peak = (2+2+K)Ψ/N + g·(Ψ/L)·(w + g_b)``: the ZeRO-3 shard plus the full
    weights (``w`` bytes/param) and gradients (``g_b``) of the ``g`` layers
    all-gathered at once (Zhao et al. 2023, "PyTorch FSDP: Experiences on
    Scaling Fully Sharded Data Parallel", §3; one FSDP unit per layer).

    Args:
        parameters: Model size ``Ψ`` (param), spread evenly over ``layers``.
        layers: Number of FSDP units (transformer layers) ``L``.
        gpus: Sharding degree ``N``.
        optimizer: The optimizer.
        precision: FP32 or mixed precision.
        gathered_layers: Units unsharded at the same time (2 with prefetching).
    """
    count = require_count(layers, name="layers")
    live = require_count(gathered_layers, name="gathered_layers")
    state = model_state_memory(
        parameters=parameters,
        optimizer=optimizer,
        precision=precision,
        zero_stage=3,
        data_parallel=gpus,
    )
    per = bytes_per_parameter(optimizer=optimizer, precision=precision)
    per_layer = as_unit(parameters, "param", name="parameters") / count
    gathered = (per_layer * (per.weights + per.gradients) * min(live, count)).to("byte")
    return FsdpPeakMemory(
        sharded_state=state.total, gathered_layers=gathered, total=state.total + gathered
    )


def activation_memory_per_layer(
    *,
    sequence_length: int,
    micro_batch: int,
    hidden_size: int,
    attention_heads: int,
    tensor_parallel: int = 1,
    sequence_parallel: bool = False,
    recompute: Recompute = Recompute.NONE,
) -> Quantity:
    """Activation bytes one transformer layer keeps for its backward pass.

    Korthikanti et al. 2022, Table 2 (16-bit activations, 1-byte dropout masks):

    - no parallelism: ``s·b·h·(34 + 5·a·s/h)``
    - tensor parallel ``t``: ``s·b·h·(10 + 24/t + 5·a·s/(h·t))``
    - tensor + sequence parallel: ``s·b·h/t·(34 + 5·a·s/h)``
    - selective recompute drops the ``5·a·s/h`` term;
    - full recompute keeps only the layer input: ``2·s·b·h`` (``/t`` with sequence parallelism).

    Args:
        sequence_length: Tokens per sequence ``s``.
        micro_batch: Sequences per micro-batch ``b``.
        hidden_size: Hidden dimension ``h``.
        attention_heads: Attention heads ``a``.
        tensor_parallel: Tensor-parallel degree ``t``.
        sequence_parallel: Whether sequence parallelism shards the non-tensor-parallel parts.
        recompute: Recomputation strategy.

    Returns:
        Bytes per layer per GPU.
    """
    s = require_count(sequence_length, name="sequence_length")
    b = require_count(micro_batch, name="micro_batch")
    h = require_count(hidden_size, name="hidden_size")
    a = require_count(attention_heads, name="attention_heads")
    t = require_count(tensor_parallel, name="tensor_parallel")
    sbh = s * b * h
    attention = 0.0 if recompute is Recompute.SELECTIVE else 5 * a * s / h
    if recompute is Recompute.FULL:
        per_layer = 2 * sbh / (t if sequence_parallel else 1)
    elif sequence_parallel:
        per_layer = sbh / t * (34 + attention)
    else:
        per_layer = sbh * (10 + 24 / t + attention / t)
    return quantity(per_layer, "byte")


@dataclass(frozen=True)
class CheckpointedActivations:
    """Activation memory with a checkpoint every ``k`` layers (bytes)."""

    checkpoints: Quantity
    """The stored layer inputs, ``⌈L/k⌉`` of them."""
    recomputed_segment: Quantity
    """Full activations of one ``k``-layer segment while it is recomputed."""
    total: Quantity
    without_checkpointing: Quantity
    """``L`` layers of full activations, for comparison."""


def checkpointed_activation_memory(
    *,
    layers: int,
    layer_activations: Quantity,
    layer_input: Quantity,
    checkpoint_every: int,
) -> CheckpointedActivations:
    """Activation memory when only every ``k``-th layer input is kept.

    ``memory = ⌈L/k⌉·input + k·activations``; with input and activations of one
    size it is smallest near ``k = √L``, for ``O(√L)`` memory at the cost of one
    extra forward pass (Chen et al. 2016, "Training Deep Nets with Sublinear Memory
    Cost"); :func:`best_checkpoint_interval` finds the best ``k`` for any sizes.

    Args:
        layers: Layers ``L``.
        layer_activations: Full activations one layer keeps (bytes).
        layer_input: Size of one layer's input, the checkpoint (bytes).
        checkpoint_every: Segment length ``k`` in layers.
    """
    count = require_count(layers, name="layers")
    k = min(require_count(checkpoint_every, name="checkpoint_every"), count)
    act = as_unit(layer_activations, "byte", name="layer_activations")
    inp = as_unit(layer_input, "byte", name="layer_input")
    stored = inp * math.ceil(count / k)
    segment = act * k
    return CheckpointedActivations(
        checkpoints=stored,
        recomputed_segment=segment,
        total=stored + segment,
        without_checkpointing=act * count,
    )


def sqrt_checkpoint_interval(*, layers: int) -> int:
    """Return the segment length near ``√L`` that minimises checkpointed memory (Chen et al. 2016).

    Args:
        layers: Layers ``L``.

    Returns:
        ``max(1, round(√L))`` layers per segment.
    """
    return max(1, round(math.sqrt(require_count(layers, name="layers"))))


def best_checkpoint_interval(
    *, layers: int, layer_activations: Quantity, layer_input: Quantity
) -> int:
    """Return the segment length ``k`` that minimises ``⌈L/k⌉·input + k·activations``.

    Near ``√(L·input/activations)``; that is Chen et al.'s ``√L`` only when one
    layer's input is about the size of its activations, while in a transformer the
    input (``2sbh`` bytes) is often a small fraction of them, so segments run longer.
    Every ``k`` from 1 to ``L`` is tried (ties go to the shorter segment, which
    recomputes less).

    Args:
        layers: Layers ``L``.
        layer_activations: Full activations one layer keeps (bytes).
        layer_input: Size of one layer's input, the checkpoint (bytes).
    """
    count = require_count(layers, name="layers")
    act = float(as_unit(layer_activations, "byte", name="layer_activations").magnitude)
    inp = float(as_unit(layer_input, "byte", name="layer_input").magnitude)
    return min(range(1, count + 1), key=lambda k: math.ceil(count / k) * inp + k * act)


@dataclass(frozen=True)
class MemoryFit:
    """Whether a footprint fits in one device's memory.

    Attributes:
        fits: ``required <= capacity``.
        utilization: ``required / capacity`` (1.0 is exactly full).
        headroom: ``capacity - required`` (bytes; negative when it does not fit).
    """

    fits: bool
    utilization: float
    headroom: Quantity


def memory_fit(*, required: Quantity, capacity: Quantity) -> MemoryFit:
    """Compare a per-GPU footprint with a GPU's memory.

    The check counts only what the calculator computed (model state, or a KV
    cache); frameworks also reserve memory for the CUDA context, workspaces and
    fragmentation, so a utilisation near 1 does not fit in practice.

    Args:
        required: Bytes needed per GPU.
        capacity: Bytes one GPU has.
    """
    need = as_unit(required, "byte", name="required")
    have = require_positive(as_unit(capacity, "byte", name="capacity"), name="capacity")
    ratio = float((need / have).to(""))
    return MemoryFit(fits=need <= have, utilization=Percent(ratio), headroom=have - need)
