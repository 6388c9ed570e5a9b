"""Progress, workload and settings use cases."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sysdrill.app.progress import (
    get_settings,
    progress,
    progress_summary,
    set_setting,
    workload,
)
from sysdrill.app.study_vault import open_study_vault
from sysdrill.content.sample import sample_vault_path
from sysdrill.errors import SchedulingError
from sysdrill.storage.memory import MemoryStudyStore
from sysdrill.study.ratings import GradedBy, Rating
from sysdrill.study.service import StudyService
from sysdrill.study.user_state import VaultId

T0 = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)


@pytest.fixture
def study() -> StudyService:
    return StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=T0)


def test_progress_counts_the_items_seen_in_the_vault(study):
    vault = open_study_vault(sample_vault_path())
    study.record_review("cloud-0101", rating=Rating.GOOD, graded_by=GradedBy.SELF, now=T0)
    report = progress(study, vault, now=T0)
    assert (report.items_total, report.items_seen, report.reviews_total) == (12, 1, 1)


def test_progress_summary_counts_what_the_dashboard_shows(study):
    vault = open_study_vault(sample_vault_path())
    study.record_review("cloud-0101", rating=Rating.GOOD, graded_by=GradedBy.SELF, now=T0)
    summary = progress_summary(study, vault, now=T0)
    assert (summary.items_total, summary.items_seen, summary.reviews_total) == (12, 1, 1)
    assert (summary.streak_days, summary.items_mastered) == (1, 0)
    assert sum(day.count for day in summary.forecast) == 1


def test_settings_are_listed_in_order_and_set_as_typed(study):
    shown = get_settings(study)
    assert shown.settings[0].key == "desired_retention"
    assert shown.values()["desired_retention"] == 0.9
    changed = set_setting(study, "learning_steps_minutes", "1,10", now=T0)
    assert (changed.value, changed.shown) == ([1.0, 10.0], "1,10")
    assert get_settings(study).to_dict()["settings"][0] == {
        "key": "desired_retention",
        "value": 0.9,
        "meaning": shown.settings[0].meaning,
    }


def test_a_deadline_set_for_today_or_before_comes_with_a_note(study):
    today = T0.date().isoformat()
    assert set_setting(study, "deadline", today, now=T0).note == (
        f"The deadline {today} is today: no days are left to plan. Set the next one with "
        "`sysdrill settings set deadline YYYY-MM-DD`, or turn deadline mode off with "
        "`sysdrill settings set deadline none`."
    )
    assert set_setting(study, "deadline", "2026-12-24", now=T0).note is None


def test_workload_lists_each_day_until_the_deadline(study):
    set_setting(study, "deadline", "2026-11-24", now=T0)
    days = workload(study, open_study_vault(), now=T0)
    assert [d.day for d in days][0] == "2026-11-21"
    assert days[0].to_dict()["new_items"] >= 1
    set_setting(study, "deadline", "none", now=T0)
    with pytest.raises(SchedulingError):
        workload(study, open_study_vault(), now=T0)
