"""Collective-communication time under the alpha-beta (latency-bandwidth) model.

Every collective on ``N`` ranks moving a buffer of ``M`` bytes over links of
bandwidth ``β`` (bytes/s) with per-message latency ``α`` (s) costs
``steps·α + volume/β``. The ring forms follow Patarasuk & Yuan 2009
("Bandwidth optimal all-reduce algorithms for clusters of workstations"); the
bus-bandwidth factors follow NCCL-tests ``doc/PERFORMANCE.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

from sysdrill.napkin.calculators._quantity import (
    Quantity,
    as_unit,
    require_count,
    require_non_negative,
    require_positive,
)

__all__ = [
    "BroadcastAlgorithm",
    "Collective",
    "CollectiveTime",
    "all_gather_time",
    "algorithm_bandwidth",
    "broadcast_time",
    "bus_bandwidth",
    "bus_bandwidth_factor",
    "collective_inputs",
    "reduce_scatter_time",
    "ring_allreduce_time",
    "tree_allreduce_time",
]


class Collective(Enum):
    """The collectives NCCL-tests reports bus bandwidth for."""

    ALL_REDUCE = "all-reduce"
    REDUCE_SCATTER = "reduce-scatter"
    ALL_GATHER = "all-gather"
    BROADCAST = "broadcast"
    REDUCE = "reduce"
    ALL_TO_ALL = "all-to-all"


class BroadcastAlgorithm(Enum):
    """How a broadcast moves data: a pipelined ring (chain) or a binomial tree."""

    RING = "ring"
    TREE = "tree"


@dataclass(frozen=True)
class CollectiveTime:
    """Time of one collective and where it goes.

    Attributes:
        time: Total time (s): ``latency_term + bandwidth_term``.
        latency_term: ``steps·α`` (s).
        bandwidth_term: Bytes on the busiest link over ``β`` (s).
        steps: Sequential communication steps, each paying ``α`` once.
        bytes_sent_per_rank: Bytes each rank sends in total (byte).
        algorithm_bandwidth: ``M / time`` as NCCL-tests reports it (byte/s).
        bus_bandwidth: ``algorithm_bandwidth`` times the collective's factor (byte/s).
    """

    time: Quantity
    latency_term: Quantity
    bandwidth_term: Quantity
    steps: int
    bytes_sent_per_rank: Quantity
    algorithm_bandwidth: Quantity
    bus_bandwidth: Quantity


def bus_bandwidth_factor(*, collective: Collective, ranks: int) -> float:
    """Return NCCL-tests' factor from algorithm bandwidth to bus bandwidth.

    Source: NCCL-tests ``doc/PERFORMANCE.md``: all-reduce ``2(n-1)/n``;
    reduce-scatter, all-gather and all-to-all ``(n-1)/n``; broadcast and reduce ``1``.

    Args:
        collective: Which collective.
        ranks: Number of ranks ``n``.
    """
    n = require_count(ranks, name="ranks")
    if collective is Collective.ALL_REDUCE:
        return 2 * (n - 1) / n
    if collective in (Collective.REDUCE_SCATTER, Collective.ALL_GATHER, Collective.ALL_TO_ALL):
        return (n - 1) / n
    return 1.0


def algorithm_bandwidth(*, message: Quantity, time: Quantity) -> Quantity:
    """Return algbw = message size / time (byte/s), as defined by NCCL-tests PERFORMANCE.md."""
    size = require_positive(as_unit(message, "byte", name="message"), name="message")
    seconds = require_positive(as_unit(time, "s", name="time"), name="time")
    return (size / seconds).to("byte / s")


def bus_bandwidth(
    *, collective: Collective, ranks: int, message: Quantity, time: Quantity
) -> Quantity:
    """Return busbw = algbw x factor (byte/s), comparable to the link's peak (NCCL-tests)."""
    factor = bus_bandwidth_factor(collective=collective, ranks=ranks)
    return algorithm_bandwidth(message=message, time=time) * factor


def _result(
    *,
    collective: Collective,
    ranks: int,
    message: Quantity,
    latency: Quantity,
    bandwidth: Quantity,
    steps: int,
    link_bytes: Quantity,
    sent_per_rank: Quantity,
) -> CollectiveTime:
    latency_term = (latency * steps).to("s")
    bandwidth_term = (link_bytes / bandwidth).to("s")
    total = latency_term + bandwidth_term
    if total.magnitude > 0:
        algbw = (message / total).to("byte / s")
    else:
        algbw = bandwidth * 0
    factor = bus_bandwidth_factor(collective=collective, ranks=ranks)
    return CollectiveTime(
        time=total,
        latency_term=latency_term,
        bandwidth_term=bandwidth_term,
        steps=steps,
        bytes_sent_per_rank=sent_per_rank.to("byte"),
        algorithm_bandwidth=algbw,
        bus_bandwidth=algbw * factor,
    )


def collective_inputs(
    ranks: int, message: Quantity, bandwidth: Quantity, latency: Quantity
) -> tuple[int, Quantity, Quantity, Quantity]:
    """Check and convert the alpha-beta inputs: ranks ≥ 1, bytes ≥ 0, byte/s > 0, s ≥ 0.

    Raises:
        UsageError, UnitMismatch: an input out of range or in the wrong unit.
    """
    n = require_count(ranks, name="ranks")
    size = require_non_negative(as_unit(message, "byte", name="message"), name="message")
    beta = require_positive(as_unit(bandwidth, "byte / s", name="bandwidth"), name="bandwidth")
    alpha = require_non_negative(as_unit(latency, "s", name="latency"), name="latency")
    return n, size, beta, alpha


def ring_allreduce_time(
    *, ranks: int, message: Quantity, bandwidth: Quantity, latency: Quantity
) -> CollectiveTime:
    """Time of a ring all-reduce: ``2(N-1)·α + 2(N-1)/N · M/β``.

    A reduce-scatter then an all-gather around the ring, each ``N-1`` steps
    moving ``M/N`` bytes per step; each rank sends ``2(N-1)/N·M`` bytes, which
    is bandwidth-optimal (Patarasuk & Yuan 2009).

    Args:
        ranks: Number of ranks ``N``.
        message: Buffer size ``M`` on each rank (bytes).
        bandwidth: Per-link bandwidth ``β`` (bytes/s).
        latency: Per-step latency ``α`` (s).

    Returns:
        The time split into latency and bandwidth terms, bytes per rank and NCCL's algbw/busbw.
    """
    n, size, beta, alpha = collective_inputs(ranks, message, bandwidth, latency)
    volume = size * (2 * (n - 1) / n)
    return _result(
        collective=Collective.ALL_REDUCE,
        ranks=n,
        message=size,
        latency=alpha,
        bandwidth=beta,
        steps=2 * (n - 1),
        link_bytes=volume,
        sent_per_rank=volume,
    )


def tree_allreduce_time(
    *, ranks: int, message: Quantity, bandwidth: Quantity, latency: Quantity
) -> CollectiveTime:
    """Time of a pipelined (double binary) tree all-reduce: ``2⌈log2 N⌉·α + 2·M/β``.

    A reduce up the tree and a broadcast down it, each ``⌈log2 N⌉`` hops deep;
    with the message pipelined in chunks every link carries about ``M`` bytes
    each way, so the bandwidth term tends to ``2M/β`` while latency grows only
    logarithmically (Sanders, Speck & Träff 2009, "Two-tree algorithms for full
    bandwidth broadcast, reduction and scan"; NCCL 2.4 double binary trees).

    Args:
        ranks: Number of ranks ``N``.
        message: Buffer size ``M`` on each rank (bytes).
        bandwidth: Per-link bandwidth ``β`` (bytes/s).
        latency: Per-hop latency ``α`` (s).
    """
    n, size, beta, alpha = collective_inputs(ranks, message, bandwidth, latency)
    depth = math.ceil(math.log2(n)) if n > 1 else 0
    volume = size * 2 if n > 1 else size * 0
    return _result(
        collective=Collective.ALL_REDUCE,
        ranks=n,
        message=size,
        latency=alpha,
        bandwidth=beta,
        steps=2 * depth,
        link_bytes=volume,
        sent_per_rank=volume,
    )


def reduce_scatter_time(
    *, ranks: int, message: Quantity, bandwidth: Quantity, latency: Quantity
) -> CollectiveTime:
    """Time of a ring reduce-scatter: ``(N-1)·α + (N-1)/N · M/β``.

    ``M`` is the full input buffer on each rank; each rank ends with ``M/N``
    reduced bytes and sends ``(N-1)/N·M`` (Patarasuk & Yuan 2009; NCCL-tests).

    Args:
        ranks: Number of ranks ``N``.
        message: Input buffer size ``M`` on each rank (bytes).
        bandwidth: Per-link bandwidth ``β`` (bytes/s).
        latency: Per-step latency ``α`` (s).
    """
    return _half_ring(Collective.REDUCE_SCATTER, ranks, message, bandwidth, latency)


def all_gather_time(
    *, ranks: int, message: Quantity, bandwidth: Quantity, latency: Quantity
) -> CollectiveTime:
    """Time of a ring all-gather: ``(N-1)·α + (N-1)/N · M/β``.

    ``M`` is the gathered output size (each rank contributes ``M/N``); each
    rank sends ``(N-1)/N·M`` bytes (Patarasuk & Yuan 2009; NCCL-tests).

    Args:
        ranks: Number of ranks ``N``.
        message: Gathered output size ``M`` (bytes).
        bandwidth: Per-link bandwidth ``β`` (bytes/s).
        latency: Per-step latency ``α`` (s).
    """
    return _half_ring(Collective.ALL_GATHER, ranks, message, bandwidth, latency)


def _half_ring(
    collective: Collective,
    ranks: int,
    message: Quantity,
    bandwidth: Quantity,
    latency: Quantity,
) -> CollectiveTime:
    """One ring pass (reduce-scatter or all-gather): N-1 steps of M/N bytes each."""
    n, size, beta, alpha = collective_inputs(ranks, message, bandwidth, latency)
    volume = size * ((n - 1) / n)
    return _result(
        collective=collective,
        ranks=n,
        message=size,
        latency=alpha,
        bandwidth=beta,
        steps=n - 1,
        link_bytes=volume,
        sent_per_rank=volume,
    )


def broadcast_time(
    *,
    ranks: int,
    message: Quantity,
    bandwidth: Quantity,
    latency: Quantity,
    algorithm: BroadcastAlgorithm = BroadcastAlgorithm.RING,
) -> CollectiveTime:
    """Time of a broadcast from one root to ``N-1`` ranks.

    Pipelined ring (chain): ``(N-1)·α + M/β`` once the pipeline is full.
    Binomial tree: ``⌈log2 N⌉·(α + M/β)`` (Thakur, Rabenseifner & Gropp 2005,
    "Optimization of collective communication operations in MPICH").

    Args:
        ranks: Number of ranks ``N``.
        message: Buffer size ``M`` (bytes).
        bandwidth: Per-link bandwidth ``β`` (bytes/s).
        latency: Per-step latency ``α`` (s).
        algorithm: Ring (pipelined chain) or binomial tree.
    """
    n, size, beta, alpha = collective_inputs(ranks, message, bandwidth, latency)
    if n == 1:
        steps, link = 0, size * 0
    elif algorithm is BroadcastAlgorithm.RING:
        steps, link = n - 1, size
    else:
        steps = math.ceil(math.log2(n))
        link = size * steps
    return _result(
        collective=Collective.BROADCAST,
        ranks=n,
        message=size,
        latency=alpha,
        bandwidth=beta,
        steps=steps,
        link_bytes=link,
        sent_per_rank=link,
    )
