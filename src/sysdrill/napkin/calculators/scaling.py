"""Parallel speedup laws, global batch size, learning-rate scaling and the critical batch.

Amdahl 1967 bounds the speedup of a fixed problem by its serial part;
Gustafson 1988 lets the problem grow with the machine. Goyal et al. 2017
("Accurate, Large Minibatch SGD: Training ImageNet in 1 Hour") scale the
learning rate linearly with the batch after a warmup; McCandlish et al. 2018
("An Empirical Model of Large-Batch Training") give the batch size past which
larger batches stop paying: the gradient noise scale.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sysdrill.errors import UsageError
from sysdrill.napkin.calculators._quantity import Percent, require_count, require_fraction

__all__ = [
    "AmdahlSpeedup",
    "BatchTradeoff",
    "amdahl_speedup",
    "batch_tradeoff",
    "critical_batch_from_minimums",
    "global_batch_size",
    "gradient_noise_scale",
    "gustafson_speedup",
    "scaled_learning_rate",
    "warmup_learning_rate",
    "warmup_steps_for_epochs",
]


@dataclass(frozen=True)
class AmdahlSpeedup:
    """Amdahl's law for ``N`` workers.

    Attributes:
        speedup: ``1 / ((1-p) + p/N)``.
        efficiency: ``speedup / N``.
        limit: ``1 / (1-p)``, the speedup with unlimited workers (inf when ``p = 1``).
    """

    speedup: float
    efficiency: float
    limit: float


def amdahl_speedup(*, parallel_fraction: float, workers: int) -> AmdahlSpeedup:
    """Speedup of a fixed workload whose share ``p`` parallelises (Amdahl 1967).

    Args:
        parallel_fraction: ``p`` in [0, 1].
        workers: ``N`` ≥ 1.
    """
    p = require_fraction(parallel_fraction, name="parallel_fraction")
    n = require_count(workers, name="workers")
    speedup = 1 / ((1 - p) + p / n)
    limit = math.inf if p == 1 else 1 / (1 - p)
    return AmdahlSpeedup(speedup=speedup, efficiency=Percent(speedup / n), limit=limit)


def gustafson_speedup(*, parallel_fraction: float, workers: int) -> float:
    """Scaled speedup ``(1-p) + p·N`` when the problem grows with ``N`` (Gustafson 1988).

    Args:
        parallel_fraction: Parallel share ``p`` of the run on ``N`` workers, in [0, 1].
        workers: ``N`` ≥ 1.
    """
    p = require_fraction(parallel_fraction, name="parallel_fraction")
    n = require_count(workers, name="workers")
    return (1 - p) + p * n


def global_batch_size(*, data_parallel: int, micro_batch: int, accumulation_steps: int = 1) -> int:
    """Global batch ``= data-parallel ranks × micro-batch × gradient-accumulation steps`` (samples).

    Args:
        data_parallel: Data-parallel replicas (GPUs / (TP·PP)).
        micro_batch: Samples per replica per forward pass.
        accumulation_steps: Micro-batches accumulated per optimizer step.
    """
    return (
        require_count(data_parallel, name="data_parallel")
        * require_count(micro_batch, name="micro_batch")
        * require_count(accumulation_steps, name="accumulation_steps")
    )


def scaled_learning_rate(*, base_learning_rate: float, base_batch: int, batch: int) -> float:
    """Linear scaling rule ``η = η_0 · B/B_0`` (Goyal et al. 2017, §2.1: 0.1 at 256 → 3.2 at 8192).

    Args:
        base_learning_rate: ``η_0`` tuned at ``B_0``.
        base_batch: ``B_0`` (samples).
        batch: The new batch ``B`` (samples).
    """
    if not (math.isfinite(base_learning_rate) and base_learning_rate > 0):
        raise UsageError(f"base_learning_rate must be positive, got {base_learning_rate!r}")
    b0 = require_count(base_batch, name="base_batch")
    return base_learning_rate * require_count(batch, name="batch") / b0


def warmup_learning_rate(
    *, step: int, peak_learning_rate: float, warmup_steps: int, initial_learning_rate: float = 0.0
) -> float:
    """Learning rate at ``step`` under gradual linear warmup (Goyal et al. 2017, §2.2).

    Rises linearly from ``initial_learning_rate`` to ``peak_learning_rate`` over
    ``warmup_steps`` steps, then stays at the peak (decay schedules come after).

    Args:
        step: Optimizer step, from 0.
        peak_learning_rate: The scaled rate reached after warmup.
        warmup_steps: Warmup length (Goyal et al. use 5 epochs).
        initial_learning_rate: Rate at step 0 (Goyal et al. start from ``η_0``).
    """
    s = require_count(step, name="step", minimum=0)
    w = require_count(warmup_steps, name="warmup_steps", minimum=0)
    if w == 0 or s >= w:
        return peak_learning_rate
    return initial_learning_rate + (peak_learning_rate - initial_learning_rate) * s / w


def warmup_steps_for_epochs(*, warmup_epochs: float, dataset_size: int, batch: int) -> int:
    """Optimizer steps in ``warmup_epochs`` epochs: ``⌈epochs · dataset / B⌉``.

    Goyal et al. 2017 (§2.2, §5.1) warm up over 5 epochs of ImageNet (1,281,167
    images): at ``B = 8192`` that is 782 steps.

    Args:
        warmup_epochs: Warmup length in epochs (Goyal et al. use 5).
        dataset_size: Training examples per epoch.
        batch: Global batch ``B`` (examples per step).
    """
    if not (math.isfinite(warmup_epochs) and warmup_epochs >= 0):
        raise UsageError(f"warmup_epochs must be zero or more, got {warmup_epochs!r}")
    examples = warmup_epochs * require_count(dataset_size, name="dataset_size")
    # A tolerance keeps 5 epochs of an exact multiple from rounding one step up.
    return math.ceil(examples / require_count(batch, name="batch") - 1e-9)


def critical_batch_from_minimums(*, min_steps: float, min_examples: float) -> float:
    """Critical batch ``B_crit = E_min / S_min`` (examples), McCandlish et al. 2018, §2.2.

    ``S_min`` is the fewest optimizer steps that reach a loss (at very large
    batch) and ``E_min`` the fewest examples (at very small batch); training at
    ``B_crit`` takes twice each.

    Args:
        min_steps: ``S_min`` (steps).
        min_examples: ``E_min`` (examples).
    """
    if not (min_steps > 0 and min_examples > 0):
        raise UsageError("min_steps and min_examples must both be positive")
    return min_examples / min_steps


def gradient_noise_scale(*, gradient_variance_trace: float, gradient_norm_squared: float) -> float:
    """Simple noise scale ``B_simple = tr(Σ) / |G|²`` (samples), McCandlish et al. 2018 eq. 2.3.

    It predicts the critical batch: below it, doubling the batch nearly halves
    the steps; above it, returns diminish.

    Args:
        gradient_variance_trace: ``tr(Σ)``, per-example gradient variance summed over parameters.
        gradient_norm_squared: ``|G|²``, the squared norm of the true gradient.
    """
    if not (gradient_norm_squared > 0 and gradient_variance_trace >= 0):
        raise UsageError("gradient_norm_squared must be > 0 and gradient_variance_trace >= 0")
    return gradient_variance_trace / gradient_norm_squared


@dataclass(frozen=True)
class BatchTradeoff:
    """Steps and examples needed at batch ``B`` (McCandlish et al. 2018, eq. 2.11).

    Attributes:
        steps_over_min: ``S/S_min = 1 + B_noise/B``.
        examples_over_min: ``E/E_min = 1 + B/B_noise``.
    """

    steps_over_min: float
    examples_over_min: float


def batch_tradeoff(*, batch: float, noise_scale: float) -> BatchTradeoff:
    """Training steps and examples at batch ``B`` relative to their minima.

    At ``B = B_noise`` a run takes twice the minimum steps and twice the minimum
    examples: the critical batch (McCandlish et al. 2018, eq. 2.11).

    Args:
        batch: Batch size ``B`` (samples).
        noise_scale: Gradient noise scale ``B_noise`` (samples).
    """
    if not (batch > 0 and noise_scale > 0):
        raise UsageError("batch and noise_scale must both be positive")
    return BatchTradeoff(
        steps_over_min=1 + noise_scale / batch, examples_over_min=1 + batch / noise_scale
    )
