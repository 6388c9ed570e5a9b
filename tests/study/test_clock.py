from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from sysdrill.errors import SchedulingError
from sysdrill.study.clock import day_start, require_utc, utc_day


def test_zoneinfo_utc_is_accepted_and_normalised():
    moment = datetime(2026, 11, 2, 23, 30, tzinfo=ZoneInfo("UTC"))
    assert require_utc(moment).tzinfo is UTC
    assert require_utc(moment) == moment


def test_other_offsets_are_rejected_naming_the_fix():
    with pytest.raises(SchedulingError, match=r"Convert it with .astimezone\(UTC\)"):
        require_utc(datetime(2026, 1, 1, tzinfo=timezone(timedelta(hours=-5))))


def test_naive_datetimes_are_rejected_with_the_argument_name():
    with pytest.raises(SchedulingError, match="reviewed_at must be a timezone-aware UTC"):
        require_utc(datetime(2026, 1, 1), name="reviewed_at")


def test_study_days_run_midnight_to_midnight_utc():
    assert utc_day(datetime(2026, 11, 2, 23, 59, tzinfo=UTC)) == date(2026, 11, 2)
    assert day_start(date(2026, 11, 2)) == datetime(2026, 11, 2, tzinfo=UTC)
