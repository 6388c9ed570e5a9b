"""Progress, workload and settings as use cases, for the CLI and the web app."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sysdrill.app.study_vault import StudyVault
from sysdrill.study.optimizer import FitResult
from sysdrill.study.progress import ProgressReport, ProgressSummary
from sysdrill.study.service import StudyService
from sysdrill.study.settings import SETTING_DOCS

__all__ = [
    "SettingView",
    "SettingsView",
    "WorkloadDay",
    "fit_parameters",
    "get_settings",
    "progress_summary",
    "progress",
    "set_setting",
    "workload",
]


def progress(study: StudyService, vault: StudyVault, *, now: datetime) -> ProgressReport:
    """Coverage, true retention, reviews per day, streak, forecast and weak topics.

    Args:
        study: The learner's study service.
        vault: The vault progress is measured against.
        now: Current time (UTC).
    """
    return study.progress(vault.items, now=now)


def progress_summary(study: StudyService, vault: StudyVault, *, now: datetime) -> ProgressSummary:
    """Items seen and mastered, reviews, streak and forecast: the report's headline alone.

    For a page that shows no chart (the dashboard): it skips the coverage grid,
    retention and the recall estimate of every seen item that :func:`progress` makes.

    Args:
        study: The learner's study service.
        vault: The vault progress is measured against.
        now: Current time (UTC).
    """
    from sysdrill.study.progress import build_summary

    return build_summary(study.store, study.scope, vault.items, now=now, settings=study.settings)


@dataclass(frozen=True, slots=True)
class WorkloadDay:
    """Expected reviews and new items of one day until the deadline."""

    day: str
    """ISO date."""
    reviews: int
    new_items: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {"day": self.day, "reviews": self.reviews, "new_items": self.new_items}


def workload(study: StudyService, vault: StudyVault, *, now: datetime) -> list[WorkloadDay]:
    """Expected reviews per day until the deadline (deadline mode).

    Raises:
        SchedulingError: If no deadline is set or it has passed.
    """
    return [
        WorkloadDay(d.day.isoformat(), d.reviews, d.new_items)
        for d in study.deadline_workload(vault.items, now=now)
    ]


@dataclass(frozen=True, slots=True)
class SettingView:
    """One setting: its value (JSON-ready) and what it means."""

    key: str
    value: Any
    meaning: str
    note: str | None = None
    """A word on the value stored, such as a deadline that leaves no days to plan."""

    @property
    def shown(self) -> str:
        """The value as typed on a command line (``0.9``, ``1,10``, ``none``)."""
        if self.value is None:
            return "none"
        if isinstance(self.value, list):
            return ",".join(f"{v:g}" for v in self.value)
        return str(self.value)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {"key": self.key, "value": self.value, "meaning": self.meaning}


@dataclass(frozen=True, slots=True)
class SettingsView:
    """Every setting in force, in the documented order."""

    settings: tuple[SettingView, ...]

    def values(self) -> dict[str, Any]:
        """The values by key (what ``settings show --json`` prints)."""
        return {s.key: s.value for s in self.settings}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {"settings": [s.to_dict() for s in self.settings]}


def get_settings(study: StudyService) -> SettingsView:
    """Every setting with its value and meaning."""
    values = study.settings.to_mapping()
    return SettingsView(
        tuple(SettingView(key, values[key], meaning) for key, meaning in SETTING_DOCS.items())
    )


def set_setting(study: StudyService, key: str, value: str, *, now: datetime) -> SettingView:
    """Parse ``value`` as typed by the learner, validate it and store it under ``key``.

    A deadline today or past is stored (deadline mode then has no days to plan)
    with a note saying so and naming the fix, as ``practice --deadline`` gives.

    Args:
        study: The learner's study service.
        key: The setting's name.
        value: The value as typed.
        now: Current time (UTC), to tell a deadline already come.

    Raises:
        SchedulingError: For an unknown key or a value out of range (nothing stored).
    """
    from sysdrill.study.deadline import days_left
    from sysdrill.study.workload import no_days_left

    settings = study.set_setting(key, value)
    note = None
    if key == "deadline" and settings.deadline is not None:
        if days_left(settings, now=now) is None:
            note = no_days_left(settings.deadline, today=now.date())
    return SettingView(key, settings.to_mapping()[key], SETTING_DOCS[key], note)


def fit_parameters(
    study: StudyService, *, progress: Callable[[str, int, int], None] | None = None
) -> FitResult:
    """Fit FSRS parameters to the learner's review log in this vault and store them.

    Args:
        study: The learner's study service.
        progress: Called as ``progress(stage, done, total)`` while the log is read
            and the parameters trained (see :mod:`sysdrill.study.optimizer`).

    Raises:
        SchedulingError: If the history is too short or the optimizer extra is missing.
    """
    return study.optimize(progress=progress)
