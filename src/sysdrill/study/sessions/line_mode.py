"""The scripted line mode: a session driven by answer lines, printed as plain text.

This is what runs when answers come from ``--answers FILE`` or from standard
input that is not a terminal. Each prompt reads one line of the script (see
:mod:`sysdrill.study.sessions.answers`); the transcript echoes every line
after ``> `` so that a saved transcript reads like the session did.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from sysdrill.content.models import Item
from sysdrill.errors import AnswerUnreadable, UsageError
from sysdrill.napkin.diagram_text import diagram_text
from sysdrill.napkin.diagrams import answer_diagram, question_diagram
from sysdrill.study.sessions.answers import (
    AnswerScript,
    Command,
    command_of,
    parse_rating,
    parse_rubric,
    parse_yes_no,
)
from sysdrill.study.sessions.report import (
    SessionReport,
    build_report,
    format_duration,
    recorded_line,
    report_lines,
)
from sysdrill.study.sessions.state_machine import (
    AnswerMode,
    ItemResult,
    Phase,
    Session,
    SessionKind,
)
from sysdrill.study.sessions.text import plain_text, plain_title
from sysdrill.study.sessions.view import item_view, option_label, reveal_sections

__all__ = ["Undo", "Write", "rating_prompt", "run_scripted"]

Write = Callable[[str], None]
"""Prints one line (or a block of lines) of the transcript."""

_Read = TypeVar("_Read")


def _readable(read: Callable[[], _Read]) -> _Read:
    """Run ``read`` on an answer line; a line it cannot read is an unreadable answer.

    A mistyped reply (``maybe`` for y/n, ``good`` for an option letter) leaves the
    session as it was, so the prompt is asked again rather than the session ended.
    """
    try:
        return read()
    except AnswerUnreadable:
        raise
    except UsageError as exc:
        raise AnswerUnreadable(str(exc)) from exc


def rating_prompt(session: Session) -> str:
    """The rating prompt on the session's scale, each key with the interval it schedules.

    ``Rate your recall: 1 Again · 10m, 2 Hard · 1d, 3 Good · 3d, 4 Easy · 8d:``
    """
    shown = ", ".join(
        f"{choice.key} {choice.label}" + (f" · {choice.interval_text}" if choice.interval else "")
        for choice in session.rating_choices()
    )
    return f"Rate your recall: {shown}:"


def _show_item(session: Session, write: Write) -> None:
    item = session.current
    assert item is not None
    view = item_view(item)
    header = f"[{session.position}/{session.total}] {plain_text(view.heading)} ({view.meta})"
    if session.is_warmup:
        header += " - warm-up"
    write("")
    write(header)
    left = session.remaining()
    if left is not None:
        write(f"Time left: {format_duration(left)}")
    if view.scenario:
        write(plain_text(view.scenario))
    geometry = question_diagram(item)
    if geometry is not None:
        write("\n".join(diagram_text(geometry, caption=_caption(item))))
    write(plain_text(view.question))
    for index, option in enumerate(view.options):
        write(f"  {option_label(index)}) {plain_text(option)}")
    mode = session.mode
    if mode is AnswerMode.MULTIPLE_CHOICE:
        write(f"Your choice (a-{option_label(len(view.options) - 1)}):")
    elif mode is AnswerMode.NUMERIC:
        wanted = f"a number with a unit, e.g. in {view.unit_hint}" if view.unit_hint else "a number"
        write(f"Your answer ({wanted}):")
    elif mode is AnswerMode.FREE_TEXT and view.parts:
        _show_part(session, write)
    elif mode is AnswerMode.FREE_TEXT:
        write('Your answer (one line, or several between two """ lines; - for none):')
    else:
        session.reveal()
        _show_reveal(session, write)
        write(rating_prompt(session))


def _answers_by_part(session: Session) -> bool:
    item = session.current
    return item is not None and bool(item.parts) and session.mode is AnswerMode.FREE_TEXT


def _show_part(session: Session, write: Write) -> None:
    item = session.current
    assert item is not None and item.parts
    part = item.parts[len(session.part_answers)]
    write(f"{part.label} {plain_text(part.text)}")
    write(f"Your answer to {part.label} (one line, - for none):")


def _caption(item: Item) -> str | None:
    """The item's caption of its diagram, as plain text."""
    caption = item.diagram.caption if item.diagram is not None else None
    return plain_text(caption) if caption else None


def _show_reveal(session: Session, write: Write) -> None:
    item = session.current
    assert item is not None
    geometry = answer_diagram(item)
    if geometry is not None:
        write("\n".join(diagram_text(geometry, caption=_caption(item))))
    for name, text in reveal_sections(item):
        write(f"{name}:")
        for line in plain_text(text).splitlines():
            write(f"  {line}" if line.strip() else "")


def _show_result(result: ItemResult, write: Write) -> None:
    line = recorded_line(result)
    if line is not None:
        write(line)


def _show_after_answer(session: Session, write: Write) -> None:
    if session.phase in (Phase.RATE, Phase.RUBRIC) and session.current is not None:
        _show_reveal(session, write)
        if session.phase is Phase.RUBRIC:
            assert session.rubric is not None
            write("Key points:")
            for number, point in enumerate(session.rubric.points, 1):
                write(f"  {number}. {point}")
            write("Which did your answer cover? (numbers, all or none):")
        else:
            write(rating_prompt(session))


def _show_chain_offer(session: Session, write: Write) -> None:
    offer = session.chain_offer
    assert offer is not None
    title = offer.chain.title or offer.chain.id
    write(f"Next in chain '{title}': {plain_title(offer.item)}. Take it? (y/n):")


def _step(session: Session, phase: Phase, line: str, write: Write) -> None:
    """Apply one answer line to the session in ``phase``."""
    done_before = len(session.results)
    if phase is Phase.ANSWER:
        if _answers_by_part(session):
            session.answer_part(line)
            if session.part_answers:
                return
            assert session.last_feedback is not None
            feedback = session.last_feedback
        else:
            feedback = _readable(lambda: session.answer(line))
        write(feedback.message)
        if feedback.timed_out:
            return
        if feedback.correct is not None:
            answered = session.results[-1]
            item = answered.item
            if item.details.realistic_solution:
                write("Why: " + plain_text(item.details.realistic_solution))
        else:
            _show_after_answer(session, write)
    elif phase is Phase.RATE:
        session.rate(_readable(lambda: parse_rating(line, session.plan.rating_scale)))
    elif phase is Phase.RUBRIC:
        assert session.rubric is not None
        count = len(session.rubric.points)
        result = session.score_rubric(_readable(lambda: parse_rubric(line, count)))
        write(f"Covered {result.rubric_covered} of {result.rubric_total} key points.")
    elif phase is Phase.CHAIN:
        session.follow_chain(_readable(lambda: parse_yes_no(line)))
    if len(session.results) > done_before and session.results[-1].rating is not None:
        _show_result(session.results[-1], write)


Undo = Callable[[], Session]
"""Takes back the last rating and returns the session to drive on from."""


def run_scripted(
    session: Session, script: AnswerScript, write: Write, *, undo: Undo | None = None
) -> SessionReport:
    """Drive ``session`` with the lines of ``script`` until it ends or the script does.

    The end of the script ends the session as ``quit`` would: reviews already
    given stay recorded. A line a prompt cannot read (``maybe`` at a y/n
    prompt) is answered with what the prompt accepts, and the prompt waits for
    the next line: one mistyped reply never ends a session.

    Args:
        session: A fresh session.
        script: The answer lines.
        write: Prints one line of the transcript.
        undo: Takes back the last rating (the ``undo`` line); None where undo
            is not offered.

    Returns:
        The session's report (also written out).

    Raises:
        UsageError: For a line the session refuses in its state (not a reading
            mistake), naming the script and line number; reviews before it stay
            recorded.
    """
    write(session.plan.title)
    if session.plan.kind is SessionKind.GAUNTLET and session.deadline is not None:
        write(f"Countdown: {format_duration(session.deadline - session.started_at)}.")
    shown: tuple[int, int] | None = None
    parts_shown = 0
    while session.phase is not Phase.DONE:
        # A prompt answered with an unreadable line is not shown again: its
        # "Answer again:" stands in front of the next line.
        now_at = (session.index, len(session.results))
        if shown != now_at and session.phase is Phase.CHAIN:
            _show_chain_offer(session, write)
        elif shown != now_at:
            _show_item(session, write)
        elif session.phase is Phase.ANSWER and len(session.part_answers) != parts_shown:
            _show_part(session, write)
        shown = now_at
        parts_shown = len(session.part_answers)
        try:
            line = script.next_line()
        except UsageError as exc:
            # Input ran out inside a multi-line answer: end as at any end of input.
            write(str(exc))
            line = None
        if line is None:
            write("(end of answers)")
            session.quit()
            break
        write("\n".join(f"> {text}" for text in line.split("\n")))
        command = command_of(line)
        if command is Command.QUIT:
            session.quit()
            break
        if command is Command.SKIP:
            session.skip()
            continue
        if command is Command.UNDO:
            if undo is None:
                write("Undo is not available here.")
                continue
            try:
                session = undo()
            except UsageError as exc:
                write(str(exc))
                continue
            write("Took back the last rating; the item is asked again.")
            shown = None
            continue
        try:
            _step(session, session.phase, line, write)
        except AnswerUnreadable as exc:
            # Nothing was recorded: the same prompt waits for a readable answer.
            write(f"{exc} Answer again:")
        except UsageError as exc:
            raise script.error(str(exc)) from exc
    report = build_report(session)
    write("")
    for text in report_lines(report):
        write(text)
    return report
