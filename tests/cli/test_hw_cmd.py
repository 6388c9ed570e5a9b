"""``sysdrill hw list`` and ``sysdrill hw show``."""

from __future__ import annotations

import json


def test_list_shows_accelerators_and_interconnects(run_cli) -> None:
    result = run_cli("hw", "list")
    assert result.exit_code == 0, result.stderr
    for name in ("h100-sxm", "a100-80gb", "mi300x", "tpu-v5p", "nvlink-4", "infiniband-ndr"):
        assert name in result.stdout


def test_list_filters_by_kind(run_cli) -> None:
    result = run_cli("hw", "list", "--kind", "interconnect", "--json")
    assert result.exit_code == 0, result.stderr
    entries = json.loads(result.stdout)
    assert {entry["kind"] for entry in entries} == {"interconnect"}
    assert "nvlink-5" in {entry["name"] for entry in entries}
    accelerators = json.loads(run_cli("hw", "list", "--kind", "accelerator", "--json").stdout)
    assert {entry["kind"] for entry in accelerators} == {"accelerator"}


def test_list_rejects_an_unknown_kind(run_cli) -> None:
    result = run_cli("hw", "list", "--kind", "toaster")
    assert result.exit_code == 2
    assert "--kind" in result.stderr


def test_show_prints_every_figure_with_its_source(run_cli) -> None:
    result = run_cli("hw", "show", "h100")
    assert result.exit_code == 0, result.stderr
    lines = dict(line.split(None, 1) for line in result.stdout.splitlines() if line.strip())
    assert lines["name"].strip() == "h100-sxm"
    assert "989.5 TFLOP/s" in result.stdout
    assert "3,350 GB/s" in result.stdout
    assert "NVIDIA H100 Tensor Core GPU datasheet" in result.stdout


def test_show_json_uses_unit_named_fields(run_cli) -> None:
    result = run_cli("hw", "show", "a100-80gb", "--json")
    assert result.exit_code == 0, result.stderr
    entry = json.loads(result.stdout)
    assert entry["memory_bandwidth_gb_per_s"] == 2039
    assert entry["peak_tflops"]["bf16"] == 312
    assert entry["tdp_w"] == 400


def test_show_interconnect(run_cli) -> None:
    result = run_cli("hw", "show", "infiniband-ndr")
    assert result.exit_code == 0, result.stderr
    assert "50 GB/s per direction" in result.stdout


def test_show_unknown_name_is_an_error(run_cli) -> None:
    result = run_cli("hw", "show", "x")
    assert result.exit_code == 1
    assert (
        result.stderr == "Error: no hardware named 'x'; run 'sysdrill hw list' to see the names\n"
    )


def test_show_misspelt_name_suggests(run_cli) -> None:
    result = run_cli("hw", "show", "h100-sx")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: no hardware named 'h100-sx' (did you mean 'h100-sxm'?); "
        "run 'sysdrill hw list' to see the names\n"
    )
