"""The hardware catalogue: validated data with sources, and lookups by name or alias."""

from __future__ import annotations

import pytest
import yaml
from pydantic import ValidationError

from sysdrill.errors import HardwareNotFound
from sysdrill.napkin.hardware import (
    Accelerator,
    AcceleratorCategory,
    Catalogue,
    HardwareKind,
    Interconnect,
    find_hardware,
    get_accelerator,
    get_interconnect,
    list_hardware,
    load_catalogue,
)

REQUIRED_ACCELERATORS = {
    "v100",
    "a100-40gb",
    "a100-80gb",
    "h100-sxm",
    "h100-pcie",
    "h200",
    "b200",
    "gb200",
    "mi300x",
    "tpu-v5p",
    "l4",
}
REQUIRED_INTERCONNECTS = {
    "nvlink-2",
    "nvlink-3",
    "nvlink-4",
    "nvlink-5",
    "pcie-4-x16",
    "pcie-5-x16",
    "infiniband-hdr",
    "infiniband-ndr",
    "infiniband-xdr",
    "ethernet-100g",
    "ethernet-400g",
}


def test_catalogue_has_every_required_entry() -> None:
    names = {entry.name for entry in load_catalogue().entries()}
    assert REQUIRED_ACCELERATORS | REQUIRED_INTERCONNECTS <= names
    categories = {acc.category for acc in load_catalogue().accelerators}
    assert categories == set(AcceleratorCategory)


def test_every_entry_names_its_source() -> None:
    for entry in load_catalogue().entries():
        assert len(entry.source) > 10, entry.name


def test_datacenter_accelerators_have_memory_bandwidth_and_a_peak() -> None:
    for acc in load_catalogue().accelerators:
        if acc.category is AcceleratorCategory.DATACENTER:
            assert acc.memory_gb and acc.memory_bandwidth_gb_per_s, acc.name
            assert acc.peak_tflops, acc.name


def test_a100_figures_match_the_datasheet() -> None:
    # NVIDIA A100 datasheet: 312 TFLOP/s dense BF16, 2,039 GB/s on the 80 GB SXM part.
    a100 = get_accelerator("a100-80gb")
    assert a100.peak_flops("bf16").to("TFLOP/s").magnitude == 312
    assert a100.memory_bandwidth().to("TB/s").magnitude == pytest.approx(2.039)
    ridge = a100.peak_flops("bf16") / a100.memory_bandwidth()
    assert ridge.to("FLOP/byte").magnitude == pytest.approx(153, abs=0.1)


def test_dense_figures_are_half_the_sparse_datasheet_numbers() -> None:
    # H100 SXM datasheet prints 1,979 TFLOP/s BF16 and 3,958 FP8 with 2:4 sparsity.
    h100 = get_accelerator("h100-sxm")
    assert h100.peak_tflops["bf16"] == pytest.approx(1979 / 2, abs=0.5)
    assert h100.peak_tflops["fp8"] == pytest.approx(3958 / 2, abs=0.5)


def test_interconnect_bandwidth_is_per_direction() -> None:
    nvlink4 = get_interconnect("nvlink-4")
    assert nvlink4.bidirectional_gb_per_s == 2 * nvlink4.bandwidth_gb_per_s == 900
    assert nvlink4.bandwidth().to("GB/s").magnitude == 450
    assert nvlink4.latency().to("us").magnitude == pytest.approx(0.5)
    # 400 Gb/s NDR is 50 GB/s.
    assert get_interconnect("ndr").bandwidth_gb_per_s == 400 / 8


def test_lookup_is_case_insensitive_and_accepts_aliases() -> None:
    assert find_hardware("H100").name == "h100-sxm"
    assert find_hardware("  A100 ").name == "a100-80gb"
    assert find_hardware("NVLink4").name == "nvlink-4"
    assert find_hardware("pcie_5_x16").name == "pcie-5-x16"


def test_unknown_name_suggests_and_names_the_fix() -> None:
    with pytest.raises(HardwareNotFound) as info:
        find_hardware("h100-sx")
    assert str(info.value) == (
        "no hardware named 'h100-sx' (did you mean 'h100-sxm'?); "
        "run 'sysdrill hw list' to see the names"
    )
    with pytest.raises(HardwareNotFound) as info:
        find_hardware("quantum-toaster")
    assert str(info.value) == (
        "no hardware named 'quantum-toaster'; run 'sysdrill hw list' to see the names"
    )


def test_kind_mismatch_is_reported() -> None:
    with pytest.raises(HardwareNotFound, match="is an interconnect, not an accelerator"):
        get_accelerator("nvlink-4")
    with pytest.raises(HardwareNotFound, match="is an accelerator, not an interconnect"):
        get_interconnect("h100")


def test_missing_precision_lists_what_exists() -> None:
    with pytest.raises(HardwareNotFound, match="'v100' has no published bf16 peak; it has: fp64"):
        get_accelerator("v100").peak_flops("bf16")
    with pytest.raises(HardwareNotFound, match="no published memory bandwidth"):
        get_accelerator("coral-edge-tpu").memory_bandwidth()


def test_list_filters_by_kind() -> None:
    accelerators = list_hardware(HardwareKind.ACCELERATOR)
    interconnects = list_hardware(HardwareKind.INTERCONNECT)
    assert all(isinstance(e, Accelerator) for e in accelerators)
    assert all(isinstance(e, Interconnect) for e in interconnects)
    assert len(list_hardware()) == len(accelerators) + len(interconnects)


def test_catalogue_round_trips_through_json() -> None:
    catalogue = load_catalogue()
    again = Catalogue.model_validate_json(catalogue.model_dump_json())
    assert again == catalogue


def _minimal(**changes: object) -> dict[str, object]:
    data: dict[str, object] = {
        "schema_version": 1,
        "accelerators": [
            {
                "name": "x1",
                "display_name": "X1",
                "vendor": "X",
                "category": "datacenter",
                "peak_tflops": {"bf16": 1},
                "source": "X1 datasheet",
            }
        ],
        "interconnects": [],
    }
    data.update(changes)
    return data


def test_validation_rejects_unknown_fields_and_bad_tables() -> None:
    Catalogue.model_validate(_minimal())
    bad_field = _minimal()
    bad_field["accelerators"][0]["hbm_gb"] = 80  # type: ignore[index]
    with pytest.raises(ValidationError):
        Catalogue.model_validate(bad_field)
    int_in_flops = _minimal()
    int_in_flops["accelerators"][0]["peak_tflops"] = {"int8": 1}  # type: ignore[index]
    with pytest.raises(ValidationError, match="integer formats in peak_tops"):
        Catalogue.model_validate(int_in_flops)
    no_source = _minimal()
    del no_source["accelerators"][0]["source"]  # type: ignore[attr-defined]
    with pytest.raises(ValidationError):
        Catalogue.model_validate(no_source)


def test_validation_rejects_duplicate_names_and_unknown_links() -> None:
    twice = _minimal()
    twice["accelerators"] = twice["accelerators"] * 2  # type: ignore[operator]
    with pytest.raises(ValidationError, match="used twice"):
        Catalogue.model_validate(twice)
    dangling = _minimal()
    dangling["accelerators"][0]["interconnect"] = "nvlink-9"  # type: ignore[index]
    with pytest.raises(ValidationError, match="unknown interconnect 'nvlink-9'"):
        Catalogue.model_validate(dangling)


def test_bundled_yaml_is_what_the_loader_validates() -> None:
    from importlib import resources

    text = resources.files("sysdrill.napkin").joinpath("hardware.yaml").read_text("utf-8")
    assert Catalogue.model_validate(yaml.safe_load(text)) == load_catalogue()


def test_gb200_figures_are_the_nvl72_rack_totals_per_gpu() -> None:
    # NVIDIA's GB200 NVL72 page gives rack totals for 72 GPUs, sparse: 360 PFLOP/s BF16,
    # 720 PFLOP/s FP8, 13.4 TB and 576 TB/s of HBM3e, 130 TB/s of NVLink.
    gb200 = get_accelerator("gb200-nvl72")
    assert gb200.peak_flops("bf16").to("PFLOP/s").magnitude * 72 * 2 == 360
    assert gb200.peak_flops("fp8").to("PFLOP/s").magnitude * 72 * 2 == 720
    assert gb200.memory_gb * 72 == pytest.approx(13.4e3, rel=0.001)
    assert gb200.memory_bandwidth_gb_per_s * 72 == 576e3
    nvlink = get_interconnect(gb200.interconnect)
    assert nvlink.bidirectional_gb_per_s * 72 == pytest.approx(130e3, rel=0.01)


def test_blackwell_fp4_peaks_are_the_dense_halves_of_the_published_sparse_figures() -> None:
    # HGX B200 prints 144 PFLOP/s FP4 for 8 GPUs and the GB200 NVL72 page 1,440 PFLOP/s for
    # 72 GPUs, both with 2:4 sparsity; the catalogue holds dense figures, twice the FP8 rate.
    b200 = get_accelerator("b200")
    gb200 = get_accelerator("gb200-nvl72")
    assert b200.peak_flops("fp4").to("PFLOP/s").magnitude * 8 * 2 == 144
    assert gb200.peak_flops("fp4").to("PFLOP/s").magnitude * 72 * 2 == 1440
    for gpu in (b200, gb200):
        assert gpu.peak_flops("fp4") == 2 * gpu.peak_flops("fp8")


def test_an_fp4_peak_is_refused_for_a_gpu_without_fp4_tensor_cores() -> None:
    with pytest.raises(HardwareNotFound, match="fp4"):
        get_accelerator("h100").peak_flops("fp4")
