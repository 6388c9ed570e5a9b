"""Docs stay honest: the CLI reference is current and every command is documented."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import typer

from sysdrill.cli.app import build_app

ROOT = Path(__file__).resolve().parents[2]


def _reference_module():
    spec = importlib.util.spec_from_file_location(
        "cli_reference", ROOT / "scripts" / "cli_reference.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _command_paths(command, path=()):
    commands = getattr(command, "commands", None) or {}
    for name, sub in commands.items():
        yield (*path, name)
        yield from _command_paths(sub, (*path, name))


def test_cli_reference_is_current():
    expected = _reference_module().render()
    actual = (ROOT / "docs" / "cli.md").read_text("utf-8")
    assert actual == expected, "run: .venv/bin/python scripts/cli_reference.py > docs/cli.md"


def test_every_command_has_help_text():
    root = typer.main.get_command(build_app())
    for path in _command_paths(root):
        command = root
        for name in path:
            command = command.commands[name]
        assert (command.help or "").strip(), f"sysdrill {' '.join(path)} has no help text"
        for param in command.params:
            if param.param_type_name == "option" and param.name != "help":
                assert (param.help or "").strip(), f"{' '.join(path)} {param.opts} has no help"


def test_every_top_level_command_appears_in_readme_or_guides():
    root = typer.main.get_command(build_app())
    texts = (ROOT / "README.md").read_text("utf-8") + "".join(
        p.read_text("utf-8") for p in (ROOT / "docs").glob("*.md") if p.name != "cli.md"
    )
    for name in root.commands:
        assert f"sysdrill {name}" in texts, f"'sysdrill {name}' is not in README.md or docs/"
