"""A StaffML-layout vault (questions/<track>/, chains.json, taxonomy_data.yaml) end to end."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

import pytest


@pytest.fixture
def vault(staffml_vault_copy: Path) -> Path:
    root = staffml_vault_copy
    (root / "schema").mkdir()  # where StaffML keeps it
    (root / "taxonomy_data.yaml").rename(root / "schema" / "taxonomy_data.yaml")
    return root


def _rows(db: Path, sql: str) -> list[tuple[object, ...]]:
    with contextlib.closing(sqlite3.connect(db)) as connection:
        return connection.execute(sql).fetchall()


def test_build_stores_the_staffml_chains_and_prerequisite_edges(run_cli, vault, tmp_path):
    out = tmp_path / "vault.db"
    result = run_cli("build", str(vault), "--out", str(out))
    assert result.exit_code == 0, result.stderr
    assert _rows(out, "SELECT id, topic FROM chains ORDER BY id") == [
        ("cloud-chain-kv-01", "kv-cache-management"),
        ("edge-chain-roofline-01", "roofline-analysis"),
    ]
    assert _rows(out, "SELECT chain_id, position, item_id FROM chain_items ORDER BY 1, 2") == [
        ("cloud-chain-kv-01", 0, "cloud-0201"),
        ("cloud-chain-kv-01", 1, "cloud-0202"),
        ("cloud-chain-kv-01", 2, "cloud-0203"),
        ("edge-chain-roofline-01", 0, "edge-0301"),
        ("edge-chain-roofline-01", 1, "edge-0302"),
    ]
    assert _rows(out, "SELECT topic, prerequisite FROM topic_prerequisites ORDER BY 1") == [
        ("data-parallelism", "collective-communication"),
        ("kv-cache-management", "vram-budgeting"),
    ]
    assert _rows(out, "SELECT count(*) FROM topics") == [(5,)]


def test_build_picks_up_an_edited_chains_json(run_cli, vault, tmp_path):
    out = tmp_path / "vault.db"
    assert run_cli("build", str(vault), "--out", str(out)).exit_code == 0
    chains = vault / "chains.json"
    chains.write_text(
        chains.read_text("utf-8").replace("edge-chain-roofline-01", "edge-r1"), "utf-8"
    )
    result = run_cli("build", str(vault), "--out", str(out))
    assert result.exit_code == 0, result.stderr
    assert _rows(out, "SELECT id FROM chains ORDER BY id") == [("cloud-chain-kv-01",), ("edge-r1",)]


def test_chain_command_walks_a_chains_json_chain_in_order(run_cli, vault):
    result = run_cli("chain", "edge-chain-roofline-01", "--vault", str(vault), input="skip\nskip\n")
    assert result.exit_code == 0, result.stderr
    assert "Chain: edge-chain-roofline-01 (2 items)" in result.stdout
    first = result.stdout.index("[1/2] Ridge Point of an Edge Accelerator")
    second = result.stdout.index("[2/2] Is a Depthwise Layer Memory-Bound on the Edge Module")
    assert first < second


def test_unknown_chain_lists_the_chains_json_chains(run_cli, vault):
    result = run_cli("chain", "nope", "--vault", str(vault))
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: No chain with id 'nope'. Known chains: cloud-chain-kv-01, edge-chain-roofline-01.\n"
    )


@pytest.mark.parametrize(
    ("cwd", "argument"),
    [
        ("staffml", "."),
        ("staffml", "./"),
        ("staffml/questions/edge", "../.."),
        ("", "staffml"),
        ("", "./staffml/"),
    ],
)
def test_check_reports_vault_relative_paths_from_any_relative_argument(
    run_cli, vault, monkeypatch, cwd, argument
):
    _break(vault)
    monkeypatch.chdir(vault.parent / cwd)
    result = run_cli("check", argument)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[:2] == [
        "chains.json:54:9: ERROR chain-ref-exists chain 'edge-chain-roofline-01' lists unknown "
        "item 'edge-0399' (fix: correct the id or remove it from the chain)",
        "questions/edge/edge-0302.yaml:4:1: ERROR schema level: Input should be 'L1', 'L2', "
        "'L3', 'L4', 'L5' or 'L6+' (fix: see docs/vault-format.md for the field's allowed values)",
    ]


def _break(vault: Path) -> None:
    chains = vault / "chains.json"
    chains.write_text(chains.read_text("utf-8").replace('"edge-0302"', '"edge-0399"'), "utf-8")
    item = vault / "questions" / "edge" / "edge-0302.yaml"
    item.write_text(item.read_text("utf-8").replace("level: L3", "level: L9"), "utf-8")
