"""The built-in interviewer's turns: reading moves, judging answers, replying, rating."""

from __future__ import annotations

import pytest

from sysdrill.content.models import Item
from sysdrill.study.interview import (
    Intent,
    InterviewState,
    LearnerMove,
    decide,
    item_rating,
    judge,
    opening,
    read_move,
    respond,
    start_state,
)
from sysdrill.study.interview_assess import (
    MathWord,
    answer_clarifying_question,
    assess_answer,
    judge_math,
)
from sysdrill.study.ratings import Rating

RING = Item.model_validate(
    {
        "id": "ring-bytes",
        "level": "L2",
        "title": "Bytes a GPU sends in a ring all-reduce",
        "scenario": "A 1-billion-parameter model keeps FP32 gradients and sums them over 8 GPUs.",
        "question": "How many gigabytes does each GPU send per all-reduce?",
        "details": {
            "realistic_solution": (
                "The FP32 gradients take 4 GB. A ring all-reduce sends 2(N-1)/N of the "
                "buffer from every rank. That is 1.75 times 4 GB for 8 ranks, so 7 GB."
            ),
            "common_mistake": "**The Pitfall:** Answering 4 GB, the size of the buffer.",
            "napkin_math": (
                "**Assumptions & Constraints:**\n- 4 bytes per FP32 gradient.\n"
                "- 8 ranks in one ring.\n**Calculations:**\n- 1e9 * 4 B = 4 GB.\n"
            ),
        },
    }
)
NEXT = Item.model_validate(
    {"id": "ring-time", "level": "L3", "scenario": "Links run at 50 GB/s.", "question": "How long?"}
)
GOOD = (
    "The FP32 gradients take 1e9 * 4 B = 4 GB. A ring all-reduce sends 2(N-1)/N of the buffer "
    "from every rank, 2 * (8 - 1) / 8 = 1.75 for 8 ranks, so 1.75 * 4 GB = 7 GB per GPU."
)


@pytest.mark.parametrize(
    ("typed", "move", "text"),
    [
        ("/hint", LearnerMove.HINT, ""),
        ("/skip", LearnerMove.SKIP, ""),
        ("/END now", LearnerMove.END, "now"),
        ("? is the ring flat", LearnerMove.CLARIFY, "is the ring flat"),
        (
            "Is NVLink used between the GPUs?",
            LearnerMove.CLARIFY,
            "Is NVLink used between the GPUs?",
        ),
        ("so 1.75 * 4 GB = 7 GB?", LearnerMove.ANSWER, "so 1.75 * 4 GB = 7 GB?"),
        ("Each GPU sends 7 GB.", LearnerMove.ANSWER, "Each GPU sends 7 GB."),
    ],
)
def test_a_typed_line_reads_as_its_move(typed: str, move: LearnerMove, text: str) -> None:
    assert read_move(typed) == (move, text)


def test_the_question_is_asked_scenario_first() -> None:
    assert opening(RING).splitlines() == [
        "A 1-billion-parameter model keeps FP32 gradients and sums them over 8 GPUs.",
        "",
        "How many gigabytes does each GPU send per all-reduce?",
    ]


def test_every_claim_with_a_number_gets_a_verdict_and_a_wrong_one_its_computed_value() -> None:
    verdicts = judge_math(
        "buffer: 1e9 * 4 B = 4 GB\nring: 2 * (8 - 1) / 8 = 1.5\nno numbers = here"
    )
    assert [(v.line, v.claim, v.verdict) for v in verdicts] == [
        (1, "1e9 * 4 B = 4 GB", MathWord.RIGHT),
        (2, "2 * (8 - 1) / 8 = 1.5", MathWord.WRONG),
    ]
    assert verdicts[1].computed == "1.75"
    assert (
        verdicts[1].sentence() == "2 * (8 - 1) / 8 = 1.5: wrong (the napkin engine computes 1.75)"
    )


def test_a_full_answer_makes_every_key_point_and_moves_on() -> None:
    assessment = assess_answer(RING, GOOD)
    assert len(assessment.points) == 3
    assert min(assessment.scores) >= 2
    assert not assessment.wrong_math
    state = start_state(["ring-bytes", "ring-time"])
    intent = decide(state, LearnerMove.ANSWER, assessment)
    assert intent is Intent.ADVANCE
    after, reply = respond(
        state, RING, LearnerMove.ANSWER, GOOD, intent=intent, assessment=assessment, next_item=NEXT
    )
    assert after.position == 1 and not after.closed
    assert reply.item_id == "ring-time"
    assert "Next question (L3):" in reply.text and "Links run at 50 GB/s." in reply.text
    assert reply.ratings == (("ring-bytes", item_rating(after.progress[0])),)
    assert after.progress[0].done and after.progress[0].best_fraction == assessment.fraction


def test_wrong_arithmetic_is_corrected_once_with_the_engines_value() -> None:
    answer = "Gradients are 4 GB and each GPU sends 2 * (8 - 1) / 8 = 1.5 times that."
    assessment = assess_answer(RING, answer)
    state = start_state(["ring-bytes"])
    assert decide(state, LearnerMove.ANSWER, assessment) is Intent.CORRECT
    after, reply = respond(
        state,
        RING,
        LearnerMove.ANSWER,
        answer,
        intent=Intent.CORRECT,
        assessment=assessment,
        next_item=None,
    )
    assert "the napkin engine computes 1.75" in reply.text
    assert after.position == 0 and after.progress[0].corrections == 1
    # The same slip again is not corrected twice: the rubric decides.
    assert decide(after, LearnerMove.ANSWER, assessment) is not Intent.CORRECT


def test_a_thin_answer_gets_a_hint_then_the_common_mistake_then_the_interview_moves_on() -> None:
    state = start_state(["ring-bytes", "ring-time"])
    thin = "It depends on the network."
    texts = []
    for _ in range(2):
        assessment = judge(RING, LearnerMove.ANSWER, thin)
        intent = decide(state, LearnerMove.ANSWER, assessment)
        assert intent is Intent.HINT
        state, reply = respond(
            state,
            RING,
            LearnerMove.ANSWER,
            thin,
            intent=intent,
            assessment=assessment,
            next_item=NEXT,
        )
        texts.append(reply.text)
    assert texts[0].startswith("A hint: think about")
    assert "Answering 4 GB, the size of the buffer." in texts[1]
    assessment = judge(RING, LearnerMove.ANSWER, thin)
    assert decide(state, LearnerMove.ANSWER, assessment) is Intent.ADVANCE


def test_a_partial_answer_is_probed_on_what_it_missed() -> None:
    partial = "The FP32 gradients take 4 GB in the buffer of every rank."
    assessment = assess_answer(RING, partial)
    state = start_state(["ring-bytes"])
    assert decide(state, LearnerMove.ANSWER, assessment) is Intent.PROBE
    _, reply = respond(
        state,
        RING,
        LearnerMove.ANSWER,
        partial,
        intent=Intent.PROBE,
        assessment=assessment,
        next_item=None,
    )
    assert reply.text.startswith("Good so far. Go one step deeper")


def test_skip_on_the_last_item_closes_and_rates_it_again() -> None:
    state = start_state(["ring-bytes"])
    intent = decide(state, LearnerMove.SKIP, None)
    assert intent is Intent.CLOSE
    after, reply = respond(
        state, RING, LearnerMove.SKIP, "", intent=intent, assessment=None, next_item=None
    )
    assert after.closed and reply.item_id is None
    assert reply.ratings == (("ring-bytes", Rating.AGAIN),)


def test_ending_before_any_answer_rates_nothing() -> None:
    state = start_state(["ring-bytes", "ring-time"])
    after, reply = respond(
        state, RING, LearnerMove.END, "", intent=Intent.CLOSE, assessment=None, next_item=NEXT
    )
    assert after.closed and reply.ratings == ()


def test_clarifying_questions_are_answered_from_the_brief_never_the_answer() -> None:
    said = answer_clarifying_question(RING, "how many ranks are in the ring")
    assert said == (
        "From the brief: 8 ranks in one ring. Anything else, state your assumption and carry on."
    )
    assert "7 GB" not in answer_clarifying_question(RING, "what is the answer in GB")
    state = start_state(["ring-bytes"])
    after, reply = respond(
        state,
        RING,
        LearnerMove.CLARIFY,
        "bytes per gradient?",
        intent=Intent.CLARIFY,
        assessment=None,
        next_item=None,
    )
    assert after == state and reply.intent is Intent.CLARIFY


@pytest.mark.parametrize(
    ("fraction", "hints", "skipped", "expected"),
    [
        (1.0, 0, False, Rating.EASY),
        (1.0, 1, False, Rating.GOOD),
        (1.0, 2, False, Rating.HARD),
        (0.5, 0, False, Rating.HARD),
        (0.2, 0, False, Rating.AGAIN),
        (1.0, 0, True, Rating.AGAIN),
    ],
)
def test_an_item_is_rated_by_its_best_answer_less_for_hints(
    fraction: float, hints: int, skipped: bool, expected: Rating
) -> None:
    state = start_state(["x"])
    progress = state.progress[0]
    from dataclasses import replace

    progress = replace(progress, answers=1, hints=hints, skipped=skipped, best_fraction=fraction)
    assert item_rating(progress) is expected


def test_the_state_round_trips_through_its_json_shape() -> None:
    state = start_state(["ring-bytes", "ring-time"])
    assessment = assess_answer(RING, GOOD)
    after, _ = respond(
        state,
        RING,
        LearnerMove.ANSWER,
        GOOD,
        intent=Intent.ADVANCE,
        assessment=assessment,
        next_item=NEXT,
    )
    assert InterviewState.from_dict(after.to_dict()) == after
    assert type(assessment).from_dict(assessment.to_dict()) == assessment
