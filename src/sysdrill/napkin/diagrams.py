"""Diagrams drawn from an item's numbers: the geometry, computed once for every front end.

An item's ``diagram`` (:class:`sysdrill.content.models.Diagram`) names a kind and its
parameters; :func:`build_diagram` validates them (a pydantic model per kind, with caps
so a picture stays readable) and computes what to draw:

- ``pipeline-schedule``: every slot of a 1F1B, interleaved or ZB-H1 step
  (:mod:`sysdrill.napkin.pipeline_schedule`) and the bubble read off them.
- ``ring-allreduce``: which chunk each rank sends in each of the ``2(p-1)`` steps.
- ``tree-allreduce``: a binomial tree's reduce then broadcast, ``2⌈log2 p⌉`` steps.
- ``memory-breakdown``: weights, gradients, optimizer states and activations per GPU
  for a ZeRO stage (:func:`~sysdrill.napkin.calculators.memory.model_state_memory`).
- ``roofline``: ridge point and the kernel's point
  (:func:`~sysdrill.napkin.calculators.roofline.roofline`).

The web app draws the geometry as SVG and the terminal as text; neither computes.
A template's parameters may be ``"{name}"`` references, filled from each draw by
:func:`resolve_references`, so a fresh draw gets a fresh picture.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sysdrill.content.models import Diagram, Item
from sysdrill.errors import ContentInvalid, SysdrillError
from sysdrill.napkin.pipeline_schedule import PipelineSchedule, Schedule, simulate_schedule

__all__ = [
    "DIAGRAM_KINDS",
    "DiagramGeometry",
    "MemoryBreakdown",
    "MemoryPart",
    "RingAllReduce",
    "RingStep",
    "RooflineChart",
    "TreeAllReduce",
    "TreeStep",
    "build_diagram",
    "diagram_problems",
    "item_diagram",
    "resolve_references",
    "ring_columns",
    "ring_rows",
]

_REFERENCE = re.compile(r"^\{([A-Za-z_][A-Za-z0-9_]*)\}$")
_MAX_PIPELINE_OPS = 4096
"""Most slots a pipeline picture holds before it stops being readable."""


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _PipelineParams(_Params):
    schedule: Schedule = Schedule.ONE_F_ONE_B
    stages: int = Field(ge=1, le=16)
    microbatches: int = Field(ge=1, le=128)
    chunks: int = Field(default=1, ge=1, le=8)
    forward_time: float = Field(default=1.0, gt=0, le=1e6)
    backward_time: float = Field(default=2.0, gt=0, le=1e6)


class _RingParams(_Params):
    ranks: int = Field(ge=2, le=128)
    message_mb: float | None = Field(default=None, gt=0, le=1e9)
    message_gb: float | None = Field(default=None, gt=0, le=1e6)
    bandwidth_gb_per_s: float | None = Field(default=None, gt=0, le=1e6)


class _TreeParams(_Params):
    ranks: int = Field(ge=2, le=32)
    message_mb: float | None = Field(default=None, gt=0, le=1e9)
    message_gb: float | None = Field(default=None, gt=0, le=1e6)


class _MemoryParams(_Params):
    parameters_billion: float = Field(gt=0, le=1e5)
    zero_stage: Literal[0, 1, 2, 3] = 0
    data_parallel: int = Field(default=1, ge=1, le=1_000_000)
    tensor_parallel: int = Field(default=1, ge=1, le=1024)
    pipeline_parallel: int = Field(default=1, ge=1, le=1024)
    optimizer: Literal["adam", "adam-8bit", "sgd-momentum", "sgd"] = "adam"
    precision: Literal["mixed", "fp32"] = "mixed"
    activation_gb: float = Field(default=0.0, ge=0, le=1e6)
    capacity_gb: float | None = Field(default=None, gt=0, le=1e6)


class _RooflineParams(_Params):
    peak_tflops: float = Field(gt=0, le=1e6)
    bandwidth_gb_per_s: float | None = Field(default=None, gt=0, le=1e7)
    bandwidth_tb_per_s: float | None = Field(default=None, gt=0, le=1e4)
    intensity_flop_per_byte: float | None = Field(default=None, gt=0, le=1e7)
    """The kernel's point; without it only the machine's roofline is drawn."""
    label: str = "kernel"


_PARAMS: dict[str, type[_Params]] = {
    "pipeline-schedule": _PipelineParams,
    "ring-allreduce": _RingParams,
    "tree-allreduce": _TreeParams,
    "memory-breakdown": _MemoryParams,
    "roofline": _RooflineParams,
}
DIAGRAM_KINDS = tuple(_PARAMS)
"""The kinds an item's ``diagram`` may name."""


@dataclass(frozen=True, slots=True)
class RingStep:
    """One step of a ring all-reduce: what every rank sends to its right neighbour."""

    step: int
    """1-based."""
    phase: str
    """``reduce-scatter`` or ``all-gather``."""
    chunks_sent: tuple[int, ...]
    """The chunk rank ``r`` sends to rank ``(r+1) mod p``, by ``r``."""


@dataclass(frozen=True, slots=True)
class RingAllReduce:
    """A ring all-reduce of ``ranks`` ranks, step by step (Patarasuk & Yuan 2009)."""

    ranks: int
    steps: tuple[RingStep, ...]
    sent_fraction_per_rank: float
    """Bytes each rank sends over the buffer size: ``2(p-1)/p``."""
    message_mb: float | None
    time_ms: float | None
    """Bandwidth term ``2(p-1)/p · M/β`` when the bandwidth is given (ms)."""


@dataclass(frozen=True, slots=True)
class TreeStep:
    """One round of a binomial-tree reduce or broadcast: who sends to whom."""

    step: int
    phase: str
    """``reduce`` or ``broadcast``."""
    edges: tuple[tuple[int, int], ...]
    """``(sender, receiver)`` pairs, each moving the whole buffer."""


@dataclass(frozen=True, slots=True)
class TreeAllReduce:
    """A binomial-tree all-reduce: reduce to rank 0, then broadcast back."""

    ranks: int
    steps: tuple[TreeStep, ...]
    message_mb: float | None


@dataclass(frozen=True, slots=True)
class MemoryPart:
    """One bar of a memory breakdown."""

    label: str
    gb: float
    """Size per GPU (GB, 10^9 bytes)."""


@dataclass(frozen=True, slots=True)
class MemoryBreakdown:
    """What one GPU holds in training under a ZeRO stage."""

    zero_stage: int
    data_parallel: int
    parts: tuple[MemoryPart, ...]
    total_gb: float
    capacity_gb: float | None


@dataclass(frozen=True, slots=True)
class RooflineChart:
    """A machine's roofline and one kernel's point on it (Williams et al. 2009)."""

    peak_tflops: float
    bandwidth_gb_per_s: float
    ridge_flop_per_byte: float
    intensity_flop_per_byte: float | None
    """The kernel's intensity; None when only the roofline is drawn."""
    attainable_tflops: float | None
    bound: str | None
    """``compute-bound`` or ``memory-bound`` (None without a kernel)."""
    label: str


DiagramGeometry = PipelineSchedule | RingAllReduce | TreeAllReduce | MemoryBreakdown | RooflineChart
"""What :func:`build_diagram` returns, one type per kind."""


def resolve_references(diagram: Diagram, values: Mapping[str, float]) -> Diagram:
    """The diagram with each ``"{name}"`` parameter replaced by ``values[name]``.

    A reference to no known value stays as written, for ``check`` to report.
    """
    params: dict[str, int | float | str] = {}
    for name, value in diagram.params.items():
        match = _REFERENCE.match(value) if isinstance(value, str) else None
        params[name] = values.get(match.group(1), value) if match else value
    return diagram.model_copy(update={"params": params})


def _problems(error: ValidationError) -> list[str]:
    messages = []
    for detail in error.errors():
        where = ".".join(str(part) for part in detail["loc"])
        given = detail.get("input")
        if detail["type"] == "missing":
            messages.append(f"params.{where} is missing")
        elif detail["type"] == "extra_forbidden":
            messages.append(f"params.{where} is no parameter of this kind")
        elif isinstance(given, str) and _REFERENCE.match(given):
            messages.append(f"params.{where} refers to {given}, which no parameter defines")
        else:
            messages.append(f"params.{where} = {given!r}: {detail['msg'].lower()}")
    return messages


def _validated(diagram: Diagram) -> _Params:
    model = _PARAMS.get(diagram.kind)
    if model is None:
        raise ContentInvalid(
            f"diagram kind {diagram.kind!r} is unknown; use one of {', '.join(DIAGRAM_KINDS)}"
        )
    try:
        return model.model_validate(diagram.params)
    except ValidationError as exc:
        raise ContentInvalid("; ".join(_problems(exc))) from None


def _message_mb(params: _RingParams | _TreeParams) -> float | None:
    if params.message_mb is not None and params.message_gb is not None:
        raise ContentInvalid("give message_mb or message_gb, not both")
    return params.message_gb * 1e3 if params.message_gb is not None else params.message_mb


def ring_rows(geometry: RingAllReduce, *, most: int = 8) -> list[int | None]:
    """The ranks a ring picture shows: all of a small ring, else the first and last few.

    None marks the ranks left out (every rank follows the same pattern, shifted).
    """
    if geometry.ranks <= most:
        return list(range(geometry.ranks))
    head = most // 2
    tail = most - head - 1
    return [*range(head), None, *range(geometry.ranks - tail, geometry.ranks)]


def ring_columns(geometry: RingAllReduce, *, most: int = 30) -> list[int | None]:
    """The step indices a ring picture shows per row; None marks left-out steps.

    Each phase keeps its first and last steps, so both phase boundaries show.
    """
    total = len(geometry.steps)
    if total <= most:
        return list(range(total))
    per_phase = total // 2
    keep = (most - 2) // 4
    shown: list[int | None] = []
    for start in (0, per_phase):
        shown += [*range(start, start + keep), None]
        shown += list(range(start + per_phase - keep, start + per_phase))
    return shown


def _ring(params: _RingParams) -> RingAllReduce:
    p = params.ranks
    message_mb = _message_mb(params)
    # Reduce-scatter: at step k rank r passes on chunk (r-k) mod p, which it has
    # just added to; all-gather then circulates each finished chunk (r+1-k) mod p.
    steps = [
        RingStep(k + 1, "reduce-scatter", tuple((r - k) % p for r in range(p)))
        for k in range(p - 1)
    ]
    steps += [
        RingStep(p + k, "all-gather", tuple((r + 1 - k) % p for r in range(p)))
        for k in range(p - 1)
    ]
    fraction = 2 * (p - 1) / p
    time_ms = None
    if message_mb is not None and params.bandwidth_gb_per_s is not None:
        time_ms = fraction * message_mb * 1e6 / (params.bandwidth_gb_per_s * 1e9) * 1e3
    return RingAllReduce(p, tuple(steps), fraction, message_mb, time_ms)


def _tree(params: _TreeParams) -> TreeAllReduce:
    p = params.ranks
    rounds = math.ceil(math.log2(p))
    reduce = []
    for k in range(rounds):
        span = 1 << k
        edges = tuple((r, r - span) for r in range(span, p, 2 * span))
        reduce.append(TreeStep(k + 1, "reduce", edges))
    broadcast = [
        TreeStep(rounds + i + 1, "broadcast", tuple((b, a) for a, b in step.edges))
        for i, step in enumerate(reversed(reduce))
    ]
    return TreeAllReduce(p, tuple(reduce + broadcast), _message_mb(params))


def _memory(params: _MemoryParams) -> MemoryBreakdown:
    from sysdrill.napkin.calculators._quantity import quantity
    from sysdrill.napkin.calculators.memory import Optimizer, Precision, model_state_memory

    state = model_state_memory(
        parameters=quantity(params.parameters_billion * 1e9, "param"),
        optimizer=Optimizer(params.optimizer),
        precision=Precision(params.precision),
        zero_stage=params.zero_stage,
        data_parallel=params.data_parallel,
        tensor_parallel=params.tensor_parallel,
        pipeline_parallel=params.pipeline_parallel,
    )

    def gb(value: object) -> float:
        return float(value.to("byte").magnitude) / 1e9  # type: ignore[attr-defined]

    parts = [
        MemoryPart("weights", gb(state.weights)),
        MemoryPart("gradients", gb(state.gradients)),
        MemoryPart("optimizer states", gb(state.optimizer_states)),
    ]
    if params.activation_gb:
        parts.append(MemoryPart("activations", params.activation_gb))
    return MemoryBreakdown(
        zero_stage=params.zero_stage,
        data_parallel=params.data_parallel,
        parts=tuple(parts),
        total_gb=sum(part.gb for part in parts),
        capacity_gb=params.capacity_gb,
    )


def _roofline(params: _RooflineParams) -> RooflineChart:
    from sysdrill.napkin.calculators._quantity import quantity
    from sysdrill.napkin.calculators.roofline import roofline

    if (params.bandwidth_gb_per_s is None) == (params.bandwidth_tb_per_s is None):
        raise ContentInvalid("give exactly one of bandwidth_gb_per_s and bandwidth_tb_per_s")
    bandwidth_gb_per_s = params.bandwidth_gb_per_s or (params.bandwidth_tb_per_s or 0.0) * 1e3
    # Without a kernel only the ridge is read; 1 FLOP/byte stands in for the intensity.
    point = roofline(
        intensity=quantity(params.intensity_flop_per_byte or 1.0, "FLOP / byte"),
        peak_flops=quantity(params.peak_tflops * 1e12, "FLOP / s"),
        bandwidth=quantity(bandwidth_gb_per_s * 1e9, "byte / s"),
    )
    kernel = params.intensity_flop_per_byte is not None
    return RooflineChart(
        peak_tflops=params.peak_tflops,
        bandwidth_gb_per_s=bandwidth_gb_per_s,
        ridge_flop_per_byte=float(point.ridge_point.to("FLOP / byte").magnitude),
        intensity_flop_per_byte=params.intensity_flop_per_byte,
        attainable_tflops=float(point.attainable.to("FLOP / s").magnitude) / 1e12
        if kernel
        else None,
        bound=point.bound.value if kernel else None,
        label=params.label,
    )


def build_diagram(diagram: Diagram) -> DiagramGeometry:
    """Validate a diagram declaration and compute what to draw.

    Raises:
        ContentInvalid: An unknown kind, a missing, unknown, unresolved, negative or
            too large parameter, or numbers the picture cannot be drawn from (the
            message names each).
    """
    params = _validated(diagram)
    if isinstance(params, _PipelineParams):
        ops = params.stages * params.microbatches * params.chunks * 2
        if ops * (1.5 if params.schedule is Schedule.ZB_H1 else 1) > _MAX_PIPELINE_OPS:
            raise ContentInvalid(
                f"a {params.schedule} schedule of {params.stages} stages and "
                f"{params.microbatches} micro-batches is too large to draw "
                f"(at most {_MAX_PIPELINE_OPS} slots)"
            )
        return simulate_schedule(
            params.schedule,
            stages=params.stages,
            microbatches=params.microbatches,
            chunks=params.chunks,
            forward_time=params.forward_time,
            backward_time=params.backward_time,
        )
    if isinstance(params, _RingParams):
        return _ring(params)
    if isinstance(params, _TreeParams):
        return _tree(params)
    if isinstance(params, _MemoryParams):
        return _memory(params)
    assert isinstance(params, _RooflineParams)
    return _roofline(params)


def diagram_problems(diagram: Diagram) -> list[str]:
    """Why a (resolved) diagram cannot be drawn; empty when it can."""
    try:
        build_diagram(diagram)
    except SysdrillError as exc:
        return [str(exc)]
    return []


def question_diagram(item: Item) -> DiagramGeometry | None:
    """The picture to show with the question: only one its item declares ``with_question``."""
    if item.diagram is None or not item.diagram.with_question:
        return None
    return item_diagram(item)


def answer_diagram(item: Item) -> DiagramGeometry | None:
    """The picture to show with the answer: every one not shown with the question."""
    if item.diagram is None or item.diagram.with_question:
        return None
    return item_diagram(item)


def item_diagram(item: Item) -> DiagramGeometry | None:
    """The geometry of a shown item's diagram; None without one or when it cannot be drawn.

    ``check`` reports a diagram that cannot be drawn (rule ``diagram``); a learner
    then sees the item without its picture rather than an error.
    """
    if item.diagram is None:
        return None
    try:
        return build_diagram(item.diagram)
    except SysdrillError:
        return None
