"""docs/content.md counts come from the vault, and drafts stay drafts until reviewed."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

from sysdrill.content.enums import Provenance, ReviewStatus
from sysdrill.content.loader import Vault, load_vault
from sysdrill.content.sample import starter_vault_path

ROOT = Path(__file__).resolve().parents[2]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "content_counts", ROOT / "scripts" / "content_counts.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def script() -> ModuleType:
    return _script()


@pytest.fixture(scope="module")
def vault() -> Vault:
    return load_vault(starter_vault_path())


def test_docs_content_holds_the_counts_the_script_computes(script: ModuleType) -> None:
    assert script.main(["--check"]) == 0, "run: .venv/bin/python scripts/content_counts.py --write"


def test_generated_block_counts_every_item_once(script: ModuleType, vault: Vault) -> None:
    block = script.render(vault)
    first = block.splitlines()[0]
    assert first.startswith(f"{len(vault.items)} items over ")
    tables = block.split("\n\n")
    level_rows = re.findall(r"^\| L[1-6]\+? \| (\d+) \|$", tables[1], re.M)
    kind_rows = re.findall(r"^\| [a-z ]+ \| (\d+) \|$", tables[2], re.M)
    assert sum(map(int, level_rows)) == len(vault.items)
    assert sum(map(int, kind_rows)) == len(vault.items)
    assert len(kind_rows) == len(script.KINDS)


def test_a_stale_doc_is_reported_and_rewritten(
    script: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    doc = tmp_path / "content.md"
    doc.write_text(f"intro\n{script.START}\n| L1 | 1 |\n{script.END}\noutro\n", "utf-8")
    readme = tmp_path / "README.md"
    readme.write_text("the bundled starter vault (1 distributed-training questions).\n", "utf-8")
    monkeypatch.setattr(script, "DOC", doc)
    monkeypatch.setattr(script, "README", readme)
    assert script.main(["--check"]) == 1
    stderr = capsys.readouterr().err
    assert "content.md is stale" in stderr
    assert "README.md is stale" in stderr
    assert script.main(["--write"]) == 0
    written = doc.read_text("utf-8")
    assert written.startswith(f"intro\n{script.START}\n")
    assert written.endswith(f"{script.END}\noutro\n")
    total = len(script.load_vault(script.starter_vault_path()).items)
    assert f"({total} distributed-training questions)" in readme.read_text("utf-8")
    assert script.main(["--check"]) == 0


def test_a_doc_without_the_markers_is_refused(
    script: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = tmp_path / "content.md"
    doc.write_text("no markers here\n", "utf-8")
    monkeypatch.setattr(script, "DOC", doc)
    with pytest.raises(SystemExit, match="markers"):
        script.main(["--check"])


def test_llm_drafts_are_reviewed_only_with_a_reviewer_and_a_day(vault: Vault) -> None:
    signed_without_name = [
        item.id
        for item in vault.items
        if item.provenance is Provenance.LLM_DRAFT
        and item.human_reviewed is not None
        and item.human_reviewed.status is ReviewStatus.VERIFIED
        and not (item.human_reviewed.by and item.human_reviewed.date)
    ]
    assert signed_without_name == []
