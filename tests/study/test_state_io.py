from __future__ import annotations

import copy
import json
from datetime import UTC, datetime, timedelta

import pytest

from sysdrill.errors import ImportFailed
from sysdrill.storage.memory import MemoryStudyStore
from sysdrill.study.service import GradedBy, Rating, StudyService
from sysdrill.study.user_state import VaultId

T0 = datetime(2026, 11, 2, 9, 0, 0, 250000, tzinfo=UTC)


def _busy_study() -> StudyService:
    study = StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=T0)
    study.update_settings(desired_retention=0.87, fuzz=False)
    session = study.start_session("quiz", now=T0, meta={"deck": "gpu"})
    study.record_review(
        "a",
        rating=Rating.GOOD,
        graded_by=GradedBy.MULTIPLE_CHOICE,
        answer="b",
        duration_ms=1234,
        now=T0,
        session_id=session,
    )
    study.finish_session(session, now=T0 + timedelta(minutes=1), summary={"score": 1})
    study.record_review("b", rating=Rating.EASY, graded_by=GradedBy.SELF, now=T0)
    study.record_review(
        "a", rating=Rating.AGAIN, graded_by=GradedBy.SELF, now=T0 + timedelta(minutes=11)
    )
    return study


def test_export_then_import_round_trips_losslessly():
    source = _busy_study()
    exported = json.loads(json.dumps(source.export_state(now=T0)))
    target = StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=T0)
    assert target.import_state(exported) == 3
    again = json.loads(json.dumps(target.export_state(now=T0)))
    assert again == exported
    assert target.settings.desired_retention == 0.87
    assert target.card_state("a") == source.card_state("a")


def test_round_trip_through_sqlite(tmp_path):
    from sysdrill.storage.sql_store import SqlStudyStore

    exported = _busy_study().export_state(now=T0)
    store = SqlStudyStore(f"sqlite:///{tmp_path / 's.db'}", migrate_schema=True)
    with StudyService(store, vault_id=VaultId("test"), now=T0) as study:
        study.import_state(exported)
        assert study.export_state(now=T0) == exported


def test_export_document_shape():
    data = _busy_study().export_state(now=T0)
    assert (data["format"], data["version"], data["user"]) == ("sysdrill-study-state", 1, "local")
    assert [r["session"] for r in data["reviews"]] == [0, None, None]
    assert [c["state"] for c in data["cards"]] == ["learning", "review"]


def test_import_refuses_to_overwrite_without_replace():
    exported = _busy_study().export_state(now=T0)
    target = _busy_study()
    with pytest.raises(ImportFailed, match="already has study state. Use --replace"):
        target.import_state(exported)
    assert target.import_state(exported, replace=True) == 3


def test_import_of_a_foreign_document_names_the_staffml_option():
    with pytest.raises(ImportFailed, match="use --from staffml"):
        StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=T0).import_state(
            {"attempts": []}
        )


def test_invalid_document_reports_paths_and_writes_nothing():
    data = _busy_study().export_state(now=T0)
    broken = copy.deepcopy(data)
    broken["reviews"][1]["rating"] = 7
    broken["cards"][0]["due"] = "yesterday"
    target = StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=T0)
    with pytest.raises(ImportFailed) as caught:
        target.import_state(broken)
    assert "cards.0.due" in str(caught.value)
    assert "reviews.1.rating" in str(caught.value)
    assert target.export_state(now=T0)["reviews"] == []


def test_review_pointing_at_a_missing_session_is_rejected():
    data = _busy_study().export_state(now=T0)
    data["reviews"][0]["session"] = 5
    with pytest.raises(ImportFailed, match="reviews.0.session: no session 5"):
        StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=T0).import_state(data)


def test_invalid_settings_in_document_are_rejected():
    data = _busy_study().export_state(now=T0)
    data["settings"]["desired_retention"] = 1.5
    with pytest.raises(ImportFailed, match="desired_retention must be between"):
        StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=T0).import_state(data)


def test_timestamps_without_offset_are_rejected():
    data = _busy_study().export_state(now=T0)
    data["reviews"][0]["reviewed_at"] = "2026-11-02T09:00:00"
    with pytest.raises(ImportFailed, match="reviews.0.reviewed_at: Value error, datetime needs"):
        StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=T0).import_state(data)


def test_timestamps_with_other_offsets_are_converted_to_utc():
    data = _busy_study().export_state(now=T0)
    data["reviews"][1]["reviewed_at"] = "2026-11-02T11:00:00.250000+02:00"
    study = StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=T0)
    study.import_state(data)
    assert list(study.store.iter_reviews(study.scope))[1].reviewed_at == T0


def test_two_cards_for_one_item_are_rejected():
    data = _busy_study().export_state(now=T0)
    data["cards"].append(dict(data["cards"][0]))
    with pytest.raises(ImportFailed, match="two cards for item 'a'"):
        StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=T0).import_state(data)


def test_export_names_the_vault_it_was_studied_in():
    assert _busy_study().export_state(now=T0)["vault"] == "test"


def test_import_of_another_vaults_state_is_refused_with_the_fix():
    exported = _busy_study().export_state(now=T0)
    target = StudyService(MemoryStudyStore(), vault_id=VaultId("mine"), now=T0)
    with pytest.raises(ImportFailed) as raised:
        target.import_state(exported)
    assert str(raised.value) == (
        "The file holds the study state of vault 'test', not of the vault opened ('mine'). "
        "Open that vault with --vault, or add --into-vault to load the state into this one."
    )
    assert list(target.store.iter_reviews(target.scope)) == []


def test_into_vault_loads_another_vaults_state_and_exports_it_as_this_vault():
    exported = _busy_study().export_state(now=T0)
    target = StudyService(MemoryStudyStore(), vault_id=VaultId("mine"), now=T0)
    assert target.import_state(exported, into_vault=True) == 3
    again = target.export_state(now=T0)
    assert again["vault"] == "mine"
    assert {**again, "vault": "test"} == exported


def test_an_export_without_a_vault_is_read_as_legacy_and_loads_into_any_vault():
    exported = _busy_study().export_state(now=T0)
    del exported["vault"]
    target = StudyService(MemoryStudyStore(), vault_id=VaultId("mine"), now=T0)
    assert target.import_state(exported) == 3
    assert target.card_state("a").reps == 2
