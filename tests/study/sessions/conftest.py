"""Fixtures of the session tests: the fixture vault, a fake clock, a list recorder."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from sysdrill.content.loader import Vault, load_vault
from sysdrill.study.sessions.state_machine import ItemResult

VAULT_DIR = Path(__file__).resolve().parent / "vault"
"""A small vault written for these tests: two tracks, L1 to L6+, most zones, a
chain (hbm-basics), a deck in decks.yaml (ch26-quiz) and one named only by
items (dp-cards)."""

START = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)


class FakeClock:
    """A clock that moves only when told to (``step`` on every reading, or ``advance``)."""

    def __init__(self, start: datetime = START, step: timedelta = timedelta(0)) -> None:
        self.now = start
        self.step = step

    def __call__(self) -> datetime:
        current = self.now
        self.now = self.now + self.step
        return current

    def advance(self, span: timedelta) -> None:
        self.now = self.now + span


class ListRecorder:
    """Keeps every recorded result with its time; the next due is a day later."""

    def __init__(self) -> None:
        self.recorded: list[tuple[ItemResult, datetime]] = []

    def record(self, result: ItemResult, *, now: datetime) -> datetime | None:
        self.recorded.append((result, now))
        return now + timedelta(days=1)


@pytest.fixture(scope="session")
def vault() -> Vault:
    loaded = load_vault(VAULT_DIR)
    assert not loaded.all_findings()
    return loaded


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def recorder() -> ListRecorder:
    return ListRecorder()
