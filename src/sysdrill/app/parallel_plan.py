"""The 3D-parallelism planner: TP, PP, DP and a ZeRO stage in, one training step out.

Every figure comes from the napkin calculators (model-state and activation
memory, pipeline bubble, tensor-parallel traffic, ZeRO communication, MFU,
Young/Daly checkpoint interval); this module only chains them, so the web
page and its API twin show the same numbers as ``sysdrill calc``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sysdrill.errors import UsageError

__all__ = ["ParallelPlan", "ParallelPlanInput", "plan_parallelism"]


@dataclass(frozen=True, slots=True)
class ParallelPlanInput:
    """One training setup. Sizes in the units their names carry.

    Attributes:
        parameters_billions: Model size (billions of parameters).
        layers: Transformer layers.
        hidden_size: Hidden dimension.
        attention_heads: Attention heads.
        sequence_length: Tokens per sequence.
        global_batch_sequences: Sequences per optimizer step (whole job).
        micro_batch_sequences: Sequences per micro-batch.
        tensor_parallel: TP degree.
        pipeline_parallel: PP degree (stages).
        data_parallel: DP degree.
        zero_stage: 0 (plain DDP) to 3.
        accelerator: Catalogue name (``sysdrill calc hardware``), e.g. ``h100-sxm``.
        kernel_efficiency: Share of peak the kernels reach while computing (0-1].
        tp_bandwidth_gb_per_s: Per-GPU bandwidth of the TP links (GB/s, NVLink-class).
        dp_bandwidth_gb_per_s: Per-GPU bandwidth of the DP links (GB/s, network-class).
        device_mtbf_hours: Mean time between failures of one GPU (hours).
        checkpoint_bandwidth_gb_per_s: Aggregate write bandwidth to storage (GB/s).
    """

    parameters_billions: float = 7.0
    layers: int = 32
    hidden_size: int = 4096
    attention_heads: int = 32
    sequence_length: int = 4096
    global_batch_sequences: int = 512
    micro_batch_sequences: int = 1
    tensor_parallel: int = 8
    pipeline_parallel: int = 2
    data_parallel: int = 8
    zero_stage: int = 1
    accelerator: str = "h100-sxm"
    kernel_efficiency: float = 0.6
    tp_bandwidth_gb_per_s: float = 450.0
    dp_bandwidth_gb_per_s: float = 50.0
    device_mtbf_hours: float = 50_000.0
    checkpoint_bandwidth_gb_per_s: float = 100.0

    @property
    def gpus(self) -> int:
        """GPUs in the job, ``TP x PP x DP``."""
        return self.tensor_parallel * self.pipeline_parallel * self.data_parallel

    def micro_batches(self) -> int:
        """Micro-batches each pipeline runs per step.

        Raises:
            UsageError: If the global batch does not split evenly over DP and micro-batches.
        """
        per_replica = self.data_parallel * self.micro_batch_sequences
        if self.global_batch_sequences % per_replica:
            raise UsageError(
                f"global batch {self.global_batch_sequences} is not a multiple of "
                f"DP x micro-batch = {per_replica}"
            )
        return self.global_batch_sequences // per_replica


@dataclass(frozen=True, slots=True)
class ParallelPlan:
    """What one step of a setup costs (plain floats, units in the names)."""

    gpus: int
    micro_batches: int
    model_state_gb: float
    activations_gb: float
    memory_per_gpu_gb: float
    gpu_memory_gb: float
    fits: bool
    compute_s: float
    bubble_fraction: float
    bubble_s: float
    tp_communication_s: float
    dp_communication_s: float
    exposed_communication_s: float
    step_time_s: float
    tokens_per_s: float
    mfu: float
    checkpoint_gb: float
    checkpoint_write_s: float
    job_mtbf_hours: float
    checkpoint_interval_young_s: float
    checkpoint_interval_daly_s: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping, one key per field."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


def plan_parallelism(setup: ParallelPlanInput) -> ParallelPlan:
    """Memory, step time, bubble, exposed communication, MFU and checkpoint interval.

    Step time is the pipelined compute (kernels at ``kernel_efficiency`` of
    peak, plus the bubble) plus tensor-parallel all-reduces (on the critical
    path) plus the data-parallel traffic that compute cannot hide.

    Raises:
        UsageError: Degrees below 1, a ZeRO stage outside 0-3, a batch that does
            not split, or layers not divisible by the pipeline stages.
        HardwareNotFound: An unknown accelerator or one without a bf16 peak.
    """
    from sysdrill.napkin.calculators import (
        compute_cost,
        memory,
        pipeline,
        reliability,
        tensor_parallel,
        zero,
    )
    from sysdrill.napkin.calculators._quantity import quantity
    from sysdrill.napkin.hardware import get_accelerator

    if setup.layers % setup.pipeline_parallel:
        raise UsageError(
            f"{setup.layers} layers do not split over {setup.pipeline_parallel} pipeline stages"
        )
    gpus = setup.gpus
    micro_batches = setup.micro_batches()
    layers_per_stage = setup.layers // setup.pipeline_parallel
    params = quantity(setup.parameters_billions * 1e9, "param")
    gpu = get_accelerator(setup.accelerator)
    peak = gpu.peak_flops("bf16")
    capacity = gpu.memory_capacity()

    state = memory.model_state_memory(
        parameters=params,
        zero_stage=setup.zero_stage,
        data_parallel=setup.data_parallel,
        tensor_parallel=setup.tensor_parallel,
        pipeline_parallel=setup.pipeline_parallel,
    )
    bubble = pipeline.pipeline_bubble(stages=setup.pipeline_parallel, micro_batches=micro_batches)
    per_layer = memory.activation_memory_per_layer(
        sequence_length=setup.sequence_length,
        micro_batch=setup.micro_batch_sequences,
        hidden_size=setup.hidden_size,
        attention_heads=setup.attention_heads,
        tensor_parallel=setup.tensor_parallel,
    )
    # 1F1B keeps up to P micro-batches of activations on the first stage.
    activations = per_layer * layers_per_stage * bubble.activation_micro_batches
    required = (state.total + activations).to("GB")
    fit = memory.memory_fit(required=required, capacity=capacity)

    tokens = quantity(setup.global_batch_sequences * setup.sequence_length, "token")
    flops = compute_cost.training_flops(parameters=params, tokens=tokens)
    compute = compute_cost.training_time(
        flops=flops, gpus=gpus, peak_flops_per_gpu=peak, mfu=setup.kernel_efficiency
    ).wall_time
    pipelined = (compute * (1 + float(bubble.bubble_overhead))).to("s")

    tp_seconds = quantity(0, "s")
    if setup.tensor_parallel > 1:
        traffic = tensor_parallel.tensor_parallel_traffic(
            layers=layers_per_stage,
            micro_batch=setup.micro_batch_sequences,
            sequence_length=setup.sequence_length,
            hidden_size=setup.hidden_size,
            tensor_parallel=setup.tensor_parallel,
            micro_batches=micro_batches,
        )
        tp_bandwidth = quantity(setup.tp_bandwidth_gb_per_s, "GB / s")
        tp_seconds = (traffic.bytes_sent_per_step / tp_bandwidth).to("s")
    dp_seconds = exposed = quantity(0, "s")
    if setup.data_parallel > 1:
        dp = zero.zero_communication(
            parameters=state.parameters_per_model_shard,
            zero_stage=setup.zero_stage,
            data_parallel=setup.data_parallel,
            bytes_per_element=quantity(2, "byte"),
            bandwidth=quantity(setup.dp_bandwidth_gb_per_s, "GB / s"),
            compute_time=pipelined + tp_seconds,
        )
        assert dp.communication_time is not None and dp.exposed_communication is not None
        dp_seconds, exposed = dp.communication_time, dp.exposed_communication
    step = (pipelined + tp_seconds + exposed).to("s")
    tokens_per_s = (tokens / step).to("token / s")
    mfu = compute_cost.model_flops_utilization(
        tokens_per_second=tokens_per_s, gpus=gpus, peak_flops_per_gpu=peak, parameters=params
    )

    size = reliability.checkpoint_size(parameters=params)
    write = reliability.checkpoint_write_time(
        size=size, bandwidth=quantity(setup.checkpoint_bandwidth_gb_per_s, "GB / s")
    )
    mtbf = reliability.cluster_mtbf(
        device_mtbf=quantity(setup.device_mtbf_hours, "hour"), devices=gpus
    )
    interval = reliability.checkpoint_interval(checkpoint_time=write, mtbf=mtbf)
    return ParallelPlan(
        gpus=gpus,
        micro_batches=micro_batches,
        model_state_gb=float(state.total.to("GB").magnitude),
        activations_gb=float(activations.to("GB").magnitude),
        memory_per_gpu_gb=float(required.magnitude),
        gpu_memory_gb=float(capacity.to("GB").magnitude),
        fits=fit.fits,
        compute_s=float(compute.to("s").magnitude),
        bubble_fraction=float(bubble.bubble_fraction),
        bubble_s=float((pipelined - compute).to("s").magnitude),
        tp_communication_s=float(tp_seconds.to("s").magnitude),
        dp_communication_s=float(dp_seconds.to("s").magnitude),
        exposed_communication_s=float((tp_seconds + exposed).to("s").magnitude),
        step_time_s=float(step.magnitude),
        tokens_per_s=float(tokens_per_s.magnitude),
        mfu=mfu,
        checkpoint_gb=float(size.to("GB").magnitude),
        checkpoint_write_s=float(write.to("s").magnitude),
        job_mtbf_hours=float(mtbf.to("hour").magnitude),
        checkpoint_interval_young_s=float(interval.young.to("s").magnitude),
        checkpoint_interval_daly_s=float(interval.daly.to("s").magnitude),
    )
