"""Descriptions of the collective, memory, pipeline and tensor-parallel calculators."""

from __future__ import annotations

from typing import Any

from sysdrill.errors import UsageError
from sysdrill.napkin.calculators import (
    collectives,
    memory,
    pipeline,
    tensor_parallel,
)
from sysdrill.napkin.calculators._params import (
    BANDWIDTH,
    ELEMENT,
    GPU_MEMORY,
    HIDDEN,
    LATENCY,
    LAYERS,
    MESSAGE,
    MICRO,
    OPTIMIZER,
    PARAMS,
    PRECISION,
    RANKS,
    SEQ,
    Q,
    count,
    fields,
    with_fit,
)
from sysdrill.napkin.calculators.spec import Calculator, Kind, Param

__all__ = ["PARALLEL_CALCULATORS"]


def _collective(function: Any) -> Any:
    def run(v: dict[str, Any]) -> Any:
        return function(
            ranks=v["ranks"], message=v["message"], bandwidth=v["bandwidth"], latency=v["latency"]
        )

    return run


def _broadcast(v: dict[str, Any]) -> Any:
    return collectives.broadcast_time(
        ranks=v["ranks"],
        message=v["message"],
        bandwidth=v["bandwidth"],
        latency=v["latency"],
        algorithm=v["algorithm"],
    )


def _bus_bandwidth(v: dict[str, Any]) -> dict[str, Any]:
    kind, ranks = v["collective"], v["ranks"]
    return {
        "algorithm_bandwidth": collectives.algorithm_bandwidth(
            message=v["message"], time=v["time"]
        ),
        "bus_bandwidth": collectives.bus_bandwidth(
            collective=kind, ranks=ranks, message=v["message"], time=v["time"]
        ),
        "bus_factor": collectives.bus_bandwidth_factor(collective=kind, ranks=ranks),
    }


def _data_parallel(gpus: int, tp: int, pp: int) -> int:
    if gpus % (tp * pp):
        raise UsageError(f"--gpus {gpus} is not a multiple of --tp x --pp = {tp * pp}")
    return gpus // (tp * pp)


def _training_memory(v: dict[str, Any]) -> Any:
    state = memory.model_state_memory(
        parameters=v["params"],
        optimizer=v["optimizer"],
        precision=v["precision"],
        zero_stage=v["zero"],
        data_parallel=_data_parallel(v["gpus"], v["tp"], v["pp"]),
        tensor_parallel=v["tp"],
        pipeline_parallel=v["pp"],
    )
    return with_fit(state, state.total, v["gpu_memory"])


def _fsdp_peak(v: dict[str, Any]) -> Any:
    peak = memory.fsdp_peak_memory(
        parameters=v["params"],
        layers=v["layers"],
        gpus=v["gpus"],
        optimizer=v["optimizer"],
        precision=v["precision"],
        gathered_layers=v["gathered_layers"],
    )
    return with_fit(peak, peak.total, v["gpu_memory"])


def _activation_memory(v: dict[str, Any]) -> dict[str, Any]:
    per_layer = memory.activation_memory_per_layer(
        sequence_length=v["sequence_length"],
        micro_batch=v["micro_batch"],
        hidden_size=v["hidden_size"],
        attention_heads=v["heads"],
        tensor_parallel=v["tp"],
        sequence_parallel=v["sequence_parallel"],
        recompute=v["recompute"],
    )
    return {"per_layer": per_layer, "all_layers": per_layer * v["layers"]}


def _micro_batches_for_bubble(v: dict[str, Any]) -> dict[str, Any]:
    m = pipeline.micro_batches_for_bubble(
        stages=v["stages"],
        target_bubble_fraction=v["target"],
        schedule=v["schedule"],
        virtual_stages=v["virtual_stages"],
        measure=v["measure"],
        strictly_below=not v["at_most"],
    )
    bubble = pipeline.pipeline_bubble(
        stages=v["stages"],
        micro_batches=m,
        schedule=v["schedule"],
        virtual_stages=v["virtual_stages"],
    )
    return {"micro_batches": m, **dict(fields(bubble))}


def _checkpointing(v: dict[str, Any]) -> Any:
    every = v["every"] or memory.best_checkpoint_interval(
        layers=v["layers"],
        layer_activations=v["layer_activations"],
        layer_input=v["layer_input"],
    )
    result = memory.checkpointed_activation_memory(
        layers=v["layers"],
        layer_activations=v["layer_activations"],
        layer_input=v["layer_input"],
        checkpoint_every=every,
    )
    return {"checkpoint_every_layers": every, **dict(fields(result))}


PARALLEL_CALCULATORS: tuple[Calculator, ...] = (
    # collectives ---------------------------------------------------------------------------
    Calculator(
        name="ring-allreduce",
        family="collectives",
        summary="Time of a ring all-reduce under the alpha-beta model.",
        formula="T = 2(N-1)·α + 2(N-1)/N · M/β",
        source="Patarasuk & Yuan 2009; NCCL-tests PERFORMANCE.md for algbw/busbw",
        params=(RANKS, MESSAGE, BANDWIDTH, LATENCY),
        run=_collective(collectives.ring_allreduce_time),
        example="--ranks 8 --message 1GB --bandwidth 50GB/s --latency 5us",
    ),
    Calculator(
        name="tree-allreduce",
        family="collectives",
        summary="Time of a pipelined (double binary) tree all-reduce.",
        formula="T = 2⌈log2 N⌉·α + 2·M/β",
        source="Sanders, Speck & Träff 2009; NCCL 2.4 double binary trees",
        params=(RANKS, MESSAGE, BANDWIDTH, LATENCY),
        run=_collective(collectives.tree_allreduce_time),
        example="--ranks 1024 --message 64MB --link infiniband-ndr",
    ),
    Calculator(
        name="reduce-scatter",
        family="collectives",
        summary="Time of a ring reduce-scatter (M is the full input buffer).",
        formula="T = (N-1)·α + (N-1)/N · M/β",
        source="Patarasuk & Yuan 2009; NCCL-tests PERFORMANCE.md",
        params=(RANKS, MESSAGE, BANDWIDTH, LATENCY),
        run=_collective(collectives.reduce_scatter_time),
        example="--ranks 8 --message 1GB --link nvlink-4",
    ),
    Calculator(
        name="all-gather",
        family="collectives",
        summary="Time of a ring all-gather (M is the gathered output).",
        formula="T = (N-1)·α + (N-1)/N · M/β",
        source="Patarasuk & Yuan 2009; NCCL-tests PERFORMANCE.md",
        params=(RANKS, MESSAGE, BANDWIDTH, LATENCY),
        run=_collective(collectives.all_gather_time),
        example="--ranks 8 --message 1GB --link nvlink-4",
    ),
    Calculator(
        name="broadcast",
        family="collectives",
        summary="Time of a broadcast by pipelined ring or binomial tree.",
        formula="ring: T = (N-1)·α + M/β;  tree: T = ⌈log2 N⌉·(α + M/β)",
        source="Thakur, Rabenseifner & Gropp 2005 (MPICH collectives)",
        params=(
            RANKS,
            MESSAGE,
            BANDWIDTH,
            LATENCY,
            Param(
                "algorithm",
                Kind.CHOICE,
                "Broadcast algorithm.",
                default="ring",
                choices=collectives.BroadcastAlgorithm,
            ),
        ),
        run=_broadcast,
        example="--ranks 16 --message 2GB --bandwidth 25GB/s",
    ),
    Calculator(
        name="bus-bandwidth",
        family="collectives",
        summary="NCCL-tests algbw and busbw from a measured collective time.",
        formula="algbw = M/t;  busbw = algbw × factor (all-reduce 2(n-1)/n; RS, AG (n-1)/n)",
        source="NCCL-tests doc/PERFORMANCE.md",
        params=(
            Param(
                "collective",
                Kind.CHOICE,
                "Collective measured.",
                default="all-reduce",
                choices=collectives.Collective,
            ),
            RANKS,
            MESSAGE,
            Param("time", Q, "Measured time, e.g. 12ms.", unit="s"),
        ),
        run=_bus_bandwidth,
        example="--ranks 8 --message 1GB --time 9ms",
    ),
    # training memory -----------------------------------------------------------------------
    Calculator(
        name="bytes-per-param",
        family="memory",
        summary="Model-state bytes per parameter for an optimizer and precision.",
        formula="mixed Adam 2 + 2 + 12 = 16; FP32 Adam 4 + 4 + 8; 8-bit Adam moments 1 + 1",
        source="Rajbhandari et al. 2020 (ZeRO) §3.1; Dettmers et al. 2022 (8-bit optimizers)",
        params=(OPTIMIZER, PRECISION),
        run=lambda v: memory.bytes_per_parameter(
            optimizer=v["optimizer"], precision=v["precision"]
        ),
        example="--optimizer adam --precision mixed",
    ),
    Calculator(
        name="training-memory",
        family="memory",
        summary="Per-GPU model state under DDP or ZeRO-1/2/3 (FSDP) with TP and PP.",
        formula="Ψ' = Ψ/(TP·PP); ZeRO-0 (2+2+K)Ψ'; ZeRO-1 4Ψ' + KΨ'/Nd; "
        "ZeRO-2 2Ψ' + (2+K)Ψ'/Nd; ZeRO-3 (2+2+K)Ψ'/Nd",
        source="Rajbhandari et al. 2020, ZeRO, Figure 1",
        params=(
            PARAMS,
            OPTIMIZER,
            PRECISION,
            count("zero", "ZeRO stage 0-3 (3 = FSDP full shard).", default="0"),
            count("gpus", "Total GPUs (data parallel = gpus / (tp·pp)).", default="1"),
            count("tp", "Tensor-parallel degree.", default="1"),
            count("pp", "Pipeline-parallel degree.", default="1"),
            GPU_MEMORY,
        ),
        run=_training_memory,
        example="--params 7.5B --zero 1 --gpus 64",
    ),
    Calculator(
        name="fsdp-peak",
        family="memory",
        summary="Peak per-GPU model state under FSDP with gathered layers.",
        formula="peak = (2+2+K)Ψ/N + g·(Ψ/L)·(weight + gradient bytes)",
        source="Zhao et al. 2023, PyTorch FSDP; Rajbhandari et al. 2020",
        params=(
            PARAMS,
            LAYERS,
            count("gpus", "Sharding degree N."),
            OPTIMIZER,
            PRECISION,
            count("gathered_layers", "Layers unsharded at once (2 with prefetch).", "1"),
            GPU_MEMORY,
        ),
        run=_fsdp_peak,
        example="--params 70B --layers 80 --gpus 64 --gpu h100-sxm",
    ),
    Calculator(
        name="activation-memory",
        family="memory",
        summary="Activation bytes per transformer layer (TP, SP and recompute variants).",
        formula="sbh(34 + 5as/h); TP: sbh(10 + 24/t + 5as/(ht)); TP+SP: sbh/t·(34 + 5as/h); "
        "selective drops 5as/h; full recompute 2sbh",
        source="Korthikanti et al. 2022, Reducing Activation Recomputation, Table 2",
        params=(
            SEQ,
            MICRO,
            HIDDEN,
            count("heads", "Attention heads a."),
            count("tp", "Tensor-parallel degree t.", default="1"),
            Param("sequence_parallel", Kind.FLAG, "Use sequence parallelism.", default="false"),
            Param(
                "recompute",
                Kind.CHOICE,
                "Recomputation.",
                default="none",
                choices=memory.Recompute,
            ),
            count("layers", "Layers to total over.", default="1"),
        ),
        run=_activation_memory,
        example="--sequence-length 2048 --hidden-size 12288 --heads 96 --tp 8 --sequence-parallel",
    ),
    Calculator(
        name="activation-checkpointing",
        family="memory",
        summary="Activation memory with a checkpoint every k layers (the best k by default).",
        formula="memory = ⌈L/k⌉·input + k·activations; best near k = √(L·input/activations), "
        "√L when input ≈ activations",
        source="Chen et al. 2016, Training Deep Nets with Sublinear Memory Cost",
        params=(
            LAYERS,
            Param("layer_activations", Q, "Activations per layer, e.g. 3GB.", unit="byte"),
            Param("layer_input", Q, "One layer's input (2sbh), e.g. 50MB.", unit="byte"),
            Param(
                "every",
                Kind.COUNT,
                "Layers per segment k (default: the k with the least memory).",
                optional=True,
            ),
        ),
        run=_checkpointing,
        example="--layers 96 --layer-activations 2.9GB --layer-input 50MB",
    ),
    # pipeline ------------------------------------------------------------------------------
    Calculator(
        name="pipeline-bubble",
        family="pipeline",
        summary="Bubble (as a share of the step and as Megatron-LM reports it) and micro-batches "
        "in flight of GPipe, 1F1B or interleaved 1F1B.",
        formula="step share (P-1)/(v·M+P-1); Megatron bubble (P-1)/(v·M); in flight: GPipe M, "
        "1F1B min(P,M), interleaved 2(P-1)+(v-1)P+1 chunks = P(1+(P-1)/(Pv)) stages",
        source="Huang et al. 2019 (GPipe) §2.3; Narayanan et al. 2021 (Megatron-LM) §2.2.1-2.2.2; "
        "Korthikanti et al. 2022 §4.2.3 (interleaved activations)",
        params=(
            count("stages", "Pipeline stages P."),
            count("micro_batches", "Micro-batches per step M."),
            Param("schedule", Kind.CHOICE, "Schedule.", default="1f1b", choices=pipeline.Schedule),
            count("virtual_stages", "Model chunks per GPU v (interleaved).", default="1"),
        ),
        run=lambda v: pipeline.pipeline_bubble(
            stages=v["stages"],
            micro_batches=v["micro_batches"],
            schedule=v["schedule"],
            virtual_stages=v["virtual_stages"],
        ),
        example="--stages 4 --micro-batches 16 --schedule gpipe",
    ),
    Calculator(
        name="pipeline-microbatches",
        family="pipeline",
        summary="Fewest micro-batches for a bubble under (or, with --at-most, at most) a target.",
        formula="step share: M ≥ (P-1)(1-f)/(v·f);  Megatron (P-1)/(v·M): M ≥ (P-1)/(v·f); "
        "--at-most: equal to f allowed",
        source="Huang et al. 2019 (GPipe) §2.3; Narayanan et al. 2021 (Megatron-LM) §2.2",
        params=(
            count("stages", "Pipeline stages P."),
            Param("target", Kind.NUMBER, "Bubble target f, e.g. 5%.", percent=True),
            Param("schedule", Kind.CHOICE, "Schedule.", default="1f1b", choices=pipeline.Schedule),
            count("virtual_stages", "Model chunks per GPU v (interleaved).", default="1"),
            Param(
                "measure",
                Kind.CHOICE,
                "What f measures: the step's idle share, or Megatron-LM's bubble over compute.",
                default="step",
                choices=pipeline.BubbleMeasure,
            ),
            Param(
                "at_most",
                Kind.FLAG,
                "Accept a bubble equal to f, not only below it.",
                default="false",
            ),
        ),
        run=_micro_batches_for_bubble,
        example="--stages 8 --target 10% --measure megatron",
    ),
    # tensor parallelism --------------------------------------------------------------------
    Calculator(
        name="tp-traffic",
        family="tensor_parallel",
        summary="Tensor-parallel all-reduces per layer and bytes each GPU sends.",
        formula="4 all-reduces/layer of b·s·h·bytes; sent = 4·2(t-1)/t·bsh·bytes per layer",
        source="Shoeybi et al. 2019 (Megatron-LM) §3",
        params=(
            LAYERS,
            MICRO,
            SEQ,
            HIDDEN,
            count("tp", "Tensor-parallel degree t."),
            count("micro_batches", "Micro-batches per step.", default="1"),
            ELEMENT,
        ),
        run=lambda v: tensor_parallel.tensor_parallel_traffic(
            layers=v["layers"],
            micro_batch=v["micro_batch"],
            sequence_length=v["sequence_length"],
            hidden_size=v["hidden_size"],
            tensor_parallel=v["tp"],
            micro_batches=v["micro_batches"],
            bytes_per_element=v["bytes_per_element"],
        ),
        example="--layers 96 --sequence-length 2048 --hidden-size 12288 --tp 8",
    ),
    Calculator(
        name="tp-vs-dp",
        family="tensor_parallel",
        summary="Per-GPU bytes per step: tensor-parallel activations against DP gradients.",
        formula="TP: L·M·4·2(t-1)/t·bsh·bytes;  DP: 2(d-1)/d·(Ψ/t)·bytes",
        source="Shoeybi et al. 2019; Patarasuk & Yuan 2009",
        params=(
            PARAMS,
            LAYERS,
            MICRO,
            SEQ,
            HIDDEN,
            count("tp", "Tensor-parallel degree t."),
            count("dp", "Data-parallel degree d."),
            count("micro_batches", "Micro-batches per step M.", default="1"),
            ELEMENT,
        ),
        run=lambda v: tensor_parallel.tp_vs_dp_communication(
            parameters=v["params"],
            layers=v["layers"],
            micro_batch=v["micro_batch"],
            sequence_length=v["sequence_length"],
            hidden_size=v["hidden_size"],
            tensor_parallel=v["tp"],
            data_parallel=v["dp"],
            micro_batches=v["micro_batches"],
            bytes_per_element=v["bytes_per_element"],
        ),
        example=(
            "--params 175B --layers 96 --sequence-length 2048 --hidden-size 12288"
            " --tp 8 --dp 8 --micro-batches 8"
        ),
    ),
)
"""Collective, memory, pipeline and tensor-parallel calculators, in display order."""
