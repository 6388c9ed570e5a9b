"""The 3D-parallelism planner page and its API twin.

The figures come from :func:`sysdrill.app.parallel_plan.plan_parallelism`,
which chains the napkin calculators; this module only reads the form and
shows the result.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from fastapi import APIRouter, Request
from pydantic import TypeAdapter, ValidationError
from starlette.responses import Response

from sysdrill.app.parallel_plan import ParallelPlanInput, plan_parallelism
from sysdrill.errors import HardwareNotFound, UsageError
from sysdrill.web.json_api import json_route
from sysdrill.web.templating import render_page

__all__ = ["router"]

router = APIRouter()

_SETUP = TypeAdapter(ParallelPlanInput)

LABELS: dict[str, str] = {
    "parameters_billions": "Model size (billions of parameters)",
    "layers": "Layers",
    "hidden_size": "Hidden size",
    "attention_heads": "Attention heads",
    "sequence_length": "Sequence length (tokens)",
    "global_batch_sequences": "Global batch (sequences)",
    "micro_batch_sequences": "Micro-batch (sequences)",
    "tensor_parallel": "TP (tensor parallel)",
    "pipeline_parallel": "PP (pipeline stages)",
    "data_parallel": "DP (data parallel)",
    "zero_stage": "ZeRO stage (0-3)",
    "accelerator": "Accelerator",
    "kernel_efficiency": "Kernel efficiency (share of peak, 0-1)",
    "tp_bandwidth_gb_per_s": "TP link bandwidth per GPU (GB/s)",
    "dp_bandwidth_gb_per_s": "DP link bandwidth per GPU (GB/s)",
    "device_mtbf_hours": "MTBF of one GPU (hours)",
    "checkpoint_bandwidth_gb_per_s": "Checkpoint write bandwidth (GB/s)",
}
"""Form label of each input, in form order."""

BOUNDS: dict[str, tuple[float, float]] = {
    "parameters_billions": (1e-6, 1e6),
    "layers": (1, 10_000),
    "hidden_size": (1, 10_000_000),
    "attention_heads": (1, 100_000),
    "sequence_length": (1, 100_000_000),
    "global_batch_sequences": (1, 1_000_000_000),
    "micro_batch_sequences": (1, 1_000_000_000),
    "tensor_parallel": (1, 1_000_000),
    "pipeline_parallel": (1, 1_000_000),
    "data_parallel": (1, 1_000_000),
    "zero_stage": (0, 3),
    "kernel_efficiency": (1e-6, 1.0),
    "tp_bandwidth_gb_per_s": (1e-6, 1e9),
    "dp_bandwidth_gb_per_s": (1e-6, 1e9),
    "device_mtbf_hours": (1e-6, 1e12),
    "checkpoint_bandwidth_gb_per_s": (1e-6, 1e9),
}
"""The range each numeric input may take (both ends included); a value outside is a 422."""


def _parse(given: dict[str, Any]) -> ParallelPlanInput:
    """A setup from form or JSON values; a bad value is a 422 naming the input."""
    unknown = sorted(set(given) - set(LABELS))
    if unknown:
        raise UsageError(f"the planner has no input {', '.join(unknown)}")
    try:
        setup = _SETUP.validate_python({k: v for k, v in given.items() if v != ""})
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        raise UsageError(f"bad planner input: {problems[:500]}") from exc
    out_of_range = [
        f"{name} must be between {low:g} and {high:g}"
        for name, (low, high) in BOUNDS.items()
        if not low <= getattr(setup, name) <= high  # NaN is out of every range
    ]
    if out_of_range:
        raise UsageError(f"bad planner input: {'; '.join(out_of_range)}")
    return setup


def _plan(setup: ParallelPlanInput) -> dict[str, Any]:
    try:
        return plan_parallelism(setup).to_dict()
    except HardwareNotFound as exc:
        # A name typed into a form is a bad input, not a missing page.
        raise UsageError(str(exc)) from exc


def _accelerators() -> list[dict[str, str]]:
    from sysdrill.napkin.hardware import HardwareKind, list_hardware

    return [
        {"name": h.name, "title": h.display_name} for h in list_hardware(HardwareKind.ACCELERATOR)
    ]


@router.get("/planner", include_in_schema=False)
def planner_page(request: Request) -> Response:
    """The planner form; with ``run`` in the query, the step it describes."""
    query = {k: v for k, v in request.query_params.items() if k != "run"}
    setup = _parse(query)
    plan = _plan(setup) if "run" in request.query_params else None
    return render_page(
        request,
        "planner.html",
        {
            "labels": LABELS,
            "setup": dataclasses.asdict(setup),
            "plan": plan,
            "accelerators": _accelerators(),
        },
    )


@router.post("/api/planner", tags=["calculators"])
@json_route()
def planner_api(body: dict[str, Any]) -> dict[str, Any]:
    """Plan a 3D-parallel training step: memory per GPU, step time, bubble, MFU, checkpoints.

    The body holds any of the planner's inputs (see the page's form); missing
    ones take their defaults. Times in seconds, sizes in GB, fractions in 0-1.
    """
    setup = _parse(body)
    return {"inputs": dataclasses.asdict(setup), "plan": _plan(setup)}
