"""Value labels in ``--help`` as words (``PATH``, ``INTEGER``), not Python types.

Typer 0.29 labels each parameter with its annotation (``<bool>``, ``<list[Path]>``,
``<str>``) and has no setting to turn that off. :func:`plain_help` walks a built
command once and gives every option a word metavar (flags get none: they take no
value). Arguments take their label from ``display_type_rich`` whatever their
metavar, so their label is replaced on the instance; their name (``PATH``,
``SOURCE``) stays as the usage line and error messages show it.
"""

from __future__ import annotations

from typing import Any

import typer

__all__ = ["plain_help", "word_for"]

_WORDS = {
    "bool": "",
    "int": "INTEGER",
    "float": "NUMBER",
    "str": "TEXT",
    "path": "PATH",
    "datetime": "DATE",
    "int range": "INTEGER",
    "float range": "NUMBER",
}


def word_for(label: str) -> str:
    """The help word for one of Typer's labels: ``<list[Path]>`` -> ``PATH...``."""
    inner = label.removeprefix("<").removesuffix(">")
    if inner.startswith("list[") and inner.endswith("]"):
        item = word_for(inner[len("list[") : -1])
        return f"{item}..." if item else ""
    if "|" in inner:
        return f"[{inner}]"
    return _WORDS.get(inner.lower(), inner.upper())


def plain_help(command: Any) -> Any:
    """Give every parameter of ``command`` and its subcommands a word label; returns it."""
    ctx = typer.Context(command)
    for param in command.get_params(ctx):
        label = word_for(param.display_type(ctx))
        if getattr(param, "param_type_name", "") == "option":
            if param.metavar is None:
                param.metavar = label
        else:
            param.display_type_rich = lambda ctx, label=label: label
    for sub in getattr(command, "commands", {}).values():
        plain_help(sub)
    return command
