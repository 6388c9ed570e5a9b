"""Progress, workload and settings as use cases, for the CLI and the web app.

Progress and workload read a few fields of each item, so they take a vault's
catalogue (:mod:`sysdrill.app.catalogue`, what the CLI opens: no item file is
read when it is fresh) as well as a loaded vault (what the web app keeps).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sysdrill.app.catalogue import Catalogue
from sysdrill.study.optimizer import FitResult
from sysdrill.study.progress import ProgressItem, ProgressReport, ProgressSummary
from sysdrill.study.service import StudyService
from sysdrill.study.settings import SETTING_DOCS

if TYPE_CHECKING:
    from sysdrill.app.study_vault import StudyVault

__all__ = [
    "SettingView",
    "SettingsView",
    "WorkloadDay",
    "fit_parameters",
    "get_settings",
    "progress_summary",
    "progress",
    "set_setting",
    "set_settings",
    "workload",
]


def _items(vault: StudyVault | Catalogue) -> Sequence[ProgressItem]:
    return vault.rows if isinstance(vault, Catalogue) else vault.items


def progress(
    study: StudyService, vault: StudyVault | Catalogue, *, now: datetime
) -> ProgressReport:
    """Coverage, true retention, reviews per day, streak, forecast and weak topics.

    Args:
        study: The learner's study service.
        vault: The vault progress is measured against, loaded or its catalogue.
        now: Current time (UTC).
    """
    from sysdrill.study.progress import build_progress

    return build_progress(study.store, study.scope, _items(vault), now=now, settings=study.settings)


def progress_summary(
    study: StudyService, vault: StudyVault | Catalogue, *, now: datetime
) -> ProgressSummary:
    """Items seen and mastered, reviews, streak and forecast: the report's headline alone.

    For a page that shows no chart (the dashboard): it skips the coverage grid,
    retention and the recall estimate of every seen item that :func:`progress` makes.

    Args:
        study: The learner's study service.
        vault: The vault progress is measured against, loaded or its catalogue.
        now: Current time (UTC).
    """
    from sysdrill.study.progress import build_summary

    return build_summary(
        study.store,
        study.scope,
        _items(vault),
        now=now,
        settings=study.settings,
        item_ids=None if isinstance(vault, Catalogue) else vault.by_id,
    )


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


def workload(
    study: StudyService, vault: StudyVault | Catalogue, *, now: datetime
) -> list[WorkloadDay]:
    """Expected reviews per day until the deadline (deadline mode), over every item.

    What :meth:`~sysdrill.study.service.StudyService.deadline_workload` gives
    without a filter (both are :func:`~sysdrill.study.workload.workload_of_items`),
    from the items' ids alone.

    Raises:
        SchedulingError: If no deadline is set or it has passed.
    """
    from sysdrill.study.workload import workload_of_items

    wanted = {item.id for item in _items(vault)}
    marks = None
    if isinstance(vault, Catalogue) and vault.path is not None:
        from sysdrill.app.pass_marks import kept_pass_marks

        marks = kept_pass_marks(vault.path.with_suffix(".pass-marks"), wanted)
    days = workload_of_items(
        study.store,
        study.scope,
        wanted,
        settings=study.settings,
        now=now,
        # Today's new items already seen spend today's allowance, as practice counts them.
        introduced_today=study.new_items_today(now),
        pass_marks=marks,
    )
    return [WorkloadDay(d.day.isoformat(), d.reviews, d.new_items) for d in days]


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

    A past deadline is refused; one of today is stored (deadline mode then has
    no days to plan) with a note saying so, as ``practice --deadline`` gives.

    Args:
        study: The learner's study service.
        key: The setting's name.
        value: The value as typed.
        now: Current time (UTC), to tell a deadline already come.

    Raises:
        SchedulingError: For an unknown key or a value out of range (nothing stored).
        SchedulingError: For a deadline already past (nothing stored).
    """
    from sysdrill.study.deadline import days_left
    from sysdrill.study.workload import no_days_left

    set_settings(study, {key: value}, now=now)
    settings = study.settings
    note = None
    if key == "deadline" and settings.deadline is not None:
        if days_left(settings, now=now) is None:
            note = no_days_left(settings.deadline, today=now.date())
    return SettingView(key, settings.to_mapping()[key], SETTING_DOCS[key], note)


def set_settings(study: StudyService, changes: Mapping[str, str], *, now: datetime) -> list[str]:
    """Parse and store several settings as typed, all or none.

    Every value is parsed and the whole set validated before anything is
    stored, so one bad value leaves every setting as it was. This is where a
    past deadline is refused, for the CLI and the web app alike.

    Args:
        study: The learner's study service.
        changes: Values as typed by setting key (``"0.85"``, ``"2027-01-15"``, ``"none"``).
        now: Current time (UTC), to tell a deadline already come.

    Returns:
        The keys whose stored value changed, in the order given.

    Raises:
        SchedulingError: For an unknown key, a value out of range or a deadline
            already past (nothing stored).
    """
    from sysdrill.app.deadlines import refuse_past_deadline
    from sysdrill.study.settings import StudySettings, parse_setting

    if "deadline" in changes:
        refuse_past_deadline(changes["deadline"], now=now)
    # Every value is read first (an unknown key raises here), then all are stored at once.
    parsed = {key: parse_setting(key, value) for key, value in changes.items()}
    mapping = study.settings.to_mapping()
    changed = {key: value for key, value in parsed.items() if mapping.get(key) != value}
    if changed:
        typed = StudySettings.from_mapping({**mapping, **changed})
        study.update_settings(**{key: getattr(typed, key) for key in changed})
    return list(changed)


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
