"""The interactive terminal interface of the study sessions (Textual).

Importing this package loads Textual, so the CLI imports it only inside the
command that opens the interface.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sysdrill.cli.tui.app import StudyApp

if TYPE_CHECKING:
    from sysdrill.app.sessions import StartOptions
    from sysdrill.app.study_vault import StudyVault
    from sysdrill.study.service import StudyService
    from sysdrill.study.sessions.engine import Clock, Session

__all__ = ["StudyApp", "run_tui"]


def run_tui(
    study: StudyService,
    vault: StudyVault,
    options: StartOptions,
    *,
    clock: Clock,
    runner: Callable[[StudyApp], object] = StudyApp.run,
) -> list[str]:
    """Start a session and run it in the terminal interface; every move is saved.

    Args:
        study: The learner's study service.
        vault: The vault studied.
        options: The session's kind and options.
        clock: Current time (UTC).
        runner: Runs the app until it closes (``StudyApp.run``; tests pass one
            that drives it with Textual's pilot).

    Returns:
        What to print once the interface has closed: a note on the plan, then
        the report (or why there was nothing to ask).
    """
    from sysdrill.app.sessions import drive_session, start_session, undo_in_driver

    started = start_session(study, vault, options, now=clock())
    lines = [f"Note: {started.note}."] if started.note else []
    if started.session_id is None:
        return [*lines, started.empty_message or ""]
    session_id = started.session_id

    def undo() -> Session:
        return undo_in_driver(study, vault, session_id, clock=clock)

    report = drive_session(
        study,
        vault,
        session_id,
        drive=lambda session: runner(StudyApp(session, undo=undo)),
        clock=clock,
    )
    return [*lines, *report.lines]
