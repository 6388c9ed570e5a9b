"""Diagrams as plain text for the terminal: a pipeline Gantt grid, ring steps, bars.

Every line fits in ``width`` columns (80 by default). Used by ``sysdrill show``,
practice's line mode and the terminal interface; the web app draws the same geometry
as SVG (:mod:`sysdrill.web.diagram_svg`).
"""

from __future__ import annotations

import math
import textwrap

from sysdrill.napkin.diagrams import (
    DiagramGeometry,
    MemoryBreakdown,
    RingAllReduce,
    RooflineChart,
    TreeAllReduce,
    ring_columns,
    ring_rows,
)
from sysdrill.napkin.pipeline_schedule import PipelineSchedule

__all__ = ["diagram_results", "diagram_summary", "diagram_text"]

_SCHEDULE_NAMES = {"1f1b": "1F1B", "interleaved": "interleaved 1F1B", "zb-h1": "ZB-H1"}


def _size(megabytes: float) -> str:
    """``7 GB`` rather than ``7000 MB``: the unit people write for that size."""
    if megabytes >= 1000:
        return f"{megabytes / 1000:.4g} GB"
    return f"{megabytes:.4g} MB"


def _pct(fraction: float) -> str:
    return f"{fraction * 100:.1f} %"


def diagram_summary(geometry: DiagramGeometry, *, results: bool = False) -> str:
    """The diagram in words: its text alternative.

    Args:
        geometry: What :func:`~sysdrill.napkin.diagrams.build_diagram` computed.
        results: Add the figures read off the diagram (bubble, bytes, time, totals,
            ridge), which often are the item's answer: shown with the answer only.
    """
    described = _description(geometry)
    found = _results(geometry) if results else ""
    return f"{described}; {found}" if found else described


def diagram_results(geometry: DiagramGeometry) -> str:
    """The figures read off the diagram, alone (for the answer side)."""
    return _results(geometry)


def _description(geometry: DiagramGeometry) -> str:
    if isinstance(geometry, PipelineSchedule):
        chunks = f", {geometry.chunks} chunks per GPU" if geometry.chunks > 1 else ""
        return (
            f"{_SCHEDULE_NAMES[geometry.schedule.value]} pipeline schedule: "
            f"{geometry.stages} stages, {geometry.microbatches} micro-batches{chunks}"
        )
    if isinstance(geometry, RingAllReduce):
        return (
            f"Ring all-reduce over {geometry.ranks} ranks: {len(geometry.steps)} steps "
            f"({geometry.ranks - 1} reduce-scatter, {geometry.ranks - 1} all-gather)"
        )
    if isinstance(geometry, TreeAllReduce):
        rounds = len(geometry.steps) // 2
        return (
            f"Binomial-tree all-reduce over {geometry.ranks} ranks: {rounds} reduce rounds "
            f"to rank 0, then {rounds} broadcast rounds; each round moves the whole buffer"
        )
    if isinstance(geometry, MemoryBreakdown):
        stage = f"ZeRO-{geometry.zero_stage}" if geometry.zero_stage else "no sharding"
        parts = ", ".join(part.label for part in geometry.parts)
        gpus = f"{geometry.data_parallel} GPU{'s' if geometry.data_parallel > 1 else ''}"
        return f"Memory per GPU, {stage} over {gpus}: {parts}"
    kernel = ""
    if geometry.intensity_flop_per_byte is not None:
        kernel = f"; {geometry.label} at {geometry.intensity_flop_per_byte:.3g} FLOP/byte"
    return (
        f"Roofline: peak {geometry.peak_tflops:.4g} TFLOP/s, bandwidth "
        f"{geometry.bandwidth_gb_per_s:.4g} GB/s{kernel}"
    )


def _results(geometry: DiagramGeometry) -> str:
    if isinstance(geometry, PipelineSchedule):
        bubble = geometry.bubble_fraction
        # Megatron-LM quotes the bubble against the ideal (bubble-free) time instead.
        ideal = bubble / (1 - bubble) if bubble < 1 else math.inf
        return f"bubble {_pct(bubble)} of the step ({_pct(ideal)} of the ideal time)"
    if isinstance(geometry, RingAllReduce):
        sent = f"each rank sends {geometry.sent_fraction_per_rank:.4g}× the buffer"
        if geometry.message_mb is not None:
            sent += f" ({_size(geometry.message_mb * geometry.sent_fraction_per_rank)})"
        if geometry.time_ms is not None:
            sent += f", about {geometry.time_ms:.4g} ms"
        return sent
    if isinstance(geometry, TreeAllReduce):
        return ""
    if isinstance(geometry, MemoryBreakdown):
        parts = ", ".join(f"{part.label} {part.gb:.4g} GB" for part in geometry.parts)
        fits = ""
        if geometry.capacity_gb is not None:
            verdict = "fits in" if geometry.total_gb <= geometry.capacity_gb else "exceeds"
            fits = f"; {verdict} {geometry.capacity_gb:.4g} GB"
        return f"{parts}; total {geometry.total_gb:.4g} GB{fits}"
    ridge = f"ridge {geometry.ridge_flop_per_byte:.4g} FLOP/byte"
    if geometry.attainable_tflops is None:
        return ridge
    attained = f"{geometry.attainable_tflops:.4g} TFLOP/s"
    return f"{ridge}; {geometry.label} attains {attained} ({geometry.bound})"


def _pipeline(geometry: PipelineSchedule, width: int) -> list[str]:
    label = max(len(f"GPU {geometry.stages - 1} "), 6)
    columns = width - label - 1
    step = min(s.duration for s in geometry.slots)
    # One column per shortest slot, so every slot keeps its own cells. A step too
    # long for the width shows its start and its end (where the bubble is) with the
    # steady middle left out, rather than squeezing slots until they vanish.
    count = math.ceil(geometry.makespan / step - 1e-9)
    head = (columns - 1) // 2 if count > columns else count
    tail = columns - 1 - head if count > columns else 0
    lines = []
    for stage in range(geometry.stages):
        row = ["."] * count
        for slot in (s for s in geometry.slots if s.stage == stage):
            first = math.ceil(slot.start / step - 0.5 + 1e-9)
            last = math.ceil((slot.start + slot.duration) / step - 0.5 - 1e-9)
            letter = slot.op if slot.chunk % 2 == 0 else slot.op.lower()
            for column in range(first, min(last, count)):
                row[column] = letter
        shown = row if not tail else [*row[:head], "~", *row[-tail:]]
        lines.append(f"{f'GPU {stage}':<{label}}|{''.join(shown)}")
    legend = "F forward, B backward" + (", W weight gradient" if "W" in _ops(geometry) else "")
    if geometry.chunks > 1:
        legend += "; lower case: odd model chunks"
    legend += "; . idle"
    if tail:
        legend += "; ~ the steady middle, left out"
    lines.extend(
        textwrap.wrap(
            legend,
            width=width,
            initial_indent=" " * (label + 1),
            subsequent_indent=" " * (label + 1),
        )
    )
    return lines


def _ops(geometry: PipelineSchedule) -> set[str]:
    return {slot.op for slot in geometry.slots}


def _ring(geometry: RingAllReduce) -> list[str]:
    p = geometry.ranks
    columns = ring_columns(geometry, most=30 if p <= 16 else 14)
    cell = 2 if p <= 16 else 3
    label = len(f"rank {p - 1} ")
    half = columns.index(p - 1) if p - 1 in columns else len(columns) // 2
    head = " " * label + "| reduce-scatter".ljust(cell * half + 2) + "| all-gather"
    lines = [head.rstrip()]

    def cells(rank: int, shown: list[int | None]) -> str:
        return " ".join(
            ".." if c is None else f"{geometry.steps[c].chunks_sent[rank]:x}".rjust(cell - 1)
            for c in shown
        )

    for rank in ring_rows(geometry):
        if rank is None:
            lines.append(f"{'...':<{label}}|")
            continue
        first, second = cells(rank, columns[:half]), cells(rank, columns[half:])
        lines.append(f"{f'rank {rank}':<{label}}| {first} | {second}")
    lines.append(" " * label + f"  chunk (hex) each rank sends to rank+1, steps 1 to {2 * (p - 1)}")
    return lines


def _tree(geometry: TreeAllReduce, width: int) -> list[str]:
    lines = []
    for step in geometry.steps:
        edges = " ".join(f"{a}->{b}" for a, b in step.edges)
        lines.extend(
            textwrap.wrap(
                f"step {step.step} {step.phase}: {edges}", width=width, subsequent_indent="    "
            )
        )
    return lines


def _memory(geometry: MemoryBreakdown, width: int, *, results: bool) -> list[str]:
    rows = [(part.label, part.gb) for part in geometry.parts] + [("total", geometry.total_gb)]
    if geometry.capacity_gb is not None:
        rows.append(("GPU memory", geometry.capacity_gb))
    label = max(len(name) for name, _ in rows) + 1
    # Without results the bars keep their proportions but lose their figures.
    numbers = [f"{gb:.4g} GB" if results else "" for _, gb in rows]
    number_width = max(len(n) for n in numbers)
    bar_width = width - label - number_width - 3
    largest = max(gb for _, gb in rows) or 1.0
    lines = []
    for (name, gb), number in zip(rows, numbers, strict=True):
        filled = round(gb / largest * bar_width)
        bar = ("#" * filled).ljust(bar_width, ".")
        lines.append(f"{name:<{label}} {bar} {number:>{number_width}}".rstrip())
    return lines


def _roofline(geometry: RooflineChart, width: int, *, results: bool) -> list[str]:
    # A log axis of intensity from ridge/100 to ridge*100: the ridge in the middle.
    span = width - 2
    low = math.log10(geometry.ridge_flop_per_byte) - 2

    def at(intensity: float) -> int:
        position = (math.log10(intensity) - low) / 4 * (span - 1)
        return max(0, min(span - 1, round(position)))

    axis = ["-"] * span
    axis[at(geometry.ridge_flop_per_byte)] = "|"
    lines = ["memory-bound".ljust(span - len("compute-bound")) + "compute-bound"]
    ridge = f"| ridge {geometry.ridge_flop_per_byte:.4g} FLOP/byte" if results else "| ridge"
    if geometry.intensity_flop_per_byte is None or geometry.attainable_tflops is None:
        return [*lines, f"<{''.join(axis)}>", f"{ridge} (log scale)"]
    axis[at(geometry.intensity_flop_per_byte)] = "*"
    lines += [
        f"<{''.join(axis)}>",
        f"{ridge}; * {geometry.label} at {geometry.intensity_flop_per_byte:.3g} FLOP/byte "
        "(log scale)",
    ]
    if results:
        share = geometry.attainable_tflops / geometry.peak_tflops * 100
        # Two significant figures below 10 %: a decode kernel at 0.34 % is not "0 %".
        shown = f"{share:.0f}" if share >= 10 else f"{share:.2g}"
        lines.append(
            f"attainable {geometry.attainable_tflops:.4g} of {geometry.peak_tflops:.4g} "
            f"TFLOP/s ({shown} % of peak)"
        )
    return lines


def diagram_text(
    geometry: DiagramGeometry,
    *,
    width: int = 80,
    results: bool = False,
    caption: str | None = None,
) -> list[str]:
    """The diagram as lines of plain text, each at most ``width`` columns.

    The first lines are :func:`diagram_summary` (wrapped), then the picture.

    Args:
        geometry: What :func:`~sysdrill.napkin.diagrams.build_diagram` computed.
        width: Columns available.
        results: Print the figures read off the diagram, which may be the answer
            (``show`` prints them; a practice prompt does not).
        caption: The item's caption of the picture (which part of the item it
            draws), printed under it.
    """
    lines = textwrap.wrap(diagram_summary(geometry, results=results), width=width)
    if isinstance(geometry, PipelineSchedule):
        lines += _pipeline(geometry, width)
    elif isinstance(geometry, RingAllReduce):
        lines += _ring(geometry)
    elif isinstance(geometry, TreeAllReduce):
        lines += _tree(geometry, width)
    elif isinstance(geometry, MemoryBreakdown):
        lines += _memory(geometry, width, results=results)
    else:
        lines += _roofline(geometry, width, results=results)
    if caption:
        lines += textwrap.wrap(caption, width=width)
    return lines
