"""The EDN subset Mochi's data.edn uses."""

from __future__ import annotations

import pytest

from sysdrill.interop.formats._edn import MAX_DEPTH, EdnError, read_edn


def test_read_edn_maps_keywords_sets_and_tagged_values_to_plain_python() -> None:
    text = """
    ; a comment
    {:id "c1", :tags #{"a" "b" "a"} :n 3 :x 1.5 :ok true :gone nil
     :at #inst "2024-02-11T09:12:44.123-00:00" :list (1 2) :char \\a}
    """
    assert read_edn(text) == {
        "id": "c1",
        "tags": ["a", "b"],
        "n": 3,
        "x": 1.5,
        "ok": True,
        "gone": None,
        "at": "2024-02-11T09:12:44.123-00:00",
        "list": [1, 2],
        "char": "a",
    }


def test_read_edn_decodes_string_escapes_and_unicode() -> None:
    assert read_edn(r'"a\nb \"q\" \u00e9 日本"') == 'a\nb "q" é 日本'


def test_read_edn_drops_forms_marked_with_discard() -> None:
    assert read_edn("[1 #_ {:skip [2 3]} 4 #_5]") == [1, 4]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{:a "unterminated', "unterminated string"),
        ("{:a 1", "never closed"),
        ("{:a}", "key without a value"),
        ("[1 2}", "unexpected '}'"),
        ("   ", "holds no value"),
    ],
)
def test_read_edn_rejects_malformed_text_naming_the_problem(text: str, message: str) -> None:
    with pytest.raises(EdnError, match=message):
        read_edn(text)


def test_read_edn_refuses_nesting_deeper_than_the_limit_without_recursion() -> None:
    deep = "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5)
    with pytest.raises(EdnError, match="nesting deeper"):
        read_edn(deep)
    nested = read_edn("[" * MAX_DEPTH + "]" * MAX_DEPTH)
    for _ in range(MAX_DEPTH - 1):
        nested = nested[0]
    assert nested == []
