"""Failures and checkpoints: checkpoint size and write time, cluster MTBF, the optimal interval.

With failures arriving at random (exponentially distributed), a cluster of
``N`` devices fails ``N`` times as often as one device. Checkpointing every
``τ`` seconds at a cost of ``δ`` seconds each minimises lost time near
``τ = √(2·δ·M)`` (Young 1974, "A first order approximation to the optimum
checkpoint interval"), refined by Daly 2006 ("A higher order estimate of the
optimum checkpoint interval for restart dumps").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sysdrill.napkin.calculators._quantity import (
    Percent,
    Quantity,
    as_unit,
    quantity,
    require_count,
    require_positive,
)

__all__ = [
    "CheckpointInterval",
    "LostWork",
    "checkpoint_interval",
    "checkpoint_size",
    "checkpoint_write_time",
    "cluster_mtbf",
    "expected_lost_work",
]


def checkpoint_size(
    *, parameters: Quantity, bytes_per_parameter: Quantity | None = None
) -> Quantity:
    """Checkpoint bytes ``N · bytes/param``.

    Args:
        parameters: Model size ``N`` (param).
        bytes_per_parameter: Bytes saved per parameter (byte/param); when None,
            14 for mixed-precision Adam: BF16 weights (2) + FP32 master weights (4) +
            two FP32 moments (8), as counted in the ZeRO paper (Rajbhandari et al. 2020).
    """
    n = require_positive(as_unit(parameters, "param", name="parameters"), name="parameters")
    width = quantity(14, "byte / param") if bytes_per_parameter is None else bytes_per_parameter
    width = require_positive(
        as_unit(width, "byte / param", name="bytes_per_parameter"), name="bytes_per_parameter"
    )
    return (n * width).to("byte")


def checkpoint_write_time(*, size: Quantity, bandwidth: Quantity) -> Quantity:
    """Time to write a checkpoint, ``size / bandwidth`` (s).

    Args:
        size: Checkpoint size (byte).
        bandwidth: Aggregate write bandwidth to storage (byte/s).
    """
    bytes_ = as_unit(size, "byte", name="size")
    rate = require_positive(as_unit(bandwidth, "byte / s", name="bandwidth"), name="bandwidth")
    return (bytes_ / rate).to("s")


def cluster_mtbf(*, device_mtbf: Quantity, devices: int) -> Quantity:
    """Mean time between failures of ``N`` independent devices: ``MTBF_device / N`` (s).

    Args:
        device_mtbf: Mean time between failures of one device (time).
        devices: Devices ``N`` whose failure stops the job.
    """
    mtbf = require_positive(as_unit(device_mtbf, "s", name="device_mtbf"), name="device_mtbf")
    return (mtbf / require_count(devices, name="devices")).to("hour")


@dataclass(frozen=True)
class CheckpointInterval:
    """Optimal time between checkpoints.

    Attributes:
        young: ``√(2·δ·M)`` (s), Young 1974.
        daly: ``√(2δM)·(1 + ⅓√(δ/2M) + δ/(18M)) − δ`` for ``δ < 2M``, else ``M`` (s), Daly 2006.
        overhead_fraction: Expected share of time lost at the Young interval,
            ``δ/τ + τ/(2M)`` (first order).
    """

    young: Quantity
    daly: Quantity
    overhead_fraction: float


def checkpoint_interval(*, checkpoint_time: Quantity, mtbf: Quantity) -> CheckpointInterval:
    """Checkpoint interval that minimises expected lost time (Young 1974; Daly 2006).

    Args:
        checkpoint_time: Time to write one checkpoint ``δ`` (s).
        mtbf: Mean time between failures of the whole job ``M`` (s).
    """
    delta = require_positive(
        as_unit(checkpoint_time, "s", name="checkpoint_time"), name="checkpoint_time"
    )
    m = require_positive(as_unit(mtbf, "s", name="mtbf"), name="mtbf")
    d, big_m = delta.magnitude, m.magnitude
    young = math.sqrt(2 * d * big_m)
    if d < 2 * big_m:
        ratio = d / (2 * big_m)
        daly = young * (1 + math.sqrt(ratio) / 3 + ratio / 9) - d
    else:
        daly = big_m
    return CheckpointInterval(
        young=quantity(young, "s"),
        daly=quantity(daly, "s"),
        overhead_fraction=Percent(d / young + young / (2 * big_m)),
    )


@dataclass(frozen=True)
class LostWork:
    """Work lost to failures over a run.

    Attributes:
        expected_failures: ``T / M``.
        lost_per_failure: ``τ/2 + R`` (s): half an interval redone, plus the restart.
        total_lost: ``failures · lost_per_failure`` (s).
    """

    expected_failures: float
    lost_per_failure: Quantity
    total_lost: Quantity


def expected_lost_work(
    *,
    run_time: Quantity,
    mtbf: Quantity,
    checkpoint_interval: Quantity,
    restart_time: Quantity | None = None,
) -> LostWork:
    """Expected work lost to failures: ``(T/M) · (τ/2 + R)`` (first order, Young 1974).

    Args:
        run_time: Length of the run ``T`` (s).
        mtbf: Mean time between failures of the job ``M`` (s).
        checkpoint_interval: Time between checkpoints ``τ`` (s).
        restart_time: Time to detect, restart and reload ``R`` (s); 0 when None.
    """
    t = as_unit(run_time, "s", name="run_time")
    m = require_positive(as_unit(mtbf, "s", name="mtbf"), name="mtbf")
    tau = as_unit(checkpoint_interval, "s", name="checkpoint_interval")
    restart = (
        quantity(0, "s")
        if restart_time is None
        else as_unit(restart_time, "s", name="restart_time")
    )
    failures = float((t / m).to(""))
    lost = tau / 2 + restart
    return LostWork(expected_failures=failures, lost_per_failure=lost, total_lost=lost * failures)
