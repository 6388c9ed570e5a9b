from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sysdrill.app.study import default_database_url, open_study
from sysdrill.errors import SchedulingError
from sysdrill.study.service import GradedBy, Rating

T0 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def test_open_study_uses_data_dir_by_default(tmp_path, monkeypatch):
    monkeypatch.delenv("SYSDRILL_DATABASE_URL", raising=False)
    monkeypatch.setenv("SYSDRILL_DATA_DIR", str(tmp_path / "data"))
    assert default_database_url() == f"sqlite:///{tmp_path / 'data' / 'study.sqlite3'}"
    with open_study(vault=None, upgrade=True) as study:
        study.record_review("q", rating=Rating.GOOD, graded_by=GradedBy.SELF, now=T0)
    assert (tmp_path / "data" / "study.sqlite3").is_file()


def test_database_url_variable_wins_over_data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("SYSDRILL_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("SYSDRILL_DATABASE_URL", f"sqlite:///{tmp_path / 'x.db'}")
    assert default_database_url() == f"sqlite:///{tmp_path / 'x.db'}"


def test_open_study_closes_the_store_when_the_user_cannot_be_opened(tmp_path, monkeypatch):
    # The user is looked up on first use; opening a loaded vault uses it at once
    # (its earlier state is claimed), so a failure there must not leak the store.
    from sysdrill.app.study_vault import open_study_vault
    from sysdrill.storage import sql_store

    vault = open_study_vault(cache_dir=tmp_path / "cache")

    closed = []
    original = sql_store.SqlStudyStore.close

    def recording_close(self):
        closed.append(True)
        original(self)

    def failing_ensure_user(self, name, *, now):
        raise SchedulingError("boom")

    monkeypatch.setattr(sql_store.SqlStudyStore, "close", recording_close)
    monkeypatch.setattr(sql_store.SqlStudyStore, "ensure_user", failing_ensure_user)
    with pytest.raises(SchedulingError, match="boom"):
        open_study(f"sqlite:///{tmp_path / 'x.db'}", vault=vault, upgrade=True)
    assert closed == [True]


def test_open_study_refuses_a_database_behind_without_writing(tmp_path):
    from sysdrill.errors import MigrationError

    path = tmp_path / "new.db"
    with pytest.raises(MigrationError, match=r"run `sysdrill db upgrade`"):
        open_study(f"sqlite:///{path}", vault=None)
    with open_study(f"sqlite:///{path}", vault=None, upgrade=True) as study:
        assert list(study.store.iter_reviews(study.scope)) == []


def test_upgrade_study_database_reports_before_and_after(tmp_path):
    from sysdrill.app.study import upgrade_study_database
    from sysdrill.storage.engine import HEAD_REVISION

    url = f"sqlite:///{tmp_path / 'u.db'}"
    first = upgrade_study_database(url)
    again = upgrade_study_database(url)
    assert (first.before, first.after, first.changed) == (None, HEAD_REVISION, True)
    assert again.to_dict() == {
        "url": url,
        "before": HEAD_REVISION,
        "after": HEAD_REVISION,
    }


def test_cli_study_creates_any_sqlite_file_on_first_use(tmp_path, monkeypatch):
    from sysdrill.app.study import open_cli_study

    monkeypatch.delenv("SYSDRILL_DATABASE_URL", raising=False)
    monkeypatch.setenv("SYSDRILL_DATA_DIR", str(tmp_path / "data"))
    with open_cli_study(vault=None) as study:
        assert study.user == "local"
    with open_cli_study(f"sqlite:///{tmp_path / 'explicit.db'}", vault=None) as study:
        assert study.user == "local"
    monkeypatch.setenv("SYSDRILL_DATABASE_URL", f"sqlite:///{tmp_path / 'env.db'}")
    with open_cli_study(vault=None) as study:
        assert study.user == "local"
    assert (tmp_path / "explicit.db").is_file()
    assert (tmp_path / "env.db").is_file()


def _legacy_review(url: str, item_id: str) -> None:
    """A review kept before state was keyed by vault (what migration 0004 leaves)."""
    from sysdrill.storage.sql_store import SqlStudyStore
    from sysdrill.study.service import StudyService
    from sysdrill.study.user_state import LEGACY_VAULT_ID

    store = SqlStudyStore(url, migrate_schema=True)
    with StudyService(store, vault_id=LEGACY_VAULT_ID, now=T0) as legacy:
        legacy.record_review(item_id, rating=Rating.GOOD, graded_by=GradedBy.SELF, now=T0)


def test_legacy_state_goes_to_the_first_vault_opened_that_holds_its_items(tmp_path):
    import shutil

    from sysdrill.app.study_vault import open_study_vault
    from sysdrill.content.sample import sample_vault_path

    url = f"sqlite:///{tmp_path / 'study.db'}"
    _legacy_review(url, "cloud-0101")
    unrelated = tmp_path / "unrelated"
    (unrelated / "questions").mkdir(parents=True)
    with open_study(url, vault=open_study_vault(unrelated)) as study:
        assert study.card_state("cloud-0101").reps == 0
    copy = tmp_path / "copy"
    shutil.copytree(sample_vault_path(), copy)
    with open_study(url, vault=open_study_vault(copy)) as study:
        assert study.card_state("cloud-0101").reps == 1
    with open_study(url, vault=open_study_vault(sample_vault_path())) as study:
        assert study.card_state("cloud-0101").reps == 0


def test_legacy_state_is_not_merged_into_a_vault_with_state_of_its_own(tmp_path):
    from sysdrill.app.study_vault import open_study_vault
    from sysdrill.content.sample import sample_vault_path

    url = f"sqlite:///{tmp_path / 'study.db'}"
    with open_study(url, vault=open_study_vault(sample_vault_path()), upgrade=True) as study:
        study.record_review("cloud-0102", rating=Rating.EASY, graded_by=GradedBy.SELF, now=T0)
    _legacy_review(url, "cloud-0101")
    with open_study(url, vault=open_study_vault(sample_vault_path())) as study:
        assert study.card_state("cloud-0101").reps == 0
        assert study.card_state("cloud-0102").reps == 1
