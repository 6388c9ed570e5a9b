"""Every setting has bounds, checked when it is typed and when it is read back (issue 29).

A new_per_day of 99999999999999999999999 used to be stored, and then every page
that read it failed (a 500); a learning step of 1e23 minutes broke every later
start of the scheduler.
"""

from __future__ import annotations

import math

import pytest

from sysdrill.errors import SchedulingError
from sysdrill.study.settings import (
    MAX_DAILY_LIMIT,
    MAX_INTERVAL_DAYS,
    MAX_STEP_MINUTES,
    StudySettings,
    parse_setting,
)

HUGE = "99999999999999999999999"


@pytest.mark.parametrize(
    ("key", "text"),
    [
        ("new_per_day", HUGE),
        ("reviews_per_day", HUGE),
        ("maximum_interval_days", HUGE),
        ("new_per_day", str(MAX_DAILY_LIMIT + 1)),
        ("maximum_interval_days", str(MAX_INTERVAL_DAYS + 1)),
        ("learning_steps_minutes", HUGE),
        ("learning_steps_minutes", "1e23"),
        ("relearning_steps_minutes", "inf"),
        ("learning_steps_minutes", "nan"),
        ("learning_steps_minutes", ",".join(["1"] * 21)),
        ("desired_retention", "nan"),
        ("desired_retention", "inf"),
        ("fsrs_parameters", ",".join(["nan"] * 21)),
        ("fsrs_parameters", ",".join([HUGE] * 21)),
    ],
)
def test_a_typed_value_out_of_range_is_refused_in_one_short_line(key: str, text: str) -> None:
    with pytest.raises(SchedulingError) as caught:
        parse_setting(key, text)
    message = str(caught.value)
    assert "\n" not in message and len(message) < 300, message
    assert key in message


def test_the_largest_values_in_range_are_accepted() -> None:
    assert parse_setting("new_per_day", str(MAX_DAILY_LIMIT)) == MAX_DAILY_LIMIT
    assert parse_setting("maximum_interval_days", str(MAX_INTERVAL_DAYS)) == MAX_INTERVAL_DAYS
    assert parse_setting("learning_steps_minutes", f"1,{MAX_STEP_MINUTES:g}") == [
        1.0,
        MAX_STEP_MINUTES,
    ]


@pytest.mark.parametrize(
    "stored",
    [
        {"new_per_day": 10**23},
        {"new_per_day": float("inf")},
        {"maximum_interval_days": float("nan")},
        {"learning_steps_minutes": [1e23]},
        {"relearning_steps_minutes": [float("inf")]},
        {"fsrs_parameters": [float("nan")] * 21},
        {"fuzz": "yes please"},
        {"learning_steps_minutes": "1,10"},
    ],
)
def test_a_stored_value_out_of_range_is_a_scheduling_error_when_read_strictly(
    stored: dict[str, object],
) -> None:
    with pytest.raises(SchedulingError):
        StudySettings.from_mapping(stored)


def test_stored_values_out_of_range_take_their_defaults_when_read_back() -> None:
    stored = {
        "new_per_day": 10**23,
        "reviews_per_day": 150,
        "learning_steps_minutes": [1e23],
        "desired_retention": float("nan"),
        "deadline": "2027-01-15",
        "colour": "blue",
    }
    settings = StudySettings.from_stored(stored)
    defaults = StudySettings()
    assert settings.new_per_day == defaults.new_per_day
    assert settings.learning_steps_minutes == defaults.learning_steps_minutes
    assert settings.desired_retention == defaults.desired_retention
    assert settings.reviews_per_day == 150
    assert settings.deadline is not None and settings.deadline.isoformat() == "2027-01-15"


def test_every_field_rejects_a_wrong_type_at_construction() -> None:
    with pytest.raises(SchedulingError) as caught:
        StudySettings(new_per_day=2.5, fuzz="no", maximum_interval_days=math.inf)  # type: ignore[arg-type]
    message = str(caught.value)
    assert "new_per_day must be a whole number" in message
    assert "fuzz must be true or false" in message
    assert "maximum_interval_days must be a whole number" in message


def test_a_setting_stored_out_of_range_does_not_stop_a_later_start() -> None:
    from sysdrill.storage.memory import MemoryStudyStore
    from sysdrill.study.service import StudyService
    from sysdrill.study.user_state import VaultId

    store = MemoryStudyStore()
    first = StudyService(store, vault_id=VaultId("test"))
    store.put_settings(first.user_id, {"new_per_day": 10**23, "reviews_per_day": 150})
    later = StudyService(store, vault_id=VaultId("test"))
    assert later.settings.new_per_day == StudySettings().new_per_day
    assert later.settings.reviews_per_day == 150
