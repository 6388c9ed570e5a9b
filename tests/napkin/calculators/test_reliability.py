"""Checkpointing and failures: Young 1974, Daly 2006."""

from __future__ import annotations

import math

import pytest

from sysdrill.napkin.calculators.reliability import (
    checkpoint_interval,
    checkpoint_size,
    checkpoint_write_time,
    cluster_mtbf,
    expected_lost_work,
)
from sysdrill.napkin.units import get_registry

Q = get_registry().Quantity


def test_checkpoint_of_70b_with_adam_state() -> None:
    # 14 bytes/param (BF16 weights + FP32 master + two FP32 moments) -> 980 GB.
    size = checkpoint_size(parameters=Q(70e9, "param"))
    assert size.to("GB").magnitude == pytest.approx(980)
    assert checkpoint_write_time(size=size, bandwidth=Q(10, "GB/s")).to("s").magnitude == (
        pytest.approx(98)
    )
    weights_only = checkpoint_size(parameters=Q(70e9, "param"), bytes_per_parameter=Q(2, "B/param"))
    assert weights_only.to("GB").magnitude == pytest.approx(140)


def test_cluster_mtbf_divides_by_device_count() -> None:
    # 50,000 h per GPU over 16,384 GPUs is about 3 h, the order Llama 3's 54-day run saw
    # (Dubey et al. 2024: 419 unexpected interruptions, one every ~3 hours).
    mtbf = cluster_mtbf(device_mtbf=Q(50_000, "hour"), devices=16_384)
    assert mtbf.to("hour").magnitude == pytest.approx(50_000 / 16_384)


def test_young_interval_is_sqrt_2_delta_m() -> None:
    # Young 1974: τ = √(2δM); δ = 5 min, M = 24 h -> √(2·5·1440) = 120 min.
    result = checkpoint_interval(checkpoint_time=Q(5, "min"), mtbf=Q(24, "hour"))
    assert result.young.to("min").magnitude == pytest.approx(120)
    # Daly 2006: τ = √(2δM)(1 + ⅓√(δ/2M) + δ/(18M)) − δ.
    ratio = 5 / (2 * 1440)
    daly = 120 * (1 + math.sqrt(ratio) / 3 + ratio / 9) - 5
    assert result.daly.to("min").magnitude == pytest.approx(daly)
    assert result.overhead_fraction == pytest.approx(5 / 120 + 120 / 2880)


def test_daly_interval_is_mtbf_when_checkpoints_are_slow() -> None:
    result = checkpoint_interval(checkpoint_time=Q(10, "hour"), mtbf=Q(4, "hour"))
    assert result.daly.to("hour").magnitude == pytest.approx(4)


def test_expected_lost_work() -> None:
    # 30 days at a 3 h MTBF is 240 failures, each losing 15 min of work plus 5 min restart.
    lost = expected_lost_work(
        run_time=Q(30, "day"),
        mtbf=Q(3, "hour"),
        checkpoint_interval=Q(30, "min"),
        restart_time=Q(5, "min"),
    )
    assert lost.expected_failures == pytest.approx(240)
    assert lost.lost_per_failure.to("min").magnitude == pytest.approx(20)
    assert lost.total_lost.to("hour").magnitude == pytest.approx(80)
