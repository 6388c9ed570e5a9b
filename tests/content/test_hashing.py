from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Callable
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from sysdrill.content.hashing import (
    canonical_content,
    canonical_json,
    content_hash,
    release_hash,
    release_hash_from_hashes,
)
from sysdrill.content.loader import load_vault
from sysdrill.content.models import Item, validate_item
from sysdrill.content.sample import sample_vault_path

FLASHCARD = {
    "id": "cloud-1",
    "format": "flashcard",
    "question": "What is 2 + 2?",
    "details": {"realistic_solution": "4"},
    "status": "published",
}
NUMERIC = {
    "id": "edge-2",
    "format": "numeric",
    "question": "Caf\u00e9 bytes?",
    "answer_value": 128,
    "answer_unit": "KiB",
    "status": "published",
}


def item(data: dict[str, object], **changes: object) -> Item:
    return validate_item({**data, **changes})


def test_canonical_json_is_sorted_compact_and_keeps_only_meaning() -> None:
    assert canonical_json(item(FLASHCARD).model_dump(mode="json")) == (
        '{"details":{"realistic_solution":"4"},"format":"flashcard",'
        '"id":"cloud-1","question":"What is 2 + 2?"}'
    )


def test_content_hash_pins_known_values() -> None:
    assert content_hash(item(FLASHCARD)) == (
        "f5cc7fdd71d1415d603d362a16c24a7d5f2273db972c167cb22a3d5b1689ad2d"
    )
    assert content_hash(item(NUMERIC)) == (
        "8189f9dcf44c82e89d2414ea99e7a112200f647a7e5f57a771ea29fd70f19677"
    )


def test_release_hash_pins_known_value_and_ignores_order() -> None:
    expected = "464ef0ac71130ffca13df0cf1658423069ce064178998bc27d499e5f685fbd6e"
    assert release_hash([item(FLASHCARD), item(NUMERIC)]) == expected
    assert release_hash([item(NUMERIC), item(FLASHCARD)]) == expected


def test_content_hash_equals_sha256_of_canonical_json() -> None:
    loaded = item(NUMERIC)
    text = canonical_json(loaded.model_dump(mode="json"))
    assert content_hash(loaded) == hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_content_hash_of_raw_mapping_matches_validated_item() -> None:
    assert content_hash(NUMERIC) == content_hash(item(NUMERIC))


def test_content_hash_ignores_status_and_review_stamps() -> None:
    base = content_hash(item(FLASHCARD))
    stamped = item(
        FLASHCARD,
        status="draft",
        provenance="imported",
        validated=True,
        math_status="CORRECT",
        human_reviewed={"status": "verified", "by": "ann", "date": "2026-01-01"},
        created_at="2026-01-01T00:00:00",
        updated_at="2026-02-02T00:00:00",
        tags=["x"],
        authors=["ann"],
        deck="some-deck",
    )
    assert content_hash(stamped) == base


def test_content_hash_changes_with_meaning() -> None:
    base = content_hash(item(FLASHCARD))
    assert content_hash(item(FLASHCARD, question="What is 2 + 3?")) != base
    assert content_hash(item(FLASHCARD, details={"realistic_solution": "5"})) != base
    assert content_hash(item(FLASHCARD, level="L2")) != base


def test_content_hash_normalises_unicode_to_nfc() -> None:
    composed = item(NUMERIC)
    decomposed = item(NUMERIC, question=unicodedata.normalize("NFD", "Caf\u00e9 bytes?"))
    assert decomposed.question != composed.question
    assert content_hash(decomposed) == content_hash(composed)


def test_content_hash_normalises_newlines_and_trailing_blanks() -> None:
    unix = item(FLASHCARD, details={"realistic_solution": "line one\nline two\n"})
    windows = item(FLASHCARD, details={"realistic_solution": "line one  \r\nline two"})
    old_mac = item(FLASHCARD, details={"realistic_solution": "line one\rline two\r\n\r\n"})
    assert content_hash(unix) == content_hash(windows) == content_hash(old_mac)


def test_content_hash_treats_whole_floats_as_integers() -> None:
    assert content_hash(item(NUMERIC, answer_value=128.0)) == content_hash(item(NUMERIC))
    assert content_hash(item(NUMERIC, answer_value=128.5)) != content_hash(item(NUMERIC))


def test_content_hash_treats_empty_and_missing_alike() -> None:
    with_empty = item(FLASHCARD, details={"realistic_solution": "4", "options": None}, tags=[])
    assert content_hash(with_empty) == content_hash(item(FLASHCARD))


def test_missing_format_hashes_as_question() -> None:
    data = {"id": "cloud-3", "question": "Why?"}
    assert content_hash(data) == content_hash({**data, "format": "question"})


def test_release_hash_counts_only_published_items() -> None:
    draft = item(NUMERIC, status="draft")
    assert release_hash([item(FLASHCARD), draft]) == release_hash([item(FLASHCARD)])


def test_release_hash_from_hashes_matches_by_hand_recipe() -> None:
    pairs = [("b-2", "f" * 64), ("a-1", "e" * 64)]
    by_hand = hashlib.sha256(f"a-1 {'e' * 64}\nb-2 {'f' * 64}\n".encode()).hexdigest()
    assert release_hash_from_hashes(pairs) == by_hand


DOCS = Path(__file__).resolve().parents[2] / "docs" / "vault-format.md"


def documented_recipe() -> Callable[[Path], str]:
    """The Python recipe of docs/vault-format.md, executed as written."""
    text = DOCS.read_text("utf-8")
    code = re.search(r"```python\n(.*?)```", text, re.DOTALL)
    assert code is not None
    namespace: dict[str, object] = {}
    exec(code.group(1), namespace)  # noqa: S102 - our own documentation
    recipe = namespace["content_hash"]
    assert callable(recipe)
    return recipe  # type: ignore[return-value]


def test_documented_recipe_matches_for_every_sample_item() -> None:
    recipe = documented_recipe()
    vault = load_vault(sample_vault_path())
    assert vault.files
    for loaded in vault.files:
        assert loaded.item is not None
        assert recipe(loaded.path) == content_hash(loaded.item), loaded.rel


def test_documented_recipe_normalises_like_the_library(tmp_path: Path) -> None:
    path = tmp_path / "item.yaml"
    path.write_bytes(
        'id: edge-2\r\nformat: numeric\r\nquestion: "Cafe\u0301 bytes?  "\r\n'
        "answer_value: 128.0\r\nanswer_unit: KiB\r\ntags: []\r\n".encode()
    )
    assert documented_recipe()(path) == content_hash(item(NUMERIC))


@given(st.text(max_size=200))
def test_content_hash_accepts_any_text(text: str) -> None:
    digest = content_hash({"id": "cloud-9", "question": text})
    assert len(digest) == 64 and int(digest, 16) >= 0


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


@given(details=_JSON_VALUES, value=st.floats() | st.integers())
def test_canonical_json_equals_the_documented_json_dumps(details: object, value: object) -> None:
    data = {"id": "cloud-1", "details": details, "answer_value": value}
    expected = json.dumps(
        canonical_content(data), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    assert canonical_json(data) == expected
