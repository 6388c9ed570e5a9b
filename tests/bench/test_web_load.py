"""The load bench's verdict on lost reviews (bench/web_load.py): its matching must be exact."""

from __future__ import annotations

import importlib.util
import sys
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="module")
def web_load() -> ModuleType:
    sys.path.insert(0, str(BENCH))  # the bench scripts import each other by name
    try:
        spec = importlib.util.spec_from_file_location("web_load", BENCH / "web_load.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["web_load"] = module  # its dataclasses look their module up by name
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCH))


def _at(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def test_every_acknowledged_review_matched_to_its_own_stored_review(web_load: ModuleType) -> None:
    acknowledged = [("q1", 100.0, 100.2), ("q1", 101.0, 101.1), ("q2", 100.0, 100.5)]
    stored = [("q1", _at(100.1)), ("q1", _at(101.05)), ("q2", _at(100.3)), ("q3", _at(99.0))]
    assert web_load.unmatched(acknowledged, stored) == []


def test_a_stored_review_answers_for_one_acknowledgement_only(web_load: ModuleType) -> None:
    acknowledged = [("q1", 100.0, 100.2), ("q1", 100.1, 100.3)]
    stored = [("q1", _at(100.15))]
    assert web_load.unmatched(acknowledged, stored) == [("q1", 100.1, 100.3)]


def test_a_review_of_another_item_or_far_from_the_request_is_no_match(
    web_load: ModuleType,
) -> None:
    acknowledged = [("q1", 100.0, 100.2)]
    assert web_load.unmatched(acknowledged, [("q2", _at(100.1))]) == acknowledged
    assert web_load.unmatched(acknowledged, [("q1", _at(130.0))]) == acknowledged
