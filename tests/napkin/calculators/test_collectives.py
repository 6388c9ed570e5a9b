"""Collective times against the alpha-beta formulas and NCCL-tests' bus-bandwidth factors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sysdrill.errors import UnitMismatch, UsageError
from sysdrill.napkin.calculators.collectives import (
    BroadcastAlgorithm,
    Collective,
    all_gather_time,
    broadcast_time,
    bus_bandwidth,
    bus_bandwidth_factor,
    reduce_scatter_time,
    ring_allreduce_time,
    tree_allreduce_time,
)
from sysdrill.napkin.units import get_registry

Q = get_registry().Quantity


def test_ring_allreduce_matches_the_issue_worked_example() -> None:
    # Issue 3's worked example: 2*(8-1)/8 * 100 MB / (50 GB/s) = 3.5 ms (no latency).
    result = ring_allreduce_time(
        ranks=8, message=Q(100, "MB"), bandwidth=Q(50, "GB/s"), latency=Q(0, "s")
    )
    assert result.time.to("ms").magnitude == pytest.approx(3.5)
    assert result.steps == 14


def test_ring_allreduce_splits_latency_and_bandwidth_terms() -> None:
    # Patarasuk & Yuan 2009: 2(N-1) steps of alpha, 2(N-1)/N * M bytes per rank.
    result = ring_allreduce_time(
        ranks=8, message=Q(1, "GB"), bandwidth=Q(50, "GB/s"), latency=Q(5, "us")
    )
    assert result.latency_term.to("us").magnitude == pytest.approx(70)
    assert result.bandwidth_term.to("ms").magnitude == pytest.approx(35)
    assert result.bytes_sent_per_rank.to("GB").magnitude == pytest.approx(1.75)


def test_ring_bus_bandwidth_equals_link_bandwidth_without_latency() -> None:
    # NCCL-tests PERFORMANCE.md: busbw is chosen so that it reads as the link's speed.
    result = ring_allreduce_time(
        ranks=16, message=Q(4, "GB"), bandwidth=Q(100, "GB/s"), latency=Q(0, "s")
    )
    assert result.bus_bandwidth.to("GB/s").magnitude == pytest.approx(100)


@pytest.mark.parametrize(
    ("collective", "ranks", "factor"),
    [
        (Collective.ALL_REDUCE, 8, 2 * 7 / 8),
        (Collective.ALL_REDUCE, 2, 1.0),
        (Collective.REDUCE_SCATTER, 8, 7 / 8),
        (Collective.ALL_GATHER, 4, 3 / 4),
        (Collective.ALL_TO_ALL, 8, 7 / 8),
        (Collective.BROADCAST, 8, 1.0),
        (Collective.REDUCE, 8, 1.0),
    ],
)
def test_bus_bandwidth_factor_follows_nccl_tests(
    collective: Collective, ranks: int, factor: float
) -> None:
    # NCCL-tests doc/PERFORMANCE.md: all-reduce 2(n-1)/n, RS/AG (n-1)/n, broadcast 1.
    assert bus_bandwidth_factor(collective=collective, ranks=ranks) == pytest.approx(factor)


def test_bus_bandwidth_from_measured_time() -> None:
    busbw = bus_bandwidth(
        collective=Collective.ALL_REDUCE, ranks=8, message=Q(1, "GB"), time=Q(10, "ms")
    )
    assert busbw.to("GB/s").magnitude == pytest.approx(100 * 2 * 7 / 8)


def test_reduce_scatter_and_all_gather_each_cost_half_an_allreduce() -> None:
    args = {"ranks": 8, "message": Q(1, "GB"), "bandwidth": Q(50, "GB/s"), "latency": Q(5, "us")}
    full = ring_allreduce_time(**args)
    halves = reduce_scatter_time(**args).time + all_gather_time(**args).time
    assert halves.to("s").magnitude == pytest.approx(full.time.to("s").magnitude)


def test_tree_allreduce_has_logarithmic_latency() -> None:
    result = tree_allreduce_time(
        ranks=1024, message=Q(8, "kB"), bandwidth=Q(50, "GB/s"), latency=Q(2, "us")
    )
    assert result.steps == 20
    ring = ring_allreduce_time(
        ranks=1024, message=Q(8, "kB"), bandwidth=Q(50, "GB/s"), latency=Q(2, "us")
    )
    assert result.time < ring.time


def test_ring_beats_tree_for_large_messages_on_few_ranks() -> None:
    args = {"ranks": 8, "message": Q(1, "GB"), "bandwidth": Q(50, "GB/s"), "latency": Q(5, "us")}
    assert ring_allreduce_time(**args).time < tree_allreduce_time(**args).time


def test_broadcast_algorithms() -> None:
    args = {"ranks": 16, "message": Q(2, "GB"), "bandwidth": Q(25, "GB/s"), "latency": Q(0, "s")}
    ring = broadcast_time(**args)
    tree = broadcast_time(**args, algorithm=BroadcastAlgorithm.TREE)
    assert ring.time.to("ms").magnitude == pytest.approx(80)
    assert tree.time.to("ms").magnitude == pytest.approx(4 * 80)


def test_single_rank_collectives_cost_nothing() -> None:
    args = {"ranks": 1, "message": Q(1, "GB"), "bandwidth": Q(50, "GB/s"), "latency": Q(5, "us")}
    assert ring_allreduce_time(**args).time.magnitude == 0
    assert tree_allreduce_time(**args).time.magnitude == 0
    assert broadcast_time(**args).time.magnitude == 0


def test_collectives_reject_wrong_units_and_counts() -> None:
    with pytest.raises(UnitMismatch, match="bandwidth"):
        ring_allreduce_time(ranks=8, message=Q(1, "GB"), bandwidth=Q(5, "s"), latency=Q(0, "s"))
    with pytest.raises(UnitMismatch, match="message"):
        ring_allreduce_time(ranks=8, message=Q(1, "s"), bandwidth=Q(5, "GB/s"), latency=Q(0, "s"))
    with pytest.raises(UnitMismatch, match="bare number"):
        ring_allreduce_time(ranks=8, message=1e9, bandwidth=Q(5, "GB/s"), latency=Q(0, "s"))
    with pytest.raises(UsageError, match="ranks"):
        ring_allreduce_time(ranks=0, message=Q(1, "GB"), bandwidth=Q(5, "GB/s"), latency=Q(0, "s"))
    with pytest.raises(UsageError, match="bandwidth"):
        ring_allreduce_time(ranks=8, message=Q(1, "GB"), bandwidth=Q(0, "GB/s"), latency=Q(0, "s"))


def test_bytes_and_plain_rates_do_not_mix() -> None:
    # pint treats bytes as dimensionless; "50 per second" is still not a bandwidth.
    with pytest.raises(UnitMismatch):
        ring_allreduce_time(ranks=8, message=Q(1, "GB"), bandwidth=Q(50, "1/s"), latency=Q(0, "s"))


@settings(deadline=None)  # tests never assert on timing
@given(
    small=st.floats(min_value=1, max_value=1e12),
    factor=st.floats(min_value=1.0, max_value=1e3),
    ranks=st.integers(min_value=1, max_value=4096),
)
def test_allreduce_time_is_monotone_in_message_size(
    small: float, factor: float, ranks: int
) -> None:
    args = {"ranks": ranks, "bandwidth": Q(50, "GB/s"), "latency": Q(5, "us")}
    for function in (ring_allreduce_time, tree_allreduce_time):
        low = function(message=Q(small, "B"), **args).time
        high = function(message=Q(small * factor, "B"), **args).time
        assert low <= high


@settings(deadline=None)  # tests never assert on timing
@given(ranks=st.integers(min_value=2, max_value=100_000))
def test_ring_bytes_per_rank_stay_below_twice_the_message(ranks: int) -> None:
    result = ring_allreduce_time(
        ranks=ranks, message=Q(1, "GB"), bandwidth=Q(1, "GB/s"), latency=Q(0, "s")
    )
    assert Q(1, "GB") <= result.bytes_sent_per_rank < Q(2, "GB")
