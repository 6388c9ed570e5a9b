"""Shared Rich consoles for CLI output, the progress display and the ``--quiet`` option.

Consoles are created per call so tests can capture them. Long operations
(import, build, check) take a progress callback ``progress(stage, done, total)``
from the library; :func:`progress_display` turns those calls into a Rich bar on
stderr, drawn only on a terminal and never with ``--quiet``, so piped output and
scripts see nothing but their results.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

__all__ = [
    "PROGRESS_MIN_STEPS",
    "ProgressCallback",
    "QuietOption",
    "err_console",
    "out_console",
    "progress_display",
]

ProgressCallback = Callable[[str, int, int], None]
"""``progress(stage, done, total)``: ``done`` of the ``total`` steps of ``stage`` are finished."""

PROGRESS_MIN_STEPS = 500
"""Stages with fewer steps draw no bar: they end before a bar could be read."""

_REDRAWS_PER_STAGE = 200
"""A bar is updated at most this often per stage, so 100,000 steps cost 200 redraws."""

QuietOption = Annotated[
    bool,
    typer.Option(
        "--quiet",
        "-q",
        help="Print no progress bar and no informational lines; errors are still printed.",
    ),
]


class _PipeConsole(Console):
    """A console that lets a closed pipe reach :func:`sysdrill.cli.app.main`."""

    def on_broken_pipe(self) -> None:
        # Rich exits 1 here; a reader that stops reading (`stats | head`) is not an
        # error, and main() ends such a run with 0.
        raise BrokenPipeError


def out_console() -> Console:
    """Console on the current stdout (JSON output should use ``typer.echo`` instead)."""
    return _PipeConsole(file=sys.stdout, highlight=False, soft_wrap=True)


def err_console() -> Console:
    """Console on the current stderr, for warnings and progress."""
    return Console(file=sys.stderr, highlight=False, soft_wrap=True)


def _silent(stage: str, done: int, total: int) -> None:
    """The progress callback of quiet runs and of output that is not a terminal."""


class _Bars:
    """One Rich bar per stage, started on the first stage long enough to show."""

    def __init__(self, console: Console, min_steps: int) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        self._min_steps = min_steps
        self._progress: Progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
            # Redrawn by update() only: a refresh thread would keep the check
            # runner from forking its second worker (it forks only when alone).
            auto_refresh=False,
            # Output the command prints meanwhile goes where it was going.
            redirect_stdout=False,
            redirect_stderr=False,
        )
        self._tasks: dict[str, TaskID] = {}
        self._drawn: dict[str, int] = {}
        self._started = False

    def update(self, stage: str, done: int, total: int) -> None:
        if total < self._min_steps:
            return
        task = self._tasks.get(stage)
        if task is None:
            if not self._started:
                self._progress.start()
                self._started = True
            task = self._tasks[stage] = self._progress.add_task(stage, total=total)
            self._drawn[stage] = -total
        if done >= total or done - self._drawn[stage] >= max(1, total // _REDRAWS_PER_STAGE):
            self._drawn[stage] = done
            self._progress.update(task, completed=done, total=total, refresh=True)

    def stop(self) -> None:
        if self._started:
            self._progress.stop()


@contextmanager
def progress_display(
    *, quiet: bool = False, console: Console | None = None, min_steps: int = PROGRESS_MIN_STEPS
) -> Iterator[ProgressCallback]:
    """Yield a progress callback that draws a bar per stage while the block runs.

    Args:
        quiet: Draw nothing (``--quiet``).
        console: Where to draw (stderr when None); nothing is drawn unless it is a terminal.
        min_steps: Stages with fewer steps than this draw no bar.

    Yields:
        The callback to hand to the library; the bars are removed when the block ends.
    """
    target = console if console is not None else err_console()
    if quiet or not target.is_terminal:
        yield _silent
        return
    bars = _Bars(target, min_steps)
    try:
        yield bars.update
    finally:
        bars.stop()
