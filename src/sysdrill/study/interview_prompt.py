"""What a language model conducting a mock interview is told, and how its turn is read.

The model gets, per turn, the item (scenario, question, reference answer, key
points, common mistake), the napkin engine's verdicts on the learner's numbers
*as facts* (the model is never asked to check arithmetic), what the rubric
would do, and the conversation so far. It answers in prose, then one small
JSON block::

    {"intent": "probe", "scores": [3, 1, 0], "concept": "ring all-reduce", "advance": false}

:func:`parse_turn` validates the block with Pydantic; a missing or malformed
block gives None and the caller keeps the rubric's intent and scores. The
prose is what the learner reads: :class:`ReplyFilter` holds the block back
while the reply streams.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sysdrill.content.models import Item
from sysdrill.study.interview import MODEL_INTENTS, Intent, LearnerMove
from sysdrill.study.interview_assess import MAX_POINT_SCORE, Assessment
from sysdrill.study.sessions.text import plain_text

__all__ = [
    "ChatMessage",
    "ModelTurn",
    "ReplyFilter",
    "build_messages",
    "parse_turn",
    "visible_text",
]

MAX_HISTORY_TURNS = 12
"""Earlier turns of the conversation sent with each request, at most (the newest)."""

_SYSTEM = """You are a calm, demanding interviewer for machine-learning systems roles.
You conduct a Socratic mock interview: you never lecture, you ask.
Rules:
- Keep each reply under 90 words.
- The ARITHMETIC FACTS are computed by a checker and are correct. Never contradict them
  and never recompute the learner's arithmetic yourself.
- Ground every judgement in the REFERENCE ANSWER, KEY POINTS and COMMON MISTAKE.
- Never reveal the reference answer unless you are closing or moving on.
- Choose one intent: probe (ask a deeper question on a missed point), hint (give a
  small hint), correct (point out a mistake, using the arithmetic facts), advance (the
  answer is good enough: move to the next question), close (end the interview).
After your reply, write one line with a JSON object and nothing after it:
{"intent": "probe|hint|correct|advance|close", "scores": [0-3 per key point],
 "concept": "what this question tests", "advance": true|false}"""


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """One message of an OpenAI-style chat (role ``system``, ``user`` or ``assistant``)."""

    role: Literal["system", "user", "assistant"]
    content: str

    def to_dict(self) -> dict[str, str]:
        """The message as the chat completions API takes it."""
        return {"role": self.role, "content": self.content}


def _facts(assessment: Assessment | None) -> str:
    if assessment is None or not assessment.math:
        return "- (the learner's answer holds no checkable arithmetic)"
    return "\n".join(f"- line {v.line}: {v.sentence()}" for v in assessment.math)


def _points(assessment: Assessment | None, points: Sequence[str]) -> str:
    if not points:
        return "- (this item has no key points)"
    scores = assessment.scores if assessment is not None else ()
    lines = []
    for n, point in enumerate(points):
        heard = f" (word match suggests {scores[n]}/{MAX_POINT_SCORE})" if scores else ""
        lines.append(f"{n + 1}. {point}{heard}")
    return "\n".join(lines)


def build_messages(
    *,
    item: Item,
    points: Sequence[str],
    history: Sequence[ChatMessage],
    move: LearnerMove,
    learner_text: str,
    assessment: Assessment | None,
    rubric_intent: Intent,
    next_item: Item | None,
) -> list[ChatMessage]:
    """The chat messages of one interviewer turn.

    Args:
        item: The item being asked.
        points: Its key points (the rubric's), in order.
        history: The conversation so far (interviewer turns as ``assistant``).
        move: What the learner did this turn.
        learner_text: What they typed.
        assessment: The judged answer (None unless ``move`` is an answer).
        rubric_intent: What the rule-based conductor would do (a suggestion).
        next_item: The next item of the ladder, if any.

    Returns:
        The system message with the item's facts, then the recent history, then
        this turn's learner message.
    """
    brief = [
        f"QUESTION ({item.level.value if item.level else 'any level'}): "
        + plain_text(f"{item.scenario or ''}\n{item.question or item.title or ''}").strip(),
        "REFERENCE ANSWER: " + plain_text(item.details.realistic_solution or "(none)"),
        "KEY POINTS:\n" + _points(assessment, points),
        "COMMON MISTAKE: " + plain_text(item.details.common_mistake or "(none recorded)"),
        "ARITHMETIC FACTS (from the checker, always correct):\n" + _facts(assessment),
        f"RUBRIC SUGGESTS: {rubric_intent.value}",
        "NEXT QUESTION: "
        + (
            "none, this is the last question: close instead of advancing"
            if next_item is None
            else "there is one; if you advance, it will be asked after your reply"
        ),
    ]
    system = ChatMessage("system", _SYSTEM + "\n\n" + "\n\n".join(brief))
    if move is LearnerMove.CLARIFY:
        said = (
            f"(clarifying question) {learner_text}\n"
            "Answer it from the question's brief only, without giving the answer away. "
            'Use intent "probe" and advance false.'
        )
    elif move is LearnerMove.HINT:
        said = "(the candidate asks for a hint) " + learner_text
    else:
        said = learner_text
    recent = list(history)[-MAX_HISTORY_TURNS:]
    return [system, *recent, ChatMessage("user", said)]


class ModelTurn(BaseModel):
    """The JSON block a model writes after its reply."""

    model_config = ConfigDict(extra="ignore")

    intent: Literal["probe", "hint", "correct", "advance", "close"]
    scores: list[int] = Field(default_factory=list)
    concept: str = Field(default="", max_length=200)
    advance: bool = False

    def scores_for(self, points: int) -> tuple[int, ...] | None:
        """The scores, when there is one in range per key point; None otherwise."""
        if len(self.scores) != points:
            return None
        if any(not 0 <= s <= MAX_POINT_SCORE for s in self.scores):
            return None
        return tuple(self.scores)

    @property
    def chosen_intent(self) -> Intent:
        """The intent, with ``advance: true`` read as advancing."""
        intent = Intent(self.intent)
        if self.advance and intent not in (Intent.ADVANCE, Intent.CLOSE):
            return Intent.ADVANCE
        assert intent in MODEL_INTENTS
        return intent


_FENCE = re.compile(r"```(?:json)?\s*(\{.*?\})\s*```", re.DOTALL)
_OBJECT = re.compile(r"\{[^{}]*\}", re.DOTALL)


def parse_turn(text: str) -> ModelTurn | None:
    """The JSON block of a model's reply, validated; None when missing or malformed.

    A fenced block (```json ... ```) wins; otherwise the last ``{...}`` in the
    text that holds no nested object.
    """
    candidates = [m.group(1) for m in _FENCE.finditer(text)]
    candidates += [m.group(0) for m in _OBJECT.finditer(text)]
    for raw in reversed(candidates):
        try:
            return ModelTurn.model_validate(json.loads(raw))
        except (ValueError, ValidationError):
            continue
    return None


def visible_text(text: str) -> str:
    """A model's reply without its JSON block (what the learner reads)."""
    cut = _block_start(text)
    return (text if cut is None else text[:cut]).strip()


def _block_start(text: str) -> int | None:
    fence = text.find("```")
    brace = text.find("{")
    found = [i for i in (fence, brace) if i >= 0]
    return min(found) if found else None


class ReplyFilter:
    """Passes a streamed reply through, holding back everything from its JSON block on.

    A reply is prose, then a block starting with ``{`` or a code fence; the
    learner sees only the prose, as it arrives.
    """

    def __init__(self) -> None:
        """Start with nothing received."""
        self._received = ""
        self._shown = 0
        self._stopped = False

    @property
    def received(self) -> str:
        """The whole reply so far, block included."""
        return self._received

    def feed(self, chunk: str) -> str:
        """Take one streamed chunk; return the prose it adds for the learner."""
        self._received += chunk
        if self._stopped:
            return ""
        cut = _block_start(self._received)
        if cut is not None:
            self._stopped = True
            out = self._received[self._shown : cut]
            self._shown = cut
            return out
        # A lone trailing backtick may open a fence: keep it until the next chunk.
        safe = len(self._received.rstrip("`"))
        out = self._received[self._shown : safe]
        self._shown = max(self._shown, safe)
        return out
