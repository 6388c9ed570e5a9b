"""The review calendar: a year of days as week columns, each day shaded by its reviews.

The layout Anki's and GitHub's calendars share: one column per week (Monday at the
top), the newest week on the right, a label over the column where a month begins,
and five shades (none, then four steps up to the busiest day). The web page and any
other front end draw it from this layout; it reads only the progress report's day
counts (:attr:`~sysdrill.study.progress.ProgressReport.review_days`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from sysdrill.study.progress import DayCount

__all__ = [
    "CALENDAR_WEEKS",
    "SHADES",
    "CalendarDay",
    "MonthLabel",
    "ReviewCalendar",
    "review_calendar",
]

CALENDAR_WEEKS = 53
"""Week columns in the calendar: a year and the week in progress."""
SHADES = 5
"""Shades a day can take: 0 for no review, then 1 to 4 up to the busiest day."""
_MIN_LABEL_GAP_WEEKS = 3
"""Weeks between two month labels below which the earlier is left out (they would overlap)."""


@dataclass(frozen=True, slots=True)
class CalendarDay:
    """One day of the calendar."""

    day: date
    count: int
    """Reviews on the day."""
    shade: int
    """0 for no review, else 1 to 4 as a share of the busiest day's reviews."""


@dataclass(frozen=True, slots=True)
class MonthLabel:
    """A month's name over the week column where its first day falls."""

    week: int
    """Column index, 0 for the oldest week."""
    name: str
    """Short month name, with the year for January (``Jan 2027``)."""


@dataclass(frozen=True, slots=True)
class ReviewCalendar:
    """A year of review counts laid out as week columns."""

    weeks: list[list[CalendarDay | None]]
    """Oldest week first; each has seven days, Monday first; None for days after today."""
    months: list[MonthLabel]
    first_day: date
    last_day: date
    """Today."""
    total_reviews: int
    """Reviews over the calendar's days."""
    days_with_reviews: int
    busiest: DayCount | None
    """The day with the most reviews (the latest of ties), None without reviews."""

    def to_dict(self) -> dict[str, Any]:
        """The calendar as JSON-ready data (ISO dates)."""
        return {
            "first_day": self.first_day.isoformat(),
            "last_day": self.last_day.isoformat(),
            "total_reviews": self.total_reviews,
            "days_with_reviews": self.days_with_reviews,
            "busiest": None
            if self.busiest is None
            else {"day": self.busiest.day.isoformat(), "count": self.busiest.count},
            "months": [{"week": m.week, "name": m.name} for m in self.months],
            "weeks": [
                [
                    None
                    if cell is None
                    else {"day": cell.day.isoformat(), "count": cell.count, "shade": cell.shade}
                    for cell in week
                ]
                for week in self.weeks
            ],
        }


def _shade(count: int, busiest_count: int) -> int:
    if count <= 0 or busiest_count <= 0:
        return 0
    # Ceiling of a quarter-share: one review is never shaded as none, the busiest day is 4.
    return min(SHADES - 1, -(-(SHADES - 1) * count // busiest_count))


def review_calendar(
    day_counts: Iterable[DayCount], *, today: date, weeks: int = CALENDAR_WEEKS
) -> ReviewCalendar:
    """Lay out review counts as a calendar of week columns ending with today's week.

    Args:
        day_counts: Reviews per UTC day (days without reviews may be left out;
            days outside the calendar are ignored).
        today: The last day shown (UTC).
        weeks: Week columns, at least 1.

    Returns:
        The calendar, oldest week first.
    """
    weeks = max(1, weeks)
    first_day = today - timedelta(days=today.weekday() + 7 * (weeks - 1))
    counts: dict[date, int] = {}
    for entry in day_counts:
        if first_day <= entry.day <= today:
            counts[entry.day] = counts.get(entry.day, 0) + entry.count
    busiest_count = max(counts.values(), default=0)
    columns: list[list[CalendarDay | None]] = []
    months: list[MonthLabel] = []
    for week in range(weeks):
        column: list[CalendarDay | None] = []
        for weekday in range(7):
            day = first_day + timedelta(days=7 * week + weekday)
            if day > today:
                column.append(None)
                continue
            count = counts.get(day, 0)
            column.append(CalendarDay(day, count, _shade(count, busiest_count)))
            if day.day == 1 or (week == 0 and weekday == 0):
                name = day.strftime("%b %Y" if day.month == 1 else "%b")
                if months and week - months[-1].week < _MIN_LABEL_GAP_WEEKS:
                    months.pop()
                months.append(MonthLabel(week, name))
        columns.append(column)
    busiest = max(
        (DayCount(day, count) for day, count in counts.items() if count > 0),
        key=lambda d: (d.count, d.day),
        default=None,
    )
    return ReviewCalendar(
        weeks=columns,
        months=months,
        first_day=first_day,
        last_day=today,
        total_reviews=sum(counts.values()),
        days_with_reviews=sum(1 for count in counts.values() if count > 0),
        busiest=busiest,
    )
