"""``sysdrill calc``: calculator subcommands, expression fallback, and their errors."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from sysdrill.napkin.calculators.registry import CALCULATORS

USAGE_ERROR = 2


def last_line(text: str) -> str:
    return text.strip().splitlines()[-1]


def output_rows(stdout: str) -> dict[str, str]:
    rows = {}
    for line in stdout.splitlines():
        if line.startswith("  ") and not line.startswith("  source:"):
            label, _, value = line.strip().partition("  ")
            rows[label] = value.strip()
    return rows


def test_expression_from_the_issue_prints_3_5_ms(run_cli) -> None:
    result = run_cli("calc", "2*(8-1)/8 * 100 MB / (50 GB/s)")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "3.5 ms\n"


def test_expression_with_target_unit_and_json(run_cli) -> None:
    result = run_cli("calc", "100 MB / (50 GB/s)", "--to", "us", "--json")
    assert result.exit_code == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["value"] == pytest.approx(2000)
    assert payload["unit"] == "us"
    assert payload["display"].endswith(" us")
    plain = run_cli("calc", "100 MB / (50 GB/s)", "--to", "us")
    assert plain.stdout == payload["display"] + "\n"


def test_expression_with_mismatched_units_is_one_error_line(run_cli) -> None:
    result = run_cli("calc", "5 GB + 3 s")
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: ")
    assert len(result.stderr.strip().splitlines()) == 1


# 8 Gb is 1 GB and 50 GBps is 50 GB/s: options read every spelling the checker reads.
@pytest.mark.parametrize(("message", "bandwidth"), [("1GB", "50GB/s"), ("8Gb", "50GBps")])
def test_ring_allreduce_text_output(run_cli, message: str, bandwidth: str) -> None:
    result = run_cli(
        *shlex.split(
            f"calc ring-allreduce --ranks 8 --message {message} --bandwidth {bandwidth}"
            " --latency 5us"
        )
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("ring-allreduce: T = 2(N-1)·α + 2(N-1)/N · M/β\n")
    rows = output_rows(result.stdout)
    assert rows["message"] == "1 GB"
    assert rows["bandwidth"] == "50 GB/s"
    # 2·7·5 µs + 2·7/8 · 1 GB / 50 GB/s = 70 µs + 35 ms.
    assert rows["time"] == "35.07 ms"
    assert rows["latency term"] == "70 µs"
    assert rows["bytes sent per rank"] == "1.75 GB"


def test_ring_allreduce_json_has_value_unit_pairs(run_cli) -> None:
    result = run_cli(
        *shlex.split("calc ring-allreduce --ranks 8 --message 100MB --bandwidth 50GB/s --json")
    )
    assert result.exit_code == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["calculator"] == "ring-allreduce"
    assert payload["outputs"]["time"]["unit"] == "second"
    assert payload["outputs"]["time"]["value"] == pytest.approx(3.5e-3)
    assert payload["inputs"]["bandwidth"] == {"value": 50e9, "unit": "byte / second"}
    assert payload["outputs"]["steps"] == 14


def test_link_fills_bandwidth_and_latency(run_cli) -> None:
    result = run_cli(
        "calc", "ring-allreduce", "--ranks", "8", "--message", "1GB", "--link", "nvlink-4"
    )
    assert result.exit_code == 0, result.stderr
    rows = output_rows(result.stdout)
    assert rows["bandwidth"] == "450 GB/s"
    assert rows["latency"] == "500 ns"


def test_training_memory_zero3_over_64_gpus(run_cli) -> None:
    # ZeRO-3: 16 bytes × 7B / 64 = 1.75 GB per GPU.
    result = run_cli(
        *shlex.split(
            "calc training-memory --params 7B --optimizer adam --precision mixed --zero 3 --gpus 64"
        )
    )
    assert result.exit_code == 0, result.stderr
    rows = output_rows(result.stdout)
    assert rows["total"] == "1.75 GB"
    assert rows["optimizer"] == "adam"


def test_gpu_memory_from_the_catalogue_checks_the_fit(run_cli) -> None:
    result = run_cli(
        *shlex.split("calc training-memory --params 70B --zero 3 --gpus 8 --gpu h100 --json")
    )
    assert result.exit_code == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["inputs"]["gpu_memory"] == {"value": 80e9, "unit": "byte"}
    assert payload["outputs"]["fits"] is False
    assert payload["outputs"]["utilization"] == pytest.approx(1.75)


def test_training_memory_gpus_must_divide_by_tp_times_pp(run_cli) -> None:
    result = run_cli("calc", "training-memory", "--params", "7B", "--gpus", "12", "--tp", "8")
    assert result.exit_code == 1
    assert result.stderr == "Error: --gpus 12 is not a multiple of --tp x --pp = 8\n"


def test_pipeline_bubble(run_cli) -> None:
    result = run_cli(
        *shlex.split("calc pipeline-bubble --stages 4 --micro-batches 16 --schedule gpipe --json")
    )
    assert result.exit_code == 0, result.stderr
    outputs = json.loads(result.stdout)["outputs"]
    assert outputs["bubble_fraction"] == pytest.approx(3 / 19)
    assert outputs["micro_batches_in_flight"] == 16


def test_roofline_takes_peak_and_bandwidth_from_the_catalogue(run_cli) -> None:
    result = run_cli("calc", "roofline", "--gpu", "a100-80gb", "--intensity", "64", "--json")
    assert result.exit_code == 0, result.stderr
    outputs = json.loads(result.stdout)["outputs"]
    assert outputs["ridge_point"]["value"] == pytest.approx(153.0, abs=0.1)
    assert outputs["bound"] == "memory-bound"
    assert outputs["attainable"]["value"] == pytest.approx(64 * 2.039e12)


def test_explicit_value_wins_over_the_catalogue(run_cli) -> None:
    result = run_cli("calc", "ridge-point", "--gpu", "a100-80gb", "--bandwidth", "1TB/s", "--json")
    assert json.loads(result.stdout)["outputs"]["ridge_point"]["value"] == pytest.approx(312)


def test_dtype_selects_the_catalogue_precision(run_cli) -> None:
    result = run_cli("calc", "ridge-point", "--gpu", "h100-sxm", "--dtype", "fp8", "--json")
    assert json.loads(result.stdout)["outputs"]["ridge_point"]["value"] == pytest.approx(
        1979 / 3.35, rel=1e-3
    )


def test_unknown_gpu_is_an_error_naming_the_fix(run_cli) -> None:
    result = run_cli("calc", "roofline", "--gpu", "toaster", "--intensity", "10")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: no hardware named 'toaster'; run 'sysdrill hw list' to see the names\n"
    )


def test_gpu_without_the_precision_names_what_it_has(run_cli) -> None:
    result = run_cli("calc", "roofline", "--gpu", "v100", "--intensity", "10")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: 'v100' has no published bf16 peak; it has: fp64, fp32, fp16; "
        "choose one with --dtype\n"
    )


def test_unknown_dtype_is_a_usage_error(run_cli) -> None:
    result = run_cli("calc", "roofline", "--gpu", "h100", "--dtype", "fp7", "--intensity", "1")
    assert result.exit_code == USAGE_ERROR
    assert last_line(result.stderr) == (
        "Error: --dtype: 'fp7' is not one of fp64, fp64_tensor, fp32, tf32, bf16, fp16, fp8, "
        "fp4, int8, int4"
    )


def test_fp4_takes_the_blackwell_peak_and_is_refused_for_hopper(run_cli) -> None:
    result = run_cli("calc", "ridge-point", "--gpu", "b200", "--dtype", "fp4", "--json")
    assert json.loads(result.stdout)["outputs"]["ridge_point"]["value"] == pytest.approx(
        9000 / 8, rel=1e-3
    )
    refused = run_cli("calc", "ridge-point", "--gpu", "h100-sxm", "--dtype", "fp4")
    assert refused.exit_code == 1
    assert refused.stderr.startswith("Error: 'h100-sxm' has no published fp4 peak; it has: ")


def test_bad_unit_is_a_usage_error_with_an_example(run_cli) -> None:
    result = run_cli(
        "calc", "ring-allreduce", "--ranks", "8", "--message", "1GB", "--bandwidth", "50GB"
    )
    assert result.exit_code == USAGE_ERROR
    assert last_line(result.stderr) == (
        "Error: --bandwidth: '50GB' cannot be converted to byte / s (for example '50 GB/s')"
    )


def test_unknown_unit_is_a_usage_error(run_cli) -> None:
    result = run_cli(
        "calc", "ring-allreduce", "--ranks", "8", "--message", "1 zorkbyte", "--bandwidth", "5GB/s"
    )
    assert result.exit_code == USAGE_ERROR
    assert last_line(result.stderr) == "Error: --message: unknown unit 'zorkbyte' in '1 zorkbyte'"


def test_missing_input_is_a_usage_error(run_cli) -> None:
    result = run_cli("calc", "ring-allreduce", "--ranks", "8", "--message", "1GB")
    assert result.exit_code == USAGE_ERROR
    assert last_line(result.stderr) == "Error: ring-allreduce needs --bandwidth (or --link NAME)"


def test_bad_choice_lists_the_choices(run_cli) -> None:
    result = run_cli("calc", "bytes-per-param", "--optimizer", "adagrad")
    assert result.exit_code == USAGE_ERROR
    assert last_line(result.stderr) == (
        "Error: --optimizer: 'adagrad' is not one of adam, adam-8bit, sgd-momentum, sgd"
    )


def test_non_integer_count_is_a_usage_error(run_cli) -> None:
    result = run_cli("calc", "pipeline-bubble", "--stages", "2.5", "--micro-batches", "8")
    assert result.exit_code == USAGE_ERROR
    assert last_line(result.stderr) == (
        "Error: --stages: '2.5' is not a whole number (for example '8')"
    )


def test_calculator_rejection_is_an_error_line(run_cli) -> None:
    result = run_cli(
        *shlex.split(
            "calc pipeline-bubble --stages 8 --micro-batches 12"
            " --schedule interleaved --virtual-stages 2"
        )
    )
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: the interleaved schedule needs micro_batches divisible by stages (12 by 8)\n"
    )


def test_misspelt_calculator_suggests_the_name(run_cli) -> None:
    result = run_cli("calc", "ring-allreduc", "--ranks", "8")
    assert result.exit_code == USAGE_ERROR
    assert last_line(result.stderr) == (
        "Error: No calculator named 'ring-allreduc'. Did you mean 'ring-allreduce'? "
        "Run 'sysdrill calc --help' for the list."
    )


def test_unknown_option_is_a_usage_error(run_cli) -> None:
    result = run_cli(
        "calc", "amdahl", "--parallel-fraction", "0.9", "--workers", "8", "--nodes", "2"
    )
    assert result.exit_code == USAGE_ERROR
    assert "--nodes" in last_line(result.stderr)


def test_calc_help_lists_every_calculator(run_cli) -> None:
    result = run_cli("calc", "--help")
    assert result.exit_code == 0
    for calc in CALCULATORS:
        assert calc.name in result.stdout
    assert "expression" not in result.stdout.split("Commands")[-1]


@pytest.mark.parametrize("calc", CALCULATORS, ids=lambda c: c.name)
def test_calculator_help_names_formula_and_source(run_cli, calc) -> None:
    result = run_cli("calc", calc.name, "--help")
    assert result.exit_code == 0
    flat = " ".join(result.stdout.split())
    assert "Formula:" in flat
    assert "Source:" in flat
    for param in calc.params:
        assert param.option in flat


@pytest.mark.parametrize("calc", CALCULATORS, ids=lambda c: c.name)
def test_documented_example_runs_through_the_cli(run_cli, calc) -> None:
    result = run_cli("calc", calc.name, *shlex.split(calc.example), "--json")
    assert result.exit_code == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["calculator"] == calc.name
    assert payload["outputs"]


DOCS = Path(__file__).resolve().parents[2] / "docs" / "calculators.md"


def _console_blocks() -> list[tuple[str, str]]:
    blocks = re.findall(r"```console\n\$ (.*?)\n(.*?)```", DOCS.read_text("utf-8"), re.S)
    return [(command, output) for command, output in blocks]


def test_docs_list_every_calculator() -> None:
    text = DOCS.read_text("utf-8")
    for calc in CALCULATORS:
        assert f"### {calc.name}\n" in text
        assert f"$ sysdrill calc {calc.name} {calc.example}\n" in text


@pytest.mark.parametrize(("command", "output"), _console_blocks(), ids=lambda v: v[:40])
def test_documented_output_is_what_the_command_prints(run_cli, command: str, output: str) -> None:
    words = shlex.split(command)
    assert words[0] == "sysdrill"
    result = run_cli(*words[1:])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == output


def test_calculator_help_has_no_shell_completion_options(run_cli) -> None:
    result = run_cli("calc", "kv-cache", "--help")
    assert "--install-completion" not in result.stdout
    assert "--gpu-memory" in result.stdout
    assert "--dtype" not in result.stdout


def test_options_read_approximate_and_power_spellings(run_cli) -> None:
    result = run_cli(
        "calc", "ring-allreduce", "--ranks", "8", "--message", "2^30 B", "--bandwidth", "400 Gbps"
    )
    assert result.exit_code == 0, result.stderr
    assert output_rows(result.stdout)["message"] == "1.074 GB"
    approximate = run_cli(
        "calc", "ring-allreduce", "--ranks", "8", "--message", "~128 KiB", "--bandwidth", "50GB/s"
    )
    assert output_rows(approximate.stdout)["message"] == "131.1 KB"


def test_ambiguous_thousands_count_is_a_usage_error_naming_both_readings(run_cli) -> None:
    result = run_cli(
        *shlex.split("calc kv-cache --layers 32 --kv-heads 8 --head-dim 128 --sequence-length 4k")
    )
    assert result.exit_code == 2
    assert (
        "--sequence-length: '4k' is ambiguous: 4,000 or 4,096? "
        "Type the number (4000, or 4*1024 for 4,096)" in result.stderr
    )


def test_power_of_two_count_spelled_out_is_read(run_cli) -> None:
    result = run_cli(
        *shlex.split(
            "calc kv-cache --layers 32 --kv-heads 8 --head-dim 128 --sequence-length 4*1024"
        )
    )
    assert result.exit_code == 0, result.stderr
    assert output_rows(result.stdout)["sequence length"] == "4,096"


def test_fractions_print_as_percentages_and_stay_fractions_in_json(run_cli) -> None:
    args = shlex.split("calc pipeline-bubble --stages 4 --micro-batches 16 --schedule gpipe")
    text = output_rows(run_cli(*args).stdout)
    assert (text["bubble fraction"], text["bubble overhead"]) == ("15.79%", "18.75%")
    payload = json.loads(run_cli(*args, "--json").stdout)
    assert payload["outputs"]["bubble_overhead"] == pytest.approx(0.1875)


@pytest.mark.parametrize("dtype", ["bf16", "BF16", "bfloat16"])
def test_gpu_peak_accepts_framework_precision_names(run_cli, dtype: str) -> None:
    result = run_cli(
        *shlex.split(
            "calc hfu --tokens-per-second 150000 --gpus 1024 --gpu a100-80gb --layers 96"
            f" --hidden-size 12288 --sequence-length 2048 --vocab 51200 --dtype {dtype}"
        )
    )
    assert result.exit_code == 0, result.stderr
    assert output_rows(result.stdout)["peak flops"] == "312 TFLOP/s"


def test_zero_memory_takes_the_model_by_layers_and_hidden_size(run_cli) -> None:
    # 12·L·h² with L = 96, h = 12288 is 173.9B parameters; ZeRO-3 over 64 GPUs without
    # offload: 4ℓ + 18Ψ/64 with ℓ = 4h² (the MLP matrix).
    result = run_cli(
        *shlex.split(
            "calc zero-memory --layers 96 --hidden-size 12288 --zero 3 --gpus-per-node 8"
            " --nodes 8 --json"
        )
    )
    assert result.exit_code == 0, result.stderr
    outputs = json.loads(result.stdout)["outputs"]
    psi = 12 * 96 * 12288**2
    assert outputs["parameters"]["value"] == pytest.approx(psi)
    assert outputs["per_gpu"]["value"] == pytest.approx(4 * 4 * 12288**2 + 18 * psi / 64)


def test_zero_memory_without_a_model_size_names_both_ways(run_cli) -> None:
    result = run_cli("calc", "zero-memory", "--zero", "2")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: give --params, or --layers and --hidden-size (Ψ ≈ 12·L·h² + V·h)\n"
    )


def test_unasked_outputs_are_left_out_of_the_text(run_cli) -> None:
    result = run_cli(*shlex.split("calc zero-communication --params 1B --zero 2 --gpus 8"))
    assert result.exit_code == 0, result.stderr
    rows = output_rows(result.stdout)
    assert rows["relative to ddp"] == "100%"
    assert "communication time" not in rows


def test_noise_scale_without_either_pair_names_both(run_cli) -> None:
    result = run_cli("calc", "noise-scale", "--batch", "1024")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: noise-scale needs --variance-trace and --gradient-norm-sq, "
        "or --min-steps and --min-examples\n"
    )


def test_warmup_in_epochs_needs_the_dataset_size(run_cli) -> None:
    result = run_cli(
        *shlex.split(
            "calc lr-scaling --base-lr 0.1 --base-batch 256 --batch 8192 --warmup-epochs 5"
        )
    )
    assert result.exit_code == 1
    assert result.stderr == "Error: --warmup-epochs needs --dataset-size to count steps per epoch\n"


def test_fp8_number_format_asks_which_one(run_cli) -> None:
    result = run_cli("calc", "number-format", "--format", "fp8")
    assert result.exit_code == 2
    assert (
        "Error: --format: 'fp8' is ambiguous: fp8-e4m3 (weights and activations, max 448) "
        "or fp8-e5m2 (gradients, max 57,344)?" in result.stderr
    )


@pytest.mark.parametrize(("typed", "read"), [("e4m3", "fp8-e4m3"), ("bfloat16", "bf16")])
def test_number_format_reads_framework_spellings(run_cli, typed: str, read: str) -> None:
    result = run_cli("calc", "number-format", "--format", typed)
    assert result.exit_code == 0, result.stderr
    assert output_rows(result.stdout)["format"] == read


@pytest.mark.parametrize(
    ("typed", "read"), [("bf16", "mixed"), ("fp16", "mixed"), ("tf32", "fp32")]
)
def test_training_precision_reads_the_compute_format(run_cli, typed: str, read: str) -> None:
    result = run_cli("calc", "training-memory", "--params", "7B", "--precision", typed)
    assert result.exit_code == 0, result.stderr
    assert output_rows(result.stdout)["precision"] == read
