"""Tensor-parallel traffic against Megatron-LM (Shoeybi et al. 2019)."""

from __future__ import annotations

import math

import pytest

from sysdrill.napkin.calculators.tensor_parallel import (
    tensor_parallel_traffic,
    tp_vs_dp_communication,
)
from sysdrill.napkin.units import get_registry

Q = get_registry().Quantity


def test_four_all_reduces_per_layer_of_bsh_elements() -> None:
    # Shoeybi et al. 2019 §3: f and g operators, two all-reduces forward and two backward.
    traffic = tensor_parallel_traffic(
        layers=96, micro_batch=1, sequence_length=2048, hidden_size=12288, tensor_parallel=8
    )
    assert traffic.all_reduces_per_layer == 4
    assert traffic.bytes_per_all_reduce.to("byte").magnitude == 2048 * 12288 * 2
    per_layer = 4 * 2 * 7 / 8 * 2048 * 12288 * 2
    assert traffic.bytes_sent_per_layer.magnitude == pytest.approx(per_layer)
    assert traffic.bytes_sent_per_step.magnitude == pytest.approx(per_layer * 96)


def test_no_tensor_parallel_traffic_on_one_gpu() -> None:
    traffic = tensor_parallel_traffic(
        layers=2, micro_batch=1, sequence_length=8, hidden_size=8, tensor_parallel=1
    )
    assert traffic.bytes_sent_per_step.magnitude == 0


def test_tp_traffic_grows_with_tokens_while_dp_stays_fixed() -> None:
    args = {
        "parameters": Q(175e9, "param"),
        "layers": 96,
        "micro_batch": 1,
        "sequence_length": 2048,
        "hidden_size": 12288,
        "tensor_parallel": 8,
        "data_parallel": 8,
    }
    one = tp_vs_dp_communication(**args, micro_batches=1)
    eight = tp_vs_dp_communication(**args, micro_batches=8)
    assert eight.tensor_parallel_bytes == one.tensor_parallel_bytes * 8
    assert eight.data_parallel_bytes == one.data_parallel_bytes
    # DP: 2(d-1)/d of the FP16 gradient shard Ψ/t = 2 * 7/8 * 175e9/8 * 2 bytes.
    assert one.data_parallel_bytes.magnitude == pytest.approx(2 * 7 / 8 * 175e9 / 8 * 2)
    assert eight.tensor_to_data_ratio == pytest.approx(8 * one.tensor_to_data_ratio)


def test_tp_vs_dp_ratio_is_infinite_without_data_parallelism() -> None:
    result = tp_vs_dp_communication(
        parameters=Q(1e9, "param"),
        layers=2,
        micro_batch=1,
        sequence_length=8,
        hidden_size=8,
        tensor_parallel=2,
        data_parallel=1,
    )
    assert math.isinf(result.tensor_to_data_ratio)
