"""Scheduler and session settings of one learner, validated, with their documentation.

:data:`SETTING_DOCS` lists every setting with its meaning; ``docs/study.md`` has
a table of the same keys and a test keeps the two in step.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from datetime import date
from typing import Any

from sysdrill.errors import SchedulingError, SettingInvalid
from sysdrill.study.ratings import RatingScale

__all__ = [
    "MAX_DAILY_LIMIT",
    "MAX_DESIRED_RETENTION",
    "MAX_INTERVAL_DAYS",
    "MAX_STEP_MINUTES",
    "MAX_STEPS",
    "MIN_DESIRED_RETENTION",
    "SETTING_DOCS",
    "StudySettings",
    "parse_setting",
]

_log = logging.getLogger(__name__)

MIN_DESIRED_RETENTION = 0.70
"""Lowest desired retention accepted (below it reviews come too late to be useful)."""
MAX_DESIRED_RETENTION = 0.97
"""Highest desired retention accepted (above it the workload explodes)."""
MAX_STEP_MINUTES = 525_600.0
"""Longest learning or relearning step, in minutes (365 days)."""
MAX_STEPS = 20
"""Most learning (or relearning) steps."""
MAX_INTERVAL_DAYS = 36_500
"""Longest ``maximum_interval_days`` accepted (100 years, FSRS's own default)."""
MAX_DAILY_LIMIT = 100_000
"""Highest ``new_per_day`` and ``reviews_per_day`` accepted (items per UTC day)."""
_WHOLE_BOUNDS: dict[str, tuple[int, int]] = {
    "maximum_interval_days": (1, MAX_INTERVAL_DAYS),
    "new_per_day": (0, MAX_DAILY_LIMIT),
    "reviews_per_day": (0, MAX_DAILY_LIMIT),
}
"""The range of each whole-number setting, both ends included."""
_FSRS_PARAMETER_LIMIT = 1_000.0
"""Largest magnitude of an FSRS weight accepted here (fsrs checks its own, narrower bounds)."""

SETTING_DOCS: dict[str, str] = {
    "desired_retention": (
        "Probability of recall the scheduler aims for when an item comes due, "
        "0.70 to 0.97 (default 0.90)."
    ),
    "learning_steps_minutes": (
        "Waits in minutes between the first reviews of a new item before it "
        "graduates to day-long intervals, each up to 525600 (a year), at most 20 "
        "(default 1,10; empty for none)."
    ),
    "relearning_steps_minutes": (
        "Waits in minutes after a lapse (Again on a learned item) before the item "
        "returns to day-long intervals, as for learning steps (default 10; empty for none)."
    ),
    "maximum_interval_days": (
        "Longest interval between two reviews, in days, 1 to 36500 (default 36500)."
    ),
    "fuzz": (
        "Spread intervals of 3 days or more by a few percent so that items learned "
        "together do not stay together (default true)."
    ),
    "new_per_day": (
        "New (never reviewed) items per UTC day at most, 0 to 100000, across all of "
        "the day's practice, quiz and daily sessions (default 20); --new N caps one session."
    ),
    "reviews_per_day": "Reviews of learned items per UTC day at most, 0 to 100000 (default 200).",
    "deadline": (
        "Interview date (YYYY-MM-DD) or none. Until that day intervals end before it, "
        "desired retention ramps up in the last four weeks; see Deadline mode."
    ),
    "fsrs_parameters": (
        "The 21 FSRS model weights, comma-separated, or none for the package "
        "defaults; written by `sysdrill optimize`."
    ),
    "rating_scale": (
        "How you rate a recall in every session: again-hard-good-easy (keys 1-4, "
        "as in Anki; the default) or confidence (1 no idea to 5 perfect)."
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
    rating_scale: RatingScale = RatingScale.AGAIN_TO_EASY
    """The scale sessions started from now on rate recalls on."""

    def __post_init__(self) -> None:
        problems = _problems(self)
        if problems:
            said = "; ".join(f"{key} {reason}" for key, reason in problems)
            raise SettingInvalid(f"Invalid study settings: {said}.", problems=dict(problems))

    def to_mapping(self) -> dict[str, Any]:
        """Return the settings as JSON-ready values (dates as ISO strings, tuples as lists)."""
        data = asdict(self)
        for key, value in data.items():
            if isinstance(value, tuple):
                data[key] = list(value)
        data["deadline"] = self.deadline.isoformat() if self.deadline else None
        data["rating_scale"] = str(self.rating_scale)
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
        values = {key: _typed(key, value) for key, value in data.items()}
        return cls(**values)

    @classmethod
    def from_stored(cls, data: Mapping[str, Any]) -> StudySettings:
        """Settings read back from storage, never refused: what cannot be used is left out.

        A stored value that is unreadable or out of range (written by an older
        sysdrill, or by hand) takes its default, and an unknown key is ignored,
        each with a warning in the log; so one bad value cannot stop every later
        start. Writes go through :meth:`from_mapping` or :func:`parse_setting`,
        which refuse such values.
        """
        settings = cls()
        for key, value in data.items():
            if key not in SETTING_DOCS:
                _log.warning("stored setting %r is unknown and was ignored", key)
                continue
            try:
                settings = replace(settings, **{key: _typed(key, value)})
            except SchedulingError as exc:
                _log.warning("stored setting %r was ignored (its default is used): %s", key, exc)
        return settings

    def with_changes(self, **changes: Any) -> StudySettings:
        """Return a copy with ``changes`` applied and validated."""
        return replace(self, **changes)


def _steps_problem(steps: tuple[float, ...]) -> str | None:
    if len(steps) > MAX_STEPS:
        return f"must hold at most {MAX_STEPS} steps, got {len(steps)}"
    if any(not step > 0 for step in steps):  # NaN is no step either
        return f"must be positive minutes, got {_shown_list(steps)}"
    if any(not step <= MAX_STEP_MINUTES for step in steps):
        return (
            f"must be at most {MAX_STEP_MINUTES:g} minutes (a year) each, got {_shown_list(steps)}"
        )
    return None


def _shown_list(values: tuple[float, ...]) -> str:
    shown = ", ".join(repr(v) for v in values[:5])
    return f"[{shown}{', ...' if len(values) > 5 else ''}]"


def _whole_problem(value: object, low: int, high: int) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return f"must be a whole number, got {value!r}"
    if value < low:
        shown = f"{value}" if value > -(10**12) else "a smaller number"
        if low == 0:
            return f"must be 0 or more, got {shown}"
        return f"must be at least {low}, got {shown}"
    if value > high:
        shown = f"{value}" if value < 10**12 else "a larger number"
        return f"must be at most {high}, got {shown}"
    return None


def _problems(settings: StudySettings) -> list[tuple[str, str]]:
    """Every value of ``settings`` out of range or of the wrong type: (key, reason in words)."""
    problems: list[tuple[str, str]] = []
    retention = settings.desired_retention
    if not (
        isinstance(retention, int | float)
        and MIN_DESIRED_RETENTION <= retention <= MAX_DESIRED_RETENTION
    ):
        shown = f"{retention:g}" if isinstance(retention, int | float) else repr(retention)
        problems.append(
            (
                "desired_retention",
                f"must be between {MIN_DESIRED_RETENTION:.2f} and "
                f"{MAX_DESIRED_RETENTION:.2f}, got {shown}",
            )
        )
    for name in ("learning_steps_minutes", "relearning_steps_minutes"):
        problem = _steps_problem(getattr(settings, name))
        if problem:
            problems.append((name, problem))
    for name, (low, high) in _WHOLE_BOUNDS.items():
        problem = _whole_problem(getattr(settings, name), low, high)
        if problem:
            problems.append((name, problem))
    if not isinstance(settings.fuzz, bool):
        problems.append(("fuzz", f"must be true or false, got {settings.fuzz!r}"))
    if not isinstance(settings.rating_scale, RatingScale):
        problems.append(
            ("rating_scale", f"must be one of {_SCALES}, got {settings.rating_scale!r}")
        )
    if settings.deadline is not None and not isinstance(settings.deadline, date):
        problems.append(("deadline", f"must be a date, got {settings.deadline!r}"))
    weights = settings.fsrs_parameters
    if weights is not None:
        if len(weights) != 21:
            problems.append(("fsrs_parameters", f"must hold 21 numbers, got {len(weights)}"))
        elif any(not (math.isfinite(w) and abs(w) <= _FSRS_PARAMETER_LIMIT) for w in weights):
            problems.append(
                (
                    "fsrs_parameters",
                    f"must be finite numbers of at most {_FSRS_PARAMETER_LIMIT:g} "
                    "in size; reset them with none",
                )
            )
    return problems


def _typed(key: str, value: Any) -> Any:
    """A stored (JSON-ready) value as the field ``key`` holds it.

    Raises:
        SchedulingError: If the value cannot be read as that field's type.
    """
    try:
        if key in ("learning_steps_minutes", "relearning_steps_minutes"):
            if isinstance(value, str | bytes) or len(value) > MAX_STEPS:
                raise ValueError(f"{key} must be a list of at most {MAX_STEPS} numbers")
            return tuple(_number(v) for v in value)
        if key == "fsrs_parameters":
            if value is None:
                return None
            if isinstance(value, str | bytes) or len(value) > 21:
                raise ValueError("fsrs_parameters must be a list of 21 numbers")
            return tuple(_number(v) for v in value)
        if key == "deadline":
            return None if value is None else date.fromisoformat(str(value))
        if key == "desired_retention":
            return _number(value)
        if key == "rating_scale":
            return _scale(value)
        if key == "fuzz":
            if value not in (True, False):  # 1 and 0 too, as JSON booleans may come back
                raise ValueError(f"fuzz must be true or false, got {value!r}")
            return bool(value)
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise ValueError(f"{key} must be a whole number, got {value!r}")
        return int(value)
    except (TypeError, ValueError, OverflowError) as exc:
        raise SchedulingError(f"Invalid stored setting {key}: {_brief(exc)}.") from exc


_SCALES = " or ".join(scale.value for scale in RatingScale)


def _scale(value: Any) -> RatingScale:
    try:
        return RatingScale(str(value).strip().lower())
    except ValueError:
        raise ValueError(f"expected {_SCALES}") from None


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(f"expected a number, got {value!r}")
    return float(value)


def _brief(exc: Exception) -> str:
    """An exception's message cut to one short line (it may quote a huge value)."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text if len(text) <= 200 else text[:200] + "..."


def _parse_list(text: str, *, what: str, example: str) -> list[float]:
    cleaned = text.strip()
    if cleaned in ("", "none", "[]"):
        return []
    numbers: list[float] = []
    for part in cleaned.replace(" ", ",").split(","):
        if not part:
            continue
        try:
            numbers.append(float(part))
        except ValueError:
            # float()'s own words name Python; the learner needs the form of a list.
            shown = repr(part) if len(part) <= 20 else f"{part[:20]!r}..."
            raise ValueError(
                f"{shown} is not a number; type {what} separated by commas, such as {example}"
            ) from None
    return numbers


def parse_setting(key: str, text: str) -> Any:
    """Parse a setting value typed on the command line (or a form) into its JSON-ready form.

    The value is checked as well as read: one out of range is refused here, so
    that nothing stores it.

    Args:
        key: A key of :data:`SETTING_DOCS`.
        text: The value as typed: ``0.92``, ``1,10``, ``true``, ``2026-12-01``, ``none``.

    Returns:
        The value as :meth:`StudySettings.to_mapping` holds it.

    Raises:
        SchedulingError: For an unknown key, a value that does not parse or one out of range.
    """
    if key not in SETTING_DOCS:
        shown = repr(key) if len(key) <= 40 else f"{key[:40]!r}..."
        raise SchedulingError(
            f"Unknown setting {shown}. Known settings: {', '.join(SETTING_DOCS)}."
        )
    cleaned = text.strip()
    try:
        parsed = _parsed(key, cleaned)
    except (ValueError, OverflowError) as exc:
        shown = repr(text) if len(text) <= 40 else f"{text[:40]!r}..."
        reason = _brief(exc)
        raise SettingInvalid(
            f"Invalid value {shown} for {key}: {reason}.", problems={key: reason}
        ) from exc
    StudySettings.from_mapping({key: parsed})  # range checks; raises SettingInvalid
    return parsed


def _parsed(key: str, cleaned: str) -> Any:
    # Each refusal is in our words: Python's own ("could not convert string to float")
    # would reach the settings page.
    if key in ("learning_steps_minutes", "relearning_steps_minutes"):
        return _parse_list(cleaned, what="minutes", example="1,10")
    if key == "fsrs_parameters":
        if cleaned.lower() in ("none", "default", ""):
            return None
        return _parse_list(cleaned, what="21 numbers", example="0.4,1.2,...; or none")
    if key == "deadline":
        if cleaned.lower() in ("none", "off", ""):
            return None
        try:
            return date.fromisoformat(cleaned).isoformat()
        except ValueError:
            raise ValueError("expected a date as YYYY-MM-DD, such as 2027-01-15") from None
    if key == "fuzz":
        lowered = cleaned.lower()
        if lowered in ("true", "yes", "on", "1"):
            return True
        if lowered in ("false", "no", "off", "0"):
            return False
        raise ValueError("expected true or false")
    if key == "desired_retention":
        try:
            return float(cleaned)
        except ValueError:
            raise ValueError(
                f"expected a number from {MIN_DESIRED_RETENTION:.2f} to "
                f"{MAX_DESIRED_RETENTION:.2f}, such as 0.9"
            ) from None
    if key == "rating_scale":
        return _scale(cleaned).value
    low, high = _WHOLE_BOUNDS[key]
    # Past 15 digits int() itself would name a Python limit (4300 digits).
    if len(cleaned) > 15 or not cleaned.lstrip("+-").isdigit():
        raise ValueError(f"expected a whole number from {low} to {high}")
    return int(cleaned)
