"""Anki card templates rendered over a note's fields."""

from __future__ import annotations

from sysdrill.interop.formats.anki_template import (
    CardTemplate,
    answer_html,
    card_exists,
    render_template,
)

FIELDS = {"Word": "勉強", "Reading": "", "Meaning": "<b>study</b>"}


def test_render_template_fills_fields_sections_and_filters() -> None:
    template = "{{Word}}{{#Reading}} ({{Reading}}){{/Reading}}{{^Reading}} [no reading]{{/Reading}}"
    assert render_template(template, FIELDS) == "勉強 [no reading]"
    assert render_template("{{text:Meaning}}|{{type:Word}}|{{tts en_US:Word}}", FIELDS) == "study||"


def test_render_template_puts_the_front_where_the_back_says_front_side() -> None:
    assert render_template("{{FrontSide}}<hr>{{Meaning}}", FIELDS, front_side="F") == (
        "F<hr><b>study</b>"
    )


def test_card_exists_only_when_the_front_shows_field_text() -> None:
    say = CardTemplate("Say", "{{#Reading}}Write {{Reading}}{{/Reading}}", "{{Word}}")
    recall = CardTemplate("Recall", "{{Meaning}}", "{{Word}}")
    assert not card_exists(say, FIELDS)
    assert card_exists(say, {**FIELDS, "Reading": "べんきょう"})
    assert card_exists(recall, FIELDS)
    assert not card_exists(recall, {**FIELDS, "Meaning": "<br>"})


def test_answer_html_keeps_what_follows_the_answer_rule() -> None:
    template = CardTemplate("Card", "{{Word}}", "{{FrontSide}}\n<hr id=answer>\n{{Meaning}}")
    assert answer_html(template, FIELDS).strip() == "<b>study</b>"
    plain = CardTemplate("Card", "{{Word}}", "{{FrontSide}}{{Meaning}}")
    assert answer_html(plain, FIELDS) == "<b>study</b>"


def test_card_whose_front_renders_empty_falls_back_to_the_mapped_question() -> None:
    from sysdrill.interop.field_map import FieldRole
    from sysdrill.interop.formats.anki_note import NoteType, note_items

    note_type = NoteType(
        "Typing drill",
        ("Word", "Reading", "Meaning"),
        templates=3,
        card_templates=(
            CardTemplate("Recognise", "{{Word}}", "{{FrontSide}}<hr id=answer>{{Meaning}}"),
            CardTemplate("Recall", "{{Meaning}}", "{{FrontSide}}<hr id=answer>{{Word}}"),
            CardTemplate("Type", "{{type:Word}}", "{{Word}}"),
        ),
    )

    items = note_items(
        guid="g",
        note_type=note_type,
        values=["勉強", "べんきょう", "study"],
        tags=[],
        deck=None,
        where="note 1",
        roles={
            "Word": FieldRole.QUESTION,
            "Reading": FieldRole.EXTRA,
            "Meaning": FieldRole.ANSWER,
        },
        card_ords={0, 1, 2},
        media_names={},
    )

    assert [(i.key, i.data["question"]) for i in items] == [
        ("g#t1", "勉強"),
        ("g#t2", "study"),
        ("g#t3", "勉強"),
    ]
