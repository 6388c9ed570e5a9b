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
