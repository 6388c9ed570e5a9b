"""How calculator values are shown to people."""

from __future__ import annotations

import pytest

from sysdrill.napkin.calculators._quantity import describe, quantity


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (quantity(3.5e-3, "s"), "3.5 ms"),
        (quantity(90, "s"), "90 s"),
        (quantity(300, "s"), "5 min"),
        (quantity(7200, "s"), "2 hours"),
        (quantity(3 * 86400, "s"), "3 days"),
        (quantity(10 * 86400, "s"), "10 days"),
        (quantity(50_000, "hour"), "5.704 years"),
        (quantity(1.75e9, "byte"), "1.75 GB"),
        (quantity(2.857e10, "byte / s"), "28.57 GB/s"),
        (quantity(3.15e23, "FLOP"), "3.15e23 FLOP"),
        (quantity(1.4e12, "token"), "1.4T tokens"),
        (quantity(7e9, "param"), "7B params"),
        (quantity(1280, "USD"), "$1,280"),
        (quantity(123456.7, "GPU * hour"), "123,457 GPU-hours"),
        (quantity(327680, "byte / token"), "327.7 KB/token"),
        (quantity(0, "byte"), "0 B"),
        (quantity(2.5, "USD / GPU / hour"), "$2.50/GPU-hour"),
        (quantity(238_300, "token / s"), "238.3K tokens/s"),
        (quantity(1 / 6, "FLOP / byte"), "0.1667 FLOP/B"),
        (quantity(4096 / 3, "FLOP / byte"), "1,365 FLOP/B"),
        (0.45726, "0.45726"),
        (0.0078125, "0.0078125"),
        (70000.0, "70,000"),
        (float("inf"), "inf"),
        (16384, "16,384"),
        (True, "True"),
        ("memory-bound", "memory-bound"),
    ],
)
def test_describe(value: object, text: str) -> None:
    assert describe(value) == text
