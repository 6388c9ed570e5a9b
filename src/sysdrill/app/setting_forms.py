"""The study settings as a form a person fills in: words, controls and bounds.

The settings page shows each setting under a name in words, with the control
that fits its value (a checkbox for a yes/no, a number box with its bounds, a
date, a choice) and a line of help that names no command: the terminal's
``settings show`` keeps the keys and :data:`~sysdrill.study.settings.SETTING_DOCS`.
Bounds come from :mod:`sysdrill.study.settings`, so the form and the checks agree.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sysdrill.errors import SchedulingError, SettingInvalid
from sysdrill.study.clock import require_utc
from sysdrill.study.ratings import RatingScale
from sysdrill.study.settings import (
    MAX_DAILY_LIMIT,
    MAX_DESIRED_RETENTION,
    MAX_INTERVAL_DAYS,
    MIN_DESIRED_RETENTION,
    SETTING_DOCS,
    StudySettings,
)

__all__ = [
    "SettingField",
    "refused_fields",
    "setting_fields",
    "setting_form_problems",
    "shown_value",
]


@dataclass(frozen=True, slots=True)
class SettingField:
    """One setting as a form field."""

    key: str
    """The setting's name, the form field's name."""
    label: str
    """What the form calls it, in words."""
    control: str
    """``number``, ``checkbox``, ``date``, ``choice`` or ``text``."""
    help: str
    """One line on what it does, with its range; no commands."""
    value: str
    """The value as the control shows it (``0.9``, ``1,10``, ``true``, empty for none)."""
    low: float | None = None
    high: float | None = None
    step: float | None = None
    choices: tuple[tuple[str, str], ...] = ()
    """For a choice: (value, words) of each option."""
    earliest: str | None = None
    """For a date: the first day offered (``YYYY-MM-DD``)."""
    problem: str | None = None
    """Why the value typed was refused, in words (None: it was not)."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "key": self.key,
            "label": self.label,
            "control": self.control,
            "help": self.help,
            "value": self.value,
            "min": self.low,
            "max": self.high,
            "step": self.step,
            "choices": [{"value": value, "label": label} for value, label in self.choices],
            "earliest": self.earliest,
            "problem": self.problem,
        }


_SCALE_WORDS = {
    RatingScale.AGAIN_TO_EASY: "Again, Hard, Good, Easy (keys 1-4)",
    RatingScale.CONFIDENCE: "Confidence from 1 (no idea) to 5 (perfect)",
}


def shown_value(value: Any) -> str:
    """A stored value as a form shows it."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ",".join(f"{v:g}" if isinstance(v, float) else str(v) for v in value)
    return str(value)


def setting_fields(settings: StudySettings, *, now: datetime) -> list[SettingField]:
    """Every setting of ``settings`` as a form field, in the order of ``SETTING_DOCS``.

    Args:
        settings: The learner's settings in force.
        now: The time of the request (UTC): the interview date may not be earlier.
    """
    today = require_utc(now).date()
    values = settings.to_mapping()
    steps = "Waits in minutes, separated by commas (1,10 is a minute, then ten); empty for none."

    def field(key: str, label: str, control: str, help_line: str, **bounds: Any) -> SettingField:
        return SettingField(key, label, control, help_line, shown_value(values[key]), **bounds)

    listed = [
        field(
            "desired_retention",
            "Desired retention",
            "number",
            "How likely you should still recall an item when it comes due, "
            f"{MIN_DESIRED_RETENTION:.2f} to {MAX_DESIRED_RETENTION:.2f}; higher means "
            "more reviews.",
            low=MIN_DESIRED_RETENTION,
            high=MAX_DESIRED_RETENTION,
            step=0.01,
        ),
        field(
            "learning_steps_minutes",
            "Learning steps (minutes)",
            "text",
            "Before a new item moves to day-long intervals. " + steps,
        ),
        field(
            "relearning_steps_minutes",
            "Relearning steps (minutes)",
            "text",
            "After you forget an item you had learned. " + steps,
        ),
        field(
            "maximum_interval_days",
            "Longest interval (days)",
            "number",
            f"The longest wait between two reviews of an item, 1 to {MAX_INTERVAL_DAYS:,} days.",
            low=1,
            high=MAX_INTERVAL_DAYS,
            step=1,
        ),
        field(
            "fuzz",
            "Spread intervals a little",
            "checkbox",
            "Items learned together drift apart instead of always coming back together.",
        ),
        field(
            "new_per_day",
            "New items per day",
            "number",
            f"Items you have never seen, across all of a day's sessions, 0 to {MAX_DAILY_LIMIT:,}.",
            low=0,
            high=MAX_DAILY_LIMIT,
            step=1,
        ),
        field(
            "reviews_per_day",
            "Reviews per day",
            "number",
            f"Reviews of items you have learned, per day, 0 to {MAX_DAILY_LIMIT:,}.",
            low=0,
            high=MAX_DAILY_LIMIT,
            step=1,
        ),
        field(
            "deadline",
            "Interview date",
            "date",
            "Until that day, intervals end before it and the last weeks bring items back "
            "more often; empty for none.",
            earliest=today.isoformat(),
        ),
        field(
            "fsrs_parameters",
            "Scheduler weights (advanced)",
            "text",
            "The 21 weights of the FSRS model, separated by commas, as fitted to your "
            "reviews; empty for the defaults.",
        ),
        field(
            "rating_scale",
            "Rating scale",
            "choice",
            "How you rate a recall in the sessions you start from now on.",
            choices=tuple((scale.value, _SCALE_WORDS[scale]) for scale in RatingScale),
        ),
    ]
    fields = {f.key: f for f in listed}
    assert set(fields) == set(SETTING_DOCS), "every setting needs a form field"
    return [fields[key] for key in SETTING_DOCS]


def setting_form_problems(changes: Mapping[str, str], *, now: datetime) -> dict[str, str]:
    """Why each value typed into the settings form is refused, by setting key.

    Every value is checked on its own, so the form can say what is wrong with each
    field at once rather than with the first only. An empty mapping: all may be stored.

    Args:
        changes: Values as typed by setting key (``"1,10"``, ``"2027-01-15"``, ``"none"``).
        now: Current time (UTC), to refuse an interview date already past.
    """
    from sysdrill.app.deadlines import refuse_past_deadline
    from sysdrill.study.settings import parse_setting

    problems: dict[str, str] = {}
    for key, value in changes.items():
        try:
            if key == "deadline":
                refuse_past_deadline(value, now=now)
            parse_setting(key, value)
        except SettingInvalid as exc:
            problems.update(exc.problems)
        except SchedulingError as exc:  # an unknown key, an interview date gone by
            problems[key] = str(exc)
    return problems


def refused_fields(
    fields: Sequence[SettingField], typed: Mapping[str, str], problems: Mapping[str, str]
) -> list[SettingField]:
    """The form again after a refusal: what was typed kept, each problem by its field."""
    return [
        dataclasses.replace(
            field, value=typed.get(field.key, field.value), problem=problems.get(field.key)
        )
        for field in fields
    ]
