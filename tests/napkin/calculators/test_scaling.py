"""Scaling laws: Amdahl 1967, Gustafson 1988, Goyal et al. 2017, McCandlish et al. 2018."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sysdrill.errors import UsageError
from sysdrill.napkin.calculators.scaling import (
    amdahl_speedup,
    batch_tradeoff,
    critical_batch_from_minimums,
    global_batch_size,
    gradient_noise_scale,
    gustafson_speedup,
    scaled_learning_rate,
    warmup_learning_rate,
    warmup_steps_for_epochs,
)


def test_amdahl_95_percent_parallel_caps_at_20x() -> None:
    result = amdahl_speedup(parallel_fraction=0.95, workers=64)
    assert result.speedup == pytest.approx(1 / (0.05 + 0.95 / 64))
    assert result.limit == pytest.approx(20)
    assert result.efficiency == pytest.approx(result.speedup / 64)
    assert math.isinf(amdahl_speedup(parallel_fraction=1.0, workers=8).limit)


def test_gustafson_scaled_speedup() -> None:
    assert gustafson_speedup(parallel_fraction=0.95, workers=64) == pytest.approx(0.05 + 0.95 * 64)


@settings(deadline=None)  # tests never assert on timing
@given(p=st.floats(min_value=0, max_value=1), n=st.integers(min_value=1, max_value=10**6))
def test_gustafson_never_below_amdahl(p: float, n: int) -> None:
    amdahl = amdahl_speedup(parallel_fraction=p, workers=n)
    assert gustafson_speedup(parallel_fraction=p, workers=n) >= amdahl.speedup * (1 - 1e-12)
    assert amdahl.speedup <= min(n, amdahl.limit) * (1 + 1e-12)


def test_fractions_outside_zero_one_are_rejected() -> None:
    with pytest.raises(UsageError, match="parallel_fraction"):
        amdahl_speedup(parallel_fraction=95, workers=8)


def test_global_batch() -> None:
    assert global_batch_size(data_parallel=64, micro_batch=4, accumulation_steps=8) == 2048


def test_goyal_linear_scaling_0_1_at_256_becomes_3_2_at_8192() -> None:
    # Goyal et al. 2017 §2.1 and §5: η = 0.1·kn/256; k·n = 8192 gives 3.2.
    assert scaled_learning_rate(base_learning_rate=0.1, base_batch=256, batch=8192) == (
        pytest.approx(3.2)
    )


def test_gradual_warmup_ramps_linearly_then_holds() -> None:
    # Goyal et al. 2017 §2.2: start at η and reach kη after the warmup.
    assert warmup_learning_rate(
        step=0, peak_learning_rate=3.2, warmup_steps=100, initial_learning_rate=0.1
    ) == pytest.approx(0.1)
    assert warmup_learning_rate(
        step=50, peak_learning_rate=3.2, warmup_steps=100, initial_learning_rate=0.1
    ) == pytest.approx(1.65)
    assert warmup_learning_rate(step=500, peak_learning_rate=3.2, warmup_steps=100) == 3.2


def test_noise_scale_and_the_critical_batch() -> None:
    # McCandlish et al. 2018 eq. 2.11: at B = B_noise, twice the minimum steps and examples.
    noise = gradient_noise_scale(gradient_variance_trace=2000, gradient_norm_squared=0.5)
    assert noise == 4000
    tradeoff = batch_tradeoff(batch=noise, noise_scale=noise)
    assert tradeoff.steps_over_min == pytest.approx(2)
    assert tradeoff.examples_over_min == pytest.approx(2)


def test_noise_scale_rejects_zero_gradient() -> None:
    with pytest.raises(UsageError):
        gradient_noise_scale(gradient_variance_trace=1, gradient_norm_squared=0)


def test_goyal_five_epoch_warmup_on_imagenet_at_8192_is_782_steps() -> None:
    # Goyal et al. 2017 §5.1: 1,281,167 training images, 5 warmup epochs, kn = 8192.
    assert warmup_steps_for_epochs(warmup_epochs=5, dataset_size=1_281_167, batch=8192) == 782
    # An exact multiple does not round up a step: 5 epochs of 8,192 images at 8,192.
    assert warmup_steps_for_epochs(warmup_epochs=5, dataset_size=8192, batch=8192) == 5


def test_critical_batch_is_min_examples_over_min_steps() -> None:
    # McCandlish et al. 2018 §2.2: B_crit = E_min / S_min; training at B_crit takes
    # twice the minimum steps and twice the minimum examples.
    critical = critical_batch_from_minimums(min_steps=1_000, min_examples=2e6)
    assert critical == 2000
    tradeoff = batch_tradeoff(batch=critical, noise_scale=critical)
    assert (tradeoff.steps_over_min, tradeoff.examples_over_min) == (2, 2)
    with pytest.raises(UsageError):
        critical_batch_from_minimums(min_steps=0, min_examples=1)
