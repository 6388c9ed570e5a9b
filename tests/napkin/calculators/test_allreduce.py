"""All-reduce algorithms under the alpha-beta model (Rabenseifner 2004; Thakur et al. 2005)."""

from __future__ import annotations

import pytest

from sysdrill.napkin.calculators._quantity import quantity
from sysdrill.napkin.calculators.allreduce import (
    compare_allreduce,
    halving_doubling_allreduce_time,
    hierarchical_allreduce_time,
    recursive_doubling_allreduce_time,
)

LINK = {"bandwidth": quantity(1e9, "byte / s"), "latency": quantity(10, "us")}


def test_halving_doubling_has_ring_bandwidth_and_log_latency() -> None:
    # Thakur, Rabenseifner & Gropp 2005 §4.3: 2 lg p α + 2 (p-1)/p n β.
    time = halving_doubling_allreduce_time(ranks=16, message=quantity(16, "MB"), **LINK)
    expected = 2 * 4 * 10e-6 + 2 * 15 / 16 * 16e6 / 1e9
    assert time.to("s").magnitude == pytest.approx(expected)


def test_recursive_doubling_sends_the_whole_buffer_every_round() -> None:
    # Thakur et al. 2005: lg p α + n lg p β.
    time = recursive_doubling_allreduce_time(ranks=8, message=quantity(1, "MB"), **LINK)
    assert time.to("s").magnitude == pytest.approx(3 * (10e-6 + 1e6 / 1e9))


def test_small_messages_favour_log_latency_and_large_ones_ring_bandwidth() -> None:
    small = compare_allreduce(ranks=64, message=quantity(8, "kB"), **LINK)
    large = compare_allreduce(ranks=64, message=quantity(1, "GB"), **LINK)
    assert small.fastest == "recursive-doubling"
    assert large.fastest in ("ring", "halving-doubling")
    assert large.halving_doubling < large.ring  # same bandwidth term, fewer latencies
    assert large.ring < large.double_binary_tree  # 2(p-1)/p n beats 2n


def test_hierarchical_sends_one_gth_across_nodes() -> None:
    # 16 nodes of 8 GPUs, 1 GB, NVLink 450 GB/s inside, 50 GB/s per GPU across, no latency:
    # inside 2 · 7/8 · 1 GB / 450 GB/s; across 2 · 15/16 · (1 GB / 8) / 50 GB/s.
    result = hierarchical_allreduce_time(
        nodes=16,
        gpus_per_node=8,
        message=quantity(1, "GB"),
        intra_bandwidth=quantity(450, "GB/s"),
        inter_bandwidth=quantity(50, "GB/s"),
        intra_latency=quantity(0, "s"),
        inter_latency=quantity(0, "s"),
    )
    inside = 2 * 7 / 8 * 1e9 / 450e9
    across = 2 * 15 / 16 * 1e9 / 8 / 50e9
    assert result.time.to("s").magnitude == pytest.approx(inside + across)
    assert result.flat_ring.to("s").magnitude == pytest.approx(2 * 127 / 128 * 1e9 / 50e9)
    assert result.time < result.flat_ring
