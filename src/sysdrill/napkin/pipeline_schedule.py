"""Pipeline schedules simulated slot by slot: 1F1B, interleaved 1F1B and ZB-H1.

Each device runs its operations in a fixed order and starts one as soon as the
device is free and the operation's inputs exist: a forward pass needs the previous
virtual stage's forward of the same micro-batch, a backward pass the next virtual
stage's backward (the last stage: its own forward), and a weight-gradient pass
(``W``, zero-bubble schedules only) its own backward. The bubble is then read off
the slots, so the picture and the number shown under it come from one computation:

- 1F1B (Narayanan et al. 2021, PipeDream-Flush): ``(p-1)/(m+p-1)`` of the time idle.
- Interleaved 1F1B with ``v`` model chunks per device (same paper, §2.2):
  ``(p-1)/(v·m+p-1)``; Megatron-LM needs ``m`` to be a multiple of ``p``.
- ZB-H1 (Qi et al. 2023, "Zero Bubble Pipeline Parallelism"): the backward pass is
  split into ``B`` (input gradient) and ``W`` (weight gradient); ``W`` fills the
  gaps a device would otherwise wait in, with the forward/backward order of 1F1B,
  so activation memory stays that of 1F1B.

Times are in relative units (a forward pass of a whole stage takes ``forward_time``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from sysdrill.errors import ContentInvalid

__all__ = ["PipelineSchedule", "Schedule", "Slot", "simulate_schedule"]

_EPSILON = 1e-9


class Schedule(StrEnum):
    """Pipeline schedules the simulator knows."""

    ONE_F_ONE_B = "1f1b"
    INTERLEAVED = "interleaved"
    ZB_H1 = "zb-h1"


@dataclass(frozen=True, slots=True)
class Slot:
    """One operation on one device: where it sits in time and what it is."""

    stage: int
    """Device (pipeline rank), 0 first."""
    start: float
    """Start, in the schedule's time units."""
    duration: float
    op: str
    """``F`` forward, ``B`` backward (input gradient in ZB-H1), ``W`` weight gradient."""
    microbatch: int
    """Micro-batch, 0 first."""
    chunk: int
    """Model chunk on the device (interleaved schedules), 0 first."""


@dataclass(frozen=True, slots=True)
class PipelineSchedule:
    """A simulated schedule: every slot, the makespan and the idle share."""

    schedule: Schedule
    stages: int
    microbatches: int
    chunks: int
    slots: tuple[Slot, ...]
    makespan: float
    """End of the last slot, in time units."""
    bubble_fraction: float
    """Idle device time over ``stages × makespan`` (0 to 1)."""


_Op = tuple[str, int, int]
"""``(op, microbatch, virtual_stage)``."""


def _interleaved_order(
    device: int, *, stages: int, microbatches: int, chunks: int, backward: bool
) -> list[_Op]:
    # Megatron's order: groups of `stages` micro-batches, each group run through
    # every chunk in turn (backward: the chunks in reverse).
    ops = []
    for k in range(microbatches * chunks):
        group, within = divmod(k, stages * chunks)
        chunk = within // stages
        if backward:
            chunk = chunks - 1 - chunk
        microbatch = group * stages + within % stages
        ops.append(("B" if backward else "F", microbatch, chunk * stages + device))
    return ops


def _device_order(device: int, *, stages: int, microbatches: int, chunks: int) -> list[_Op]:
    """The forward/backward order of one device (1F1B, or Megatron's interleaved)."""
    forwards = _interleaved_order(
        device, stages=stages, microbatches=microbatches, chunks=chunks, backward=False
    )
    backwards = _interleaved_order(
        device, stages=stages, microbatches=microbatches, chunks=chunks, backward=True
    )
    total = len(forwards)
    if chunks == 1:
        warmup = min(stages - device - 1, total)
    else:
        warmup = min((stages - device - 1) * 2 + (chunks - 1) * stages, total)
    order = forwards[:warmup]
    for index in range(total - warmup):
        order.append(forwards[warmup + index])
        order.append(backwards[index])
    order.extend(backwards[total - warmup :])
    return order


def simulate_schedule(
    schedule: Schedule,
    *,
    stages: int,
    microbatches: int,
    chunks: int = 1,
    forward_time: float = 1.0,
    backward_time: float = 2.0,
) -> PipelineSchedule:
    """Simulate one training step of a pipeline schedule.

    Args:
        schedule: Which schedule.
        stages: Pipeline devices ``p``.
        microbatches: Micro-batches per step ``m``.
        chunks: Model chunks per device ``v`` (interleaved only; 1 otherwise).
        forward_time: Forward pass of one whole stage (time units).
        backward_time: Backward pass of one whole stage (time units); ZB-H1 splits it
            evenly between ``B`` and ``W``.

    Raises:
        ContentInvalid: Counts below 1, chunks with a schedule other than interleaved,
            or an interleaved ``m`` that is not a multiple of ``p``.
    """
    if min(stages, microbatches, chunks) < 1:
        raise ContentInvalid("stages, microbatches and chunks must each be at least 1")
    if schedule is not Schedule.INTERLEAVED and chunks != 1:
        raise ContentInvalid(f"chunks apply to the interleaved schedule only, not {schedule}")
    if schedule is Schedule.INTERLEAVED and microbatches % stages:
        raise ContentInvalid(
            f"interleaved 1F1B needs microbatches ({microbatches}) to be a multiple of "
            f"stages ({stages})"
        )
    split = schedule is Schedule.ZB_H1
    durations = {
        "F": forward_time / chunks,
        "B": backward_time / chunks / (2 if split else 1),
        "W": backward_time / 2,
    }
    virtual = stages * chunks
    orders = [
        _device_order(d, stages=stages, microbatches=microbatches, chunks=chunks)
        for d in range(stages)
    ]
    finished: dict[_Op, float] = {}
    free = [0.0] * stages
    cursor = [0] * stages
    pending_w: list[list[_Op]] = [[] for _ in range(stages)]
    slots: list[Slot] = []

    def dependency(op: _Op) -> _Op | None:
        kind, mb, vs = op
        if kind == "F":
            return ("F", mb, vs - 1) if vs > 0 else None
        if kind == "B":
            return ("B", mb, vs + 1) if vs < virtual - 1 else ("F", mb, vs)
        return ("B", mb, vs)

    def run(device: int, op: _Op, start: float) -> None:
        kind, mb, vs = op
        duration = durations[kind]
        slots.append(Slot(device, start, duration, kind, mb, vs // stages))
        finished[op] = start + duration
        free[device] = start + duration
        if split and kind == "B":
            pending_w[device].append(("W", mb, vs))

    # One W per backward pass when the backward is split.
    remaining = sum(len(o) for o in orders) * (3 if split else 2) // 2
    while remaining:
        for device in sorted(range(stages), key=lambda d: free[d]):
            nxt = orders[device][cursor[device]] if cursor[device] < len(orders[device]) else None
            need = dependency(nxt) if nxt else None
            ready = None if nxt is None else (0.0 if need is None else finished.get(need))
            if nxt is not None and ready is not None and ready <= free[device] + _EPSILON:
                run(device, nxt, free[device])
                cursor[device] += 1
            elif pending_w[device] and (ready is None or ready > free[device]):
                # A weight-gradient pass fills time the device would spend waiting.
                run(device, pending_w[device].pop(0), free[device])
            elif nxt is not None and ready is not None:
                run(device, nxt, ready)
                cursor[device] += 1
            else:
                continue
            remaining -= 1
            break
        else:  # pragma: no cover - the orders above never deadlock
            raise ContentInvalid(f"the {schedule} schedule deadlocked")
    makespan = max(s.start + s.duration for s in slots)
    busy = sum(s.duration for s in slots)
    return PipelineSchedule(
        schedule=schedule,
        stages=stages,
        microbatches=microbatches,
        chunks=chunks,
        slots=tuple(sorted(slots, key=lambda s: (s.stage, s.start))),
        makespan=makespan,
        bubble_fraction=1 - busy / (stages * makespan),
    )
