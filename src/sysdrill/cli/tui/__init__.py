"""The interactive terminal interface of the study sessions (Textual).

Importing this package loads Textual, so the CLI imports it only inside the
command that opens the interface.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sysdrill.cli.tui.app import StudyApp
from sysdrill.study.sessions.report import report_lines
from sysdrill.study.sessions.runner import EMPTY_MESSAGES, run_session

if TYPE_CHECKING:
    from sysdrill.study.service import StudyService
    from sysdrill.study.sessions.chains import ChainIndex
    from sysdrill.study.sessions.engine import Clock, SessionPlan

__all__ = ["StudyApp", "run_tui"]


def run_tui(
    plan: SessionPlan,
    *,
    study: StudyService,
    clock: Clock,
    chains: ChainIndex | None = None,
    runner: Callable[[StudyApp], object] = StudyApp.run,
) -> list[str]:
    """Run ``plan`` in the terminal interface, recording every review in ``study``.

    Args:
        plan: What to ask.
        study: The learner's study service.
        clock: Current time (UTC).
        chains: For "next in chain" offers.
        runner: Runs the app until it closes (``StudyApp.run``; tests pass one
            that drives it with Textual's pilot).

    Returns:
        The report as text lines, to print once the interface has closed.
    """
    report = run_session(
        plan,
        study=study,
        clock=clock,
        chains=chains,
        drive=lambda session: runner(StudyApp(session)),
    )
    return [EMPTY_MESSAGES[plan.kind]] if report is None else report_lines(report)
