"""Several settings stored at once through one use case: all or none, past deadlines refused."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sysdrill.app.progress import set_setting, set_settings
from sysdrill.errors import SchedulingError

NOW = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)


def test_settings_sent_together_are_stored_together(study):
    changed = set_settings(study, {"desired_retention": "0.85", "deadline": "2026-12-01"}, now=NOW)
    assert changed == ["desired_retention", "deadline"]
    assert study.settings.desired_retention == pytest.approx(0.85)
    assert str(study.settings.deadline) == "2026-12-01"
    assert set_settings(study, {"desired_retention": "0.85"}, now=NOW) == []


def test_a_past_deadline_among_several_settings_stores_none_of_them(study):
    before = study.settings.desired_retention
    with pytest.raises(SchedulingError, match="The interview date 2026-11-20 has passed"):
        set_settings(study, {"desired_retention": "0.8", "deadline": "2026-11-20"}, now=NOW)
    assert study.settings.desired_retention == before and study.settings.deadline is None


def test_one_setting_goes_through_the_same_check(study):
    with pytest.raises(SchedulingError, match="has passed"):
        set_setting(study, "deadline", "2026-01-01", now=NOW)
    assert set_setting(study, "deadline", "2026-11-21", now=NOW).note is not None
