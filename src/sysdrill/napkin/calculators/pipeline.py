"""Pipeline-parallel bubbles for GPipe, 1F1B and interleaved 1F1B schedules.

With ``P`` stages and ``M`` micro-batches, every schedule idles for ``P-1``
micro-batch slots while the pipeline fills and drains (Huang et al. 2019,
"GPipe"); 1F1B has the same bubble but keeps only ``P`` micro-batches in
flight, and interleaving ``v`` model chunks per GPU shrinks the bubble ``v``
times (Narayanan et al. 2021, "Efficient Large-Scale Language Model Training on
GPU Clusters Using Megatron-LM", §2.2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

from sysdrill.errors import UsageError
from sysdrill.napkin.calculators._quantity import require_count, require_fraction

__all__ = ["PipelineBubble", "Schedule", "micro_batches_for_bubble", "pipeline_bubble"]


class Schedule(Enum):
    """Pipeline schedules."""

    GPIPE = "gpipe"
    ONE_F_ONE_B = "1f1b"
    INTERLEAVED = "interleaved"


@dataclass(frozen=True)
class PipelineBubble:
    """Bubble of one pipeline schedule.

    Attributes:
        bubble_fraction: Idle share of the whole step, ``(P-1)/(v·M + P-1)`` (dimensionless).
        bubble_overhead: Idle time over ideal compute time, ``(P-1)/(v·M)`` (Narayanan's form).
        micro_batches_in_flight: Activations a stage stashes at its peak (micro-batches).
    """

    bubble_fraction: float
    bubble_overhead: float
    micro_batches_in_flight: int


def _chunks(schedule: Schedule, virtual_stages: int) -> int:
    v = require_count(virtual_stages, name="virtual_stages")
    if schedule is not Schedule.INTERLEAVED and v != 1:
        raise UsageError("virtual_stages only applies to the interleaved schedule; leave it at 1")
    return v


def pipeline_bubble(
    *,
    stages: int,
    micro_batches: int,
    schedule: Schedule = Schedule.ONE_F_ONE_B,
    virtual_stages: int = 1,
) -> PipelineBubble:
    """Bubble fraction and memory of a pipeline schedule.

    GPipe and 1F1B: bubble ``(P-1)/(M+P-1)`` of the step, i.e. ``(P-1)/M`` of
    ideal compute (GPipe paper §2.3; Narayanan et al. 2021 §2.2.1). Interleaved
    with ``v`` chunks per GPU: ``(P-1)/(v·M)`` of ideal compute (§2.2.2).
    Micro-batches in flight: ``M`` for GPipe, ``min(P, M)`` for 1F1B and interleaved.

    Args:
        stages: Pipeline stages ``P``.
        micro_batches: Micro-batches per step ``M``.
        schedule: The schedule.
        virtual_stages: Model chunks per GPU ``v`` (interleaved only).
    """
    p = require_count(stages, name="stages")
    m = require_count(micro_batches, name="micro_batches")
    v = _chunks(schedule, virtual_stages)
    if schedule is Schedule.INTERLEAVED and m % p != 0:
        raise UsageError(
            f"the interleaved schedule needs micro_batches divisible by stages ({m} by {p})"
        )
    in_flight = m if schedule is Schedule.GPIPE else min(p, m)
    return PipelineBubble(
        bubble_fraction=(p - 1) / (v * m + p - 1),
        bubble_overhead=(p - 1) / (v * m),
        micro_batches_in_flight=in_flight,
    )


def micro_batches_for_bubble(
    *,
    stages: int,
    target_bubble_fraction: float,
    schedule: Schedule = Schedule.ONE_F_ONE_B,
    virtual_stages: int = 1,
) -> int:
    """Smallest ``M`` whose bubble fraction ``(P-1)/(v·M + P-1)`` is at most the target.

    Solving gives ``M ≥ (P-1)(1-f)/(v·f)``; for the interleaved schedule ``M``
    is rounded up to a multiple of ``P``.

    Args:
        stages: Pipeline stages ``P``.
        target_bubble_fraction: Largest acceptable idle share of the step ``f`` in (0, 1).
        schedule: The schedule.
        virtual_stages: Model chunks per GPU ``v`` (interleaved only).
    """
    p = require_count(stages, name="stages")
    f = require_fraction(
        target_bubble_fraction, name="target_bubble_fraction", allow_zero=False, allow_one=False
    )
    v = _chunks(schedule, virtual_stages)
    # A tiny tolerance keeps exact targets such as 0.2 from rounding one micro-batch up.
    m = max(1, math.ceil((p - 1) * (1 - f) / (v * f) - 1e-9))
    if schedule is Schedule.INTERLEAVED:
        m = math.ceil(m / p) * p
    return m
