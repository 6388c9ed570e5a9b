"""The interview date: read, checked against today, saved with the workload it brings.

Shared by the CLI (``practice --deadline``, ``settings set deadline``) and the
web app's settings page, so that a past date is refused the same way in both.
"""

from __future__ import annotations

from datetime import date, datetime

from sysdrill.app.session_views import DeadlineView
from sysdrill.app.study_vault import StudyVault
from sysdrill.errors import SchedulingError, UsageError
from sysdrill.study.clock import require_utc
from sysdrill.study.filters import ItemFilter
from sysdrill.study.service import StudyService
from sysdrill.study.sessions.selection import filter_items

__all__ = ["parse_deadline", "refuse_past_deadline", "set_deadline"]


def set_deadline(
    study: StudyService,
    vault: StudyVault,
    deadline: str,
    *,
    item_filter: ItemFilter | None = None,
    now: datetime,
) -> DeadlineView:
    """Save the interview date (``YYYY-MM-DD``, or ``none`` to turn deadline mode off).

    Returns:
        The date saved and the expected workload until then.

    Raises:
        SchedulingError: If the date is not a date or has passed (nothing is saved),
            or is today (saved; no day is left to plan).
    """
    refuse_past_deadline(deadline, now=now)
    settings = study.set_setting("deadline", deadline)
    if settings.deadline is None:
        return DeadlineView(deadline=None, days_left=0, reviews_total=0, reviews_peak=0)
    pool = filter_items(vault.items, vault.decks, item_filter or ItemFilter())
    days = study.deadline_workload(pool, now=now)
    per_day = [day.reviews + day.new_items for day in days]
    return DeadlineView(
        deadline=settings.deadline,
        days_left=len(days),
        reviews_total=sum(per_day),
        reviews_peak=max(per_day, default=0),
    )


def parse_deadline(text: str) -> date | None:
    """Read a deadline typed by a learner: ``YYYY-MM-DD``, or ``none``/``off`` for none.

    Raises:
        UsageError: If the text is not a date.
    """
    if text.lower() in ("none", "off"):
        return None
    try:
        return date.fromisoformat(text)
    except ValueError as exc:
        raise UsageError(f"{text!r} is not a date; write it as YYYY-MM-DD.") from exc


def refuse_past_deadline(text: str, *, now: datetime) -> None:
    """Refuse an interview date before today (UTC); ``none``, empty and later days pass.

    Today is accepted: deadline mode then has no day left to plan, and says so.

    Args:
        text: The date as typed (``YYYY-MM-DD``, ``none``).
        now: The time of the request (UTC).

    Raises:
        SchedulingError: If the date has passed (one line, with the fix).
    """
    cleaned = text.strip()
    if cleaned.lower() in ("", "none", "off"):
        return
    try:
        day = date.fromisoformat(cleaned)
    except ValueError:
        return  # not a date: the setting's own check says so
    today = require_utc(now).date()
    if day < today:
        raise SchedulingError(
            f"The interview date {day.isoformat()} has passed; give one from "
            f"{today.isoformat()} on, or none to turn deadline mode off."
        )
