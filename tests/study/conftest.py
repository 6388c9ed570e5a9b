"""Helpers for study tests: items built in code and a service over the in-memory store."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from sysdrill.content.models import Item
from sysdrill.storage.memory import MemoryStudyStore
from sysdrill.study.service import StudyService
from sysdrill.study.user_state import VaultId

T0 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def _make_item(item_id: str, **fields: Any) -> Item:
    return Item.model_validate({"id": item_id, **fields})


@pytest.fixture
def make_item() -> Any:
    """Build an item with only the fields a test cares about: ``make_item("id", track=...)``."""
    return _make_item


@pytest.fixture
def study() -> StudyService:
    """A study service over a fresh in-memory store, fuzz off for exact intervals."""
    service = StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=T0)
    service.update_settings(fuzz=False)
    return service
