"""The session test vault and an in-memory learner, shared by the session use-case tests.

Test files that need another vault or clock define their own ``vault`` and ``study``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from sysdrill.app.study_vault import StudyVault
from sysdrill.content.loader import load_vault
from sysdrill.storage.memory import MemoryStudyStore
from sysdrill.study.service import StudyService
from sysdrill.study.user_state import VaultId

SESSIONS_VAULT = Path(__file__).resolve().parents[1] / "study" / "sessions" / "vault"
START = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)
"""When the learner of the ``study`` fixture starts (tests name it T0)."""


@pytest.fixture(scope="module")
def vault() -> StudyVault:
    return StudyVault.of(load_vault(SESSIONS_VAULT))


@pytest.fixture
def study() -> StudyService:
    return StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=START)


@pytest.fixture
def personal_db_url(tmp_path: Path) -> str:
    """A migrated SQLite study database (the personal deck tests)."""
    from sysdrill.storage.engine import upgrade_database

    url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    upgrade_database(url)
    return url


@pytest.fixture
def sample_shared(tmp_path: Path) -> StudyVault:
    """The bundled sample vault, as the shared vault of a multi-user server."""
    from sysdrill.app.study_vault import open_study_vault
    from sysdrill.content.sample import sample_vault_path

    return open_study_vault(sample_vault_path(), cache_dir=tmp_path / "cache")
