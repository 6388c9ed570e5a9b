"""Study sessions: practice, quiz, gauntlet, chain and daily, scripted or interactive.

Plans say which items a session asks (:mod:`.plans`, :mod:`.gauntlet`); the
:class:`~.state_machine.Session` state machine asks them, grades and records each
answer; :mod:`.line_mode` drives a session from an answers script and
:mod:`sysdrill.cli.tui` from the keyboard. Running a session against the
study database (saving every move, so any process can resume it) is the
application layer's: ``sysdrill.app.sessions``.
"""

from __future__ import annotations

from sysdrill.study.sessions.answers import AnswerScript
from sysdrill.study.sessions.gauntlet import FORMATS, GauntletFormat, gauntlet_plan, pick_gauntlet
from sysdrill.study.sessions.line_mode import run_scripted
from sysdrill.study.sessions.lineups import chain_plan, daily_plan, practice_plan, quiz_plan
from sysdrill.study.sessions.report import SessionReport, build_report
from sysdrill.study.sessions.state_machine import (
    AnswerMode,
    Clock,
    Feedback,
    ItemResult,
    Outcome,
    Phase,
    Recorder,
    Session,
    SessionKind,
    SessionLineup,
)

__all__ = [
    "FORMATS",
    "AnswerMode",
    "AnswerScript",
    "Clock",
    "Feedback",
    "GauntletFormat",
    "ItemResult",
    "Outcome",
    "Phase",
    "Recorder",
    "Session",
    "SessionKind",
    "SessionLineup",
    "SessionReport",
    "build_report",
    "chain_plan",
    "daily_plan",
    "gauntlet_plan",
    "pick_gauntlet",
    "practice_plan",
    "quiz_plan",
    "run_scripted",
]
