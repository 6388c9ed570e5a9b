"""The field-mapping heuristic and --map values."""

from __future__ import annotations

from pathlib import Path

import pytest

from sysdrill.errors import UsageError
from sysdrill.interop.field_map import (
    FieldRole,
    TemplateFields,
    map_fields,
    parse_field_maps,
    read_saved_maps,
    saved_maps_text,
)


def test_names_in_several_languages_take_their_role() -> None:
    assert map_fields(["Nummer", "Frage", "Antwort", "Quelle"]) == {
        "Nummer": FieldRole.EXTRA,
        "Frage": FieldRole.QUESTION,
        "Antwort": FieldRole.ANSWER,
        "Quelle": FieldRole.SOURCE,
    }
    assert map_fields(["Вопрос", "Ответ"]) == {"Вопрос": "question", "Ответ": "answer"}
    assert map_fields(["RÉPONSE", "Recto"]) == {"RÉPONSE": "answer", "Recto": "question"}


def test_unknown_names_are_mapped_by_position() -> None:
    assert map_fields(["Kanji", "Reading", "Meaning"]) == {
        "Kanji": FieldRole.QUESTION,
        "Reading": FieldRole.EXTRA,
        "Meaning": FieldRole.ANSWER,
    }
    assert map_fields(["One", "Two", "Three"]) == {
        "One": FieldRole.QUESTION,
        "Two": FieldRole.ANSWER,
        "Three": FieldRole.EXTRA,
    }


def test_a_number_or_an_id_is_never_the_answer_while_a_text_field_is_left() -> None:
    by_value = map_fields(["Kanji", "Strokes", "English"], values=["犬", "4", "dog"])
    by_name = map_fields(["Headword", "ID", "Gloss"], values=["perro", "a81f", "dog"])
    only_numbers = map_fields(["Sum", "Total"], values=["6 * 8", "48"])

    assert by_value == {"Kanji": "question", "Strokes": "extra", "English": "answer"}
    assert by_name == {"Headword": "question", "ID": "extra", "Gloss": "answer"}
    # A deck of sums has no text answer: the number is the answer.
    assert only_numbers == {"Sum": "question", "Total": "answer"}


def test_template_fields_decide_before_names() -> None:
    roles = map_fields(
        ["Front", "Back", "Freq", "Notes"],
        shown=TemplateFields(front=("Back",), back_only=("Freq", "Front")),
        values=["dog", "犬", "9216.43", ""],
    )

    assert roles == {"Front": "answer", "Back": "question", "Freq": "extra", "Notes": "extra"}


def test_given_roles_win_over_the_heuristic() -> None:
    roles = map_fields(["Front", "Back", "Notes"], given={"notes": FieldRole.ANSWER})

    assert roles == {"Front": "question", "Back": "extra", "Notes": "answer"}


def test_parse_field_maps_reads_values_and_names_the_fix() -> None:
    assert parse_field_maps(["Frage=question", "a=b=tags"]) == {
        "Frage": FieldRole.QUESTION,
        "a=b": FieldRole.TAGS,
    }
    with pytest.raises(UsageError, match="unknown role 'front'; use one of: question"):
        parse_field_maps(["Frage=front"])
    with pytest.raises(UsageError, match="is not FIELD=role"):
        parse_field_maps(["Frage"])


def test_saved_maps_round_trip_and_keep_other_keys(tmp_path: Path) -> None:
    (tmp_path / "sysdrill.yaml").write_text("title: My vault\n", encoding="utf-8")
    text = saved_maps_text(tmp_path, {"Mathe": {"Nummer": FieldRole.IGNORE}})
    assert text is not None
    (tmp_path / "sysdrill.yaml").write_text(text, encoding="utf-8")

    assert read_saved_maps(tmp_path) == {"Mathe": {"Nummer": FieldRole.IGNORE}}
    assert text.startswith("title: My vault\n")
    assert saved_maps_text(tmp_path, {"Mathe": {"Nummer": FieldRole.IGNORE}}) is None
