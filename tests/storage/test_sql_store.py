"""The SQL store: migrations, atomic writes, error messages, and durability under SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from sysdrill.errors import StorageConflict
from sysdrill.storage.sql_rows import card_row
from sysdrill.storage.sql_store import SqlStudyStore
from sysdrill.study.card_state import CardRecord, CardState
from sysdrill.study.review_log import ReviewRecord
from sysdrill.study.user_state import StudyScope, VaultId

STARTER = VaultId("starter")
"""The vault ``open_study(vault=None)`` (the writer below) keeps state under."""

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)


def _card(item_id: str) -> CardRecord:
    return CardRecord(item_id, CardState.REVIEW, None, 3.0, 5.0, T0, T0, 1, 0, False)


def _review(item_id: str, rating: int = 3) -> ReviewRecord:
    return ReviewRecord(item_id, rating, "self", None, 10, T0, CardState.NEW, None, True, {})


def test_failed_review_write_leaves_card_and_log_untouched(sql_url):
    store = SqlStudyStore(sql_url)
    user = StudyScope(store.ensure_user("local", now=T0), STARTER)
    store.record_review(user, _card("q"), _review("q"))
    changed = replace(_card("q"), stability_days=99.0)
    with pytest.raises(StorageConflict, match="recording a review of q"):
        store.record_review(user, changed, _review("q", rating=9))
    assert store.get_card(user, "q") == _card("q")
    assert len(list(store.iter_reviews(user))) == 1
    store.close()


_WRITER = textwrap.dedent(
    """
    import sys
    from datetime import UTC, datetime, timedelta
    from sysdrill.app.study import open_study
    from sysdrill.study.service import GradedBy, Rating

    study = open_study(sys.argv[1], vault=None)
    start = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
    for n in range(100000):
        outcome = study.record_review(
            f"item-{n % 500}", rating=Rating.GOOD, graded_by=GradedBy.SELF,
            answer=None, duration_ms=1000, now=start + timedelta(seconds=n),
        )
        print(outcome.review_id, flush=True)
    """
)


def test_killed_writer_loses_no_acknowledged_review(sql_url):
    acknowledged: list[int] = []
    with subprocess.Popen(
        [sys.executable, "-c", _WRITER, sql_url],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        try:
            for line in process.stdout:
                acknowledged.append(int(line))
                if len(acknowledged) >= 60:
                    break
        finally:
            os.kill(process.pid, signal.SIGKILL)
            process.wait()
        errors = process.stderr.read()
    assert len(acknowledged) >= 60, errors
    store = SqlStudyStore(sql_url)
    user = StudyScope(store.ensure_user("local", now=T0), STARTER)
    logged = {r.review_id for r in store.iter_reviews(user)}
    store.close()
    assert set(acknowledged) <= logged
    assert process.returncode == -signal.SIGKILL


def test_two_writers_on_one_sqlite_file_both_land_every_review(tmp_path):
    import threading

    url = f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    SqlStudyStore(url, migrate_schema=True).close()
    errors: list[BaseException] = []

    def writer(name: str) -> None:
        store = SqlStudyStore(url)
        try:
            user = StudyScope(store.ensure_user("local", now=T0), STARTER)
            for n in range(20):
                store.record_review(user, _card(f"{name}-{n}"), _review(f"{name}-{n}"))
        except BaseException as exc:  # collected for the assertion below
            errors.append(exc)
        finally:
            store.close()

    threads = [threading.Thread(target=writer, args=(name,)) for name in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    store = SqlStudyStore(url)
    count = len(list(store.iter_reviews(StudyScope(store.ensure_user("local", now=T0), STARTER))))
    store.close()
    assert errors == []
    assert count == 40


def _write_racing_another_worker(store, insert, row, write):
    """Run ``write`` while another connection holds ``row`` inserted, not yet committed.

    ``write`` then waits on the row's key until the other worker commits, and
    must cope with finding the row after all (PostgreSQL does not serialise
    the two inserts as SQLite's write lock does).
    """
    import threading

    import sqlalchemy as sa

    other = store.engine.connect()
    other_transaction = other.begin()
    other.execute(insert, row)
    outcome: list[object] = []
    writer = threading.Thread(target=lambda: outcome.append(write()))
    writer.start()
    waiting = sa.text("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
    # Autocommit: each poll is its own transaction, so it sees a fresh pg_stat_activity
    # (inside one transaction PostgreSQL keeps the first snapshot, and the loop spun).
    with store.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as watch:
        while watch.execute(waiting).scalar() == 0 and writer.is_alive():
            pass  # the writer now waits on the key for the other worker
    other_transaction.commit()
    other.close()
    writer.join()
    return outcome


@pytest.mark.postgres
def test_new_settings_stored_by_two_workers_at_once_keep_both_reviews(postgres_url):
    import hashlib
    import json

    from sysdrill.storage import schema as t

    store = SqlStudyStore(postgres_url, migrate_schema=True)
    user = StudyScope(store.ensure_user("local", now=T0), STARTER)
    settings = {"desired_retention": 0.85}
    text = json.dumps(settings, sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(text.encode()).hexdigest()
    review = replace(_review("q"), settings=settings)
    written = _write_racing_another_worker(
        store,
        t.scheduler_settings.insert(),
        {"digest": digest, "settings_json": text},
        lambda: store.record_review(user, _card("q"), review),
    )
    assert len(written) == 1
    [stored] = list(store.iter_reviews(user))
    assert stored.settings == settings
    store.close()


@pytest.mark.postgres
def test_a_card_first_written_by_two_workers_at_once_keeps_the_later_state(postgres_url):
    from sysdrill.storage import schema as t

    store = SqlStudyStore(postgres_url, migrate_schema=True)
    user = StudyScope(store.ensure_user("local", now=T0), STARTER)
    theirs = replace(_card("q"), stability_days=1.0)
    mine = replace(_card("q"), stability_days=7.0)
    written = _write_racing_another_worker(
        store,
        t.cards.insert(),
        card_row(user, theirs),
        lambda: store.record_review(user, mine, _review("q")),
    )
    assert len(written) == 1
    assert store.get_card(user, "q") == mine
    assert len(list(store.iter_reviews(user))) == 1
    store.close()
