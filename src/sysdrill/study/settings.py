"""Scheduler and session settings of one learner, validated, with their documentation.

:data:`SETTING_DOCS` lists every setting with its meaning; ``docs/study.md`` has
a table of the same keys and a test keeps the two in step.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from datetime import date
from typing import Any

from sysdrill.errors import SchedulingError

__all__ = [
    "MAX_DESIRED_RETENTION",
    "MIN_DESIRED_RETENTION",
    "SETTING_DOCS",
    "StudySettings",
    "parse_setting",
]

MIN_DESIRED_RETENTION = 0.70
"""Lowest desired retention accepted (below it reviews come too late to be useful)."""
MAX_DESIRED_RETENTION = 0.97
"""Highest desired retention accepted (above it the workload explodes)."""

SETTING_DOCS: dict[str, str] = {
    "desired_retention": (
        "Probability of recall the scheduler aims for when an item comes due, "
        "0.70 to 0.97 (default 0.90)."
    ),
    "learning_steps_minutes": (
        "Waits in minutes between the first reviews of a new item before it "
        "graduates to day-long intervals (default 1,10; empty for none)."
    ),
    "relearning_steps_minutes": (
        "Waits in minutes after a lapse (Again on a learned item) before the item "
        "returns to day-long intervals (default 10; empty for none)."
    ),
    "maximum_interval_days": "Longest interval between two reviews, in days (default 36500).",
    "fuzz": (
        "Spread intervals of 3 days or more by a few percent so that items learned "
        "together do not stay together (default true)."
    ),
    "new_per_day": (
        "New (never reviewed) items per UTC day at most, across all of the day's "
        "practice, quiz and daily sessions (default 20); --new N caps one session."
    ),
    "reviews_per_day": "Reviews of learned items per UTC day at most (default 200).",
    "deadline": (
        "Interview date (YYYY-MM-DD) or none. Until that day intervals end before it, "
        "desired retention ramps up in the last four weeks; see Deadline mode."
    ),
    "fsrs_parameters": (
        "The 21 FSRS model weights, comma-separated, or none for the package "
        "defaults; written by `sysdrill optimize`."
    ),
}
"""Every setting key with its one-line meaning (units in the text)."""


@dataclass(frozen=True, slots=True)
class StudySettings:
    """A learner's scheduler settings; construction validates every field.

    Raises:
        SchedulingError: Naming every field out of range (not only the first).
    """

    desired_retention: float = 0.90
    """Target probability of recall at the due time, 0.70 to 0.97."""
    learning_steps_minutes: tuple[float, ...] = (1.0, 10.0)
    """Learning steps of a new item, in minutes."""
    relearning_steps_minutes: tuple[float, ...] = (10.0,)
    """Relearning steps after a lapse, in minutes."""
    maximum_interval_days: int = 36500
    """Longest interval, in days."""
    fuzz: bool = True
    """Whether review intervals are fuzzed (fsrs ``enable_fuzzing``)."""
    new_per_day: int = 20
    """New items per UTC day at most."""
    reviews_per_day: int = 200
    """Reviews of learned items per UTC day at most."""
    deadline: date | None = None
    """Interview date; enables deadline mode until that day."""
    fsrs_parameters: tuple[float, ...] | None = field(default=None)
    """Fitted FSRS weights (21 numbers), or None for the package defaults."""

    def __post_init__(self) -> None:
        problems: list[str] = []
        if not MIN_DESIRED_RETENTION <= self.desired_retention <= MAX_DESIRED_RETENTION:
            problems.append(
                f"desired_retention must be between {MIN_DESIRED_RETENTION:.2f} and "
                f"{MAX_DESIRED_RETENTION:.2f}, got {self.desired_retention}"
            )
        for name in ("learning_steps_minutes", "relearning_steps_minutes"):
            steps = getattr(self, name)
            if any(step <= 0 for step in steps):
                problems.append(f"{name} must be positive minutes, got {list(steps)}")
        if self.maximum_interval_days < 1:
            problems.append(
                f"maximum_interval_days must be at least 1, got {self.maximum_interval_days}"
            )
        for name in ("new_per_day", "reviews_per_day"):
            if getattr(self, name) < 0:
                problems.append(f"{name} must be 0 or more, got {getattr(self, name)}")
        if self.fsrs_parameters is not None and len(self.fsrs_parameters) != 21:
            problems.append(
                f"fsrs_parameters must hold 21 numbers, got {len(self.fsrs_parameters)}"
            )
        if problems:
            raise SchedulingError("Invalid study settings: " + "; ".join(problems) + ".")

    def to_mapping(self) -> dict[str, Any]:
        """Return the settings as JSON-ready values (dates as ISO strings, tuples as lists)."""
        data = asdict(self)
        for key, value in data.items():
            if isinstance(value, tuple):
                data[key] = list(value)
        data["deadline"] = self.deadline.isoformat() if self.deadline else None
        return data

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> StudySettings:
        """Build settings from :meth:`to_mapping` output; missing keys take defaults.

        Raises:
            SchedulingError: For unknown keys or values out of range.
        """
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise SchedulingError(
                f"Unknown setting(s) {', '.join(unknown)}. Known: {', '.join(sorted(known))}."
            )
        values: dict[str, Any] = {}
        try:
            for key, value in data.items():
                if key in ("learning_steps_minutes", "relearning_steps_minutes"):
                    values[key] = tuple(float(v) for v in value)
                elif key == "fsrs_parameters":
                    values[key] = None if value is None else tuple(float(v) for v in value)
                elif key == "deadline":
                    values[key] = None if value is None else date.fromisoformat(str(value))
                elif key == "desired_retention":
                    values[key] = float(value)
                elif key == "fuzz":
                    values[key] = bool(value)
                else:
                    values[key] = int(value)
        except (TypeError, ValueError) as exc:
            raise SchedulingError(f"Invalid stored setting: {exc}.") from exc
        return cls(**values)

    def with_changes(self, **changes: Any) -> StudySettings:
        """Return a copy with ``changes`` applied and validated."""
        return replace(self, **changes)


def _parse_list(text: str) -> list[float]:
    cleaned = text.strip()
    if cleaned in ("", "none", "[]"):
        return []
    return [float(part) for part in cleaned.replace(" ", ",").split(",") if part]


def parse_setting(key: str, text: str) -> Any:
    """Parse a setting value typed on the command line into its JSON-ready form.

    Args:
        key: A key of :data:`SETTING_DOCS`.
        text: The value as typed: ``0.92``, ``1,10``, ``true``, ``2026-12-01``, ``none``.

    Returns:
        The value as :meth:`StudySettings.to_mapping` holds it.

    Raises:
        SchedulingError: For an unknown key or a value that does not parse.
    """
    if key not in SETTING_DOCS:
        raise SchedulingError(
            f"Unknown setting {key!r}. Known settings: {', '.join(SETTING_DOCS)}."
        )
    cleaned = text.strip()
    try:
        if key in ("learning_steps_minutes", "relearning_steps_minutes"):
            return _parse_list(cleaned)
        if key == "fsrs_parameters":
            return None if cleaned.lower() in ("none", "default", "") else _parse_list(cleaned)
        if key == "deadline":
            if cleaned.lower() in ("none", "off", ""):
                return None
            return date.fromisoformat(cleaned).isoformat()
        if key == "fuzz":
            lowered = cleaned.lower()
            if lowered in ("true", "yes", "on", "1"):
                return True
            if lowered in ("false", "no", "off", "0"):
                return False
            raise ValueError("expected true or false")
        if key == "desired_retention":
            return float(cleaned)
        return int(cleaned)
    except ValueError as exc:
        raise SchedulingError(f"Invalid value {text!r} for {key}: {exc}.") from exc
