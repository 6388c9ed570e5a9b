"""The vault identity rule: bundled names, a declared id, else the folder."""

from __future__ import annotations

import shutil

import pytest

from sysdrill.content.sample import sample_vault_path, starter_vault_path
from sysdrill.content.vault_identity import (
    VAULT_FILE,
    new_vault_id,
    path_vault_id,
    read_vault_identity,
    vault_file_text,
)
from sysdrill.errors import ContentInvalid


def test_bundled_vaults_have_fixed_names():
    assert read_vault_identity(starter_vault_path()).vault_id == "starter"
    assert read_vault_identity(sample_vault_path()).vault_id == "sample"
    assert read_vault_identity(starter_vault_path()).path_id == "starter"


def test_a_declared_id_survives_a_move_of_the_folder(tmp_path):
    first = tmp_path / "here"
    first.mkdir()
    (first / VAULT_FILE).write_text(vault_file_text("my-vault-1a2b3c"), encoding="utf-8")
    moved = tmp_path / "elsewhere" / "renamed"
    moved.parent.mkdir()
    shutil.move(first, moved)
    identity = read_vault_identity(moved)
    assert (identity.vault_id, identity.declared) == ("my-vault-1a2b3c", True)
    assert identity.path_id == path_vault_id(moved)


def test_a_vault_without_an_id_is_known_by_its_folder(tmp_path):
    one, two = tmp_path / "one" / "vault", tmp_path / "two" / "vault"
    one.mkdir(parents=True)
    two.mkdir(parents=True)
    assert read_vault_identity(one).vault_id == path_vault_id(one)
    assert read_vault_identity(one).vault_id != read_vault_identity(two).vault_id
    assert not read_vault_identity(one).declared
    assert path_vault_id(one).startswith("path:")


def test_a_copy_of_a_bundled_vault_is_not_the_bundled_vault(tmp_path):
    copy = tmp_path / "starter"
    shutil.copytree(sample_vault_path(), copy)
    assert read_vault_identity(copy).vault_id == path_vault_id(copy)


def test_vault_file_without_id_falls_back_to_the_folder(tmp_path):
    (tmp_path / VAULT_FILE).write_text("# nothing yet\n", encoding="utf-8")
    assert read_vault_identity(tmp_path).vault_id == path_vault_id(tmp_path)


@pytest.mark.parametrize("text", ["id: (legacy)\n", "id: 12 34\n", "id: 7\n", "id: -x\n"])
def test_an_invalid_id_names_the_file_and_the_form(tmp_path, text):
    (tmp_path / VAULT_FILE).write_text(text, encoding="utf-8")
    with pytest.raises(ContentInvalid, match=r"vault\.yaml: id .* is not a vault id\. Use 1-100"):
        read_vault_identity(tmp_path)


def test_unparsable_vault_file_is_content_invalid(tmp_path):
    (tmp_path / VAULT_FILE).write_text("id: [unclosed\n", encoding="utf-8")
    with pytest.raises(ContentInvalid, match="not valid YAML. Write it as `id: my-vault`"):
        read_vault_identity(tmp_path)


def test_new_ids_are_made_of_the_folder_name_and_the_token():
    assert new_vault_id("My Vault!", "a1b2c3") == "my-vault-a1b2c3"
    assert new_vault_id("???", "a1b2c3") == "vault-a1b2c3"
