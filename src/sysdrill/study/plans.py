"""Study plans: a curated run of new items over a fixed number of days.

A plan names the decks and topics it covers, how many days it lasts and how many new
items it introduces a day. Its items are ordered by the taxonomy's prerequisite graph
(topics that others build on first) and then by level, so a learner meets recall
before architecture. The plan itself lives in the vault's ``plans.yaml``
(``content/plans.py``); which plan a learner follows, and since when, is stored with
their sessions (see ``app/plans.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from sysdrill.content.collections import Deck
from sysdrill.content.enums import Level
from sysdrill.content.models import Item
from sysdrill.content.plans import PlanOrder, StudyPlan, level_rank
from sysdrill.study.sessions.selection import studyable

__all__ = [
    "ActivePlan",
    "PlanProgress",
    "order_plan_items",
    "teaching_rank",
    "plan_progress",
    "scheduled_new_items",
    "teaching_order",
    "topic_depths",
]


@dataclass(frozen=True, slots=True)
class ActivePlan:
    """The plan a learner follows: which one, since when, and how it orders items."""

    name: str
    started_on: date
    """UTC day the plan started (its day 1)."""
    adaptive: bool = False
    """Whether the learner's weakest topics come first."""

    def day(self, today: date) -> int:
        """Day of the plan ``today`` is, from 1 (may pass the plan's length)."""
        return max(1, (today - self.started_on).days + 1)

    def to_meta(self) -> dict[str, Any]:
        """JSON-ready form (stored in the plan's session record)."""
        return {
            "plan": self.name,
            "started_on": self.started_on.isoformat(),
            "adaptive": self.adaptive,
        }

    @classmethod
    def from_meta(cls, meta: Mapping[str, Any]) -> ActivePlan:
        """Read :meth:`to_meta` output back."""
        return cls(
            name=str(meta["plan"]),
            started_on=date.fromisoformat(str(meta["started_on"])),
            adaptive=bool(meta.get("adaptive", False)),
        )


@dataclass(frozen=True, slots=True)
class PlanProgress:
    """Where a learner stands in their plan on one day."""

    plan: StudyPlan
    active: ActivePlan
    day: int
    """Day of the plan, from 1."""
    ends_on: date
    """Last day of the plan."""
    items_total: int
    """Items the plan covers."""
    items_seen: int
    """Plan items reviewed at least once."""
    scheduled_by_today: int
    """Plan items that should have been introduced by the end of today."""
    new_allowed_today: int = 0
    """New items the ``new_per_day`` setting still allows today (items already met
    for the first time today, in the plan or not, have spent it)."""
    next_item_ids: list[str] = field(default_factory=list)
    """The next new items the plan will introduce, in order."""

    @property
    def behind(self) -> int:
        """Items still to introduce to keep up (0 when on time or ahead)."""
        return max(0, self.scheduled_by_today - self.items_seen)

    @property
    def new_left_today(self) -> int:
        """New items practice introduces today: the plan's pace within the daily setting.

        The one figure the plan's banner shows and practice's new-item limit uses.
        """
        return min(self.behind, self.new_allowed_today)

    @property
    def new_left_note(self) -> str | None:
        """Why :attr:`new_left_today` is less than the plan's pace asks, or None.

        Plain words (no command, no setting key): the terminal and the browser show it.
        """
        if self.behind > self.new_allowed_today:
            return (
                f"the plan asks for {self.behind} more, "
                f"but the new items per day setting allows {self.new_allowed_today} more today"
            )
        if self.behind == 0 and self.items_seen < self.items_total:
            return "you are on the plan's pace; its next items come tomorrow"
        return None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "plan": self.plan.name,
            "title": self.plan.title,
            "started_on": self.active.started_on.isoformat(),
            "ends_on": self.ends_on.isoformat(),
            "adaptive": self.active.adaptive,
            "day": self.day,
            "days": self.plan.days,
            "items_total": self.items_total,
            "items_seen": self.items_seen,
            "scheduled_by_today": self.scheduled_by_today,
            "behind": self.behind,
            "new_allowed_today": self.new_allowed_today,
            "new_left_today": self.new_left_today,
            "new_left_note": self.new_left_note,
            "next_item_ids": self.next_item_ids,
        }


def topic_depths(prerequisites: Mapping[str, Iterable[str]]) -> dict[str, int]:
    """Depth of every topic in the prerequisite graph: 0 for a root, else 1 + deepest need.

    A cycle (which ``check`` reports) is cut where it is met, so every topic gets a depth.
    """
    depths: dict[str, int] = {}
    visiting: set[str] = set()

    def depth(topic: str) -> int:
        if topic in depths:
            return depths[topic]
        if topic in visiting:
            return 0
        visiting.add(topic)
        needs = [depth(n) + 1 for n in prerequisites.get(topic, ()) if n in prerequisites]
        visiting.discard(topic)
        depths[topic] = max(needs, default=0)
        return depths[topic]

    for topic in prerequisites:
        depth(topic)
    return depths


def teaching_rank(
    prerequisites: Mapping[str, Iterable[str]],
    *,
    order: PlanOrder = PlanOrder.PREREQUISITES,
    weakest_topics: Sequence[str] = (),
) -> Callable[[str | None, str | None], int]:
    """The sort key of :func:`teaching_order`, from an item's topic and level alone.

    Callers holding only an index of items (not the items) sort by it the same way;
    a stable sort keeps vault order among equal keys.
    """
    depths = topic_depths(prerequisites)
    unknown_depth = max(depths.values(), default=0) + 1
    weak_rank = {topic: rank for rank, topic in enumerate(weakest_topics)}
    levels = len(Level) + 1  # level_rank: 0 for L1 .. len(Level) for no level
    by_depth_first = order is PlanOrder.PREREQUISITES
    depth_span = unknown_depth + 1
    topic_rank: dict[str | None, int] = {}

    def rank_of(topic: str | None) -> int:
        depth = depths.get(topic or "", unknown_depth)
        return weak_rank.get(topic or "", len(weak_rank)) * depth_span + depth

    def key(topic: str | None, level: str | None) -> int:
        # One integer per item (a vault may hold 100,000): weakness, then the two
        # criteria in the order asked.
        rank = topic_rank.get(topic)
        if rank is None:
            rank = topic_rank[topic] = rank_of(topic)
        weak, depth = divmod(rank, depth_span)
        position = level_rank(None if level is None else Level(level))
        if by_depth_first:
            return (weak * depth_span + depth) * levels + position
        return (weak * levels + position) * depth_span + depth

    return key


def teaching_order(
    items: Sequence[Item],
    prerequisites: Mapping[str, Iterable[str]],
    *,
    order: PlanOrder = PlanOrder.PREREQUISITES,
    weakest_topics: Sequence[str] = (),
) -> list[Item]:
    """``items`` in the order a learner should meet them: the one rule for new items.

    Topics others build on come first (their depth in the prerequisite graph), then
    level L1 to L6+ (``order`` may swap the two), then the position in ``items``, so
    the order is stable. Topics the taxonomy does not know come after every known one.

    Args:
        items: The items, in vault order (the last tie-break).
        prerequisites: Topic id to the topics it builds on (``taxonomy.yaml``).
        order: Whether prerequisite depth or level decides first.
        weakest_topics: Topics to put first, weakest first (a plan's adaptive option);
            the rest of the order holds within each.
    """
    key = teaching_rank(prerequisites, order=order, weakest_topics=weakest_topics)
    return sorted(items, key=lambda item: key(item.topic, item.level))


def order_plan_items(
    plan: StudyPlan,
    items: Sequence[Item],
    decks: Sequence[Deck],
    prerequisites: Mapping[str, Iterable[str]],
    *,
    weakest_topics: Sequence[str] = (),
) -> list[Item]:
    """The plan's items in the order it introduces them (:func:`teaching_order`).

    Args:
        plan: The plan.
        items: The vault's items, in vault order (the last tie-break).
        decks: The vault's decks (for ``plan.decks``).
        prerequisites: Topic id to the topics it builds on.
        weakest_topics: Topics to put first, weakest first (the adaptive option);
            prerequisite and level order hold within each.
    """
    members: dict[str, set[str]] = {deck.name: set(deck.items) for deck in decks}
    for item in items:
        if item.deck:
            members.setdefault(item.deck, set()).add(item.id)
    covered = [i for i in studyable(items) if plan.covers(i, members)]
    return teaching_order(covered, prerequisites, order=plan.order, weakest_topics=weakest_topics)


def scheduled_new_items(
    progress: PlanProgress, ordered: Sequence[Item], seen: set[str]
) -> list[Item]:
    """The unseen plan items practice introduces today: the first ``new_left_today``.

    The plan introduces ``new_per_day`` items a day; a learner who skipped a day
    catches up (as far as the daily setting allows), one who ran ahead gets nothing
    new until the plan catches up.

    Args:
        progress: Where the learner stands today (:func:`plan_progress`).
        ordered: The plan's items in the order it introduces them.
        seen: Ids of the items the learner has reviewed.
    """
    unseen = [item for item in ordered if item.id not in seen]
    return unseen[: progress.new_left_today]


def plan_progress(
    plan: StudyPlan,
    active: ActivePlan,
    ordered: Sequence[Item],
    seen: set[str],
    *,
    today: date,
    new_allowed_today: int,
    preview: int = 5,
) -> PlanProgress:
    """Where the learner stands in ``plan`` on ``today``.

    Args:
        plan: The plan.
        active: The learner's run of it (start day).
        ordered: The plan's items in the order it introduces them.
        seen: Ids of the items the learner has reviewed.
        today: The UTC day.
        new_allowed_today: New items the ``new_per_day`` setting still allows today.
        preview: How many of the next new items to list.
    """
    day = active.day(today)
    unseen = [str(item.id) for item in ordered if item.id not in seen]
    return PlanProgress(
        plan=plan,
        active=active,
        day=day,
        ends_on=active.started_on + timedelta(days=plan.days - 1),
        items_total=len(ordered),
        items_seen=len(ordered) - len(unseen),
        scheduled_by_today=min(len(ordered), plan.new_per_day * day),
        new_allowed_today=max(0, new_allowed_today),
        next_item_ids=unseen[:preview],
    )
