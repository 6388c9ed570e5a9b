"""Write docs/cli.md, the CLI reference, from the command tree itself.

Run: .venv/bin/python scripts/cli_reference.py > docs/cli.md
A test fails when docs/cli.md differs from what this prints.
"""

from __future__ import annotations

import sys
from typing import Any

import typer

from sysdrill.cli.app import build_app


def _param_row(param: Any) -> str:
    if param.param_type_name == "argument":
        name = f"`{(param.metavar or param.name or '').upper()}`"
        kind = "argument" + ("" if param.required else ", optional")
    else:
        name = ", ".join(f"`{opt}`" for opt in [*param.opts, *param.secondary_opts])
        kind = "flag" if param.is_flag else "option"
        if param.multiple:
            kind += ", repeatable"
        if param.required:
            kind += ", required"
    help_text = " ".join((getattr(param, "help", None) or "").split())
    default = param.default
    show_default = (
        param.param_type_name == "option"
        and not param.is_flag
        and default not in (None, (), [], "")
        and not callable(default)
    )
    if show_default:
        help_text += f" (default: `{default}`)"
    cell = help_text.replace("|", "\\|")
    return f"| {name} | {kind} | {cell} |"


def _walk(command: Any, path: list[str], out: list[str]) -> None:
    commands = getattr(command, "commands", None)
    if path:
        out.append(f"{'#' * min(len(path) + 1, 4)} `sysdrill {' '.join(path)}`\n")
        text = " ".join((command.help or "").split("\b")).strip()
        if text:
            out.append(text + "\n")
        params = [p for p in command.params if p.name != "help" and not getattr(p, "hidden", False)]
        if params:
            out.append("| parameter | kind | meaning |")
            out.append("| --- | --- | --- |")
            out.extend(_param_row(p) for p in params)
            out.append("")
    if commands:
        for name in sorted(commands):
            sub = commands[name]
            if not getattr(sub, "hidden", False):
                _walk(sub, [*path, name], out)


def render() -> str:
    """Return the Markdown CLI reference."""
    root = typer.main.get_command(build_app())
    out = [
        "# CLI reference",
        "",
        "Generated from the commands themselves by `scripts/cli_reference.py`; "
        "do not edit by hand. `sysdrill COMMAND --help` shows the same text.",
        "",
    ]
    _walk(root, [], out)
    return "\n".join(out).rstrip() + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
