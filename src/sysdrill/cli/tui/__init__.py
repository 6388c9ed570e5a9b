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
    from sysdrill.study.sessions.state_machine import Clock, Session

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
    session_id: int | None = None,
) -> TuiRun:
    """Start a session (or go on with one) and run it in the terminal interface.

    Every move is saved as it is made.

    Args:
        study: The learner's study service.
        vault: The vault studied.
        options: The session's kind and options.
        clock: Current time (UTC).
        runner: Runs the app until it closes (``StudyApp.run``; tests pass one
            that drives it with Textual's pilot).
        session_id: A session in progress to go on with instead of starting one.

    Returns:
        The lines to print once the interface has closed, and whether the learner
        left with Ctrl+C.

    Raises:
        KeyboardInterrupt: When the learner left a practice with Ctrl+C: it stays
            in progress, to be resumed (:mod:`sysdrill.app.resume`).
    """
    from sysdrill.app.resume import RESUMABLE_KINDS
    from sysdrill.app.sessions import drive_session, start_session, undo_in_driver

    lines: list[str] = []
    if session_id is None:
        started = start_session(study, vault, options, now=clock())
        lines = [f"Note: {started.note}."] if started.note else []
        if started.session_id is None:
            return TuiRun([*lines, started.empty_message or ""])
        session_id = started.session_id
    driven = session_id

    def undo() -> Session:
        return undo_in_driver(study, vault, driven, clock=clock)

    apps: list[StudyApp] = []

    def drive(session: Session) -> object:
        apps.append(StudyApp(session, undo=undo))
        returned = runner(apps[-1])
        if apps[-1].interrupted and session.plan.kind in RESUMABLE_KINDS:
            raise KeyboardInterrupt  # the session stays in progress (drive_session)
        return returned

    report = drive_session(study, vault, driven, drive=drive, clock=clock)
    return TuiRun([*lines, *report.lines], interrupted=any(app.interrupted for app in apps))
