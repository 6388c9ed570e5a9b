"""Whole-number options are bounded: a huge value is a usage error, never a traceback."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import typer

from sysdrill.cli.app import build_app

HUGE = "99999999999999999999"
"""Past a signed 64-bit integer: what SQLite and PostgreSQL refuse to store."""


def _numeric_params(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, Any]]:
    """Yield (``command --option``, parameter) for each number parameter of every command."""
    ctx = typer.Context(command)
    for param in command.get_params(ctx):
        if param.type_descriptor.annotation in (int, float):
            yield " ".join([*path, param.opts[0]]), param
    for name, sub in getattr(command, "commands", {}).items():
        yield from _numeric_params(sub, (*path, name))


NUMERIC_PARAMS = dict(_numeric_params(typer.main.get_command(build_app())))


def test_the_walk_finds_the_known_number_options():
    # Guards the walk itself: an empty walk would make the bound test pass vacuously.
    assert {"practice --limit", "daily --new", "gauntlet --seed", "search --limit"} <= set(
        NUMERIC_PARAMS
    )


@pytest.mark.parametrize("name", sorted(NUMERIC_PARAMS))
def test_every_number_option_has_both_ends_of_its_range(name):
    param = NUMERIC_PARAMS[name]
    assert param.min is not None and param.max is not None, f"{name} is unbounded"
    assert param.min <= param.max
    # Whatever a database stores must fit a signed 64-bit integer.
    assert -(2**63) <= param.min and param.max <= 2**63 - 1


@pytest.mark.parametrize(
    ("args", "option", "low", "high"),
    [
        (("practice", "--limit", HUGE), "--limit", 1, 100000),
        (("practice", "--new", HUGE), "--new", 0, 100000),
        (("daily", "--new", HUGE), "--new", 0, 100000),
        (("quiz", "dp-cards", "--new", HUGE), "--new", 0, 100000),
        (("gauntlet", "--seed", HUGE), "--seed", 0, 2**63 - 1),
        (("search", "x", "--limit", HUGE), "--limit", 1, 10000),
        (("interview", "results", HUGE), "interview_id", 1, 2**63 - 1),
    ],
)
def test_a_huge_number_is_a_usage_error_naming_option_and_range(run_cli, args, option, low, high):
    result = run_cli(*args, input="")
    assert result.exit_code == 2
    assert "Traceback" not in result.stderr + result.stdout
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert errors == [
        f"Error: Invalid value for '{option}': Input should be a whole number from {low} to {high}."
    ]


def test_a_word_for_a_bounded_number_names_the_range_too(run_cli):
    result = run_cli("practice", "--limit", "lots", input="")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == (
        "Error: Invalid value for '--limit': Input should be a whole number from 1 to 100000."
    )


def test_the_largest_seed_runs_a_gauntlet(run_cli):
    result = run_cli("gauntlet", "--seed", str(2**63 - 1), input="quit\n")
    assert result.exit_code == 0, result.stderr
    assert "Gauntlet" in result.stdout
