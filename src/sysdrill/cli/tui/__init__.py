"""The interactive terminal interface of the study sessions (Textual).

Importing this package loads Textual, so the CLI imports it only inside the
command that opens the interface.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sysdrill.cli.tui.app import StudyApp

if TYPE_CHECKING:
    from sysdrill.app.sessions import StartOptions
    from sysdrill.app.study_vault import StudyVault
    from sysdrill.study.service import StudyService
    from sysdrill.study.sessions.engine import Clock, Session

__all__ = ["StudyApp", "TuiRun", "run_tui"]


@dataclass(frozen=True, slots=True)
class TuiRun:
    """What a session in the terminal interface came to."""

    lines: list[str]
    """What to print once the interface has closed: a note on the plan, then the
    report (or why there was nothing to ask)."""
    interrupted: bool = False
    """Whether the learner left with Ctrl+C (the command exits 130 after printing)."""


def run_tui(
    study: StudyService,
    vault: StudyVault,
    options: StartOptions,
    *,
    clock: Clock,
    runner: Callable[[StudyApp], object] = StudyApp.run,
) -> TuiRun:
    """Start a session and run it in the terminal interface; every move is saved.

    Args:
        study: The learner's study service.
        vault: The vault studied.
        options: The session's kind and options.
        clock: Current time (UTC).
        runner: Runs the app until it closes (``StudyApp.run``; tests pass one
            that drives it with Textual's pilot).

    Returns:
        The lines to print once the interface has closed, and whether the learner
        left with Ctrl+C.
    """
    from sysdrill.app.sessions import drive_session, start_session, undo_in_driver

    started = start_session(study, vault, options, now=clock())
    lines = [f"Note: {started.note}."] if started.note else []
    if started.session_id is None:
        return TuiRun([*lines, started.empty_message or ""])
    session_id = started.session_id

    def undo() -> Session:
        return undo_in_driver(study, vault, session_id, clock=clock)

    apps: list[StudyApp] = []

    def drive(session: Session) -> object:
        apps.append(StudyApp(session, undo=undo))
        return runner(apps[-1])

    report = drive_session(study, vault, session_id, drive=drive, clock=clock)
    return TuiRun([*lines, *report.lines], interrupted=any(app.interrupted for app in apps))
