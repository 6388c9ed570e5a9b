"""What the learner sees of an item: front and reveal."""

from __future__ import annotations

from sysdrill.content.models import Item
from sysdrill.study.sessions.view import answer_sections, item_view, option_label, reveal_sections


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
    assert (card.heading, card.meta) == ("What does data parallelism replicate?", "dp-cards")


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


def test_view_carries_what_show_prints_facts_parts_and_expected_answer():
    numeric = Item.model_validate(
        {
            "id": "n1",
            "format": "numeric",
            "question": "How big?",
            "track": "edge",
            "level": "L3",
            "answer_value": 128,
            "answer_unit": "KiB",
            "answer_tolerance": 0.05,
            "parts": [{"label": "a", "text": "t", "answer": "42"}],
        }
    )
    view = item_view(numeric)
    assert view.facts[:3] == (("kind", "numeric"), ("track", "edge"), ("level", "L3"))
    assert view.expected_answer == "128 KiB (within 5 % of it: 121.6 to 134.4 KiB)"
    assert [(p.label, p.text, p.answer) for p in view.parts] == [("a", "t", "42")]
    assert view.correct_index is None


def test_answer_sections_leave_out_parts_and_the_placeholder(vault):
    diag = _item(vault, "c-l4-diag")
    assert answer_sections(diag) == reveal_sections(diag)
    bare = Item.model_validate({"id": "ex2", "format": "exercise", "question": "Q"})
    assert answer_sections(bare) == []
