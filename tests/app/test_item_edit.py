"""Editing an item's text: only the edited values change, and check guards the file."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sysdrill.app.item_edit import (
    editable_item,
    save_item_fields,
    save_item_text,
    with_fields,
)
from sysdrill.app.study_vault import StudyVault, open_study_vault
from sysdrill.content.sample import sample_vault_path
from sysdrill.errors import ContentInvalid, QuestionNotFound, UsageError

ITEM_TEXT = """\
id: fc-9
format: flashcard
question: What does data parallelism replicate?  # the front
details:
  realistic_solution: The whole model on every rank.
status: published
# sysdrill: ignore[some-rule]
tags:
- data-parallel
"""


def test_setting_a_field_keeps_every_other_line_and_comment():
    edited = with_fields(ITEM_TEXT, {"realistic_solution": "The model,\non every rank."})
    assert edited == ITEM_TEXT.replace(
        "  realistic_solution: The whole model on every rank.\n",
        "  realistic_solution: |-\n    The model,\n    on every rank.\n",
    )


def test_a_field_the_file_lacks_is_added_in_its_place():
    edited = with_fields(ITEM_TEXT, {"common_mistake": "Sharding.", "title": "Replicas"})
    assert (
        "  realistic_solution: The whole model on every rank.\n  common_mistake: Sharding.\n"
        in (edited)
    )
    assert edited.endswith("- data-parallel\ntitle: Replicas\n")
    assert with_fields("id: x\n", {"napkin_math": "1 + 1 = 2"}) == (
        "id: x\ndetails:\n  napkin_math: 1 + 1 = 2\n"
    )


def test_a_blank_value_for_a_missing_field_adds_nothing_and_unknown_fields_are_refused():
    assert with_fields(ITEM_TEXT, {"scenario": ""}) == ITEM_TEXT
    with pytest.raises(UsageError, match="Cannot edit status; the editable fields are title"):
        with_fields(ITEM_TEXT, {"status": "draft"})


@pytest.fixture
def own(tmp_path: Path) -> StudyVault:
    copy = tmp_path / "vault"
    shutil.copytree(sample_vault_path(), copy)
    return open_study_vault(copy, cache_dir=tmp_path / "cache")


def test_a_clean_edit_is_written_and_read_back(own: StudyVault):
    saved = save_item_fields(own, "cloud-0103", {"title": "ZeRO for 7B"})
    assert saved.changed and saved.message.startswith("Saved cloud-0103 (cloud-0103.yaml)")
    assert editable_item(own, "cloud-0103").fields["title"] == "ZeRO for 7B"
    assert not list(own.files["cloud-0103"].parent.glob(".*"))  # no temporary file left


def test_an_edit_bringing_an_error_leaves_the_file_untouched(own: StudyVault):
    path = own.files["cloud-0103"]
    before = path.read_bytes()
    text = before.decode().replace("= 26.25 GB.", "= 30 GB.")
    with pytest.raises(ContentInvalid, match="napkin-arithmetic") as refused:
        save_item_text(own, "cloud-0103", text)
    assert str(refused.value).startswith("Not saved: the edit brings in 1 error(s)")
    with pytest.raises(ContentInvalid, match="not valid YAML|yaml"):
        save_item_text(own, "cloud-0103", "id: cloud-0103\nquestion: [unclosed\n")
    with pytest.raises(ContentInvalid, match="changes the id to 'cloud-9999'"):
        save_item_text(own, "cloud-0103", before.decode().replace("cloud-0103", "cloud-9999"))
    assert path.read_bytes() == before


def test_the_bundled_vault_and_unknown_items_are_refused(tmp_path: Path):
    bundled = open_study_vault(sample_vault_path(), cache_dir=tmp_path / "cache")
    with pytest.raises(UsageError, match="never edited"):
        save_item_fields(bundled, "cloud-0103", {"title": "x"})
    with pytest.raises(QuestionNotFound):
        editable_item(bundled, "cloud-9999")
