"""Shared Rich consoles for CLI output (created per call so tests can capture them)."""

from __future__ import annotations

import sys

from rich.console import Console

__all__ = ["err_console", "out_console"]


def out_console() -> Console:
    """Console on the current stdout (JSON output should use ``typer.echo`` instead)."""
    return Console(file=sys.stdout, highlight=False, soft_wrap=True)


def err_console() -> Console:
    """Console on the current stderr, for warnings and progress."""
    return Console(file=sys.stderr, highlight=False, soft_wrap=True)
