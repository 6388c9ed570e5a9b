"""The Textual app that runs one study session from the keyboard.

Keys (also shown at the bottom of the screen):

- multiple choice: ``a``-``d`` pick an option;
- numeric answers and exercise parts: type in the box, Enter submits
  (typing ``skip`` or ``quit`` works as in the answers format);
- free-text answers: type in the box over as many lines as you like, Enter
  starts a new line, Ctrl+S submits (Alt+Enter or Ctrl+Enter too, where the
  terminal reports them; the footer shows the key);
- flashcards: space or Enter shows the back;
- rating: the session's scale, ``1``-``4`` for Again/Hard/Good/Easy (or ``1``-``5``
  on the confidence scale), each key shown with the interval it schedules;
  ``a``/``h``/``g``/``e`` work on both;
- gauntlet rubric: ``1``-``9`` tick key points, Enter confirms;
- next in chain: ``y`` or ``n``;
- after an automatic grade: space or Enter goes on;
- anywhere: ``s`` skips the item, ``q`` or Escape twice ends the session;
- up/down and page keys scroll a long item.

The app never reads the wall clock itself: the session's injected clock drives
the countdown, and :meth:`StudyApp.refresh_timer` is what the one-second
interval calls (tests call it after moving their fake clock).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.events import Key
from textual.widgets import Footer, Header, Input, Markdown, Static, TextArea

from sysdrill.errors import UsageError
from sysdrill.napkin.diagram_text import diagram_text
from sysdrill.napkin.diagrams import DiagramGeometry, answer_diagram, question_diagram
from sysdrill.study.ratings import rating_on_scale
from sysdrill.study.sessions.answers import Command, command_of
from sysdrill.study.sessions.report import (
    build_report,
    format_duration,
    recorded_line,
    report_lines,
)
from sysdrill.study.sessions.state_machine import AnswerMode, Feedback, ItemResult, Phase, Session
from sysdrill.study.sessions.text import keep_line_breaks, plain_title, readable_math
from sysdrill.study.sessions.view import item_view, option_label, reveal_sections

__all__ = ["RATING_LETTERS", "SUBMIT_KEYS", "StudyApp"]

RATING_LETTERS = ("a", "h", "g", "e")
"""Letters that rate a recall on any scale (Again, Hard, Good, Easy), besides its digits."""

SUBMIT_KEYS = "ctrl+s,alt+enter,ctrl+enter"
"""Keys that submit a free-text answer, whose Enter starts a new line. Ctrl+S comes
first because every terminal sends it; most send Ctrl+Enter as a plain Enter."""

_HINTS: dict[str, str] = {
    "choice": "a-{last} choose   s skip   q quit",
    "input": "type your answer, Enter submits (skip / quit work too)   Esc quit",
    "essay": (
        "type your answer; Enter adds a line, Ctrl+S submits (skip / quit work too)   Esc quit"
    ),
    "reveal": "space show answer   s skip   q quit",
    "rate": "{choices}   s skip   q quit",
    "rubric": "1-{last} tick key points   Enter confirm   s skip   q quit",
    "chain": "y take the next item of the chain   n go on   q quit",
    "continue": "space / Enter next   q quit",
    "done": "q / Enter / Esc close",
}
_ASKING_STATES = ("choice", "input", "essay", "reveal")
"""Where the learner has yet to answer: the question is pinned above the answer box."""
_UNDO_STATES = ("choice", "reveal", "rate", "rubric", "chain")
"""Where ``u`` takes back the last rating (a typed answer box takes it as a letter)."""


def _fenced(geometry: DiagramGeometry, caption: str | None) -> str:
    """The text picture in a fenced block, which keeps its columns (Markdown would reflow them)."""
    block = "```text\n" + "\n".join(diagram_text(geometry)) + "\n```"
    return f"{block}\n\n*{caption}*" if caption else block


class StudyApp(App[list[str]]):
    """Runs a :class:`~sysdrill.study.sessions.state_machine.Session`; returns the report lines."""

    TITLE = "sysdrill"
    CSS = """
    #status { height: auto; padding: 0 1; background: $boost; }
    #timer { height: auto; padding: 0 1; color: $warning; }
    #body { height: 1fr; min-height: 3; padding: 0 1; }
    #ask { height: auto; max-height: 60%; padding: 0 1; border-top: hkey $primary; }
    #ask Markdown { margin: 0; }
    #feedback { height: auto; padding: 0 1; }
    #hint { height: auto; padding: 0 1; color: $text-muted; }
    #answer { margin: 0 1; }
    #essay { height: 8; margin: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "end_session", "Quit", show=True),
        Binding("ctrl+c", "leave", "Leave", show=False, priority=True),
        Binding(SUBMIT_KEYS, "submit_essay", "Submit answer", show=True, key_display="Ctrl+S"),
    ]

    def __init__(self, session: Session, *, undo: Callable[[], Session] | None = None) -> None:
        super().__init__()
        self.session = session
        self.undo = undo
        """Takes back the last rating and returns the session to go on with (``u``)."""
        self.ticked: set[int] = set()
        """Rubric points ticked so far (0-based)."""
        self.pending: ItemResult | None = None
        """An automatically graded result shown until the learner goes on."""
        self.finished = False
        self.note = ""
        self.quitting = False
        """Whether the learner pressed q once and must confirm."""
        self.interrupted = False
        """Whether the learner left with Ctrl+C (the command then exits 130)."""
        self.sub_title = session.plan.title

    def compose(self) -> ComposeResult:
        """Lay out status, countdown, item text, feedback, answer box and key hints."""
        yield Header()
        yield Static(id="status")
        yield Static(id="timer")
        with VerticalScroll(id="body"):
            yield Markdown(id="item")
        with VerticalScroll(id="ask"):
            yield Markdown(id="question")
        yield Static(id="feedback")
        yield Input(id="answer", placeholder="Your answer")
        yield TextArea(id="essay", soft_wrap=True, tab_behavior="focus")
        yield Static(id="hint")
        yield Footer()

    def on_mount(self) -> None:
        """Show the first item and start the countdown of a timed session."""
        if self.session.deadline is not None:
            self.set_interval(1.0, self.refresh_timer)
        self.refresh_timer()
        self.render_state()

    # -- drawing ---------------------------------------------------------------

    def _state(self) -> str:
        session = self.session
        if self.finished or session.phase is Phase.DONE:
            return "done"
        if self.pending is not None:
            return "continue"
        if session.phase is Phase.CHAIN:
            return "chain"
        if session.phase is Phase.RUBRIC:
            return "rubric"
        if session.phase is Phase.RATE:
            return "rate" if session.revealed else "reveal"
        if session.mode is AnswerMode.MULTIPLE_CHOICE:
            return "choice"
        item = session.current
        if session.mode is AnswerMode.FREE_TEXT and item is not None and not item.parts:
            return "essay"
        return "input"

    def _item_markdown(self) -> tuple[str, str]:
        """The item as Markdown: the scrolling body, and the question pinned below it.

        While the learner answers, the question (with its options or parts) is
        pinned above the answer box, so a long scenario cannot push it out of a
        small terminal (80x24); once the answer is shown, it heads the reveal.
        """
        session = self.session
        item = self.pending.item if self.pending is not None else session.current
        if item is None:
            return "", ""
        view = item_view(item)
        caption = item.diagram.caption if item.diagram is not None else None
        parts = [f"## {view.heading}", f"*{view.meta}*"]
        if view.scenario:
            parts.append(view.scenario)
        geometry = question_diagram(item)
        if geometry is not None:
            parts.append(_fenced(geometry, caption))
        asked = [f"**{view.question}**"]
        for index, option in enumerate(view.options):
            asked.append(f"- **{option_label(index)})** {option}")
        if view.unit_hint:
            asked.append(f"*Answer with a number and a unit (e.g. in {view.unit_hint}).*")
        state = self._state()
        if state == "input" and view.parts:
            given = session.part_answers
            for index, part in enumerate(view.parts[: len(given) + 1]):
                answered = f"\n\n> {given[index]}" if index < len(given) else ""
                asked.append(f"**{part.label}** {part.text}{answered}")
        pinned = state in _ASKING_STATES
        if not pinned:
            parts.extend(asked)
        if state in ("rubric", "rate") and session.given_answer:
            parts.append(f"### Your answer\n\n{session.given_answer}")
        if state in ("rate", "rubric", "continue"):
            picture = answer_diagram(item)
            if picture is not None:
                parts.append(_fenced(picture, caption))
            for name, text in reveal_sections(item):
                parts.append(f"### {name}\n\n{text}")
        if state == "rubric" and session.rubric is not None:
            lines = []
            for index, point in enumerate(session.rubric.points):
                mark = "x" if index in self.ticked else " "
                lines.append(f"{index + 1}. [{mark}] {point}")
            parts.append("### Key points\n\n" + "\n".join(lines))

        def shown(blocks: list[str]) -> str:
            return readable_math(keep_line_breaks("\n\n".join(blocks)))

        return shown(parts), shown(asked) if pinned else ""

    def render_state(self) -> None:
        """Redraw every part of the screen from the session's state."""
        session = self.session
        state = self._state()
        status = self.query_one("#status", Static)
        feedback = self.query_one("#feedback", Static)
        answer = self.query_one("#answer", Input)
        essay = self.query_one("#essay", TextArea)
        hint = self.query_one("#hint", Static)
        markdown = self.query_one("#item", Markdown)
        self.refresh_bindings()
        if state == "done":
            self.finished = True
            status.update(f"{session.plan.title}: finished")
            markdown.update("\n\n".join(report_lines(build_report(session))))
            self.query_one("#ask", VerticalScroll).display = False
            feedback.update(self.note)
            answer.display = essay.display = False
            hint.update(_HINTS["done"])
            return
        shown = self.pending.item if self.pending is not None else session.current
        warm = " - warm-up" if shown is not None and shown.id in session.plan.warmup_ids else ""
        # An automatically graded item stays on screen after the session moved on.
        position = len(session.results) if self.pending is not None else session.position
        status.update(f"[{position}/{session.total}]{warm}  {session.plan.title}")
        body, question = self._item_markdown()
        markdown.update(body)
        self.query_one("#question", Markdown).update(question)
        self.query_one("#ask", VerticalScroll).display = bool(question)
        text = self.note
        if state == "chain" and session.chain_offer is not None:
            offer = session.chain_offer
            text += (
                f"\nNext in chain '{offer.chain.title or offer.chain.id}': "
                f"{plain_title(offer.item)}. Take it? (y/n)"
            )
        feedback.update(text.strip())
        answer.display = state == "input"
        essay.display = state == "essay"
        if state == "input":
            answer.value = ""
            answer.focus()
        elif state == "essay":
            essay.clear()
            essay.focus()
        else:
            self.set_focus(None)
        last = len(session.rubric.points) if session.rubric else 0
        options = len(session.current.details.options or []) if session.current else 0
        choices = "  ".join(
            f"{c.key} {c.label}" + (f" {c.interval_text}" if c.interval else "")
            for c in session.rating_choices()
        )
        text = _HINTS[state].format(
            last=last if state == "rubric" else option_label(options - 1), choices=choices
        )
        if state in _UNDO_STATES and self.undo is not None and self.session.answered:
            text = text.replace("   q quit", "   u undo   q quit")
        hint.update(text)

    def refresh_timer(self) -> None:
        """Update the countdown and end the session if time ran out."""
        left = self.session.remaining()
        # The one-second interval can fire once more while the app shuts down,
        # after the screen's widgets are gone; there is nothing left to draw.
        found = self.query("#timer").results(Static)
        timer = next(found, None)
        if timer is None:
            return
        if left is None:
            timer.display = False
            return
        timer.update(f"Time left: {format_duration(left)}")
        if not self.finished and self.session.tick():
            self.note = "Time is up."
            self.render_state()

    # -- input -----------------------------------------------------------------

    def _recorded(self, before: int) -> None:
        if len(self.session.results) > before:
            self.note = recorded_line(self.session.results[-1]) or ""

    def _act(self, action: str, value: str = "") -> None:
        """Apply one learner action to the session and redraw."""
        session = self.session
        before = len(session.results)
        self.note = ""
        try:
            if action == "answer":
                feedback = self._answer(value)
                self.note = feedback.message if feedback is not None else ""
                if feedback is not None and feedback.correct is not None:
                    self.pending = session.results[-1]
                    self._recorded(before)
                    self.note = f"{feedback.message} {self.note}"
            elif action == "rate":
                session.rate(rating_on_scale(value, session.plan.rating_scale))
                self._recorded(before)
            elif action == "rubric":
                result = session.score_rubric(self.ticked)
                self._recorded(before)
                self.note = (
                    f"Covered {result.rubric_covered} of {result.rubric_total} key points. "
                    + self.note
                )
            elif action == "chain":
                session.follow_chain(value == "y")
            elif action == "skip":
                session.skip()
            elif action == "quit":
                session.quit()
        except UsageError as exc:
            self.note = str(exc)
        if action != "answer" or self.pending is None:
            self.ticked = set()
        self.render_state()

    def _answer(self, text: str) -> Feedback | None:
        """Answer the item, or its next part; None while parts are still to answer."""
        session = self.session
        item = session.current
        if item is None or not item.parts or session.mode is not AnswerMode.FREE_TEXT:
            return session.answer(text)
        session.answer_part(text)
        return None if session.part_answers else session.last_feedback

    @on(Input.Submitted, "#answer")
    def submit_answer(self, event: Input.Submitted) -> None:
        """Grade the typed answer (or obey ``skip`` / ``quit``)."""
        self._submit(event.value)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Offer the submit key (and show it in the footer) only under a free-text answer."""
        if action == "submit_essay":
            return self._state() == "essay"
        return True

    def action_submit_essay(self) -> None:
        """Submit the free-text answer typed so far, every line of it."""
        if self._state() == "essay":
            self._submit(self.query_one("#essay", TextArea).text)

    def _submit(self, text: str) -> None:
        command = command_of(text)
        if command is Command.QUIT:
            self.quitting = True
            self._quit()
        elif command is Command.SKIP:
            self._act("skip")
        else:
            self._act("answer", text)

    def _quit(self) -> None:
        """End the session on the second press, so one stray key does not end a gauntlet."""
        if not self.quitting:
            self.quitting = True
            self.query_one("#feedback", Static).update(
                "End the session? Press q or Escape again to end it, any other key to go on."
            )
            return
        self.quitting = False
        self.pending = None
        self._act("quit")

    _SCROLL_KEYS: ClassVar[dict[str, str]] = {
        "up": "scroll_up",
        "down": "scroll_down",
        "pageup": "scroll_page_up",
        "pagedown": "scroll_page_down",
    }

    def on_key(self, event: Key) -> None:
        """Dispatch keys by what the session waits for."""
        key = event.key
        if key in self._SCROLL_KEYS:
            getattr(self.query_one("#body", VerticalScroll), self._SCROLL_KEYS[key])()
            return
        typing = self.query_one("#answer", Input).has_focus
        if typing or self.query_one("#essay", TextArea).has_focus or key == "escape":
            return
        state = self._state()
        if state == "done":
            if key in ("q", "enter", "space"):
                self.exit(report_lines(build_report(self.session)))
            return
        if key == "q":
            self._quit()
            return
        if self.quitting:
            self.quitting = False
            self.render_state()
        if state == "continue":
            if key in ("enter", "space"):
                self.pending = None
                self.note = ""
                self.render_state()
            return
        if key == "u" and self.undo is not None:
            self._undo(self.undo)
        elif key == "s":
            self._act("chain", "n") if state == "chain" else self._act("skip")
        elif state == "choice":
            options = self.session.current.details.options if self.session.current else None
            letters = [option_label(index) for index in range(len(options or []))]
            if key in letters:
                self._act("answer", key)
        elif state == "reveal" and key in ("space", "enter"):
            try:
                self.session.reveal()
            except UsageError as exc:
                self.note = str(exc)
            self.render_state()
        elif state == "rate" and key in self._rating_keys():
            self._act("rate", key)
        elif state == "rubric":
            self._rubric_key(key)
        elif state == "chain" and key in ("y", "n"):
            self._act("chain", key)

    def _undo(self, undo: Callable[[], Session]) -> None:
        try:
            self.session = undo()
            self.note = "Took back the last rating; the item is asked again."
        except UsageError as exc:
            self.note = str(exc)
        self.pending = None
        self.ticked = set()
        self.render_state()

    def _rating_keys(self) -> set[str]:
        """The keys of the session's scale (``1``-``4`` or ``1``-``5``) and the letters."""
        return {choice.key for choice in self.session.rating_choices()} | set(RATING_LETTERS)

    def _rubric_key(self, key: str) -> None:
        rubric = self.session.rubric
        if rubric is None:
            return
        if key == "enter":
            self._act("rubric")
        elif key.isdigit() and 1 <= int(key) <= len(rubric.points):
            self.ticked ^= {int(key) - 1}
            self.render_state()

    def action_leave(self) -> None:
        """Leave at once (Ctrl+C): every move is already saved, the session left as it is.

        Whoever ran the app decides what becomes of it: a practice stays in
        progress to be resumed, another session is finished (``run_tui``).
        """
        self.interrupted = True
        self.exit(report_lines(build_report(self.session)))

    def action_end_session(self) -> None:
        """End the session (Escape), or close the report when it is over."""
        if self._state() == "done":
            self.exit(report_lines(build_report(self.session)))
        else:
            self._quit()
