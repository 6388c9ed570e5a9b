from __future__ import annotations

import re
from dataclasses import fields
from datetime import date
from pathlib import Path

import pytest

from sysdrill.errors import SchedulingError
from sysdrill.study.settings import SETTING_DOCS, StudySettings, parse_setting

DOCS = Path(__file__).resolve().parents[2] / "docs" / "study.md"


@pytest.mark.parametrize("retention", [0.69, 0.98, 1.5, 0.0])
def test_desired_retention_outside_range_is_rejected(retention):
    with pytest.raises(SchedulingError, match="desired_retention must be between 0.70 and 0.97"):
        StudySettings(desired_retention=retention)


@pytest.mark.parametrize("retention", [0.70, 0.9, 0.97])
def test_desired_retention_bounds_are_inclusive(retention):
    assert StudySettings(desired_retention=retention).desired_retention == retention


def test_every_problem_is_reported_at_once():
    with pytest.raises(SchedulingError) as caught:
        StudySettings(desired_retention=2.0, maximum_interval_days=0, new_per_day=-1)
    message = str(caught.value)
    assert "desired_retention" in message
    assert "maximum_interval_days" in message
    assert "new_per_day" in message


def test_mapping_round_trip_is_lossless():
    settings = StudySettings(
        desired_retention=0.85,
        learning_steps_minutes=(2.0, 15.0),
        relearning_steps_minutes=(),
        maximum_interval_days=365,
        fuzz=False,
        new_per_day=7,
        reviews_per_day=80,
        deadline=date(2026, 12, 24),
        fsrs_parameters=tuple(float(i) / 10 for i in range(21)),
    )
    assert StudySettings.from_mapping(settings.to_mapping()) == settings


def test_unknown_stored_setting_is_rejected():
    with pytest.raises(SchedulingError, match="Unknown setting"):
        StudySettings.from_mapping({"colour": "blue"})


@pytest.mark.parametrize(
    ("key", "text", "value"),
    [
        ("desired_retention", "0.92", 0.92),
        ("learning_steps_minutes", "1, 10", [1.0, 10.0]),
        ("relearning_steps_minutes", "none", []),
        ("fuzz", "off", False),
        ("deadline", "2026-12-01", "2026-12-01"),
        ("deadline", "none", None),
        ("new_per_day", "5", 5),
        ("fsrs_parameters", "default", None),
    ],
)
def test_parse_setting_reads_command_line_values(key, text, value):
    assert parse_setting(key, text) == value


def test_parse_setting_rejects_unknown_key_and_bad_value():
    with pytest.raises(SchedulingError, match="Unknown setting 'speed'"):
        parse_setting("speed", "1")
    with pytest.raises(SchedulingError, match="Invalid value 'soon' for deadline"):
        parse_setting("deadline", "soon")


def test_every_setting_is_documented_in_code_and_docs():
    assert set(SETTING_DOCS) == {f.name for f in fields(StudySettings)}
    text = DOCS.read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| `([a-z_]+)` \|", text, flags=re.MULTILINE))
    assert set(SETTING_DOCS) <= documented


def test_steps_must_be_positive_and_parameters_twenty_one():
    with pytest.raises(SchedulingError) as caught:
        StudySettings(learning_steps_minutes=(1.0, 0.0), fsrs_parameters=(1.0, 2.0))
    assert "learning_steps_minutes must be positive minutes, got [1.0, 0.0]" in str(caught.value)
    assert "fsrs_parameters must hold 21 numbers, got 2" in str(caught.value)


def test_unreadable_stored_value_is_a_scheduling_error():
    with pytest.raises(SchedulingError, match="Invalid stored setting"):
        StudySettings.from_mapping({"new_per_day": "many"})


def test_fuzz_accepts_words_and_rejects_others():
    assert parse_setting("fuzz", "Yes") is True
    with pytest.raises(SchedulingError, match="expected true or false"):
        parse_setting("fuzz", "maybe")
