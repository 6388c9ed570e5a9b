"""Study state belongs to a vault: two vaults that share item ids, through the commands."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml


def _init(run_cli, path: Path) -> str:
    result = run_cli("init", str(path))
    assert result.exit_code == 0, result.stderr
    return str(yaml.safe_load((path / "vault.yaml").read_text(encoding="utf-8"))["id"])


def _progress(run_cli, vault: Path) -> dict:
    result = run_cli("progress", "--json", "--vault", str(vault))
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    data.pop("generated_at")
    return data


def _study_first_item(run_cli, vault: Path) -> None:
    result = run_cli("practice", "--vault", str(vault), "--limit", "1", input="all-reduce\n4\nn\n")
    assert result.exit_code == 0, result.stderr
    assert "Recorded: Easy" in result.stdout


def test_init_writes_a_vault_id_named_after_the_folder(run_cli, tmp_path):
    vault_id = _init(run_cli, tmp_path / "My Vault")
    assert vault_id.startswith("my-vault-") and len(vault_id) == len("my-vault-") + 6
    assert run_cli("check", str(tmp_path / "My Vault")).exit_code == 0


def test_studying_one_vault_leaves_another_with_the_same_item_ids_unchanged(run_cli, tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    _init(run_cli, first)
    _init(run_cli, second)
    before = _progress(run_cli, second)
    _study_first_item(run_cli, first)
    assert _progress(run_cli, second) == before
    assert (before["items_seen"], before["reviews_total"]) == (0, 0)
    studied = _progress(run_cli, first)
    assert (studied["items_seen"], studied["reviews_total"]) == (1, 1)
    exported = json.loads(run_cli("state", "export", "-", "--vault", str(second)).stdout)
    assert (exported["cards"], exported["reviews"], exported["sessions"]) == ([], [], [])
    banner = run_cli("practice", "--vault", str(second), input="")
    assert banner.stdout.startswith("Practice: 2 items (0 due, 2 new;")


def test_a_vault_with_an_id_keeps_its_state_when_moved(run_cli, tmp_path):
    vault = tmp_path / "vault"
    _init(run_cli, vault)
    _study_first_item(run_cli, vault)
    moved = tmp_path / "elsewhere" / "renamed"
    moved.parent.mkdir()
    shutil.move(vault, moved)
    assert _progress(run_cli, moved)["reviews_total"] == 1


def test_a_vault_that_declares_an_id_later_keeps_the_state_of_its_folder(run_cli, tmp_path):
    vault = tmp_path / "vault"
    _init(run_cli, vault)
    (vault / "vault.yaml").unlink()
    _study_first_item(run_cli, vault)
    (vault / "vault.yaml").write_text("id: named-later\n", encoding="utf-8")
    assert _progress(run_cli, vault)["reviews_total"] == 1
    exported = json.loads(run_cli("state", "export", "-", "--vault", str(vault)).stdout)
    assert (exported["vault"], len(exported["reviews"])) == ("named-later", 1)


def test_state_import_of_another_vaults_file_is_refused_then_accepted_with_into_vault(
    run_cli, tmp_path
):
    first, second = tmp_path / "first", tmp_path / "second"
    first_id, second_id = _init(run_cli, first), _init(run_cli, second)
    _study_first_item(run_cli, first)
    state = tmp_path / "state.json"
    assert run_cli("state", "export", str(state), "--vault", str(first)).exit_code == 0
    refused = run_cli("state", "import", str(state), "--vault", str(second))
    assert refused.exit_code == 1
    assert refused.stderr == (
        f"Error: The file holds the study state of vault '{first_id}', not of the vault "
        f"opened ('{second_id}'). Open that vault with --vault, or add --into-vault to load "
        "the state into this one.\n"
    )
    assert _progress(run_cli, second)["reviews_total"] == 0
    taken = run_cli("state", "import", str(state), "--vault", str(second), "--into-vault")
    assert taken.exit_code == 0, taken.stderr
    assert taken.stdout == f"Imported 1 reviews from {state} into vault {second_id}.\n"
    assert _progress(run_cli, second)["reviews_total"] == 1


def test_an_export_from_before_vault_keys_imports_into_the_vault_named(run_cli, tmp_path):
    vault = tmp_path / "vault"
    _init(run_cli, vault)
    _study_first_item(run_cli, vault)
    data = json.loads(run_cli("state", "export", "-", "--vault", str(vault)).stdout)
    del data["vault"]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(data), encoding="utf-8")
    other = tmp_path / "other"
    _init(run_cli, other)
    result = run_cli("state", "import", str(old), "--vault", str(other))
    assert result.exit_code == 0, result.stderr
    assert _progress(run_cli, other)["reviews_total"] == 1


def test_an_invalid_vault_id_is_one_error_line(run_cli, tmp_path):
    vault = tmp_path / "vault"
    _init(run_cli, vault)
    (vault / "vault.yaml").write_text("id: not valid\n", encoding="utf-8")
    result = run_cli("progress", "--vault", str(vault))
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: {vault / 'vault.yaml'}: id 'not valid' is not a vault id. Use 1-100 letters, "
        "digits, '.', '_' or '-', starting with a letter or digit (e.g. `id: my-vault`).\n"
    )


def test_a_plan_is_followed_and_stopped_in_the_vault_it_was_started_in(run_cli, tmp_path):
    from sysdrill.content.sample import starter_vault_path

    copy = tmp_path / "copy"
    shutil.copytree(starter_vault_path(), copy)
    started = run_cli("plan", "start", "refresher-1w", "--vault", str(copy))
    assert started.exit_code == 0, started.stderr
    assert run_cli("plan", "show", "--json").stdout == "null\n"
    elsewhere = run_cli("plan", "stop")
    assert elsewhere.exit_code == 1
    assert elsewhere.stderr == (
        "Error: No plan is active. Start one with `sysdrill plan start NAME`.\n"
    )
    stopped = run_cli("plan", "stop", "--vault", str(copy))
    assert stopped.stdout == "Stopped plan refresher-1w.\n"


def test_history_from_before_the_upgrade_is_found_by_the_vault_it_was_studied_in(run_cli, tmp_path):
    from tests.storage.test_vault_keyed_migration import database_before_vault_keys

    from sysdrill.content.loader import load_vault
    from sysdrill.content.sample import starter_vault_path

    starter_ids = tuple(item.id for item in load_vault(starter_vault_path()).items[:3])
    (tmp_path / "userdata").mkdir()
    database_before_vault_keys(f"sqlite:///{tmp_path / 'userdata' / 'study.sqlite3'}", starter_ids)
    other = tmp_path / "other"
    _init(run_cli, other)
    assert _progress(run_cli, other)["reviews_total"] == 0
    studied = _progress(run_cli, starter_vault_path())
    assert (studied["items_seen"], studied["reviews_total"]) == (3, 3)
    assert _progress(run_cli, other)["reviews_total"] == 0
