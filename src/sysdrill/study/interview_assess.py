"""What an interviewer hears in an answer: key points covered, napkin math judged, questions.

The mock interview (:mod:`sysdrill.study.interview`) judges each answer the same
way whether a language model conducts it or not: the item's key points (the
gauntlet's rubric, :func:`~sysdrill.study.sessions.rubric.build_rubric`) are
matched against the learner's words, and every claim of their napkin math goes
through the napkin engine. A model is told these verdicts as facts; it is never
asked whether the arithmetic is right.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from sysdrill.content.models import Item
from sysdrill.napkin import check_claims
from sysdrill.napkin.corrections import number_text, with_unit
from sysdrill.napkin.results import ClaimVerdict, Verdict
from sysdrill.study.sessions.rubric import build_rubric
from sysdrill.study.sessions.text import plain_text

__all__ = [
    "MAX_POINT_SCORE",
    "Assessment",
    "MathVerdict",
    "MathWord",
    "answer_clarifying_question",
    "assess_answer",
    "content_words",
    "judge_math",
    "point_score",
]

MAX_POINT_SCORE = 3
"""A key point scores 0 (not touched) to 3 (fully made)."""

_WORD = re.compile(r"[a-z0-9][a-z0-9.\-]*[a-z0-9]|[a-z0-9]")
_STOPWORDS = frozenset(
    """
    a about above after again all also an and any are as at be because been before
    being both but by can could did do does doing each for from had has have having
    how i if in into is it its just more most much my no nor not of on once one only
    or other our out over own same so some such than that the their them then there
    these they this those through to too under until up very was we were what when
    where which while who whom why will with would you your yes per each every
    """.split()
)
_SUFFIXES = ("ing", "es", "ed", "s")


def _stem(word: str) -> str:
    # Crude on purpose: "buckets" and "bucket", "overlapping" and "overlap" meet.
    for suffix in _SUFFIXES:
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def content_words(text: str) -> set[str]:
    """The words of ``text`` that carry meaning: lower case, stemmed, no stop words."""
    words = set()
    for raw in _WORD.findall(plain_text(text).lower()):
        word = raw.strip(".-")
        if not word or word in _STOPWORDS:
            continue
        if len(word) < 3 and not word[0].isdigit():
            continue
        words.add(_stem(word))
    return words


def point_score(point: str, answer_words: set[str]) -> int:
    """How well an answer (its :func:`content_words`) makes one key point, 0 to 3.

    The share of the point's own content words the answer uses: 60 % or more is
    3, 40 % is 2, 20 % is 1, less is 0.
    """
    wanted = content_words(point.removeprefix("Napkin math: "))
    if not wanted:
        return 0
    share = len(wanted & answer_words) / len(wanted)
    if share >= 0.6:
        return 3
    if share >= 0.4:
        return 2
    if share >= 0.2:
        return 1
    return 0


class MathWord(StrEnum):
    """What the learner is told about one claim of their napkin math."""

    RIGHT = "right"
    """The napkin engine finds both sides agree."""
    WRONG = "wrong"
    """Both sides were understood and disagree; the computed value is given."""
    UNSURE = "unsure"
    """The engine read the claim but cannot vouch for it (units, prefixes, a doubt)."""


@dataclass(frozen=True, slots=True)
class MathVerdict:
    """The napkin engine's verdict on one claim of an answer."""

    line: int
    """1-based line of the answer holding the claim."""
    claim: str
    verdict: MathWord
    computed: str | None = None
    """For a wrong claim: the left side's value as the engine computes it."""
    message: str = ""
    """Why, in one sentence (the engine's)."""

    def sentence(self) -> str:
        """The verdict as one line.

        For example ``8 * 4 KiB = 64 KiB: wrong (the napkin engine computes 32 KiB)``.
        """
        if self.verdict is MathWord.WRONG and self.computed:
            return f"{self.claim}: wrong (the napkin engine computes {self.computed})"
        if self.verdict is MathWord.UNSURE:
            return f"{self.claim}: unsure (the napkin engine cannot vouch for it)"
        return f"{self.claim}: {self.verdict.value}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "line": self.line,
            "claim": self.claim,
            "verdict": self.verdict.value,
            "computed": self.computed,
            "message": self.message,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MathVerdict:
        """The verdict :meth:`to_dict` wrote."""
        return cls(
            line=int(data["line"]),
            claim=str(data["claim"]),
            verdict=MathWord(data["verdict"]),
            computed=None if data.get("computed") is None else str(data["computed"]),
            message=str(data.get("message", "")),
        )


def _computed(verdict: ClaimVerdict) -> str | None:
    if verdict.computed is None:
        return None
    return with_unit(number_text(verdict.computed), verdict.unit)


def _has_digit(text: str) -> bool:
    return any(ch.isdigit() for ch in text)


def judge_math(text: str) -> list[MathVerdict]:
    """The napkin engine's verdict on every claim of ``text`` that holds a number, in order.

    A claim that holds is right; arithmetic wrong with both sides understood is
    wrong, with the value the engine computes; anything else the engine read
    (a unit or prefix doubt, an unsure reading, a range) is unsure. Prose and
    symbols without a number are left out.
    """
    found = []
    for verdict in check_claims(text):
        if verdict.verdict is Verdict.OK:
            word = MathWord.RIGHT
        elif verdict.verdict is Verdict.WRONG:
            word = MathWord.WRONG
        else:
            if not _has_digit(verdict.claim):
                continue
            word = MathWord.UNSURE
        found.append(
            MathVerdict(
                line=verdict.line,
                claim=verdict.claim,
                verdict=word,
                computed=_computed(verdict) if word is MathWord.WRONG else None,
                message=verdict.message,
            )
        )
    return found


@dataclass(frozen=True, slots=True)
class Assessment:
    """What one answer covered of an item's key points, and how its numbers held."""

    points: tuple[str, ...]
    """The item's key points (its rubric)."""
    scores: tuple[int, ...]
    """One score per key point, 0 to :data:`MAX_POINT_SCORE`."""
    math: tuple[MathVerdict, ...]
    concept: str
    """What the item tests, in a few words (its topic or title)."""

    @property
    def fraction(self) -> float:
        """Share of the key points made, 0.0 to 1.0 (scores over their maximum)."""
        if not self.points:
            return 0.0
        return sum(self.scores) / (MAX_POINT_SCORE * len(self.points))

    @property
    def wrong_math(self) -> tuple[MathVerdict, ...]:
        """The claims the napkin engine found wrong."""
        return tuple(v for v in self.math if v.verdict is MathWord.WRONG)

    def missed(self) -> list[str]:
        """The key points made poorly or not at all (score under 2), in order."""
        return [p for p, s in zip(self.points, self.scores, strict=True) if s < 2]

    def with_scores(self, scores: tuple[int, ...]) -> Assessment:
        """The same assessment with other scores (a model's, when valid)."""
        return Assessment(self.points, scores, self.math, self.concept)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "points": list(self.points),
            "scores": list(self.scores),
            "math": [v.to_dict() for v in self.math],
            "concept": self.concept,
            "fraction": round(self.fraction, 4),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Assessment:
        """The assessment :meth:`to_dict` wrote."""
        return cls(
            points=tuple(str(p) for p in data["points"]),
            scores=tuple(int(s) for s in data["scores"]),
            math=tuple(MathVerdict.from_dict(v) for v in data["math"]),
            concept=str(data["concept"]),
        )


def concept_of(item: Item) -> str:
    """What an item tests, in a few words: its title, else its topic, else its id."""
    if item.title:
        return plain_text(item.title)
    if item.topic:
        return item.topic.replace("-", " ")
    return str(item.id)


def assess_answer(item: Item, answer: str) -> Assessment:
    """Judge one answer to ``item``: its key points scored, its napkin math checked.

    Args:
        item: The item asked.
        answer: The learner's answer, as typed.

    Returns:
        The scores of the item's key points (none when the item has no model
        answer) and the napkin engine's verdicts on the answer's claims.

    Raises:
        TierUnavailable: If the napkin tier cannot be loaded.
    """
    points = build_rubric(item).points
    words = content_words(answer)
    scores = tuple(point_score(point, words) for point in points)
    return Assessment(points, scores, tuple(judge_math(answer)), concept_of(item))


_ASSUMPTIONS = re.compile(r"assumption|given|constraint", re.IGNORECASE)
_SECTION = re.compile(r"^\s*\*\*[^*]+\*\*\s*:?\s*$|^\s*#+\s")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def _given_lines(napkin_math: str | None) -> list[str]:
    """The lines of a napkin-math block's assumptions section (what the brief gives)."""
    if not napkin_math:
        return []
    lines: list[str] = []
    inside = False
    for line in napkin_math.splitlines():
        if _SECTION.match(line) or line.strip().startswith("**"):
            inside = bool(_ASSUMPTIONS.search(line))
            continue
        if inside and line.strip():
            lines.append(line.strip().lstrip("-*• ").strip())
    return lines


def answer_clarifying_question(item: Item, question: str) -> str:
    """Answer a learner's clarifying question from what the item gives, never its answer.

    The scenario's sentences and the assumptions of the item's napkin math are
    the brief an interviewer would share; the one sharing most words with the
    question is given. The model answer and the calculations are never used.
    """
    candidates = [s.strip() for s in _SENTENCE.split(plain_text(item.scenario or "")) if s.strip()]
    candidates += [plain_text(line) for line in _given_lines(item.details.napkin_math)]
    asked = content_words(question)
    best, best_overlap = "", 0
    for candidate in candidates:
        overlap = len(asked & content_words(candidate))
        if overlap > best_overlap:
            best, best_overlap = candidate, overlap
    if best:
        return f"From the brief: {best} Anything else, state your assumption and carry on."
    givens = [c for c in candidates if c]
    if givens:
        listed = " ".join(givens[:3])
        return f"What you have to go on: {listed} Anything else, state your assumption."
    return "The question gives nothing more; state a reasonable assumption and carry on."
