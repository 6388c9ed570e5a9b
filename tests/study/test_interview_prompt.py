"""What a model conducting an interview is sent, and how its JSON block is read."""

from __future__ import annotations

import pytest

from sysdrill.content.models import Item
from sysdrill.study.interview import Intent, LearnerMove
from sysdrill.study.interview_assess import assess_answer
from sysdrill.study.interview_prompt import (
    ChatMessage,
    ReplyFilter,
    build_messages,
    parse_turn,
    visible_text,
)

ITEM = Item.model_validate(
    {
        "id": "ring-bytes",
        "level": "L2",
        "scenario": "A 1B-parameter model sums FP32 gradients over 8 GPUs.",
        "question": "How many GB does each GPU send?",
        "details": {
            "realistic_solution": "Gradients take 4 GB. The ring sends 2(N-1)/N of it: 7 GB.",
            "common_mistake": "Answering 4 GB, the buffer's size.",
        },
    }
)
ANSWER = "4 GB of gradients, times 2 * (8 - 1) / 8 = 1.5, so 6 GB."


def _messages(**changes: object) -> list[ChatMessage]:
    assessment = assess_answer(ITEM, ANSWER)
    given: dict[str, object] = {
        "item": ITEM,
        "points": assessment.points,
        "history": [ChatMessage("assistant", "How many GB?")],
        "move": LearnerMove.ANSWER,
        "learner_text": ANSWER,
        "assessment": assessment,
        "rubric_intent": Intent.CORRECT,
        "next_item": None,
        **changes,
    }
    return build_messages(**given)  # type: ignore[arg-type]


def test_the_prompt_gives_the_napkin_verdicts_as_facts_with_the_reference() -> None:
    messages = _messages()
    system = messages[0].content
    assert messages[0].role == "system"
    assert "- line 1: 2 * (8 - 1) / 8 = 1.5: wrong (the napkin engine computes 1.75)" in system
    assert "never recompute the learner's arithmetic" in system
    assert "REFERENCE ANSWER: Gradients take 4 GB." in system
    assert "COMMON MISTAKE: Answering 4 GB, the buffer's size." in system
    assert "KEY POINTS:\n1. " in system
    assert "RUBRIC SUGGESTS: correct" in system
    assert "this is the last question: close instead of advancing" in system
    assert [m.to_dict() for m in messages[1:]] == [
        {"role": "assistant", "content": "How many GB?"},
        {"role": "user", "content": ANSWER},
    ]


def test_a_clarifying_question_asks_the_model_not_to_give_the_answer_away() -> None:
    last = _messages(move=LearnerMove.CLARIFY, learner_text="Is it FP32?", assessment=None)[-1]
    assert last.content.startswith("(clarifying question) Is it FP32?")
    assert "without giving the answer away" in last.content


def test_only_the_recent_history_is_sent() -> None:
    history = [ChatMessage("user", f"turn {n}") for n in range(30)]
    messages = _messages(history=history)
    assert messages[1].content == "turn 18" and len(messages) == 14


@pytest.mark.parametrize(
    "reply",
    [
        'Check your factor.\n{"intent": "correct", "scores": [1, 0, 2], "concept": "ring"}',
        'Check it.\n```json\n{"intent": "correct", "scores": [1, 0, 2], "advance": false}\n```',
        'Check it. {"intent": "probe"} then {"intent": "correct", "scores": [1, 0, 2]}',
    ],
)
def test_a_valid_block_is_read_wherever_the_model_puts_it(reply: str) -> None:
    turn = parse_turn(reply)
    assert turn is not None
    assert turn.chosen_intent is Intent.CORRECT
    assert turn.scores_for(3) == (1, 0, 2)


@pytest.mark.parametrize(
    "reply",
    [
        "No block at all.",
        '{"intent": "dance", "scores": [1]}',
        '{"intent": "probe", "scores": "three"}',
        "{intent: probe}",
        '```json\n{"intent": "probe",\n```',
    ],
)
def test_a_missing_or_malformed_block_gives_none(reply: str) -> None:
    assert parse_turn(reply) is None


def test_scores_out_of_range_or_miscounted_fall_back() -> None:
    turn = parse_turn('{"intent": "advance", "scores": [3, 4]}')
    assert turn is not None
    assert turn.scores_for(2) is None and turn.scores_for(3) is None
    assert parse_turn('{"intent": "probe", "advance": true}').chosen_intent is Intent.ADVANCE  # type: ignore[union-attr]


def test_the_learner_never_sees_the_block_even_split_across_pieces() -> None:
    reply = 'Redo the factor, please.\n```json\n{"intent": "correct"}\n```'
    shown = ReplyFilter()
    seen = "".join(shown.feed(reply[i : i + 3]) for i in range(0, len(reply), 3))
    assert seen.strip() == "Redo the factor, please."
    assert shown.received == reply
    assert visible_text(reply) == "Redo the factor, please."
