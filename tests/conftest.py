"""Shared fixtures: run the CLI the way a user would, and fresh vault folders."""

from __future__ import annotations

import gc
import os
import shutil
import sys
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import settings
from typer.testing import CliRunner

from sysdrill.cli.app import main

# Tests never time: Hypothesis's default 200 ms deadline per example turns a busy
# CI host into failures, so no property test has one.
settings.register_profile("sysdrill", deadline=None)
settings.load_profile("sysdrill")

SEEDS_DIR = Path(__file__).resolve().parents[2] / "shared" / "seeds"
"""The shared seed documents (read at test time, never copied into the repo)."""


@dataclass(frozen=True)
class CliResult:
    """Outcome of one CLI run."""

    exit_code: int
    stdout: str
    stderr: str


RunCli = Callable[..., CliResult]


@pytest.fixture(autouse=True)
def _heap_left_collectable() -> Iterator[None]:
    """Unfreeze what a test froze out of garbage collection once it ends.

    A terminal command freezes what its start-up loaded (``kept_until_exit``), as
    its own process ends soon after; the test process goes on, and the next test
    expects the collector as a fresh process has it.
    """
    yield
    if gc.get_freeze_count():
        gc.unfreeze()


@pytest.fixture
def run_cli(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> RunCli:
    """Run ``sysdrill ARGS`` through the real entry point, capturing its output.

    The user's data and cache folders are redirected into the test's temporary folder.
    """
    monkeypatch.setenv("SYSDRILL_DATA_DIR", str(tmp_path / "userdata"))
    monkeypatch.setenv("SYSDRILL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("NO_COLOR", "1")

    def run(*args: str, input: str | bytes | None = None) -> CliResult:
        runner = CliRunner()
        with runner.isolation(input=input) as (out, err, _):
            code = main(list(args))
            sys.stdout.flush()
            sys.stderr.flush()
            stdout = out.getvalue().decode("utf-8", "replace")
            stderr = err.getvalue().decode("utf-8", "replace")
        return CliResult(code, stdout, stderr)

    return run


@pytest.fixture
def seeds_dir() -> Path:
    """The shared seeds folder; tests that need it are skipped where it is absent."""
    if not SEEDS_DIR.is_dir():
        pytest.skip("../shared/seeds is not beside this checkout")
    return SEEDS_DIR


@pytest.fixture
def sample_vault_copy(tmp_path: Path) -> Iterator[Path]:
    """A writable copy of the bundled sample vault."""
    from sysdrill.content.sample import sample_vault_path

    target = tmp_path / "vault"
    shutil.copytree(sample_vault_path(), target)
    yield target


STAFFML_VAULT = Path(__file__).resolve().parent / "data" / "staffml_vault"
"""A small vault in StaffML's layout (questions/<track>/, chains.json, taxonomy_data.yaml)."""


@pytest.fixture
def staffml_vault_copy(tmp_path: Path) -> Path:
    """A writable copy of the StaffML-layout test vault."""
    target = tmp_path / "staffml"
    shutil.copytree(STAFFML_VAULT, target)
    return target


POSTGRES_ENV = "SYSDRILL_TEST_POSTGRES_URL"


def postgres_base_url() -> str:
    """The PostgreSQL URL under test, or a skip (a failure with SYSDRILL_REQUIRE_POSTGRES=1)."""
    url = os.environ.get(POSTGRES_ENV)
    if not url:
        if os.environ.get("SYSDRILL_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"{POSTGRES_ENV} is unset but SYSDRILL_REQUIRE_POSTGRES=1")
        pytest.skip(f"{POSTGRES_ENV} is not set")
    return url


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A URL whose connections use a fresh schema, dropped after the test."""
    import sqlalchemy as sa

    base = postgres_base_url()
    schema = f"sysdrill_test_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(base)
    with admin.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    url = sa.make_url(base).update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def migrated_db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A migrated study database: SQLite, and PostgreSQL when SYSDRILL_TEST_POSTGRES_URL is set."""
    from sysdrill.storage.engine import upgrade_database

    url = (
        f"sqlite:///{tmp_path / 'study.sqlite3'}"
        if request.param == "sqlite"
        else str(request.getfixturevalue("postgres_url"))
    )
    upgrade_database(url)
    return url


def starter_plan_size(name: str) -> int:
    """How many items the starter vault's plan introduces, counted from the vault itself."""
    from sysdrill.content.loader import load_vault
    from sysdrill.content.plans import load_plans, load_prerequisites
    from sysdrill.content.sample import starter_vault_path
    from sysdrill.study.plans import order_plan_items

    root = starter_vault_path()
    vault = load_vault(root)
    (plan,) = (p for p in load_plans(root) if p.name == name)
    return len(order_plan_items(plan, vault.items, vault.decks, load_prerequisites(root)))
