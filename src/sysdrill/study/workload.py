"""Deadline workload: the reviews and new items expected each day until the interview.

:func:`expected_workload` simulates every card (and the new items the daily
limit lets in) day by day until the date with the real scheduler, assuming each
review passes with Good, and counts reviews per day. Failed reviews add more.
The deadline rules it relies on are in :mod:`sysdrill.study.deadline`.

A forecast over 100,000 cards simulates about two reviews each, so the common
step, a card in the review state passing with Good, runs on plain numbers
(:class:`_GoodReview`: fsrs's formulas for that branch, evaluated in fsrs's
order, so every number is the one ``fsrs.Scheduler.review_card`` gives; a test
compares them on random cards). Cards in learning or relearning steps go through
:func:`~sysdrill.study.scheduler.review_card` itself until they graduate. Times
are epoch microseconds and days epoch days (:mod:`sysdrill.study.card_figures`),
exactly as the datetimes they stand for.
"""

from __future__ import annotations

import math
import struct
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from datetime import date, datetime, timedelta

import fsrs
from fsrs.scheduler import MAX_DIFFICULTY, MIN_DIFFICULTY, STABILITY_MIN

from sysdrill.errors import SchedulingError
from sysdrill.study.card_figures import (
    DAY_US,
    EPOCH,
    ForecastCard,
    epoch_day,
    epoch_us,
    forecast_card,
)
from sysdrill.study.card_state import CardRecord, CardState
from sysdrill.study.clock import day_start, require_utc
from sysdrill.study.deadline import (
    FINAL_PASS_DAYS,
    days_left,
    final_pass_day,
    final_pass_day_of_marks,
)
from sysdrill.study.ratings import Rating
from sysdrill.study.scheduler import new_card, review_card, scheduler_for
from sysdrill.study.settings import StudySettings
from sysdrill.study.store import StudyStore
from sysdrill.study.user_state import StudyScope

__all__ = ["DayWorkload", "expected_workload", "no_days_left", "workload_of_items"]

_MAX_SIMULATED_REVIEWS = 200
"""Guard against a pathological loop per card in the workload simulation."""
_STUDY_HOUR_US = 9 * 3_600_000_000
"""When a simulated day's study starts, in microseconds after midnight UTC."""
_REVIEW = int(CardState.REVIEW)


@dataclass(frozen=True, slots=True)
class DayWorkload:
    """Expected study load of one UTC day."""

    day: date
    reviews: int
    """Reviews expected (including repeats within learning steps)."""
    new_items: int
    """New items introduced that day (within ``new_per_day``)."""


class _GoodReview:
    """``fsrs.Scheduler.review_card`` of a review-state card rated Good, without fuzz.

    Each formula is fsrs's (``_short_term_stability``, ``_next_stability``,
    ``_next_difficulty``, ``_next_interval`` in ``fsrs/scheduler.py``) with the
    same operations in the same order, so the floats are the same; the terms
    that depend only on the scheduler are worked out once. Factors of exactly 1
    (Good has no hard penalty or easy bonus) are left out: multiplying by 1 is exact.
    """

    __slots__ = (
        "_decay",
        "_difficulty_target",
        "_difficulty_weight",
        "_factor",
        "_interval_scale",
        "_maximum_interval",
        "_recall_gain",
        "_recall_exponent",
        "_short_gain",
        "_short_exponent",
        "_stability_exponent",
    )

    def __init__(self, scheduler: fsrs.Scheduler) -> None:
        w = scheduler.parameters
        self._decay: float = scheduler._DECAY
        self._factor: float = scheduler._FACTOR
        # _short_term_stability: rating - 3 + w[18] is w[18] for Good.
        self._short_gain = math.e ** (w[17] * (int(fsrs.Rating.Good) - 3 + w[18]))
        self._short_exponent = -w[19]
        # _next_recall_stability
        self._recall_gain = math.e ** (w[8])
        self._stability_exponent = -w[9]
        self._recall_exponent = w[10]
        # _next_difficulty: the mean reversion's target, _initial_difficulty(Easy).
        self._difficulty_target = w[4] - (math.e ** (w[5] * (int(fsrs.Rating.Easy) - 1))) + 1
        self._difficulty_weight = w[7]
        # _next_interval
        self._interval_scale: float = (scheduler.desired_retention ** (1 / self._decay)) - 1
        self._maximum_interval: int = scheduler.maximum_interval

    def after(
        self, stability: float, difficulty: float, elapsed_days: int, /
    ) -> tuple[float, float, int]:
        """Stability (days), difficulty and the next interval (days) after the review.

        Args:
            stability: Stability before the review, in days.
            difficulty: Difficulty before the review.
            elapsed_days: Whole days since the last review (``timedelta.days``, >= 0).
        """
        if elapsed_days < 1:
            increase = self._short_gain * (stability**self._short_exponent)
            stability = stability * max(increase, 1.0)
        else:
            recall = (1 + self._factor * elapsed_days / stability) ** self._decay
            stability = stability * (
                1
                + self._recall_gain
                * (11 - difficulty)
                * (stability**self._stability_exponent)
                * ((math.e ** ((1 - recall) * self._recall_exponent)) - 1)
            )
        stability = max(stability, STABILITY_MIN)
        # Good's difficulty change is -(w[6] * 0), damped as fsrs damps it.
        delta = -(0.0)
        moved = difficulty + (10.0 - difficulty) * delta / 9.0
        weight = self._difficulty_weight
        difficulty = weight * self._difficulty_target + (1 - weight) * moved
        difficulty = min(max(difficulty, MIN_DIFFICULTY), MAX_DIFFICULTY)
        return stability, difficulty, self.interval(stability)

    def interval(self, stability: float) -> int:
        """Days until the next review of a card of ``stability`` days (fsrs ``_next_interval``).

        It never falls as stability grows (division and product by positive
        terms, rounding and the bounds are all monotonic), and a review rated
        Good never lowers stability: the interval of the stability before a
        review is a lower bound of the one after it.
        """
        interval = round((stability / self._factor) * self._interval_scale)
        return min(max(interval, 1), self._maximum_interval)


def _least_stability(step: _GoodReview, days: int) -> float:
    """The least stability (days) whose :meth:`_GoodReview.interval` is ``days`` or more.

    The interval never falls as stability grows, so bisecting the positive floats,
    which are ordered as their bit patterns are, finds the boundary exactly: a
    stability reaches ``days`` if and only if it is at least the one returned
    (-inf when every stability does, inf when the interval cap is below ``days``).
    """
    if days <= 1:
        return -math.inf
    highest = _float_bits(1e300)
    if step.interval(_bits_float(highest)) < days:
        return math.inf
    below, reaches = 0, highest  # interval(0.0) is 1, below ``days``
    while reaches - below > 1:
        middle = (below + reaches) // 2
        if step.interval(_bits_float(middle)) >= days:
            reaches = middle
        else:
            below = middle
    return _bits_float(reaches)


def _float_bits(value: float) -> int:
    return int.from_bytes(struct.pack("<d", value), "little")


def _bits_float(bits: int) -> float:
    value: float = struct.unpack("<d", bits.to_bytes(8, "little"))[0]
    return value


def _moment(epoch_microseconds: int) -> datetime:
    return EPOCH + timedelta(microseconds=epoch_microseconds)


class _Forecast:
    """One forecast: its dates, the per-day scheduler steps and the counts so far."""

    def __init__(
        self,
        settings: StudySettings,
        *,
        now: datetime,
        deadline: date,
        pass_marks: Mapping[str, int],
    ) -> None:
        self.settings = settings
        self.deadline = deadline
        self.today = now.date()
        self.deadline_day = epoch_day(deadline)
        self.pass_start_us = epoch_us(day_start(deadline - timedelta(days=FINAL_PASS_DAYS)))
        # No item's pass day comes before this one (final_pass_day).
        self.first_pass_day = epoch_day(max(self.today, deadline - timedelta(days=FINAL_PASS_DAYS)))
        self.counts: Counter[int] = Counter()
        self._steps: dict[int, _GoodReview] = {}
        self._pass_marks = pass_marks
        self._day_of_marks: dict[int, int] = {}
        self._least: dict[tuple[int, int], float] = {}

    def pass_day(self, item_id: str) -> int:
        """The item's day in the final pass (an epoch day)."""
        marks = self._pass_marks.get(item_id)
        if marks is None:
            return epoch_day(final_pass_day(item_id, deadline=self.deadline, today=self.today))
        # Marks take 64 values at most: each one's day is worked out once.
        day = self._day_of_marks.get(marks)
        if day is None:
            found = final_pass_day_of_marks(marks, deadline=self.deadline, today=self.today)
            day = self._day_of_marks[marks] = epoch_day(found)
        return day

    def _step(self, day: int) -> _GoodReview:
        # Deadline mode changes retention and the interval cap by the UTC day only.
        scheduler = scheduler_for(self.settings, now=_moment(day * DAY_US))
        found = self._steps[day] = _GoodReview(scheduler)
        return found

    def _reaches(self, day: int, days: int) -> float:
        """:func:`_least_stability` of ``day``'s scheduler for ``days``, worked out once."""
        found = self._least.get((day, days))
        if found is None:
            step = self._steps.get(day) or self._step(day)
            found = self._least[(day, days)] = _least_stability(step, days)
        return found

    def simulate_cards(self, cards: Sequence[ForecastCard], *, start_us: int) -> None:
        """Count each card's reviews, each rated Good, from ``start_us`` to the deadline.

        Most review cards look twice more: once when due (today if overdue) and
        once on their pass day, after which they are due past the deadline. The
        intervals of their stability now are lower bounds of those to come
        (:meth:`_GoodReview.interval`), so when those bounds already carry the
        card past its pass day and then past the deadline, both reviews are
        counted without working anything out (:meth:`_settled`); the others
        take the loop of :meth:`_review_steps`.
        """
        tally = self.counts
        for card in cards:
            item_id, state, _, stability, difficulty, due, last = card
            moment = start_us if due is None or due < start_us else due
            if (
                state == _REVIEW
                and stability is not None
                and difficulty is not None
                and last is not None
                and last <= moment
            ):
                if last < self.pass_start_us and self._settled(item_id, stability, moment, tally):
                    continue
                self._review_steps(
                    item_id, (stability, difficulty, last, moment), 0, start_us, None, tally
                )
            else:
                self._scheduler_steps(_record(card), moment, start_us, None, tally)

    def _settled(self, item_id: str, stability: float, moment: int, tally: Counter[int]) -> bool:
        """Count what :meth:`_review_steps` would when its interval bounds settle it.

        For a card last reviewed before the final pass with ``stability`` days,
        next reviewed at ``moment``. Returns False, having counted nothing, when
        the bounds leave the outcome open.
        """
        day = moment // DAY_US
        counted: tuple[int, ...]
        if moment < self.pass_start_us:
            # Reviewed first before the pass: due after its pass day at the soonest?
            pass_day = self.pass_day(item_id)
            if stability < self._reaches(day, pass_day - day + 1):
                return False
            counted = (day, pass_day)
        elif day > self.first_pass_day and day > (pass_day := self.pass_day(item_id)):
            counted = (pass_day,)  # due after its pass day: the pass brings it back then
        else:
            return False
        # The pass day's look is the last when it leaves the card due past the deadline.
        if stability < self._reaches(pass_day, self.deadline_day - pass_day):
            return False
        for when in counted:
            tally[when] += 1
        return True

    def simulate_new(self, *, start_us: int, pass_day: int, counts: Counter[int]) -> None:
        """Count the reviews of an item first met at ``start_us`` into ``counts``.

        Args:
            start_us: When it is first studied (epoch microseconds).
            pass_day: Its day in the final pass (an epoch day).
            counts: Reviews by epoch day.
        """
        self._scheduler_steps(new_card("new"), start_us, start_us, pass_day, counts)

    def _scheduler_steps(
        self,
        current: CardRecord,
        moment: int,
        start_us: int,
        pass_day: int | None,
        tally: Counter[int],
    ) -> None:
        """Steps through the scheduler itself, until the card is a plain review card."""
        for reviews in range(_MAX_SIMULATED_REVIEWS):
            last = None if current.last_review is None else epoch_us(current.last_review)
            stability, difficulty = current.stability_days, current.difficulty
            if (
                current.state is CardState.REVIEW
                and stability is not None
                and difficulty is not None
                and last is not None
                and last <= moment
            ):
                self._review_steps(
                    current.item_id,
                    (stability, difficulty, last, moment),
                    reviews,
                    start_us,
                    pass_day,
                    tally,
                )
                return
            if last is not None and last < self.pass_start_us:
                if moment // DAY_US > self.first_pass_day:
                    if pass_day is None:
                        pass_day = self.pass_day(current.item_id)
                    if moment // DAY_US > pass_day:
                        # The final pass offers it on its own day (study/deadline.py).
                        moment = max(start_us, pass_day * DAY_US + _STUDY_HOUR_US)
            day = moment // DAY_US
            if day >= self.deadline_day:
                return
            tally[day] += 1
            current = review_card(current, Rating.GOOD, now=_moment(moment), settings=self.settings)
            assert current.due is not None
            moment = epoch_us(current.due)

    def _review_steps(
        self,
        item_id: str,
        numbers: tuple[float, float, int, int],
        reviews: int,
        start_us: int,
        pass_day: int | None,
        tally: Counter[int],
    ) -> None:
        """The loop of :meth:`_scheduler_steps` for a review card, on plain numbers.

        Args:
            item_id: The card's item.
            numbers: Stability (days), difficulty, last review and next review (epoch µs).
            reviews: Reviews already simulated.
            start_us: When the forecast starts.
            pass_day: The card's final-pass day, or None to find it when needed.
            tally: Reviews by epoch day.
        """
        stability, difficulty, last, moment = numbers
        first_pass_day, deadline_day = self.first_pass_day, self.deadline_day
        pass_start_us, steps = self.pass_start_us, self._steps
        # A review counted whose stability and difficulty are worked out only if a
        # later step needs them: (its day's step, the days elapsed before it).
        pending: tuple[_GoodReview, int] | None = None
        for _ in range(reviews, _MAX_SIMULATED_REVIEWS):
            day = moment // DAY_US
            if last < pass_start_us and day > first_pass_day:
                if pass_day is None:
                    pass_day = self.pass_day(item_id)
                if day > pass_day:
                    moment = max(start_us, pass_day * DAY_US + _STUDY_HOUR_US)
                    day = moment // DAY_US
            if day >= deadline_day:
                return
            tally[day] += 1
            step = steps.get(day) or self._step(day)
            # `stability` is at most the card's now (Good never lowers it), so this
            # is at most the interval after this review (see _GoodReview.interval).
            soonest = moment + step.interval(stability) * DAY_US
            if moment >= pass_start_us:
                if soonest // DAY_US >= deadline_day:
                    return  # its last look before the deadline
            elif pending is None and soonest // DAY_US > first_pass_day:
                if pass_day is None:
                    pass_day = self.pass_day(item_id)
                if soonest // DAY_US > pass_day:
                    # Due after its pass day at the soonest: the pass brings it back
                    # then, whatever this review's outcome.
                    pending = (step, (moment - last) // DAY_US)
                    last, moment = moment, soonest
                    continue
            if pending is not None:
                earlier, elapsed = pending
                stability, difficulty, _ = earlier.after(stability, difficulty, elapsed)
                pending = None
            stability, difficulty, interval_days = step.after(
                stability, difficulty, (moment - last) // DAY_US
            )
            last, moment = moment, moment + interval_days * DAY_US


def _record(card: ForecastCard) -> CardRecord:
    """The stored form of a card given as numbers (reps and lapses do not schedule)."""
    item_id, state, step, stability, difficulty, due, last = card
    return CardRecord(
        item_id=item_id,
        state=CardState(state),
        step=step,
        stability_days=stability,
        difficulty=difficulty,
        due=None if due is None else _moment(due),
        last_review=None if last is None else _moment(last),
        reps=0,
        lapses=0,
        never_seen=False,
    )


def _pass_shares(batch: int, *, deadline: date, today: date) -> list[tuple[date, int]]:
    """``batch`` new items split evenly over the final-pass days left from ``today``."""
    first = max(today, deadline - timedelta(days=FINAL_PASS_DAYS))
    days = [first + timedelta(days=n) for n in range((deadline - first).days)]
    if not days:
        return []
    whole, extra = divmod(batch, len(days))
    shares = [(day, whole + (1 if n < extra else 0)) for n, day in enumerate(days)]
    return [(day, share) for day, share in shares if share]


def no_days_left(deadline: date | None, *, today: date) -> str:
    """Why there is no workload to plan (no deadline, or one today or past), and what to do."""
    fix = "Set the next one with `sysdrill settings set deadline YYYY-MM-DD`"
    off = "or turn deadline mode off with `sysdrill settings set deadline none`."
    if deadline is None:
        return f"No deadline set. {fix}."
    if deadline == today:
        return (
            f"The deadline {deadline.isoformat()} is today: no days are left to plan. {fix}, {off}"
        )
    ago = (today - deadline).days
    return (
        f"The deadline {deadline.isoformat()} has passed ({ago} day{'s' if ago != 1 else ''} ago). "
        f"{fix}, {off}"
    )


def expected_workload(
    cards: Sequence[CardRecord],
    *,
    unseen: int,
    settings: StudySettings,
    now: datetime,
    introduced_today: int = 0,
    pass_marks: Mapping[str, int] | None = None,
) -> list[DayWorkload]:
    """Expected reviews and new items per UTC day from today to the eve of the deadline.

    Args:
        cards: The learner's cards in scope.
        unseen: Items in scope never studied, introduced at ``new_per_day``.
        settings: Settings with a deadline.
        now: Current time (UTC); today's overdue items count today.
        introduced_today: New items already introduced today, which today's
            ``new_per_day`` allowance has spent (as practice's banner counts them).
        pass_marks: :func:`~sysdrill.study.deadline.final_pass_marks` of items,
            kept from an earlier forecast (each item's final-pass day is then
            found without hashing its id); the others are hashed.

    Returns:
        One entry per day from today to the day before the deadline.

    Raises:
        SchedulingError: If no deadline is set or it is not after today.
    """
    figures = [forecast_card(card) for card in cards if card.state is not CardState.NEW]
    return _workload(figures, unseen, settings, now, introduced_today, pass_marks or {})


def workload_of_items(
    store: StudyStore,
    scope: StudyScope,
    item_ids: Collection[str],
    *,
    settings: StudySettings,
    now: datetime,
    introduced_today: int,
    pass_marks: Mapping[str, int] | None = None,
) -> list[DayWorkload]:
    """Expected reviews and new items per day over the items ``item_ids``, until the deadline.

    The cards of those items, and those never studied introduced at the daily
    pace: what the deadline commands and pages show.

    Args:
        store: The learner's study store.
        scope: The learner and the vault.
        item_ids: The items in scope.
        settings: Settings with a deadline.
        now: Current time (UTC).
        introduced_today: New items already introduced today (see :func:`expected_workload`).
        pass_marks: Kept final-pass marks of items (see :func:`expected_workload`).

    Raises:
        SchedulingError: If no deadline is set or it is not after today.
    """
    cards = [card for card in store.forecast_cards(scope) if card[0] in item_ids]
    seen = {card[0] for card in cards}
    # Every seen id is one of item_ids: the rest are unseen, counted without a loop
    # over the 100,000 ids of a large vault.
    distinct = item_ids if isinstance(item_ids, AbstractSet) else set(item_ids)
    unseen = len(distinct) - len(seen)
    return _workload(cards, unseen, settings, now, introduced_today, pass_marks or {})


def _workload(
    cards: Sequence[ForecastCard],
    unseen: int,
    settings: StudySettings,
    now: datetime,
    introduced_today: int,
    pass_marks: Mapping[str, int],
) -> list[DayWorkload]:
    moment = require_utc(now)
    if days_left(settings, now=moment) is None:
        raise SchedulingError(no_days_left(settings.deadline, today=moment.date()))
    assert settings.deadline is not None
    deadline = settings.deadline
    # Fuzz draws random intervals: without it the same state and date give the same plan.
    settings = settings.with_changes(fuzz=False)
    forecast = _Forecast(settings, now=moment, deadline=deadline, pass_marks=pass_marks)
    start_us = epoch_us(moment)
    forecast.simulate_cards(cards, start_us=start_us)
    # Identical new cards follow identical schedules without fuzz: simulate one
    # per introduction day and final-pass day, weighted by the items of the
    # day's batch that the pass offers on that day (it spreads them evenly).
    counts = forecast.counts
    new_counts: dict[date, int] = {}
    remaining = unseen
    today = moment.date()
    day = today
    while day < deadline and remaining > 0 and settings.new_per_day > 0:
        spent = introduced_today if day == today else 0
        batch = min(max(0, settings.new_per_day - spent), remaining)
        if batch == 0:
            day += timedelta(days=1)
            continue
        new_counts[day] = batch
        start = start_us if day == today else epoch_day(day) * DAY_US + _STUDY_HOUR_US
        for pass_day, share in _pass_shares(batch, deadline=deadline, today=today):
            one: Counter[int] = Counter()
            forecast.simulate_new(start_us=start, pass_day=epoch_day(pass_day), counts=one)
            for when, count in one.items():
                counts[when] += count * share
        remaining -= batch
        day += timedelta(days=1)
    first = epoch_day(today)
    return [
        DayWorkload(
            today + timedelta(days=offset),
            counts.get(first + offset, 0),
            new_counts.get(today + timedelta(days=offset), 0),
        )
        for offset in range((deadline - today).days)
    ]
