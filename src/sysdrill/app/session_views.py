"""What the session use cases return: frozen views with ``to_dict()``.

The CLI renders them as text, the web app as pages and as JSON; neither
reaches into the session engine for what to show.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sysdrill.napkin.diagram_text import diagram_summary
from sysdrill.napkin.diagrams import DiagramGeometry
from sysdrill.study.sessions.rating_choices import RatingChoice
from sysdrill.study.sessions.report import SessionReport, report_lines
from sysdrill.study.sessions.text import untitled_heading

__all__ = [
    "ChainOfferView",
    "DeadlineView",
    "FeedbackView",
    "ItemPrompt",
    "ReportView",
    "ResultView",
    "SessionView",
    "report_view",
]


@dataclass(frozen=True, slots=True)
class ItemPrompt:
    """The item in front of the learner (Markdown strings, math still in LaTeX)."""

    item_id: str
    heading: str
    meta: str
    scenario: str | None
    question: str
    options: tuple[str, ...]
    unit_hint: str | None
    mode: str
    """``flashcard``, ``multiple-choice``, ``numeric`` or ``free-text``."""
    warmup: bool
    parts: tuple[tuple[str, str], ...]
    """An exercise's parts as (label, text), answered one by one."""
    part_answers: tuple[str, ...]
    """Answers given so far to the parts."""
    reveal: tuple[tuple[str, str], ...]
    """The back (model answer, common mistake, napkin math, part answers) once it
    is time to grade oneself; a flashcard's back is shown when asked."""
    given_answer: str | None
    diagram: DiagramGeometry | None = None
    """The picture drawn from the item's numbers, when it goes with the question."""
    answer_diagram: DiagramGeometry | None = None
    """The picture drawn from the item's numbers, once the answer is shown."""
    diagram_caption: str | None = None
    """The item's caption of its picture (which part of the item it draws)."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "item_id": self.item_id,
            "heading": self.heading,
            "meta": self.meta,
            "scenario": self.scenario,
            "question": self.question,
            "options": list(self.options),
            "unit_hint": self.unit_hint,
            "mode": self.mode,
            "warmup": self.warmup,
            "parts": [{"label": label, "text": text} for label, text in self.parts],
            "part_answers": list(self.part_answers),
            "reveal": [{"heading": name, "text": text} for name, text in self.reveal],
            "given_answer": self.given_answer,
            "diagram": None if self.diagram is None else diagram_summary(self.diagram),
            "diagram_caption": self.diagram_caption,
            "answer_diagram": (
                None if self.answer_diagram is None else diagram_summary(self.answer_diagram)
            ),
        }


@dataclass(frozen=True, slots=True)
class FeedbackView:
    """What the learner is told after answering."""

    correct: bool | None
    message: str
    timed_out: bool
    why: str | None
    """The model answer, after an automatically graded answer."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "correct": self.correct,
            "message": self.message,
            "timed_out": self.timed_out,
            "why": self.why,
        }


@dataclass(frozen=True, slots=True)
class ChainOfferView:
    """The next item of a chain, offered after answering a chain member."""

    chain_id: str
    chain_title: str
    item_id: str
    item_title: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "chain_id": self.chain_id,
            "chain_title": self.chain_title,
            "item_id": self.item_id,
            "item_title": self.item_title,
        }


@dataclass(frozen=True, slots=True)
class ResultView:
    """One item of a finished session."""

    item_id: str
    title: str
    outcome: str
    rating: str | None
    correct: bool | None
    score: float | None
    """Share of the item earned, 0.0 to 1.0."""
    warmup: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "item_id": self.item_id,
            "title": self.title,
            "outcome": self.outcome,
            "rating": self.rating,
            "correct": self.correct,
            "score": self.score,
            "warmup": self.warmup,
        }


@dataclass(frozen=True, slots=True)
class ReportView:
    """The end-of-session report."""

    kind: str
    title: str
    answered: int
    passed: int
    skipped: int
    not_reached: int
    score_percent: int | None
    elapsed_seconds: int
    time_limit_seconds: int | None
    zones: tuple[tuple[str, float, int], ...]
    """Gauntlets: (zone, points earned, points possible)."""
    results: tuple[ResultView, ...]
    lines: tuple[str, ...]
    """The report as plain text lines (what the terminal prints)."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "kind": self.kind,
            "title": self.title,
            "answered": self.answered,
            "passed": self.passed,
            "skipped": self.skipped,
            "not_reached": self.not_reached,
            "score_percent": self.score_percent,
            "elapsed_seconds": self.elapsed_seconds,
            "time_limit_seconds": self.time_limit_seconds,
            "zones": [
                {"zone": zone, "earned": earned, "possible": possible}
                for zone, earned, possible in self.zones
            ],
            "results": [result.to_dict() for result in self.results],
            "lines": list(self.lines),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ReportView:
        """Rebuild a report written by :meth:`to_dict` (kept with a finished session)."""
        limit = data.get("time_limit_seconds")
        return cls(
            kind=str(data["kind"]),
            title=str(data["title"]),
            answered=int(data["answered"]),
            passed=int(data["passed"]),
            skipped=int(data["skipped"]),
            not_reached=int(data["not_reached"]),
            score_percent=data.get("score_percent"),
            elapsed_seconds=int(data["elapsed_seconds"]),
            time_limit_seconds=None if limit is None else int(limit),
            zones=tuple(
                (str(z["zone"]), float(z["earned"]), int(z["possible"])) for z in data["zones"]
            ),
            results=tuple(
                ResultView(
                    item_id=str(r["item_id"]),
                    title=str(r["title"]),
                    outcome=str(r["outcome"]),
                    rating=r.get("rating"),
                    correct=r.get("correct"),
                    score=r.get("score"),
                    warmup=bool(r.get("warmup", False)),
                )
                for r in data["results"]
            ),
            lines=tuple(str(line) for line in data["lines"]),
        )


def report_view(report: SessionReport) -> ReportView:
    """Turn the engine's report into its view."""
    return ReportView(
        kind=report.kind.value,
        title=report.title,
        answered=report.answered,
        passed=report.passed,
        skipped=report.skipped,
        not_reached=report.not_reached,
        score_percent=report.score_percent,
        elapsed_seconds=round(report.elapsed.total_seconds()),
        time_limit_seconds=None
        if report.time_limit is None
        else round(report.time_limit.total_seconds()),
        zones=tuple((z.zone, z.earned, z.possible) for z in report.zones),
        results=tuple(
            ResultView(
                item_id=r.item.id,
                title=r.item.title or untitled_heading(r.item),
                outcome=r.outcome.value,
                rating=None if r.rating is None else r.rating.name.lower(),
                correct=r.correct,
                score=r.score,
                warmup=r.warmup,
            )
            for r in report.results
        ),
        lines=tuple(report_lines(report)),
    )


@dataclass(frozen=True, slots=True)
class SessionView:
    """Where a session stands after a move: the prompt, the feedback, or the report."""

    session_id: int | None
    """None when the session had nothing to ask (nothing was saved)."""
    kind: str
    title: str
    phase: str
    """``answer``, ``rate``, ``rubric``, ``chain`` or ``done``."""
    position: int
    """1-based position of the current item."""
    total: int
    done: int
    """Items behind the learner (answered, skipped, out of time)."""
    item: ItemPrompt | None
    rubric_points: tuple[str, ...]
    chain_offer: ChainOfferView | None
    feedback: FeedbackView | None
    recorded: str | None
    """``Recorded: Good; next review in 10 min.`` after the last review."""
    remaining_seconds: float | None
    """Time left on a gauntlet's countdown, in seconds."""
    deadline: datetime | None
    """When a gauntlet's countdown ends (UTC)."""
    can_undo: bool
    report: ReportView | None
    """Once the session is over (phase ``done``): its report."""
    options: dict[str, Any]
    """What the session was started with."""
    note: str | None = None
    """A remark on the plan (a gauntlet shorter than its format)."""
    empty_message: str | None = None
    """Why a session had nothing to ask."""
    rating_scale: str = "again-hard-good-easy"
    """The one scale the session's ratings are asked on."""
    revealed: bool = False
    """Whether the answer of the item awaiting a rating is shown (a flashcard's back once
    revealed); a rating is refused before."""
    rating_choices: tuple[RatingChoice, ...] = ()
    """Once a rating is awaited and the answer shown: the choices, each with the interval
    it would schedule."""

    @classmethod
    def empty(cls, kind: str, title: str, message: str, *, note: str | None) -> SessionView:
        """The view of a session with nothing to ask."""
        return cls(
            session_id=None,
            kind=kind,
            title=title,
            phase="done",
            position=0,
            total=0,
            done=0,
            item=None,
            rubric_points=(),
            chain_offer=None,
            feedback=None,
            recorded=None,
            remaining_seconds=None,
            deadline=None,
            can_undo=False,
            report=None,
            options={},
            note=note,
            empty_message=message,
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "session_id": self.session_id,
            "kind": self.kind,
            "title": self.title,
            "phase": self.phase,
            "position": self.position,
            "total": self.total,
            "done": self.done,
            "item": None if self.item is None else self.item.to_dict(),
            "rubric_points": list(self.rubric_points),
            "chain_offer": None if self.chain_offer is None else self.chain_offer.to_dict(),
            "feedback": None if self.feedback is None else self.feedback.to_dict(),
            "recorded": self.recorded,
            "remaining_seconds": self.remaining_seconds,
            "deadline": None if self.deadline is None else self.deadline.isoformat(),
            "can_undo": self.can_undo,
            "report": None if self.report is None else self.report.to_dict(),
            "options": dict(self.options),
            "note": self.note,
            "empty_message": self.empty_message,
            "rating_scale": self.rating_scale,
            "revealed": self.revealed,
            "rating_choices": [choice.to_dict() for choice in self.rating_choices],
        }


@dataclass(frozen=True, slots=True)
class DeadlineView:
    """The interview date saved, and the expected workload until then."""

    deadline: date | None
    """None when deadline mode was turned off."""
    days_left: int
    reviews_total: int
    """Reviews and new items expected until the deadline, if every review passes."""
    reviews_peak: int
    """The most expected on one day."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "deadline": None if self.deadline is None else self.deadline.isoformat(),
            "days_left": self.days_left,
            "reviews_total": self.reviews_total,
            "reviews_peak": self.reviews_peak,
        }
