"""Running a planned session against the study database, scripted or interactive."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sysdrill.study.sessions.answers import AnswerScript
from sysdrill.study.sessions.chains import ChainIndex
from sysdrill.study.sessions.engine import Clock, Session, SessionKind, SessionPlan
from sysdrill.study.sessions.line_mode import Write, run_scripted
from sysdrill.study.sessions.recording import StoreRecorder
from sysdrill.study.sessions.report import SessionReport, build_report

if TYPE_CHECKING:
    from sysdrill.study.service import StudyService

__all__ = ["EMPTY_MESSAGES", "run_script_session", "run_session"]

EMPTY_MESSAGES: dict[SessionKind, str] = {
    SessionKind.PRACTICE: (
        "Nothing to practise now: no item is due and today's new items are done "
        "(or no item matches the filters). Come back later or widen the filters."
    ),
    SessionKind.QUIZ: "The deck has no items to ask.",
    SessionKind.GAUNTLET: "No questions for a gauntlet.",
    SessionKind.CHAIN: "The chain has no items in this vault.",
    SessionKind.DAILY: "Today's daily items are done. Come back tomorrow.",
}
"""What to say when a plan has no items, by session kind."""


def run_session(
    plan: SessionPlan,
    *,
    study: StudyService,
    clock: Clock,
    drive: Callable[[Session], object],
    chains: ChainIndex | None = None,
) -> SessionReport | None:
    """Start ``plan`` in ``study``, let ``drive`` ask its items, then end and record it.

    The one start and finish of every session, scripted or interactive: however
    ``drive`` returns (the end of the items, a quit, an exception, a closed
    window), the items not reached are reported as such and the session is
    recorded with the reviews already given.

    Args:
        plan: What to ask.
        study: The learner's study service; every review is recorded in it.
        clock: Current time (UTC).
        drive: Asks the items of the session it is given (the line mode, the
            terminal interface).
        chains: For "next in chain" offers.

    Returns:
        The report, or None when the plan had nothing to ask (then nothing
        is recorded; :data:`EMPTY_MESSAGES` says why).
    """
    if not plan.items:
        return None
    recorder = StoreRecorder(study, plan, now=clock())
    session = Session(plan, recorder=recorder, clock=clock, chains=chains)
    try:
        drive(session)
    finally:
        session.quit()  # no-op when the session already ended
        report = build_report(session)
        recorder.finish(report, now=clock())
    return report


def run_script_session(
    plan: SessionPlan,
    *,
    study: StudyService,
    script: AnswerScript,
    write: Write,
    clock: Clock,
    chains: ChainIndex | None = None,
) -> SessionReport | None:
    """Run ``plan`` from an answers script, recording every review in ``study``.

    Args:
        plan: What to ask.
        study: The learner's study service.
        script: Answer lines.
        write: Prints one line of the transcript.
        clock: Current time (UTC).
        chains: For "next in chain" offers.

    Returns:
        The report, or None when the plan had nothing to ask.

    Raises:
        UsageError: For an answer line that does not fit its prompt; the
            reviews before it are recorded and the session is closed.
    """
    report = run_session(
        plan,
        study=study,
        clock=clock,
        chains=chains,
        drive=lambda session: run_scripted(session, script, write),
    )
    if report is None:
        write(EMPTY_MESSAGES[plan.kind])
    return report
