"""Gauntlet rubrics: a few key points taken from an item's model answer.

A mock interviewer listens for a handful of points. :func:`build_rubric` takes
up to four from ``details.realistic_solution`` (bullets, else sentences, the
ones carrying numbers or bold text first) and one from the conclusion of
``details.napkin_math``, so a rubric has one to five points. The learner ticks
the points their answer covered; :func:`rating_for_score` turns the share into
a rating for the scheduler.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sysdrill.content.models import Item
from sysdrill.study.ratings import Rating
from sysdrill.study.sessions.text import plain_text

__all__ = [
    "MAX_POINT_CHARS",
    "MAX_SOLUTION_POINTS",
    "MIN_CLAUSE_CHARS",
    "MIN_POINTS",
    "Rubric",
    "build_rubric",
    "napkin_conclusion",
    "rating_for_score",
]

MAX_SOLUTION_POINTS = 4
"""Key points taken from the model answer at most (the napkin conclusion adds one)."""
MAX_POINT_CHARS = 180
"""Longest key point shown, in characters; longer ones are cut at a word."""

MIN_POINTS = 3
"""Below this many sentences, a model answer is split at ``;`` and ``:`` too."""
MIN_CLAUSE_CHARS = 15
"""Shortest clause that stands as a key point on its own, in characters."""

_CLAUSE_END = re.compile(r"(?<=[;:])\s+")
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+(.*\S)\s*$")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(*$])")
_CONCLUSION = re.compile(
    r"^[ \t]*(?:#+[ \t]*|\*\*)?[ \t]*conclusions?\b[^\n]*?(?::\*\*|\*\*:|:|\*\*|$)[ \t]*",
    re.IGNORECASE | re.MULTILINE,
)
"""A Conclusion header (``### Conclusion``, ``**Conclusion & Interpretation:**``)."""
_HEADER = re.compile(r"^\s*(?:#+\s|\*\*[^*]+:\*\*\s*$)", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Rubric:
    """Key points an answer should cover, in the order the model answer makes them."""

    points: tuple[str, ...]

    def score(self, covered: frozenset[int]) -> float:
        """Share of points covered, 0.0 to 1.0 (indexes are 0-based)."""
        if not self.points:
            return 0.0
        return len([i for i in covered if 0 <= i < len(self.points)]) / len(self.points)


def _shorten(text: str) -> str:
    text = " ".join(text.split())
    if len(text) <= MAX_POINT_CHARS:
        return text
    cut = text[: MAX_POINT_CHARS - 1].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + "…"


def _candidates(solution: str) -> list[str]:
    lines = [line for line in solution.splitlines() if line.strip()]
    bullets = [m.group(1) for line in lines if (m := _BULLET.match(line))]
    if len(bullets) >= 2:
        return bullets
    sentences = [part for part in _SENTENCE_END.split(" ".join(lines)) if part.strip()]
    if len(sentences) >= MIN_POINTS:
        return sentences
    # A short answer still makes several points: split its clauses.
    clauses = [part.strip() for s in sentences for part in _CLAUSE_END.split(s)]
    if all(len(clause) >= MIN_CLAUSE_CHARS for clause in clauses):
        return clauses
    return sentences


def _weight(text: str) -> int:
    weight = 0
    if any(ch.isdigit() for ch in text):
        weight += 2
    if "**" in text or "$" in text:
        weight += 1
    if len(text) >= 30:
        weight += 1
    if len(text) < 15:
        weight -= 2
    return weight


def napkin_conclusion(napkin_math: str | None) -> str | None:
    """First sentence after the Conclusion header of a napkin-math block, if any."""
    if not napkin_math:
        return None
    match = _CONCLUSION.search(napkin_math)
    if match is None:
        return None
    rest = napkin_math[match.end() :]
    following = _HEADER.search(rest)
    lines = (rest[: following.start()] if following else rest).splitlines()
    body = " ".join(
        (m.group(1) if (m := _BULLET.match(line)) else line).strip() for line in lines
    ).strip()
    if not body:
        return None
    return _SENTENCE_END.split(body, maxsplit=1)[0]


def build_rubric(item: Item) -> Rubric:
    """Build the rubric of one item from its model answer and napkin math.

    Args:
        item: The item; one without a model answer gets a rubric of at most
            its napkin conclusion (possibly empty).

    Returns:
        One to five key points, or none when the item has no answer text at all.
    """
    solution = item.details.realistic_solution or ""
    candidates = _candidates(solution)
    ranked = sorted(range(len(candidates)), key=lambda i: -_weight(candidates[i]))
    chosen = sorted(ranked[:MAX_SOLUTION_POINTS])
    points = [_shorten(plain_text(candidates[i])) for i in chosen]
    conclusion = napkin_conclusion(item.details.napkin_math)
    if conclusion:
        points.append("Napkin math: " + _shorten(plain_text(conclusion)))
    return Rubric(tuple(point for point in points if point))


def rating_for_score(fraction: float) -> Rating:
    """Rating of a rubric score: under 40 % Again, under 70 % Hard, under 100 % Good, else Easy."""
    if fraction < 0.4:
        return Rating.AGAIN
    if fraction < 0.7:
        return Rating.HARD
    if fraction < 1.0:
        return Rating.GOOD
    return Rating.EASY
