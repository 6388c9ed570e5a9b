"""The hardware catalogue: accelerators and interconnects with published figures.

The data lives in ``hardware.yaml`` beside this module and is loaded and
validated (Pydantic) on first use, then cached. Every entry names its source.
Throughput is dense (no structured sparsity); see the YAML header for the
conventions.
"""

from __future__ import annotations

import difflib
from enum import StrEnum
from functools import cache
from importlib import resources
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from sysdrill.errors import ContentInvalid, HardwareNotFound

__all__ = [
    "Accelerator",
    "AcceleratorCategory",
    "Catalogue",
    "HardwareKind",
    "Interconnect",
    "Precision",
    "find_hardware",
    "get_accelerator",
    "get_interconnect",
    "list_hardware",
    "load_catalogue",
]


class HardwareKind(StrEnum):
    """The two kinds of catalogue entry."""

    ACCELERATOR = "accelerator"
    INTERCONNECT = "interconnect"


class AcceleratorCategory(StrEnum):
    """Where an accelerator is used."""

    DATACENTER = "datacenter"
    EDGE = "edge"
    MOBILE = "mobile"
    MICROCONTROLLER = "microcontroller"


class Precision(StrEnum):
    """Number formats a peak throughput is quoted for."""

    FP64 = "fp64"
    FP64_TENSOR = "fp64_tensor"
    FP32 = "fp32"
    TF32 = "tf32"
    BF16 = "bf16"
    FP16 = "fp16"
    FP8 = "fp8"
    FP4 = "fp4"
    INT8 = "int8"
    INT4 = "int4"


_FLOAT_PRECISIONS = frozenset(
    {
        Precision.FP64,
        Precision.FP64_TENSOR,
        Precision.FP32,
        Precision.TF32,
        Precision.BF16,
        Precision.FP16,
        Precision.FP8,
        Precision.FP4,
    }
)

_Name = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]*$")]
_Positive = Annotated[float, Field(gt=0)]


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: _Name
    display_name: str
    aliases: tuple[_Name, ...] = ()
    source: Annotated[str, Field(min_length=3)]
    notes: str | None = None


class Accelerator(_Entry):
    """One accelerator (GPU, TPU, NPU or microcontroller) and its published peaks.

    Attributes:
        peak_tflops: Dense floating-point peaks by precision (TFLOP/s).
        peak_tops: Dense integer peaks by precision (TOP/s).
        memory_gb: Device memory (GB, decimal).
        memory_bandwidth_gb_per_s: Device memory bandwidth (GB/s, decimal).
        tdp_w: Thermal design or total board power (W).
    """

    kind: Literal["accelerator"] = "accelerator"
    vendor: str
    category: AcceleratorCategory
    peak_tflops: dict[Precision, _Positive] = Field(default_factory=dict)
    peak_tops: dict[Precision, _Positive] = Field(default_factory=dict)
    memory_gb: _Positive | None = None
    memory_type: str | None = None
    memory_bandwidth_gb_per_s: _Positive | None = None
    tdp_w: _Positive | None = None
    clock_mhz: _Positive | None = None
    sram_kb: _Positive | None = None
    flash_kb: _Positive | None = None
    interconnect: _Name | None = None

    @model_validator(mode="after")
    def _precisions_in_the_right_table(self) -> Accelerator:
        wrong = [p.value for p in self.peak_tflops if p not in _FLOAT_PRECISIONS]
        wrong += [p.value for p in self.peak_tops if p in _FLOAT_PRECISIONS]
        if wrong:
            raise ValueError(
                f"{', '.join(wrong)}: floating-point formats go in peak_tflops, "
                "integer formats in peak_tops"
            )
        return self

    def peak_flops(self, precision: Precision | str) -> Any:
        """Return the dense peak at ``precision`` as a pint quantity (FLOP/s, or op/s for ints).

        Raises:
            HardwareNotFound: the catalogue has no figure for that precision.
        """
        from sysdrill.napkin.units import get_registry

        wanted = Precision(precision)
        table = self.peak_tflops if wanted in _FLOAT_PRECISIONS else self.peak_tops
        if wanted not in table:
            known = ", ".join(p.value for p in (*self.peak_tflops, *self.peak_tops)) or "none"
            raise HardwareNotFound(
                f"'{self.name}' has no published {wanted.value} peak; it has: {known}"
            )
        # Integer operations are counted as FLOP so roofline maths accepts them.
        return get_registry().Quantity(table[wanted], "TFLOP / s")

    def memory_capacity(self) -> Any:
        """Return the device memory as a pint quantity (decimal GB).

        Raises:
            HardwareNotFound: the vendor publishes no memory size for this part.
        """
        return self._published(self.memory_gb, "GB", "memory size")

    def memory_bandwidth(self) -> Any:
        """Return the memory bandwidth as a pint quantity (decimal GB/s).

        Raises:
            HardwareNotFound: the vendor publishes no memory bandwidth for this part.
        """
        return self._published(self.memory_bandwidth_gb_per_s, "GB / s", "memory bandwidth")

    def _published(self, value: float | None, unit: str, what: str) -> Any:
        from sysdrill.napkin.units import get_registry

        if value is None:
            raise HardwareNotFound(f"'{self.name}' has no published {what}")
        return get_registry().Quantity(value, unit)


class Interconnect(_Entry):
    """One link technology with its per-direction bandwidth and a model latency.

    Attributes:
        bandwidth_gb_per_s: Per-direction bandwidth (GB/s, decimal).
        bidirectional_gb_per_s: Both directions together (GB/s), as vendors quote it.
        latency_us: Per-hop latency for the alpha-beta model (µs).
        scope: What the bandwidth covers (per GPU, per port, per slot).
    """

    kind: Literal["interconnect"] = "interconnect"
    bandwidth_gb_per_s: _Positive
    bidirectional_gb_per_s: _Positive
    latency_us: _Positive
    scope: str
    latency_source: str

    def bandwidth(self) -> Any:
        """Return the per-direction bandwidth as a pint quantity (byte/s)."""
        from sysdrill.napkin.units import get_registry

        return get_registry().Quantity(self.bandwidth_gb_per_s, "GB / s")

    def latency(self) -> Any:
        """Return the per-hop latency as a pint quantity (s)."""
        from sysdrill.napkin.units import get_registry

        return get_registry().Quantity(self.latency_us, "us")


Hardware = Accelerator | Interconnect


class Catalogue(BaseModel):
    """Every accelerator and interconnect, with names and aliases unique across both."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: Literal[1]
    accelerators: tuple[Accelerator, ...]
    interconnects: tuple[Interconnect, ...]

    @model_validator(mode="after")
    def _names_unique_and_links_known(self) -> Catalogue:
        seen: set[str] = set()
        for entry in (*self.accelerators, *self.interconnects):
            for name in (entry.name, *entry.aliases):
                if name in seen:
                    raise ValueError(f"hardware name or alias '{name}' is used twice")
                seen.add(name)
        links = {link.name for link in self.interconnects}
        for acc in self.accelerators:
            if acc.interconnect is not None and acc.interconnect not in links:
                raise ValueError(f"'{acc.name}' names unknown interconnect '{acc.interconnect}'")
        return self

    def entries(self) -> tuple[Hardware, ...]:
        """Return accelerators then interconnects, in file order."""
        return (*self.accelerators, *self.interconnects)


@cache
def load_catalogue() -> Catalogue:
    """Load and validate the bundled ``hardware.yaml`` (cached after the first call).

    Raises:
        ContentInvalid: the bundled file does not validate (a packaging bug).
    """
    import yaml

    text = resources.files("sysdrill.napkin").joinpath("hardware.yaml").read_text("utf-8")
    from sysdrill.content.yaml_source import SAFE_LOADER

    try:
        return Catalogue.model_validate(yaml.load(text, Loader=SAFE_LOADER))
    except ValidationError as exc:
        raise ContentInvalid(f"hardware.yaml: {exc.errors()[0]['msg']}") from exc


def _normalise(name: str) -> str:
    return "-".join(name.strip().lower().replace("_", " ").split())


def find_hardware(name: str) -> Hardware:
    """Return the entry called ``name`` (case-insensitive; aliases accepted).

    Raises:
        HardwareNotFound: no entry has that name or alias; the message suggests near names.
    """
    wanted = _normalise(name)
    index: dict[str, Hardware] = {}
    for entry in load_catalogue().entries():
        for key in (entry.name, *entry.aliases):
            index[key] = entry
    if wanted in index:
        return index[wanted]
    close = difflib.get_close_matches(wanted, list(index), n=1)
    hint = f" (did you mean '{index[close[0]].name}'?)" if close else ""
    raise HardwareNotFound(
        f"no hardware named '{name}'{hint}; run 'sysdrill hw list' to see the names"
    )


def get_accelerator(name: str) -> Accelerator:
    """Return the accelerator called ``name``.

    Raises:
        HardwareNotFound: no such entry, or it is an interconnect.
    """
    entry = find_hardware(name)
    if not isinstance(entry, Accelerator):
        raise HardwareNotFound(
            f"'{entry.name}' is an interconnect, not an accelerator; "
            "run 'sysdrill hw list --kind accelerator' to see the accelerators"
        )
    return entry


def get_interconnect(name: str) -> Interconnect:
    """Return the interconnect called ``name``.

    Raises:
        HardwareNotFound: no such entry, or it is an accelerator.
    """
    entry = find_hardware(name)
    if not isinstance(entry, Interconnect):
        raise HardwareNotFound(
            f"'{entry.name}' is an accelerator, not an interconnect; "
            "run 'sysdrill hw list --kind interconnect' to see the interconnects"
        )
    return entry


def list_hardware(kind: HardwareKind | None = None) -> list[Hardware]:
    """Return catalogue entries, optionally only one kind, in file order."""
    catalogue = load_catalogue()
    if kind is HardwareKind.ACCELERATOR:
        return list(catalogue.accelerators)
    if kind is HardwareKind.INTERCONNECT:
        return list(catalogue.interconnects)
    return list(catalogue.entries())
