"""The end-of-session report: what was answered, the score, and for gauntlets a breakdown."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import timedelta

from sysdrill.study.sessions.state_machine import ItemResult, Outcome, Session, SessionKind
from sysdrill.study.sessions.text import plain_title

__all__ = [
    "SessionReport",
    "ZoneScore",
    "build_report",
    "format_duration",
    "format_interval",
    "recorded_line",
    "report_lines",
]


@dataclass(frozen=True, slots=True)
class ZoneScore:
    """Points earned in one zone of a gauntlet."""

    zone: str
    earned: float
    """Sum of item scores, each 0.0 to 1.0."""
    possible: int
    """Items of the zone asked (each worth one point)."""


@dataclass(frozen=True, slots=True)
class SessionReport:
    """Summary of a finished session."""

    kind: SessionKind
    title: str
    results: tuple[ItemResult, ...]
    elapsed: timedelta
    answered: int
    passed: int
    """Answers that were right or rated Hard or better."""
    skipped: int
    not_reached: int
    score: float | None
    """Share earned, 0.0 to 1.0: of all questions in a gauntlet (unanswered ones
    earn nothing), of answered items otherwise; None when nothing was answered."""
    time_limit: timedelta | None = None
    zones: tuple[ZoneScore, ...] = ()

    @property
    def score_percent(self) -> int | None:
        """The score as a whole percentage."""
        return None if self.score is None else round(self.score * 100)

    def to_summary(self) -> dict[str, int | float | None]:
        """JSON-ready figures stored with the session record."""
        return {
            "answered": self.answered,
            "passed": self.passed,
            "skipped": self.skipped,
            "not_reached": self.not_reached,
            "score_percent": self.score_percent,
            "elapsed_seconds": round(self.elapsed.total_seconds()),
        }


def build_report(session: Session) -> SessionReport:
    """Summarise a session (finished or cut short)."""
    results = tuple(session.results)
    answered = [r for r in results if r.outcome is Outcome.ANSWERED]
    passed = sum(1 for r in answered if (r.score or 0.0) >= 0.5)
    end = session.ended_at or session.started_at
    kind = session.plan.kind
    zones: list[ZoneScore] = []
    if kind is SessionKind.GAUNTLET:
        # Every question of a gauntlet counts: skipped and unreached ones earn nothing.
        asked = list(results)
        score = sum(r.score or 0.0 for r in asked) / len(asked) if asked else None
        earned: dict[str, float] = defaultdict(float)
        possible: dict[str, int] = defaultdict(int)
        for r in asked:
            zone = r.item.zone.value if r.item.zone else "other"
            earned[zone] += r.score or 0.0
            possible[zone] += 1
        zones = [ZoneScore(zone, earned[zone], possible[zone]) for zone in possible]
    else:
        score = sum(r.score or 0.0 for r in answered) / len(answered) if answered else None
    title = session.plan.title
    if kind is SessionKind.DAILY and "day" in session.plan.meta:
        # A daily's title is the day; a session saved before it was carries a count
        # ("0 of 3 done") that is stale once it is over, so the report names the day.
        title = f"Daily {session.plan.meta['day']}"
    return SessionReport(
        kind=kind,
        title=title,
        results=results,
        elapsed=end - session.started_at,
        answered=len(answered),
        passed=passed,
        skipped=sum(1 for r in results if r.outcome is Outcome.SKIPPED),
        not_reached=sum(
            1 for r in results if r.outcome in (Outcome.NOT_REACHED, Outcome.OUT_OF_TIME)
        ),
        score=score,
        time_limit=session.plan.time_limit,
        zones=tuple(zones),
    )


def format_duration(span: timedelta) -> str:
    """``m:ss`` (or ``h:mm:ss``) of a time span, rounded down to the second."""
    seconds = max(0, int(span.total_seconds()))
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{seconds:02d}"
    return f"{minutes}:{seconds:02d}"


def format_interval(span: timedelta) -> str:
    """A rough human interval: ``10 min``, ``5 h``, ``3 days``."""
    minutes = span.total_seconds() / 60
    if minutes < 60:
        return f"{max(1, round(minutes))} min"
    if minutes < 60 * 24:
        return f"{round(minutes / 60)} h"
    days = round(minutes / (60 * 24))
    return f"{days} day" if days == 1 else f"{days} days"


def recorded_line(result: ItemResult) -> str | None:
    """What the learner is told once an item's review is stored, or None if it was not rated.

    ``Recorded: Good; next review in 3 days.`` (the interval when the scheduler
    gave a due date).
    """
    if result.rating is None:
        return None
    line = f"Recorded: {result.rating.name.capitalize()}"
    if result.next_due is not None and result.reviewed_at is not None:
        line += f"; next review in {format_interval(result.next_due - result.reviewed_at)}"
    return line + "."


def _result_line(number: int, result: ItemResult) -> str:
    label = plain_title(result.item)
    tag = " (warm-up)" if result.warmup else ""
    if result.outcome is not Outcome.ANSWERED:
        return f"{number:>2}. {label}{tag}: {result.outcome.value.replace('-', ' ')}"
    rating = result.rating.name.capitalize() if result.rating is not None else "-"
    if result.rubric_total is not None:
        verdict = f"{result.rubric_covered}/{result.rubric_total} key points, rated {rating}"
    elif result.correct is not None:
        verdict = f"graded {'right' if result.correct else 'wrong'}, rated {rating}"
    else:
        verdict = f"self-rated {rating}"
    return f"{number:>2}. {label}{tag}: {verdict}"


def report_lines(report: SessionReport) -> list[str]:
    """The report as plain text lines, for the terminal and the scripted mode."""
    lines = [f"{report.title}: finished"]
    if report.kind is SessionKind.DAILY:
        lines = [
            f"{report.title}: session over, {report.answered} of its "
            f"{len(report.results)} item(s) answered"
        ]
    if report.score_percent is not None:
        if report.kind is SessionKind.GAUNTLET:
            lines.append(f"Score: {report.score_percent}% of {len(report.results)} questions")
        else:
            answered = [r for r in report.results if r.outcome is Outcome.ANSWERED]
            right = sum(1 for r in answered if r.correct is True)
            wrong = sum(1 for r in answered if r.correct is False)
            lines.append(
                f"Score: {report.passed}/{report.answered} passed ({report.score_percent}%): "
                f"{right} graded right, {wrong} graded wrong, "
                f"{len(answered) - right - wrong} self-rated"
            )
    else:
        lines.append("Score: nothing answered")
    used = format_duration(report.elapsed)
    if report.time_limit is not None:
        lines.append(f"Time: {used} of {format_duration(report.time_limit)}")
    else:
        lines.append(f"Time: {used}")
    counts = [f"{report.answered} answered"]
    if report.skipped:
        counts.append(f"{report.skipped} skipped")
    if report.not_reached:
        counts.append(f"{report.not_reached} not reached")
    lines.append("Items: " + ", ".join(counts))
    for number, result in enumerate(report.results, 1):
        # A practice session left early would list every item it never reached;
        # a gauntlet lists them all, since each one counts in its score.
        if result.outcome is Outcome.NOT_REACHED and report.kind is not SessionKind.GAUNTLET:
            continue
        lines.append(_result_line(number, result))
    if report.zones:
        lines.append(
            "By zone: "
            + ", ".join(f"{zone.zone} {zone.earned:g}/{zone.possible}" for zone in report.zones)
        )
    return lines
