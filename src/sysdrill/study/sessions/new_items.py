"""How many new items a session may introduce: the daily limit and the session's own.

A new item is one the learner has never reviewed. ``new_per_day`` (a setting) caps
how many practice introduces in a UTC day, counted from the review log across every
session of that day; ``--new N`` caps one session further. A quiz and the daily set
are explicit requests: the day's limit does not thin them, only their own ``--new N``
(``session_cap``) does (``study/sessions/lineups.py``). Reviews of items already seen
are not limited here (``reviews_per_day`` is applied where due items are chosen).

A "next in chain" offer can bring in an item the plan did not hold; when that item
is new, it spends the same allowance (:class:`ChainNewLimit`): once the plan's new
items and the new items taken from chains reach it, a new next item is not offered.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Protocol

from sysdrill.content.models import Item
from sysdrill.study.clock import require_utc

__all__ = [
    "ChainNewLimit",
    "NewItemAllowance",
    "NewItemCounter",
    "chain_new_limit",
    "hold_back_new",
    "new_item_allowance",
]


@dataclass(frozen=True, slots=True)
class NewItemAllowance:
    """New items allowed now, from the daily limit, today's log and the session's cap."""

    per_day: int
    """The ``new_per_day`` setting: new items per UTC day at most."""
    done_today: int
    """New items already introduced today (reviews of never-seen items in the log)."""
    session_cap: int | None = None
    """The session's own limit (``--new N``), or None for none."""
    plan_left: int | None = None
    """New items the active study plan introduces today (its banner's figure), or None."""

    @property
    def left_today(self) -> int:
        """New items the day still allows, whatever the session's cap."""
        left = max(0, self.per_day - self.done_today)
        return left if self.plan_left is None else min(left, max(0, self.plan_left))

    def within_plan(self, plan_left: int) -> NewItemAllowance:
        """This allowance, with the active plan's figure for the day as a further cap."""
        return replace(self, plan_left=plan_left)

    def _plan_binds(self) -> bool:
        return self.plan_left is not None and self.plan_left < self.per_day - self.done_today

    @property
    def for_session(self) -> int:
        """New items this session may introduce."""
        left = self.left_today
        return left if self.session_cap is None else min(left, max(0, self.session_cap))

    def left_after(self, introduced: int) -> int:
        """New items the day still allows once ``introduced`` more are seen."""
        return max(0, self.left_today - introduced)

    def none_left_message(self) -> str:
        """What practice says when nothing is due and no new item is allowed."""
        why = f"{self.per_day} new items a day, {self.done_today} new today"
        if self._plan_binds():
            why = f"your study plan introduces no more new items today, {self.done_today} new today"
        if self.session_cap is not None and self.session_cap <= 0:
            why += "; this session takes no new item"
        # Words a browser and a terminal both read: no command, no setting's key.
        return (
            f"Nothing to practise now: no item is due and no new item is allowed ({why}). "
            "Come back tomorrow, or raise the new items per day in the settings."
        )

    def held_note(self, held: int) -> str | None:
        """Why ``held`` new items were left out of the session (None when none were)."""
        if held <= 0:
            return None
        # When the session's cap and the day's both bind, the cap the learner chose is named.
        if self.session_cap is not None and self.session_cap <= self.left_today:
            return f"{held} new item(s) left out: this session takes {self.session_cap} new"
        if self._plan_binds():
            return (
                f"{held} new item(s) left for another day: "
                "your study plan's new items for today are used up"
            )
        return (
            f"{held} new item(s) left for another day: today's {self.per_day} new items "
            "are used up (new items per day, in the settings)"
        )


def hold_back_new(
    items: Sequence[Item], *, is_new: Callable[[Item], bool], allowed: int
) -> tuple[list[Item], int]:
    """Keep ``items`` in order with at most ``allowed`` new ones among them.

    Returns:
        The items kept, and how many new items were left out.
    """
    kept: list[Item] = []
    held = 0
    for item in items:
        if is_new(item):
            if allowed <= 0:
                held += 1
                continue
            allowed -= 1
        kept.append(item)
    return kept, held


class NewItemCounter(Protocol):
    """What counts today's new items (``StudyService`` does, from the vault's day counters)."""

    def new_items_today(self, now: datetime) -> int:
        """Items met for the first time on ``now``'s UTC day."""
        ...


def new_item_allowance(
    counter: NewItemCounter,
    *,
    per_day: int,
    now: datetime,
    session_cap: int | None = None,
) -> NewItemAllowance:
    """The allowance on ``now``'s UTC day, counting the new items already met today.

    Args:
        counter: The learner's study service in the vault studied.
        per_day: The ``new_per_day`` setting.
        now: Current time (UTC).
        session_cap: The session's own limit (``--new N``), or None.
    """
    done = counter.new_items_today(require_utc(now))
    return NewItemAllowance(per_day=per_day, done_today=done, session_cap=session_cap)


@dataclass(frozen=True, slots=True)
class ChainNewLimit:
    """How many new items "next in chain" offers may add to a session.

    Fixed when the session is planned and saved with it, so a session rebuilt
    from its moves makes the same offers.
    """

    new_ids: frozenset[str]
    """Chain members that were new (never reviewed) when the session was planned."""
    extra: int
    """New items the offers may add: the session's allowance less the plan's new items."""
    held_ids: frozenset[str] = frozenset()
    """Chain members suspended or buried when the session was planned: never offered."""

    def may_offer(self, item_id: str, *, queue: Sequence[Item], planned: Sequence[Item]) -> bool:
        """Whether ``item_id`` may be offered next: not held back, within the new-item allowance.

        Args:
            item_id: The chain's next item.
            queue: The session's items so far (the plan's and those taken from chains).
            planned: The items the session was planned with.
        """
        if item_id in self.held_ids:
            return False
        if item_id not in self.new_ids:
            return True
        queued = {item.id for item in queue}
        if item_id in queued:
            return True  # taking it only moves it forward: no new item is added
        taken = len(queued.difference(item.id for item in planned) & self.new_ids)
        return taken < self.extra

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping (stored with a session in progress)."""
        return {
            "new_ids": sorted(self.new_ids),
            "extra": self.extra,
            "held_ids": sorted(self.held_ids),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ChainNewLimit:
        """Rebuild a limit stored by :meth:`to_dict` (sessions saved before held ids: none)."""
        return cls(
            frozenset(str(i) for i in data.get("new_ids", ())),
            int(data.get("extra", 0)),
            frozenset(str(i) for i in data.get("held_ids", ())),
        )


def chain_new_limit(
    members: Iterable[str],
    *,
    is_new: Callable[[str], bool],
    allowance: NewItemAllowance,
    planned_new: int,
    held_ids: Collection[str] = frozenset(),
) -> ChainNewLimit:
    """The limit on new items chain offers may add to a session.

    Args:
        members: Ids of the items that belong to a chain.
        is_new: Whether an item id was never reviewed.
        allowance: The session's new-item allowance.
        planned_new: New items the plan already holds.
        held_ids: Items suspended or buried now (those that are chain members are kept).
    """
    listed = list(members)
    return ChainNewLimit(
        new_ids=frozenset(item_id for item_id in listed if is_new(item_id)),
        extra=max(0, allowance.for_session - planned_new),
        held_ids=frozenset(item_id for item_id in listed if item_id in held_ids),
    )
