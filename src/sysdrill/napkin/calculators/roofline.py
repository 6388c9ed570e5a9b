"""The roofline model: ridge point, attainable throughput and arithmetic intensity.

A kernel of arithmetic intensity ``I`` (FLOP per byte moved to and from
memory) on a machine of peak ``π`` (FLOP/s) and memory bandwidth ``β``
(byte/s) attains ``min(π, I·β)``; below the ridge point ``π/β`` it is memory
bound (Williams, Waterman & Patterson 2009, "Roofline: An Insightful Visual
Performance Model for Multicore Architectures").
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from sysdrill.napkin.calculators._quantity import (
    Percent,
    Quantity,
    as_unit,
    quantity,
    require_count,
    require_positive,
)

__all__ = [
    "Bound",
    "RooflinePoint",
    "attainable_flops",
    "elementwise_intensity",
    "gemm_intensity",
    "ridge_point",
    "roofline",
]


class Bound(Enum):
    """Which roof limits a kernel."""

    COMPUTE = "compute-bound"
    MEMORY = "memory-bound"


def _machine(peak_flops: Quantity, bandwidth: Quantity) -> tuple[Quantity, Quantity]:
    peak = require_positive(as_unit(peak_flops, "FLOP / s", name="peak_flops"), name="peak_flops")
    beta = require_positive(as_unit(bandwidth, "byte / s", name="bandwidth"), name="bandwidth")
    return peak, beta


def ridge_point(*, peak_flops: Quantity, bandwidth: Quantity) -> Quantity:
    """Ridge point ``π/β`` (FLOP/byte), where the two roofs meet (Williams et al. 2009).

    Args:
        peak_flops: Peak compute ``π`` (FLOP/s).
        bandwidth: Memory bandwidth ``β`` (byte/s).
    """
    peak, beta = _machine(peak_flops, bandwidth)
    return (peak / beta).to("FLOP / byte")


def attainable_flops(*, intensity: Quantity, peak_flops: Quantity, bandwidth: Quantity) -> Quantity:
    """Attainable throughput ``min(π, I·β)`` (FLOP/s), Williams et al. 2009.

    Args:
        intensity: Arithmetic intensity ``I`` (FLOP/byte).
        peak_flops: Peak compute ``π`` (FLOP/s).
        bandwidth: Memory bandwidth ``β`` (byte/s).
    """
    peak, beta = _machine(peak_flops, bandwidth)
    i = require_positive(as_unit(intensity, "FLOP / byte", name="intensity"), name="intensity")
    memory_roof = (i * beta).to("FLOP / s")
    return memory_roof if memory_roof < peak else peak


@dataclass(frozen=True)
class RooflinePoint:
    """Where a kernel sits on a machine's roofline.

    Attributes:
        ridge_point: ``π/β`` (FLOP/byte).
        attainable: ``min(π, I·β)`` (FLOP/s).
        fraction_of_peak: ``attainable / π``.
        bound: Compute-bound when ``I ≥ π/β``, else memory-bound.
    """

    ridge_point: Quantity
    attainable: Quantity
    fraction_of_peak: float
    bound: Bound


def roofline(*, intensity: Quantity, peak_flops: Quantity, bandwidth: Quantity) -> RooflinePoint:
    """Place a kernel of intensity ``I`` on the roofline of a machine (Williams et al. 2009).

    Args:
        intensity: Arithmetic intensity ``I`` (FLOP/byte).
        peak_flops: Peak compute ``π`` (FLOP/s).
        bandwidth: Memory bandwidth ``β`` (byte/s).
    """
    ridge = ridge_point(peak_flops=peak_flops, bandwidth=bandwidth)
    attained = attainable_flops(intensity=intensity, peak_flops=peak_flops, bandwidth=bandwidth)
    i = as_unit(intensity, "FLOP / byte", name="intensity")
    peak = as_unit(peak_flops, "FLOP / s", name="peak_flops")
    return RooflinePoint(
        ridge_point=ridge,
        attainable=attained,
        fraction_of_peak=Percent(float((attained / peak).to(""))),
        bound=Bound.COMPUTE if i >= ridge else Bound.MEMORY,
    )


def _element_size(bytes_per_element: Quantity | None) -> Quantity:
    size = quantity(2, "byte") if bytes_per_element is None else bytes_per_element
    return require_positive(
        as_unit(size, "byte", name="bytes_per_element"), name="bytes_per_element"
    )


def gemm_intensity(
    *, m: int, n: int, k: int, bytes_per_element: Quantity | None = None
) -> Quantity:
    """Arithmetic intensity of ``C[m,n] = A[m,k]·B[k,n]``: ``2mnk / (bytes·(mk + kn + mn))``.

    Each output element needs ``k`` multiply-adds (2 FLOPs each); A and B are read
    and C written once, the ideal-cache bound (NVIDIA "Matrix Multiplication
    Background" user's guide; Williams et al. 2009).

    Args:
        m: Rows of A and C.
        n: Columns of B and C.
        k: The shared (reduction) dimension.
        bytes_per_element: Element size (byte); 2 (FP16/BF16) when None.
    """
    rows = require_count(m, name="m")
    cols = require_count(n, name="n")
    inner = require_count(k, name="k")
    size = _element_size(bytes_per_element)
    flops = quantity(2 * rows * cols * inner, "FLOP")
    moved = size * (rows * inner + inner * cols + rows * cols)
    return (flops / moved).to("FLOP / byte")


def elementwise_intensity(
    *,
    flops_per_element: float = 1.0,
    inputs: int = 2,
    outputs: int = 1,
    bytes_per_element: Quantity | None = None,
) -> Quantity:
    """Arithmetic intensity of an element-wise kernel: ``f / (bytes·(inputs + outputs))``.

    An FP16 vector add (1 FLOP, 2 reads, 1 write) has ``1/6`` FLOP/byte, far below
    any GPU's ridge point, so element-wise work is memory bound (Williams et al. 2009).

    Args:
        flops_per_element: FLOPs per output element.
        inputs: Tensors read per element.
        outputs: Tensors written per element.
        bytes_per_element: Element size (byte); 2 when None.
    """
    size = _element_size(bytes_per_element)
    if flops_per_element <= 0:
        require_positive(flops_per_element, name="flops_per_element")
    touched = require_count(inputs, name="inputs", minimum=0) + require_count(
        outputs, name="outputs"
    )
    return (quantity(flops_per_element, "FLOP") / (size * touched)).to("FLOP / byte")
