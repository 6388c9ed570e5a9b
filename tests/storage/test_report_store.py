"""The problem report store on SQLite, and on PostgreSQL when SYSDRILL_TEST_POSTGRES_URL is set."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from sysdrill.storage.report_store import ReportRow, ReportStore

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def _row(item_id: str, at: datetime, message: str = "teh", user: str = "local") -> ReportRow:
    return ReportRow(item_id=item_id, kind="typo", message=message, user_name=user, reported_at=at)


def test_reports_are_listed_newest_first_and_the_later_stored_first_at_one_time(
    sql_url: str,
) -> None:
    with ReportStore(sql_url) as store:
        assert store.list_reports() == []
        store.add_report(_row("cloud-0101", NOW))
        store.add_report(_row("cloud-0102", NOW + timedelta(minutes=5)))
        store.add_report(_row("cloud-0103", NOW))
        listed = store.list_reports()
    assert [r.item_id for r in listed] == ["cloud-0102", "cloud-0103", "cloud-0101"]


def test_a_report_reads_back_as_written_with_its_time_in_utc(sql_url: str) -> None:
    message = 'κ ≈ 7e9 × 16 B — "112 GB"?\n' + "x" * 4000
    sent_from_paris = NOW.astimezone(timezone(timedelta(hours=1)))
    with ReportStore(sql_url) as store:
        store.add_report(_row("edge-0101", sent_from_paris, message=message, user="dana"))
        (found,) = store.list_reports()
    assert found == _row("edge-0101", NOW, message=message, user="dana")
    assert found.reported_at.utcoffset() == timedelta(0)


def test_a_report_one_store_writes_is_listed_by_another(sql_url: str) -> None:
    with ReportStore(sql_url) as writer, ReportStore(sql_url) as reader:
        writer.add_report(_row("cloud-0101", NOW))
        assert [r.item_id for r in reader.list_reports()] == ["cloud-0101"]
