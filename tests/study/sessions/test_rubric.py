"""Rubrics built from model answers, and ratings from rubric scores."""

from __future__ import annotations

import pytest

from sysdrill.content.models import Item
from sysdrill.study.ratings import Rating
from sysdrill.study.sessions.rubric import (
    MAX_POINT_CHARS,
    Rubric,
    build_rubric,
    napkin_conclusion,
    rating_for_score,
)


def _item(solution, napkin=None):
    return Item.model_validate(
        {"id": "x", "details": {"realistic_solution": solution, "napkin_math": napkin}}
    )


def test_rubric_takes_four_sentences_and_the_napkin_conclusion(vault):
    item = next(i for i in vault.items if i.id == "c-l5-design")
    points = build_rubric(item).points
    assert len(points) == 5
    assert points[0].startswith("Combine 8-way tensor parallelism")
    assert points[-1] == (
        "Napkin math: One full sweep of HBM takes about 40 ms, "
        "so a memory-bound step cannot beat that."
    )


def test_rubric_prefers_sentences_with_figures_and_keeps_their_order():
    item = _item(
        "Start simple. Shard the optimizer state across 8 ranks. Keep it boring. "
        "Overlap the all-reduce with backward. Use 25 MB buckets for the gradients. "
        "Measure the exposed communication time."
    )
    points = build_rubric(item).points
    assert len(points) == 4
    assert points[0] == "Shard the optimizer state across 8 ranks."
    assert "Start simple." not in points


def test_bullets_are_points_and_math_is_readable():
    item = _item("- Bubble is $\\frac{P-1}{M+P-1}$ of the step\n- More micro-batches shrink it")
    assert build_rubric(item).points == (
        "Bubble is (P-1)/(M+P-1) of the step",
        "More micro-batches shrink it",
    )


def test_long_points_are_cut_at_a_word():
    point = build_rubric(_item("word " * 100)).points[0]
    assert len(point) <= MAX_POINT_CHARS and point.endswith("…")


def test_item_without_answer_has_an_empty_rubric():
    assert build_rubric(Item.model_validate({"id": "x"})).points == ()


def test_napkin_conclusion_reads_bold_headers_too():
    text = "**Calculations:** 2 x 3 = 6\n**Conclusion:** Six GPUs suffice. Not more.\n"
    assert napkin_conclusion(text) == "Six GPUs suffice."
    assert napkin_conclusion("no header here") is None


def test_napkin_conclusion_with_interpretation_header_and_bullets():
    text = (
        "**Calculations:**\n- 2.6 GB x 2 = 5.2 GB\n"
        "**Conclusion & Interpretation:**\n- About 49 ms of traffic. Overlap hides it.\n"
    )
    assert napkin_conclusion(text) == "About 49 ms of traffic."


def test_score_counts_only_points_that_exist():
    rubric = Rubric(("a", "b", "c", "d"))
    assert rubric.score(frozenset({0, 1, 9})) == 0.5
    assert Rubric(()).score(frozenset()) == 0.0


@pytest.mark.parametrize(
    ("fraction", "rating"),
    [
        (0.0, Rating.AGAIN),
        (0.39, Rating.AGAIN),
        (0.4, Rating.HARD),
        (0.6, Rating.HARD),
        (0.7, Rating.GOOD),
        (0.8, Rating.GOOD),
        (1.0, Rating.EASY),
    ],
)
def test_rating_for_score_thresholds(fraction, rating):
    assert rating_for_score(fraction) is rating


def test_short_answer_is_split_into_clauses():
    item = _item("Optimizer state dominates: Adam keeps two fp32 moments; 12 bytes a parameter.")
    assert build_rubric(item).points == (
        "Optimizer state dominates:",
        "Adam keeps two fp32 moments;",
        "12 bytes a parameter.",
    )
    assert build_rubric(_item("It is 2 GB: small.")).points == ("It is 2 GB: small.",)
