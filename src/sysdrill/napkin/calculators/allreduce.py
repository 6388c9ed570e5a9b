"""All-reduce algorithms beyond the ring, under the alpha-beta model.

For ``p`` ranks reducing ``n`` bytes over links of bandwidth ``β`` with latency ``α``:

- ring: ``2(p-1)·α + 2(p-1)/p·n/β`` (Patarasuk & Yuan 2009);
- recursive doubling: ``log2 p·(α + n/β)``, fast for small messages;
- recursive halving-doubling (Rabenseifner 2004, "Optimization of Collective Reduction
  Operations", ICCS; Thakur, Rabenseifner & Gropp 2005 §4.3): a reduce-scatter by
  recursive halving then an all-gather by recursive doubling,
  ``2·log2 p·α + 2(p-1)/p·n/β``: the ring's bandwidth with logarithmic latency;
- double binary tree (Sanders, Speck & Träff 2009; NCCL 2.4): ``2·log2 p·α + 2·n/β``
  with the message pipelined (see :func:`.collectives.tree_allreduce_time`);
- hierarchical: a reduce-scatter inside each node of ``g`` GPUs, an all-reduce of
  the ``n/g`` shard across the ``p/g`` nodes, an all-gather inside the node (the
  2D/hierarchical all-reduce of Horovod and NCCL's CollNet; Jia et al. 2018, "Highly
  Scalable Deep Learning Training System with Mixed-Precision", §4.3).

The computation term of the reductions (``γ`` per byte) is left out, as in the
other collective calculators: on GPUs it hides behind the transfers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sysdrill.napkin.calculators._quantity import (
    Quantity,
    as_unit,
    require_count,
    require_positive,
)
from sysdrill.napkin.calculators.collectives import (
    collective_inputs,
    reduce_scatter_time,
    ring_allreduce_time,
    tree_allreduce_time,
)

__all__ = [
    "AllReduceComparison",
    "HierarchicalAllReduce",
    "compare_allreduce",
    "halving_doubling_allreduce_time",
    "hierarchical_allreduce_time",
    "recursive_doubling_allreduce_time",
]


def _log2_ranks(ranks: int) -> int:
    return math.ceil(math.log2(ranks)) if ranks > 1 else 0


def recursive_doubling_allreduce_time(
    *, ranks: int, message: Quantity, bandwidth: Quantity, latency: Quantity
) -> Quantity:
    """Recursive doubling: ``⌈log2 p⌉·(α + n/β)`` (s); every round swaps the whole buffer.

    Args:
        ranks: Ranks ``p``.
        message: Buffer ``n`` on each rank (byte).
        bandwidth: Link bandwidth ``β`` (byte/s).
        latency: Per-message latency ``α`` (s).
    """
    p, size, beta, alpha = collective_inputs(ranks, message, bandwidth, latency)
    rounds = _log2_ranks(p)
    return (rounds * (alpha + size / beta)).to("s")


def halving_doubling_allreduce_time(
    *, ranks: int, message: Quantity, bandwidth: Quantity, latency: Quantity
) -> Quantity:
    """Rabenseifner's halving-doubling: ``2⌈log2 p⌉·α + 2(p-1)/p·n/β`` (s).

    Exact for a power-of-two ``p``; other counts pay one extra exchange with the
    ranks folded in (Thakur et al. 2005), which this bound leaves out.

    Args:
        ranks: Ranks ``p``.
        message: Buffer ``n`` on each rank (byte).
        bandwidth: Link bandwidth ``β`` (byte/s).
        latency: Per-message latency ``α`` (s).
    """
    p, size, beta, alpha = collective_inputs(ranks, message, bandwidth, latency)
    return (2 * _log2_ranks(p) * alpha + size * (2 * (p - 1) / p) / beta).to("s")


@dataclass(frozen=True)
class AllReduceComparison:
    """One all-reduce timed by four algorithms (s), and the fastest."""

    ring: Quantity
    double_binary_tree: Quantity
    recursive_doubling: Quantity
    halving_doubling: Quantity
    fastest: str


def compare_allreduce(
    *, ranks: int, message: Quantity, bandwidth: Quantity, latency: Quantity
) -> AllReduceComparison:
    """Time one all-reduce with ring, tree, recursive doubling and halving-doubling.

    Args:
        ranks: Ranks ``p``.
        message: Buffer ``n`` on each rank (byte).
        bandwidth: Link bandwidth ``β`` (byte/s).
        latency: Per-message latency ``α`` (s).
    """
    args = {"ranks": ranks, "message": message, "bandwidth": bandwidth, "latency": latency}
    times = {
        "ring": ring_allreduce_time(**args).time,
        "double_binary_tree": tree_allreduce_time(**args).time,
        "recursive_doubling": recursive_doubling_allreduce_time(**args),
        "halving_doubling": halving_doubling_allreduce_time(**args),
    }
    fastest = min(times, key=lambda name: float(times[name].magnitude))
    return AllReduceComparison(**times, fastest=fastest.replace("_", "-"))


@dataclass(frozen=True)
class HierarchicalAllReduce:
    """A two-level all-reduce and its parts (s).

    Attributes:
        intra_reduce_scatter: Ring reduce-scatter of ``n`` inside a node.
        inter_allreduce: Ring all-reduce of ``n/g`` across nodes.
        intra_all_gather: Ring all-gather of ``n`` inside a node.
        time: The sum.
        flat_ring: One ring over all ``p`` ranks whose every step crosses the slower link.
    """

    intra_reduce_scatter: Quantity
    inter_allreduce: Quantity
    intra_all_gather: Quantity
    time: Quantity
    flat_ring: Quantity


def hierarchical_allreduce_time(
    *,
    nodes: int,
    gpus_per_node: int,
    message: Quantity,
    intra_bandwidth: Quantity,
    inter_bandwidth: Quantity,
    intra_latency: Quantity,
    inter_latency: Quantity,
) -> HierarchicalAllReduce:
    """Reduce-scatter in the node, all-reduce across nodes, all-gather in the node.

    With ``g`` GPUs per node and ``m`` nodes: ``2·[(g-1)·α_in + (g-1)/g·n/β_in]``
    plus ``2(m-1)·α_out + 2(m-1)/m·(n/g)/β_out``: each GPU carries only ``1/g`` of
    the buffer across the slow link, and the ``g`` rings across nodes run at once
    (one per NIC). The flat ring over ``p = g·m`` ranks is paced by the slow link:
    ``2(p-1)·α_out + 2(p-1)/p·n/β_out``.

    Args:
        nodes: Nodes ``m``.
        gpus_per_node: GPUs per node ``g``.
        message: Buffer ``n`` on each GPU (byte).
        intra_bandwidth: Bandwidth inside a node ``β_in`` (byte/s), e.g. NVLink.
        inter_bandwidth: Per-GPU bandwidth between nodes ``β_out`` (byte/s), e.g. one NIC.
        intra_latency: Per-step latency inside a node ``α_in`` (s).
        inter_latency: Per-step latency between nodes ``α_out`` (s).
    """
    m = require_count(nodes, name="nodes")
    g = require_count(gpus_per_node, name="gpus_per_node")
    size = require_positive(as_unit(message, "byte", name="message"), name="message")
    inner = {"bandwidth": intra_bandwidth, "latency": intra_latency}
    outer = {"bandwidth": inter_bandwidth, "latency": inter_latency}
    scatter = reduce_scatter_time(ranks=g, message=size, **inner).time
    across = ring_allreduce_time(ranks=m, message=size / g, **outer).time
    gather = scatter  # an all-gather of n over g ranks mirrors the reduce-scatter
    flat = ring_allreduce_time(ranks=m * g, message=size, **outer).time
    return HierarchicalAllReduce(
        intra_reduce_scatter=scatter,
        inter_allreduce=across,
        intra_all_gather=gather,
        time=scatter + across + gather,
        flat_ring=flat,
    )
