"""How an item without a title is named, and what an imported exercise shows of itself."""

from __future__ import annotations

from typing import Any

from sysdrill.content.models import Item
from sysdrill.study.sessions.text import UNTITLED_HEADING_CHARS, plain_title, untitled_heading
from sysdrill.study.sessions.view import difficulty_stars, item_view, source_number


def _item(**fields: Any) -> Item:
    return Item.model_validate({"id": "global-exercise-0007", **fields})


def _exercise(**fields: Any) -> Item:
    return _item(
        format="exercise",
        level="L4",
        difficulty=2,
        section="Pipelines and their bubbles",
        source={"format": "exercises-text", "key": "chapter-9-exercises/exercise-9.12"},
        **fields,
    )


def test_a_short_question_names_its_untitled_item_whole() -> None:
    item = _item(question="Why does **overlap** hide the all-reduce?")
    assert untitled_heading(item) == "Why does overlap hide the all-reduce?"
    assert plain_title(item) == untitled_heading(item)


def test_a_long_question_is_cut_between_words_with_an_ellipsis() -> None:
    words = "A ring of eight GPUs passes gradient chunks around for every bucket of each step"
    heading = untitled_heading(_item(question=f"{words}.\n\nThen say why."))
    assert heading == "A ring of eight GPUs passes gradient chunks around for…"
    assert len(heading) <= UNTITLED_HEADING_CHARS
    assert words.startswith(heading.removesuffix("…"))


def test_math_and_line_breaks_in_the_opening_are_made_plain() -> None:
    item = _item(question="With $P = 4$ stages and\n$M = 16$ micro-batches, what bubble?")
    assert untitled_heading(item) == "With P = 4 stages and M = 16 micro-batches, what bubble?"


def test_a_title_wins_and_an_item_without_text_keeps_its_id() -> None:
    titled = _item(title="Bubble of *1F1B*", question="What is the bubble?")
    assert item_view(titled).heading == "Bubble of *1F1B*"
    assert plain_title(titled) == "Bubble of 1F1B"
    bare = _item(scenario="Only a scenario.")
    assert untitled_heading(bare) == "global-exercise-0007"


def test_an_exercise_shows_its_number_stars_and_section_among_its_facts() -> None:
    view = item_view(_exercise(question="Estimate the bubble of this schedule."))
    facts = dict(view.facts)
    assert facts["source"] == "Exercise 9.12"
    assert facts["difficulty"] == "★★☆☆"
    assert facts["section"] == "Pipelines and their bubbles"
    assert view.heading == "Estimate the bubble of this schedule."
    assert view.meta == ("Exercise 9.12 · L4 · ★★☆☆ · Pipelines and their bubbles")


def test_numbers_come_only_from_source_keys_that_end_in_a_numbered_name() -> None:
    quiz = _item(source={"format": "quiz-text", "key": "chapter-9-quiz/question-3"})
    anki = _item(source={"format": "apkg", "key": "f~4xQ#kL2/0"})
    assert source_number(quiz) == "Question 3"
    assert source_number(anki) is None
    assert source_number(_item()) is None
    assert difficulty_stars(None) is None
    assert difficulty_stars(4) == "★★★★"
