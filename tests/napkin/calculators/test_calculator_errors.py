"""Impossible or missing inputs to the issue-32 calculators give one line, never a traceback.

ZeRO communication, HFU, inference memory, the all-reduce algorithms and the MoE
all-to-all, run as a user would (``sysdrill calc NAME ...``): a value the formula
cannot take exits 1 with ``Error: <reason>``; a missing option exits 2 naming it.
"""

from __future__ import annotations

import shlex

import pytest

HFU = (
    "calc hfu --gpus 1024 --gpu a100-80gb --layers 96 --hidden-size 12288 "
    "--sequence-length 2048 --vocab 51200"
)
SERVE = (
    "calc inference-memory --layers 80 --head-dim 128 --hidden-size 8192 "
    "--sequence-length 4096 --batch 16"
)
MOE = "calc moe-all-to-all --tokens 4096 --hidden-size 4096 --experts 8 --link infiniband-ndr"


@pytest.mark.parametrize(
    ("command", "line"),
    [
        (
            "calc zero-communication --params 7B --zero 4 --gpus 8",
            "Error: zero_stage must be 0, 1, 2 or 3, got 4",
        ),
        (
            "calc zero-communication --params=-7B --zero 3 --gpus 8",
            "Error: parameters must be greater than zero, got -7000000000.0 param",
        ),
        (
            HFU + " --tokens-per-second=-150000",
            "Error: tokens_per_second must be greater than zero, got -150000.0 token / second",
        ),
        (
            SERVE + " --params 70B --kv-heads 0",
            "Error: kv_heads must be a whole number of at least 1, got 0",
        ),
        (
            "calc allreduce-algorithms --ranks 64 --message 64KB --bandwidth 25GB/s --latency=-5us",
            "Error: latency must not be negative, got -5 µs",
        ),
        (
            "calc allreduce-algorithms --ranks 64 --message=-64KB --bandwidth 25GB/s",
            "Error: message must not be negative, got -64 KB",
        ),
        (
            MOE + " --expert-parallel 8 --top-k 9",
            "Error: top_k must be at most the number of experts (8), got 9",
        ),
        (
            MOE + " --expert-parallel 8 --capacity-factor=-1",
            "Error: capacity_factor must be greater than zero, got -1.0",
        ),
    ],
)
def test_a_value_the_formula_cannot_take_is_one_error_line(
    run_cli, command: str, line: str
) -> None:
    result = run_cli(*shlex.split(command))
    assert result.exit_code == 1
    assert result.stderr == line + "\n"
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("command", "missing"),
    [
        ("calc zero-communication --zero 3 --gpus 8", "give --params, or --layers and"),
        (HFU.replace(" --vocab 51200", "") + " --tokens-per-second 150000", "hfu needs --vocab"),
        (SERVE + " --kv-heads 8", "inference-memory needs --params"),
        (
            "calc allreduce-algorithms --ranks 64 --message 64KB",
            "allreduce-algorithms needs --bandwidth (or --link NAME)",
        ),
        (MOE, "moe-all-to-all needs --expert-parallel"),
    ],
)
def test_a_missing_value_names_the_option(run_cli, command: str, missing: str) -> None:
    result = run_cli(*shlex.split(command))
    assert result.exit_code in (1, 2)
    assert f"Error: {missing}" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout
