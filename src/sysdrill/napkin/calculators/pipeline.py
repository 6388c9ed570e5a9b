"""Pipeline-parallel bubbles for GPipe, 1F1B and interleaved 1F1B schedules.

With ``P`` stages and ``M`` micro-batches, every schedule idles for ``P-1``
micro-batch slots while the pipeline fills and drains (Huang et al. 2019,
"GPipe"); 1F1B has the same bubble but keeps only ``P`` micro-batches in
flight, and interleaving ``v`` model chunks per GPU shrinks the bubble ``v``
times (Narayanan et al. 2021, "Efficient Large-Scale Language Model Training on
GPU Clusters Using Megatron-LM", §2.2).

Megatron-LM reports the bubble as idle time over ideal compute, ``(P-1)/(v·M)``
(its "bubble time fraction"); the share of the whole step that idles is
``(P-1)/(v·M + P-1)``. Both are given, labelled, because interview answers use both.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

from sysdrill.errors import UsageError
from sysdrill.napkin.calculators._quantity import Percent, require_count, require_fraction

__all__ = [
    "BubbleMeasure",
    "PipelineBubble",
    "Schedule",
    "micro_batches_for_bubble",
    "pipeline_bubble",
]


class Schedule(Enum):
    """Pipeline schedules."""

    GPIPE = "gpipe"
    ONE_F_ONE_B = "1f1b"
    INTERLEAVED = "interleaved"


class BubbleMeasure(Enum):
    """Which bubble a target refers to."""

    MEGATRON = "megatron"
    """Idle time over ideal compute, ``(P-1)/(v·M)`` (Narayanan et al. 2021, §2.2)."""
    STEP = "step"
    """Idle share of the whole step, ``(P-1)/(v·M + P-1)``."""


@dataclass(frozen=True)
class PipelineBubble:
    """Bubble of one pipeline schedule.

    Attributes:
        bubble_fraction: Idle share of the whole step, ``(P-1)/(v·M + P-1)`` (dimensionless).
        bubble_overhead: Idle time over ideal compute time, ``(P-1)/(v·M)``: the
            "bubble time fraction" Megatron-LM reports.
        micro_batches_in_flight: Micro-batches (model chunks, when interleaved) whose
            activations the first stage holds at its peak.
        activation_micro_batches: That peak in whole-stage micro-batches: equal to
            ``micro_batches_in_flight`` except when interleaved, where each chunk is
            ``1/v`` of the stage and the peak is ``P·(1 + (P-1)/(P·v))``.
    """

    bubble_fraction: Percent
    bubble_overhead: Percent
    micro_batches_in_flight: int
    activation_micro_batches: float


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
    Micro-batches in flight on the first stage: ``M`` for GPipe, ``min(P, M)``
    for 1F1B (§2.2.1), and for interleaved ``2(P-1) + (v-1)·P + 1`` model
    chunks (at most ``v·M``), the warm-up depth of Megatron-LM's interleaved
    schedule; as whole stages that is ``P·(1 + (P-1)/(P·v))`` micro-batches of
    activations (Korthikanti et al. 2022, "Reducing Activation Recomputation", §4.2.3).

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
    if schedule is Schedule.GPIPE:
        in_flight = m
    elif schedule is Schedule.ONE_F_ONE_B:
        in_flight = min(p, m)
    else:
        in_flight = min(2 * (p - 1) + (v - 1) * p + 1, v * m)
    return PipelineBubble(
        bubble_fraction=Percent((p - 1) / (v * m + p - 1)),
        bubble_overhead=Percent((p - 1) / (v * m)),
        micro_batches_in_flight=in_flight,
        activation_micro_batches=in_flight / v,
    )


def micro_batches_for_bubble(
    *,
    stages: int,
    target_bubble_fraction: float,
    schedule: Schedule = Schedule.ONE_F_ONE_B,
    virtual_stages: int = 1,
    measure: BubbleMeasure = BubbleMeasure.STEP,
    strictly_below: bool = True,
) -> int:
    """Fewest micro-batches ``M`` whose bubble is below the target.

    "A bubble below 10 %" means strictly below, as an interview question (and
    cloud-0104) reads it: with 8 stages, 63 micro-batches leave exactly
    ``7/70 = 10 %`` idle, so 64 is the answer. With the step measure
    ``(P-1)/(v·M + P-1) < f`` gives ``M > (P-1)(1-f)/(v·f)``; with Megatron-LM's
    ``(P-1)/(v·M) < f`` it gives ``M > (P-1)/(v·f)``. A bound that lands exactly on
    a whole number therefore moves up by one; ``strictly_below=False`` accepts a
    bubble equal to ``f`` instead. For the interleaved schedule ``M`` is rounded up
    to a multiple of ``P``.

    Args:
        stages: Pipeline stages ``P``.
        target_bubble_fraction: The bubble target ``f`` in (0, 1).
        schedule: The schedule.
        virtual_stages: Model chunks per GPU ``v`` (interleaved only).
        measure: Whether ``f`` is a share of the step or Megatron-LM's bubble over compute.
        strictly_below: Require a bubble below ``f`` (the default); ``False`` accepts
            a bubble of exactly ``f``.

    Returns:
        The fewest micro-batches per step, at least 1.
    """
    p = require_count(stages, name="stages")
    f = require_fraction(
        target_bubble_fraction, name="target_bubble_fraction", allow_zero=False, allow_one=False
    )
    v = _chunks(schedule, virtual_stages)
    bound = (p - 1) * (1 - f) / (v * f) if measure is BubbleMeasure.STEP else (p - 1) / (v * f)
    # A tiny tolerance keeps exact targets such as 0.2 from rounding one micro-batch up.
    nearest = round(bound)
    on_bound = math.isclose(bound, nearest, rel_tol=1e-9, abs_tol=1e-9)
    if on_bound:
        m = nearest + 1 if strictly_below and p > 1 else nearest
    else:
        m = math.ceil(bound)
    m = max(1, m)
    if schedule is Schedule.INTERLEAVED:
        m = math.ceil(m / p) * p
    return m
