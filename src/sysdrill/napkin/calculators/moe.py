"""Mixture of experts: expert capacity and the all-to-all of expert parallelism.

A mixture-of-experts layer routes each token to ``k`` of ``E`` experts. With expert
parallelism over ``p`` ranks (``E/p`` experts on each), every MoE layer runs two
all-to-alls in the forward pass (dispatch the tokens to their experts' ranks, then
combine the expert outputs back) and two more in the backward pass (Lepikhin et al.
2020, "GShard: Scaling Giant Models with Conditional Computation and Automatic
Sharding", §2.2-3.1; Fedus et al. 2021, "Switch Transformers", §2.1-2.2).

Expert capacity, the tokens each expert accepts from one rank's batch, is
``⌈T·k·c/E⌉`` for ``T`` tokens and capacity factor ``c`` (Switch Transformers §2.2,
Figure 3, with ``k = 1``; Megatron Core's ``moe_utils.get_capacity`` multiplies the
tokens by ``k`` first). With a capacity the dispatch buffer is padded to ``E``
experts of that many tokens; without one (dropless MoE, Gale et al. 2022,
"MegaBlocks") it holds exactly the ``T·k`` routed copies.

The all-to-all follows the alpha-beta model of the other collectives: with uniform
routing a rank keeps ``1/p`` of its buffer and sends the rest in ``p-1`` exchanges,
``(p-1)·α + (p-1)/p·n/β``; NCCL-tests (``doc/PERFORMANCE.md``) gives all-to-all the
same ``(p-1)/p`` bus-bandwidth factor.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sysdrill.errors import UsageError
from sysdrill.napkin.calculators._quantity import (
    Quantity,
    as_unit,
    quantity,
    require_count,
    require_non_negative,
    require_positive,
)

__all__ = ["ExpertAllToAll", "expert_capacity", "expert_parallel_all_to_all"]

_ALL_TO_ALLS_PER_LAYER_TRAINING = 4
"""Dispatch and combine in the forward pass, and their mirrors in the backward pass."""

_ALL_TO_ALLS_PER_LAYER_INFERENCE = 2
"""Dispatch and combine only: no backward pass."""


def expert_capacity(*, tokens: int, experts: int, top_k: int, capacity_factor: float) -> int:
    """Tokens one expert accepts from one rank's batch: ``⌈T·k·c/E⌉`` (tokens).

    Switch Transformers (Fedus et al. 2021, §2.2) defines the capacity as
    ``tokens per batch / experts × capacity factor``; Figure 3 there draws 6 tokens,
    3 experts and factors 1.0 and 1.5: capacities 2 and 3. Top-k routing sends ``k``
    copies of each token, so the tokens are multiplied by ``k`` first.

    Args:
        tokens: Tokens ``T`` in one rank's batch (per micro-batch).
        experts: Experts ``E`` in the layer.
        top_k: Experts each token is sent to ``k``.
        capacity_factor: Headroom ``c`` over a perfectly even split (1.0 to 2.0 in practice).

    Raises:
        UsageError: a count below 1, ``k > E``, or a capacity factor that is not
            a positive finite number.
    """
    t = require_count(tokens, name="tokens")
    e = require_count(experts, name="experts")
    k = require_count(top_k, name="top_k")
    if k > e:
        raise UsageError(f"top_k must be at most the number of experts ({e}), got {k}")
    c = float(require_positive(capacity_factor, name="capacity_factor"))
    # Round before the ceiling so that 6·1.5/3 = 3.0000000000000004 stays 3.
    return math.ceil(round(t * k * c / e, 9))


@dataclass(frozen=True)
class ExpertAllToAll:
    """One MoE layer's all-to-all traffic per rank, and its time.

    Attributes:
        expert_capacity: Tokens each expert accepts from one rank's batch; None when
            dropless (no capacity factor given).
        tokens_dispatched: Token slots in each rank's dispatch buffer: ``E·capacity``
            with a capacity, ``T·k`` without (token).
        buffer_per_all_to_all: ``slots·h·bytes``, each rank's buffer (byte).
        bytes_sent_per_rank: ``(p-1)/p`` of the buffer: what leaves the rank (byte).
        all_to_all_time: ``(p-1)·α + bytes_sent/β`` (s).
        all_to_alls_per_layer: 4 in training (dispatch and combine, forward and
            backward), 2 in inference.
        time_per_layer: All-to-all time of one MoE layer per step (s).
        time_per_step: ``time_per_layer·moe_layers`` (s), before any overlap with compute.
    """

    expert_capacity: int | None
    tokens_dispatched: Quantity
    buffer_per_all_to_all: Quantity
    bytes_sent_per_rank: Quantity
    all_to_all_time: Quantity
    all_to_alls_per_layer: int
    time_per_layer: Quantity
    time_per_step: Quantity


def expert_parallel_all_to_all(
    *,
    tokens: int,
    hidden_size: int,
    top_k: int,
    experts: int,
    expert_parallel: int,
    bytes_per_element: Quantity,
    bandwidth: Quantity,
    latency: Quantity,
    capacity_factor: float | None = None,
    moe_layers: int = 1,
    training: bool = True,
) -> ExpertAllToAll:
    """All-to-all traffic and time of expert parallelism per rank, per MoE layer and step.

    With ``T`` tokens on a rank, hidden size ``h``, top-``k`` routing over ``E``
    experts spread on ``p`` ranks, ``b`` bytes per element, link bandwidth ``β``
    and latency ``α``: the dispatch buffer holds ``E·⌈T·k·c/E⌉`` token slots with a
    capacity factor ``c``, or ``T·k`` dropless; it is ``n = slots·h·b`` bytes; one
    all-to-all sends ``(p-1)/p·n`` and takes ``(p-1)·α + (p-1)/p·n/β``. Routing is
    taken as uniform: an imbalanced router makes the busiest rank, and so the
    collective, slower (GShard §2.2; Switch Transformers §2.2).

    Args:
        tokens: Tokens ``T`` on each rank per micro-batch (micro-batch × sequence).
        hidden_size: Model width ``h`` (each token's activation has ``h`` elements).
        top_k: Experts each token goes to ``k``.
        experts: Experts ``E`` in a layer; a multiple of ``p``.
        expert_parallel: Expert-parallel ranks ``p``.
        bytes_per_element: Bytes per activation element (2 for BF16, 1 for FP8 dispatch).
        bandwidth: Per-rank link bandwidth ``β`` (byte/s): NVLink in a node, one NIC across.
        latency: Per-exchange latency ``α`` (s).
        capacity_factor: ``c``; None for dropless routing (no padding, no drops).
        moe_layers: MoE layers in the model (the step total multiplies by them).
        training: Four all-to-alls per layer (forward and backward); False: two.

    Raises:
        UsageError: a count below 1, ``k > E``, ``E`` not a multiple of ``p``, or a
            negative or zero size, bandwidth or capacity factor.
        UnitMismatch: a quantity in the wrong unit.
    """
    t = require_count(tokens, name="tokens")
    h = require_count(hidden_size, name="hidden_size")
    k = require_count(top_k, name="top_k")
    e = require_count(experts, name="experts")
    p = require_count(expert_parallel, name="expert_parallel")
    layers = require_count(moe_layers, name="moe_layers")
    if k > e:
        raise UsageError(f"top_k must be at most the number of experts ({e}), got {k}")
    if e % p:
        raise UsageError(f"experts ({e}) must be a multiple of expert_parallel ({p})")
    width = require_positive(
        as_unit(bytes_per_element, "byte", name="bytes_per_element"), name="bytes_per_element"
    )
    beta = require_positive(as_unit(bandwidth, "byte / s", name="bandwidth"), name="bandwidth")
    alpha = require_non_negative(as_unit(latency, "s", name="latency"), name="latency")
    capacity = None
    slots = t * k
    if capacity_factor is not None:
        capacity = expert_capacity(tokens=t, experts=e, top_k=k, capacity_factor=capacity_factor)
        slots = e * capacity
    buffer = (slots * h) * width
    sent = buffer * ((p - 1) / p)
    one = ((p - 1) * alpha + sent / beta).to("s")
    per_layer = _ALL_TO_ALLS_PER_LAYER_TRAINING if training else _ALL_TO_ALLS_PER_LAYER_INFERENCE
    return ExpertAllToAll(
        expert_capacity=capacity,
        tokens_dispatched=quantity(slots, "token"),
        buffer_per_all_to_all=buffer.to("byte"),
        bytes_sent_per_rank=sent.to("byte"),
        all_to_all_time=one,
        all_to_alls_per_layer=per_layer,
        time_per_layer=one * per_layer,
        time_per_step=one * per_layer * layers,
    )
