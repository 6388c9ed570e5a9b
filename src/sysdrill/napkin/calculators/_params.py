"""Inputs shared by several calculator descriptions, and small helpers for adapters."""

from __future__ import annotations

from typing import Any

from sysdrill.napkin.calculators import (
    memory,
    numerics,
)
from sysdrill.napkin.calculators.spec import Fill, Kind, Param, result_fields

__all__ = [
    "BANDWIDTH",
    "ELEMENT",
    "FORMAT",
    "GPU_MEMORY",
    "HIDDEN",
    "LATENCY",
    "LAYERS",
    "MEM_BW",
    "MESSAGE",
    "MICRO",
    "OPTIMIZER",
    "PARAMS",
    "PEAK",
    "PRECISION",
    "PRICE",
    "RANKS",
    "SEQ",
    "Q",
    "count",
    "fields",
    "with_fit",
]

Q = Kind.QUANTITY


def count(name: str, help: str, default: str | None = None) -> Param:
    """Describe a whole-number input (``--layers 80``)."""
    return Param(name, Kind.COUNT, help, default=default)


# Inputs shared by several calculators.
RANKS = count("ranks", "Number of ranks (GPUs) N.")
MESSAGE = Param("message", Q, "Buffer size M on each rank, e.g. 1GB.", unit="byte")
BANDWIDTH = Param(
    "bandwidth", Q, "Per-link bandwidth β, e.g. 50GB/s.", unit="byte / s", fill=Fill.LINK_BANDWIDTH
)
LATENCY = Param(
    "latency",
    Q,
    "Per-step latency α, e.g. 5us (default 0).",
    unit="s",
    default="0 s",
    fill=Fill.LINK_LATENCY,
)
PARAMS = Param("params", Q, "Model parameters N, e.g. 7B.", unit="param", bare_unit="param")
OPTIMIZER = Param("optimizer", Kind.CHOICE, "Optimizer.", default="adam", choices=memory.Optimizer)
PRECISION = Param(
    "precision", Kind.CHOICE, "Training precision.", default="mixed", choices=memory.Precision
)
PEAK = Param(
    "peak_flops",
    Q,
    "Peak compute per GPU, e.g. 989TFLOP/s.",
    unit="FLOP / s",
    fill=Fill.PEAK_FLOPS,
)
GPU_MEMORY = Param(
    "gpu_memory",
    Q,
    "Memory of one GPU to check the fit against, e.g. 80GB.",
    unit="byte",
    fill=Fill.MEMORY_CAPACITY,
    optional=True,
)
MEM_BW = Param(
    "bandwidth",
    Q,
    "Memory bandwidth, e.g. 3.35TB/s.",
    unit="byte / s",
    fill=Fill.MEMORY_BANDWIDTH,
)
ELEMENT = Param("bytes_per_element", Q, "Element size (default 2 B).", unit="byte", default="2 B")
SEQ = count("sequence_length", "Tokens per sequence s.")
MICRO = count("micro_batch", "Sequences per micro-batch b.", default="1")
HIDDEN = count("hidden_size", "Hidden dimension h.")
LAYERS = count("layers", "Transformer layers L.")
FORMAT = Param(
    "format", Kind.CHOICE, "Number format.", default="fp16", choices=numerics.FloatFormat
)
PRICE = "USD / GPU / hour"


def with_fit(outputs: Any, required: Any, capacity: Any) -> dict[str, Any]:
    """Return ``outputs`` as a dict, plus the fit against ``capacity`` when one is given."""
    pairs = dict(result_fields(outputs)) if not isinstance(outputs, dict) else dict(outputs)
    if capacity is not None:
        fit = memory.memory_fit(required=required, capacity=capacity)
        pairs.update(result_fields(fit))
    return pairs


def fields(result: Any) -> tuple[tuple[str, Any], ...]:
    """Flatten a result dataclass into ``(name, value)`` pairs for a combined output."""
    return result_fields(result)
