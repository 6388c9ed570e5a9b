"""``sysdrill hw``: list and show the hardware catalogue (accelerators and interconnects)."""

from __future__ import annotations

import json
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from sysdrill.napkin.hardware import Accelerator, Interconnect

__all__ = ["register"]


class KindChoice(StrEnum):
    """The ``--kind`` filter.

    It mirrors ``HardwareKind``; importing that would load pydantic for every
    ``sysdrill --help``.
    """

    ACCELERATOR = "accelerator"
    INTERCONNECT = "interconnect"


def _number(value: float | None, unit: str = "") -> str:
    if value is None:
        return "-"
    text = f"{value:,.1f}".removesuffix(".0")
    return f"{text} {unit}".strip()


def _accelerator_rows(entry: Accelerator) -> list[tuple[str, str]]:
    rows = [
        ("name", entry.name),
        ("kind", "accelerator"),
        ("model", entry.display_name),
        ("vendor", entry.vendor),
        ("category", entry.category.value),
    ]
    if entry.aliases:
        rows.append(("aliases", ", ".join(entry.aliases)))
    for precision, value in entry.peak_tflops.items():
        rows.append((f"peak {precision.value}", _number(value, "TFLOP/s")))
    for precision, value in entry.peak_tops.items():
        rows.append((f"peak {precision.value}", _number(value, "TOP/s")))
    optional = (
        ("memory", _number(entry.memory_gb, "GB") if entry.memory_gb else None),
        ("memory type", entry.memory_type),
        (
            "memory bandwidth",
            _number(entry.memory_bandwidth_gb_per_s, "GB/s")
            if entry.memory_bandwidth_gb_per_s
            else None,
        ),
        ("TDP", _number(entry.tdp_w, "W") if entry.tdp_w else None),
        ("clock", _number(entry.clock_mhz, "MHz") if entry.clock_mhz else None),
        ("SRAM", _number(entry.sram_kb, "KB") if entry.sram_kb else None),
        ("flash", _number(entry.flash_kb, "KB") if entry.flash_kb else None),
        ("interconnect", entry.interconnect),
    )
    rows.extend((label, text) for label, text in optional if text)
    rows.append(("source", entry.source))
    if entry.notes:
        rows.append(("notes", entry.notes))
    return rows


def _interconnect_rows(entry: Interconnect) -> list[tuple[str, str]]:
    rows = [
        ("name", entry.name),
        ("kind", "interconnect"),
        ("model", entry.display_name),
    ]
    if entry.aliases:
        rows.append(("aliases", ", ".join(entry.aliases)))
    rows += [
        ("bandwidth", _number(entry.bandwidth_gb_per_s, "GB/s per direction")),
        ("bidirectional", _number(entry.bidirectional_gb_per_s, "GB/s")),
        ("latency", _number(entry.latency_us, "us")),
        ("scope", entry.scope),
        ("source", entry.source),
        ("latency source", entry.latency_source),
    ]
    if entry.notes:
        rows.append(("notes", entry.notes))
    return rows


def _summary(entry: Accelerator | Interconnect) -> str:
    from sysdrill.napkin.hardware import Accelerator, Precision

    if isinstance(entry, Accelerator):
        parts = []
        for precision in (Precision.BF16, Precision.FP16, Precision.FP32):
            if precision in entry.peak_tflops:
                parts.append(f"{_number(entry.peak_tflops[precision])} TFLOP/s {precision.value}")
                break
        if Precision.INT8 in entry.peak_tops and not parts:
            parts.append(f"{_number(entry.peak_tops[Precision.INT8])} TOP/s int8")
        if entry.memory_gb:
            parts.append(f"{_number(entry.memory_gb)} GB")
        if entry.memory_bandwidth_gb_per_s:
            parts.append(f"{_number(entry.memory_bandwidth_gb_per_s)} GB/s")
        if entry.clock_mhz:
            parts.append(f"{_number(entry.clock_mhz)} MHz")
        return ", ".join(parts)
    return f"{_number(entry.bandwidth_gb_per_s)} GB/s per direction, {_number(entry.latency_us)} us"


def list_command(
    kind: Annotated[
        KindChoice | None, typer.Option("--kind", help="Only accelerators or interconnects.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the entries as JSON.")] = False,
) -> None:
    """List the hardware catalogue: name, kind and headline figures."""
    from rich.table import Table

    from sysdrill.cli.console import out_console
    from sysdrill.napkin.hardware import Accelerator, HardwareKind, list_hardware

    entries = list_hardware(HardwareKind(kind.value) if kind else None)
    if as_json:
        typer.echo(json.dumps([e.model_dump(mode="json") for e in entries], indent=2))
        return
    table = Table(box=None, pad_edge=False)
    for column in ("name", "kind", "model", "headline figures (dense)"):
        table.add_column(column)
    for entry in entries:
        label = entry.category.value if isinstance(entry, Accelerator) else "interconnect"
        table.add_row(entry.name, label, entry.display_name, _summary(entry))
    out_console().print(table)


def show_command(
    name: Annotated[str, typer.Argument(help="Catalogue name or alias, e.g. h100-sxm.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the entry as JSON.")] = False,
) -> None:
    """Show every figure of one catalogue entry, with its source."""
    from sysdrill.napkin.hardware import Accelerator, find_hardware

    entry = find_hardware(name)
    if as_json:
        typer.echo(json.dumps(entry.model_dump(mode="json"), indent=2))
        return
    rows = _accelerator_rows(entry) if isinstance(entry, Accelerator) else _interconnect_rows(entry)
    width = max(len(label) for label, _ in rows)
    for label, text in rows:
        typer.echo(f"{label.ljust(width)}  {text}")


def register(app: typer.Typer) -> None:
    """Add the ``hw`` group (``hw list``, ``hw show``) to the app."""
    hw_app = typer.Typer(
        name="hw",
        no_args_is_help=True,
        help="The hardware catalogue: accelerators and interconnects with sourced figures.",
    )
    hw_app.command(name="list")(list_command)
    hw_app.command(name="show")(show_command)
    app.add_typer(hw_app)
