"""Ignore markers: their scope, and the text a learner reads without them."""

from __future__ import annotations

from sysdrill.content.ignore_marks import (
    ignore_scopes,
    silenced_codes,
    strip_ignore_marks,
    strip_ignore_marks_in,
    without_ignore_marks,
)
from sysdrill.content.models import dump_item, validate_item


def test_text_without_a_marker_is_returned_as_it_is() -> None:
    text = "2 * 2 GB = 4 GB  # a plain comment\nsysdrill: is fine\n"
    assert strip_ignore_marks(text) is text


def test_a_trailing_marker_goes_with_the_blanks_before_it() -> None:
    assert strip_ignore_marks("a = 1  # sysdrill: ignore[napkin-arithmetic]\nb\n") == "a = 1\nb\n"
    assert strip_ignore_marks("a\t#sysdrill:ignore[x, y]") == "a"


def test_a_line_holding_only_a_marker_is_removed_whole() -> None:
    text = "**Calculations:**\n    # sysdrill: ignore[napkin-units]\n- x = 1\n"
    assert strip_ignore_marks(text) == "**Calculations:**\n- x = 1\n"
    assert strip_ignore_marks("- x = 1\n# sysdrill: ignore[title]") == "- x = 1"
    assert strip_ignore_marks("# sysdrill: ignore[title]") == ""


def test_line_endings_are_kept() -> None:
    assert strip_ignore_marks("a  # sysdrill: ignore[x]\r\nb\r\n") == "a\r\nb\r\n"


def test_scopes_cover_the_marked_line_and_what_is_nested_under_it() -> None:
    text = "details:\n  napkin_math: |  # sysdrill: ignore[a, b]\n    x = 1\n    y = 2\nstatus: x\n"
    scopes = ignore_scopes(text)
    assert scopes == ((2, 4, ("a", "b")),)
    assert silenced_codes(scopes, 4) == {"a", "b"}
    assert silenced_codes(scopes, 5) == set()
    assert silenced_codes(scopes, 0) == set()


def test_plain_values_are_copied_only_where_a_marker_was() -> None:
    clean = {"a": ["x", {"b": "y"}], "n": 3}
    assert strip_ignore_marks_in(clean) is clean
    marked = {"a": ["x  # sysdrill: ignore[c]", {"b": "y"}], "n": 3}
    cleaned = strip_ignore_marks_in(marked)
    assert cleaned == {"a": ["x", {"b": "y"}], "n": 3}
    assert cleaned["a"][1] is marked["a"][1]
    assert marked["a"][0].endswith("]")


def _item(napkin: str) -> dict[str, object]:
    return {
        "id": "cloud-0001",
        "format": "flashcard",
        "question": "How long?",
        "details": {"realistic_solution": "About 40 ms.", "napkin_math": napkin},
        "parts": [{"label": "a", "text": "t", "answer": "1 s  # sysdrill: ignore[x]"}],
        "reviewer_mood": "fine  # sysdrill: ignore[unknown-field]",
    }


def test_an_item_without_markers_is_the_same_object() -> None:
    data = _item("x = 1")
    data["parts"] = []
    data.pop("reviewer_mood")
    item = validate_item(data)
    assert without_ignore_marks(item) is item


def test_an_item_with_markers_is_copied_clean_and_dumps_the_same_keys() -> None:
    item = validate_item(_item("x = 1  # sysdrill: ignore[napkin-arithmetic]\ny = 2\n"))
    clean = without_ignore_marks(item)
    assert clean is not item
    assert clean.details.napkin_math == "x = 1\ny = 2\n"
    assert clean.parts is not None and clean.parts[0].answer == "1 s"
    assert dump_item(clean)["reviewer_mood"] == "fine"
    assert set(dump_item(clean)) == set(dump_item(item))
    assert item.details.napkin_math is not None and "ignore[" in item.details.napkin_math
