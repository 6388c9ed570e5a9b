"""What the learner sees of an item: front and reveal."""

from __future__ import annotations

from sysdrill.content.models import Item
from sysdrill.study.sessions.view import item_view, option_label, reveal_sections


def _item(vault, item_id):
    return next(item for item in vault.items if item.id == item_id)


def test_front_of_a_question_has_heading_meta_and_options(vault):
    view = item_view(_item(vault, "c-l2-mc"))
    assert view.heading == "Where the bytes go"
    assert view.meta == "cloud · L2 · fluency · memory-hierarchy"
    assert len(view.options) == 4 and view.unit_hint is None
    assert [option_label(i) for i in range(4)] == ["a", "b", "c", "d"]


def test_front_of_a_numeric_item_names_the_unit_and_a_flashcard_its_deck(vault):
    assert item_view(_item(vault, "c-l3-num")).unit_hint == "ms"
    card = item_view(_item(vault, "fc-1"))
    assert (card.heading, card.meta) == ("fc-1", "dp-cards")


def test_reveal_lists_the_sections_present(vault):
    names = [name for name, _ in reveal_sections(_item(vault, "c-l4-diag"))]
    assert names == ["Model answer", "Common mistake", "Napkin math"]


def test_reveal_of_an_exercise_shows_part_answers_or_says_there_is_none():
    exercise = Item.model_validate(
        {
            "id": "ex",
            "format": "exercise",
            "question": "Q",
            "parts": [{"label": "a", "text": "t", "answer": "42"}, {"label": "b", "text": "u"}],
        }
    )
    assert reveal_sections(exercise) == [("Parts", "(a) 42")]
    bare = Item.model_validate({"id": "ex2", "format": "exercise", "question": "Q"})
    assert reveal_sections(bare) == [
        ("Model answer", "This item has no reference answer; judge for yourself.")
    ]
