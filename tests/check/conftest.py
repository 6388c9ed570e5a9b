"""Fixtures for check tests: a valid vault to copy, and a way to plant defects in it."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from sysdrill.check import run_check
from sysdrill.content.diagnostics import Finding

FIXTURES = Path(__file__).resolve().parent / "fixtures"
VALID_ITEM = "questions/cloud/cloud-0001.yaml"


@dataclass
class PlantedVault:
    """A writable copy of fixtures/valid with helpers to change it and check it."""

    root: Path

    @property
    def base_text(self) -> str:
        return (FIXTURES / "valid" / VALID_ITEM).read_text("utf-8")

    def write(self, rel: str, text: str | bytes) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, "utf-8")
        return path

    def replace_line(self, number: int, new: str, rel: str = VALID_ITEM) -> None:
        """Replace line ``number`` (1-based) of the valid item; ``new`` may hold several lines."""
        lines = self.base_text.splitlines()
        lines[number - 1 : number] = new.splitlines() if new else []
        self.write(rel, "\n".join(lines) + "\n")

    def edit(self, old: str, new: str, rel: str = VALID_ITEM) -> None:
        text = (self.root / rel).read_text("utf-8")
        assert old in text, old
        self.write(rel, text.replace(old, new, 1))

    def check(self) -> list[Finding]:
        return run_check(self.root, workers=1).findings

    def lines_of(self, code: str) -> list[tuple[str, int]]:
        return [(f.path, f.line) for f in self.check() if f.code == code]


@pytest.fixture
def planted(tmp_path: Path) -> PlantedVault:
    """A fresh copy of the valid fixture vault."""
    root = tmp_path / "vault"
    shutil.copytree(FIXTURES / "valid", root)
    return PlantedVault(root)


Git = Callable[..., None]


@pytest.fixture
def git() -> Git:
    """Run ``git ARGS`` in a folder with a fixed identity and no user or system config."""
    env = {
        **os.environ,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }

    def run(cwd: Path, *args: str) -> None:
        subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)

    return run
