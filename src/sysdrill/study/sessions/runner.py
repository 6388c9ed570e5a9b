"""Running a planned session against the study database, scripted or interactive."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sysdrill.study.sessions.answers import AnswerScript
from sysdrill.study.sessions.chains import ChainIndex
from sysdrill.study.sessions.engine import Clock, Session, SessionKind, SessionPlan
from sysdrill.study.sessions.line_mode import Write, run_scripted
from sysdrill.study.sessions.recording import StoreRecorder
from sysdrill.study.sessions.report import SessionReport, build_report

if TYPE_CHECKING:
    from sysdrill.study.service import StudyService

__all__ = ["EMPTY_MESSAGES", "open_session", "run_script_session"]

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


def open_session(
    plan: SessionPlan, *, study: StudyService, clock: Clock, chains: ChainIndex | None = None
) -> tuple[Session, StoreRecorder]:
    """Start a session whose results go to ``study`` (the session is recorded too).

    Returns:
        The session and its recorder; call ``recorder.finish`` when it ends.
    """
    recorder = StoreRecorder(study, plan, now=clock())
    return Session(plan, recorder=recorder, clock=clock, chains=chains), recorder


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
    if not plan.items:
        write(EMPTY_MESSAGES[plan.kind])
        return None
    session, recorder = open_session(plan, study=study, clock=clock, chains=chains)
    try:
        return run_scripted(session, script, write)
    finally:
        recorder.finish(build_report(session), now=clock())
