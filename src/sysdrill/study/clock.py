"""Checks on injected time: every time-dependent study function takes ``now`` in UTC."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

from sysdrill.errors import SchedulingError

__all__ = ["day_start", "require_utc", "utc_day"]


def require_utc(moment: datetime, *, name: str = "now") -> datetime:
    """Return ``moment`` as a datetime whose tzinfo is :data:`datetime.UTC`.

    Args:
        moment: A timezone-aware datetime with a zero UTC offset.
        name: Name of the argument, for the error message.

    Returns:
        The same instant with ``tzinfo=UTC`` (the fsrs package insists on it).

    Raises:
        SchedulingError: If ``moment`` is naive or not in UTC.
    """
    offset = moment.utcoffset()
    if moment.tzinfo is None or offset is None:
        raise SchedulingError(
            f"{name} must be a timezone-aware UTC datetime, got naive {moment.isoformat()}."
            " Pass datetime.now(UTC)."
        )
    if offset != timedelta(0):
        raise SchedulingError(
            f"{name} must be in UTC, got offset {offset} ({moment.isoformat()})."
            " Convert it with .astimezone(UTC)."
        )
    return moment if moment.tzinfo is UTC else moment.replace(tzinfo=UTC)


def utc_day(moment: datetime) -> date:
    """Return the UTC calendar day of ``moment`` (study days run midnight to midnight UTC)."""
    return require_utc(moment, name="moment").date()


def day_start(day: date) -> datetime:
    """Return midnight UTC at the start of ``day``."""
    return datetime.combine(day, time(0), tzinfo=UTC)
