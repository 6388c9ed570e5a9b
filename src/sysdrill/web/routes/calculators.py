"""Calculators in the browser: every calculator of ``sysdrill calc``, charts, napkin box.

Each calculator of the napkin registry gets a form built from its description (the
same inputs, help and defaults as ``sysdrill calc NAME``); the roofline also draws
the accelerator's roofline with the kernel marked, and ``training-memory`` (the
parallelism memory planner) draws per-GPU memory bars with a fits verdict.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from pydantic import BaseModel, Field, ValidationError
from starlette.exceptions import HTTPException
from starlette.responses import Response

from sysdrill.app.calculator_form import WHOLE_FORM, CalculatorRun, field_label
from sysdrill.errors import UsageError
from sysdrill.napkin.calculators.spec import Calculator, CalculatorResult, Fill, Kind
from sysdrill.web.calc_charts import memory_bars, roofline_plot
from sysdrill.web.charts import svg_data_uri
from sysdrill.web.item_view import claim_rows
from sysdrill.web.json_api import json_route
from sysdrill.web.templating import render_page

__all__ = ["CalculatorIn", "NapkinIn", "router"]

router = APIRouter()

FEATURED = ("roofline", "training-memory", "ring-allreduce", "tree-allreduce")
"""Calculators the index page puts first."""

NAPKIN_LIMIT_CHARS = 20_000
"""Longest text the napkin box checks."""
INPUT_LIMIT_CHARS = 200
"""Longest value of one calculator input (``"1.5 TFLOP/s"``, ``"7B"``)."""

_ACCELERATOR_FILLS = {Fill.PEAK_FLOPS, Fill.MEMORY_BANDWIDTH, Fill.MEMORY_CAPACITY}
_LINK_FILLS = {Fill.LINK_BANDWIDTH, Fill.LINK_LATENCY}


class CalculatorIn(BaseModel):
    """Inputs of one calculator run, as typed (``"1GB"``, ``"50GB/s"``, ``"8"``)."""

    inputs: dict[str, Annotated[str, Field(max_length=INPUT_LIMIT_CHARS)]] = Field(
        default_factory=dict, max_length=64
    )
    gpu: str | None = Field(
        default=None, max_length=100, description="Accelerator filling compute inputs."
    )
    dtype: str = Field(
        default="bf16", max_length=40, description="Precision of the accelerator peak."
    )
    link: str | None = Field(
        default=None, max_length=100, description="Interconnect filling link inputs."
    )


class NapkinIn(BaseModel):
    """Text whose ``=``, ``≈`` and ``~`` claims are checked."""

    text: str = Field(max_length=NAPKIN_LIMIT_CHARS)


def _calculator(name: str) -> Calculator:
    from sysdrill.napkin.calculators.registry import get_calculator

    found = get_calculator(name)
    if found is None:
        raise HTTPException(404, f"no calculator named '{name}'; see /calculators")
    return found


def _hardware() -> dict[str, list[dict[str, str]]]:
    from sysdrill.napkin.hardware import HardwareKind, list_hardware

    return {
        "accelerators": [
            {"name": h.name, "title": h.display_name}
            for h in list_hardware(HardwareKind.ACCELERATOR)
        ],
        "interconnects": [
            {"name": h.name, "title": h.display_name}
            for h in list_hardware(HardwareKind.INTERCONNECT)
        ],
    }


def _run(calc: Calculator, given: CalculatorIn) -> CalculatorRun:
    """Run ``calc`` on the inputs given, or say why each was refused (in the form's words)."""
    from sysdrill.app.calculator_form import run_calculator_form

    return run_calculator_form(
        calc,
        given.inputs,
        gpu=given.gpu or None,
        precision=given.dtype.lower(),
        link=given.link or None,
    )


def _chart(calc: Calculator, result: CalculatorResult) -> str | None:
    inputs = dict(result.inputs)
    outputs = dict(result.outputs)
    if calc.name == "roofline":
        svg = roofline_plot(
            peak_tflop_per_s=float(inputs["peak_flops"].to("TFLOP / s").magnitude),
            bandwidth_tb_per_s=float(inputs["bandwidth"].to("TB / s").magnitude),
            intensity_flop_per_byte=float(inputs["intensity"].to("FLOP / byte").magnitude),
        )
        return svg_data_uri(svg)
    if calc.name == "training-memory":
        parts = {
            name.replace("_", " "): float(outputs[name].to("GB").magnitude)
            for name in ("weights", "gradients", "optimizer_states")
            if name in outputs
        }
        capacity = inputs.get("gpu_memory")
        capacity_gb = None if capacity is None else float(capacity.to("GB").magnitude)
        return svg_data_uri(memory_bars(parts, capacity_gb=capacity_gb))
    return None


def _describe(calc: Calculator) -> dict[str, Any]:
    return {
        "name": calc.name,
        "family": calc.family,
        "summary": calc.summary,
        "formula": calc.formula,
        "source": calc.source,
        "example": calc.example,
        "uses_gpu": bool(calc.fills & _ACCELERATOR_FILLS),
        "uses_link": bool(calc.fills & _LINK_FILLS),
        "params": [
            {
                "name": p.name,
                "kind": p.kind.value,
                "help": p.help,
                "unit": p.unit,
                "default": p.default,
                "optional": p.optional,
                "choices": [str(c.value) for c in p.choices] if p.choices else [],
            }
            for p in calc.params
        ],
    }


@router.get("/calculators", include_in_schema=False)
def calculators_page(request: Request) -> Response:
    """Every calculator, the featured ones first, and the napkin-math box."""
    from sysdrill.napkin.calculators.registry import CALCULATORS

    described = [_describe(c) for c in CALCULATORS]
    featured = [d for name in FEATURED for d in described if d["name"] == name]
    families: dict[str, list[dict[str, Any]]] = {}
    for d in described:
        families.setdefault(d["family"].replace("_", " "), []).append(d)
    return render_page(request, "calculators.html", {"featured": featured, "families": families})


@router.get("/calculators/napkin", include_in_schema=False)
def napkin_page(request: Request) -> Response:
    """The napkin-math box: paste text, every claim is checked."""
    return render_page(request, "napkin.html", {"text": "", "claims": None})


@router.post("/calculators/napkin", include_in_schema=False)
def napkin_check_form(
    request: Request, text: Annotated[str, Form(max_length=NAPKIN_LIMIT_CHARS)]
) -> Response:
    """Check the pasted text and show each claim marked right or wrong."""
    from sysdrill.napkin import check_claims

    claims = claim_rows(check_claims(text))
    return render_page(request, "napkin.html", {"text": text, "claims": claims})


@router.post("/api/napkin/check", tags=["calculators"])
@json_route()
def napkin_check_api(body: NapkinIn) -> dict[str, Any]:
    """Every ``=``/``≈``/``~`` claim of the text with its verdict and computed value."""
    from sysdrill.napkin import check_claims

    return {"claims": claim_rows(check_claims(body.text))}


@router.get("/calculators/{name}", include_in_schema=False)
def calculator_page(request: Request, name: str) -> Response:
    """One calculator's form; with ``run`` in the query, its result (and chart)."""
    calc = _calculator(name)
    query = request.query_params
    try:
        given = CalculatorIn(
            inputs={p.name: query[p.name] for p in calc.params if p.name in query},
            gpu=query.get("gpu") or None,
            dtype=query.get("dtype") or "bf16",
            link=query.get("link") or None,
        )
    except ValidationError as exc:
        where = ", ".join(field_label(str(e["loc"][-1])) for e in exc.errors())
        raise UsageError(f"{calc.name}: {where} is too long; shorten it") from exc
    run = _run(calc, given) if "run" in query else CalculatorRun()
    chart = None if run.result is None else _chart(calc, run.result)
    return render_page(
        request,
        "calculator.html",
        {
            "calc": _describe(calc),
            "given": given,
            "result": run.result,
            "chart": chart,
            # A refused input shows the form again, what was typed kept, the reason by its field.
            "problems": run.problems,
            "problem_lines": run.lines(),
            "whole_form": WHOLE_FORM,
            "hardware": _hardware(),
            "choice_kind": Kind.CHOICE.value,
            "flag_kind": Kind.FLAG.value,
        },
        status_code=422 if run.problems else 200,
    )


@router.get("/api/calculators", tags=["calculators"])
@json_route()
def calculators_api() -> dict[str, Any]:
    """Every calculator with its inputs, formula and source, and the hardware catalogue."""
    from sysdrill.napkin.calculators.registry import CALCULATORS

    return {"calculators": [_describe(c) for c in CALCULATORS], **_hardware()}


@router.post("/api/calculators/{name}", tags=["calculators"])
@json_route()
def calculator_api(name: str, body: CalculatorIn) -> dict[str, Any]:
    """Run one calculator; quantities come back as ``{"value", "unit"}``."""
    calc = _calculator(name)
    run = _run(calc, body)
    if run.result is None:
        raise UsageError("; ".join(run.lines()))
    return {**run.result.to_json(), "rows": [list(row) for row in run.result.rows()]}
