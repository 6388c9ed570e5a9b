"""Study plans: a curated run of new items over a fixed number of days.

A plan names the decks and topics it covers, how many days it lasts and how many new
items it introduces a day. Its items are ordered by the taxonomy's prerequisite graph
(topics that others build on first) and then by level, so a learner meets recall
before architecture. The plan itself lives in the vault's ``plans.yaml``; which plan
a learner follows, and since when, is stored with their sessions (see
``app/plans.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from enum import StrEnum
from pathlib import Path
from typing import Any

from sysdrill.content.collections import Deck
from sysdrill.content.enums import Level
from sysdrill.content.models import Item
from sysdrill.errors import ContentInvalid
from sysdrill.study.sessions.selection import studyable

__all__ = [
    "PLANS_FILE",
    "ActivePlan",
    "PlanOrder",
    "PlanProgress",
    "StudyPlan",
    "load_plans",
    "load_prerequisites",
    "order_plan_items",
    "plan_progress",
    "scheduled_new_items",
    "topic_depths",
]

PLANS_FILE = "plans.yaml"
"""The file of a vault's root that holds its plans."""

_LEVEL_RANK = {level: rank for rank, level in enumerate(Level)}


def _level_rank(level: Level | None) -> int:
    """Rank of a level, L1 first; an item without a level sorts after L6+."""
    return len(_LEVEL_RANK) if level is None else _LEVEL_RANK[level]


class PlanOrder(StrEnum):
    """How a plan orders its new items."""

    PREREQUISITES = "prerequisites"
    """Topics others build on first, then level within a topic depth."""
    LEVEL = "level"
    """All L1 items first, then L2, and so on; topic depth within a level."""


@dataclass(frozen=True, slots=True)
class StudyPlan:
    """One curated plan of ``plans.yaml``."""

    name: str
    title: str
    days: int
    """Length of the plan, in days (the end date is the start plus this)."""
    new_per_day: int
    """New items the plan introduces per day."""
    description: str = ""
    decks: tuple[str, ...] = ()
    """Decks whose items the plan covers (with ``topics``: either matches)."""
    topics: tuple[str, ...] = ()
    """Topics whose items the plan covers; with no decks and no topics, every item."""
    max_level: Level | None = None
    """Highest level the plan includes, or None for all."""
    order: PlanOrder = PlanOrder.PREREQUISITES

    @property
    def budget(self) -> int:
        """New items the whole plan can introduce (days x daily budget)."""
        return self.days * self.new_per_day

    def covers(self, item: Item, deck_members: Mapping[str, set[str]]) -> bool:
        """Whether ``item`` belongs to the plan (by deck, topic and level)."""
        if self.max_level is not None and _level_rank(item.level) > _level_rank(self.max_level):
            return False
        if not self.decks and not self.topics:
            return True
        if item.topic in self.topics:
            return True
        return any(item.id in deck_members.get(deck, set()) for deck in self.decks)


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
    next_item_ids: list[str] = field(default_factory=list)
    """The next new items the plan will introduce, in order."""

    @property
    def behind(self) -> int:
        """Items still to introduce to keep up (0 when on time or ahead)."""
        return max(0, self.scheduled_by_today - self.items_seen)

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
            "next_item_ids": self.next_item_ids,
        }


def _strings(value: Any, where: str, problems: list[str]) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        problems.append(f"{where} must be a list of names")
        return ()
    return tuple(value)


def _plan(raw: Any, index: int, problems: list[str]) -> StudyPlan | None:
    where = f"plans[{index}]"
    if not isinstance(raw, dict):
        problems.append(f"{where} must be a mapping")
        return None
    name, title = raw.get("name"), raw.get("title")
    days, new_per_day = raw.get("days"), raw.get("new_per_day")
    before = len(problems)
    if not isinstance(name, str) or not name:
        problems.append(f"{where}.name must be a non-empty string")
    if not isinstance(title, str) or not title:
        problems.append(f"{where}.title must be a non-empty string")
    for key, value in (("days", days), ("new_per_day", new_per_day)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            problems.append(f"{where}.{key} must be a whole number of 1 or more")
    max_level: Level | None = None
    if raw.get("max_level") is not None:
        try:
            max_level = Level(str(raw["max_level"]))
        except ValueError:
            problems.append(f"{where}.max_level must be one of {', '.join(Level)}")
    order = PlanOrder.PREREQUISITES
    if raw.get("order") is not None:
        try:
            order = PlanOrder(str(raw["order"]))
        except ValueError:
            problems.append(f"{where}.order must be one of {', '.join(PlanOrder)}")
    decks = _strings(raw.get("decks"), f"{where}.decks", problems)
    topics = _strings(raw.get("topics"), f"{where}.topics", problems)
    if len(problems) > before:
        return None
    assert isinstance(name, str) and isinstance(title, str)
    assert isinstance(days, int) and isinstance(new_per_day, int)
    return StudyPlan(
        name=name,
        title=title,
        days=days,
        new_per_day=new_per_day,
        description=str(raw.get("description") or ""),
        decks=decks,
        topics=topics,
        max_level=max_level,
        order=order,
    )


def load_plans(root: Path) -> list[StudyPlan]:
    """Read the plans of the vault at ``root`` (none when it has no ``plans.yaml``).

    Raises:
        ContentInvalid: Naming every problem of the file at once.
    """
    import yaml

    path = root / PLANS_FILE
    if not path.is_file():
        return []
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ContentInvalid(f"{path}: cannot be read as YAML: {exc}") from exc
    raw_plans = data.get("plans") if isinstance(data, dict) else None
    if not isinstance(raw_plans, list):
        raise ContentInvalid(f"{path}: expected a top-level `plans:` list.")
    problems: list[str] = []
    plans = [p for i, raw in enumerate(raw_plans) if (p := _plan(raw, i, problems)) is not None]
    names = [p.name for p in plans]
    problems += [
        f"plan name {n!r} is used twice" for n in sorted({n for n in names if names.count(n) > 1})
    ]
    if problems:
        raise ContentInvalid(f"{path}: " + "; ".join(problems) + ".")
    return plans


def load_prerequisites(root: Path) -> dict[str, tuple[str, ...]]:
    """Topic id to the topic ids it builds on, from the vault's ``taxonomy.yaml``."""
    import yaml

    path = root / "taxonomy.yaml"
    if not path.is_file():
        return {}
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ContentInvalid(f"{path}: cannot be read as YAML: {exc}") from exc
    topics = data.get("topics") if isinstance(data, dict) else None
    found: dict[str, tuple[str, ...]] = {}
    for topic in topics if isinstance(topics, list) else []:
        if isinstance(topic, dict) and isinstance(topic.get("id"), str):
            needs = topic.get("prerequisites") or []
            found[topic["id"]] = tuple(str(n) for n in needs if isinstance(n, str))
    return found


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


def order_plan_items(
    plan: StudyPlan,
    items: Sequence[Item],
    decks: Sequence[Deck],
    prerequisites: Mapping[str, Iterable[str]],
    *,
    weakest_topics: Sequence[str] = (),
) -> list[Item]:
    """The plan's items in the order it introduces them.

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
    depths = topic_depths(prerequisites)
    unknown_depth = max(depths.values(), default=0) + 1
    weak_rank = {topic: rank for rank, topic in enumerate(weakest_topics)}
    position = {item.id: index for index, item in enumerate(items)}

    def key(item: Item) -> tuple[int, int, int, int]:
        depth = depths.get(item.topic or "", unknown_depth)
        level = _level_rank(item.level)
        weak = weak_rank.get(item.topic or "", len(weak_rank))
        first, second = (depth, level) if plan.order is PlanOrder.PREREQUISITES else (level, depth)
        return (weak, first, second, position[item.id])

    return sorted((i for i in studyable(items) if plan.covers(i, members)), key=key)


def scheduled_new_items(
    plan: StudyPlan, ordered: Sequence[Item], seen: set[str], *, day: int
) -> list[Item]:
    """Unseen plan items due to be introduced by the end of plan day ``day``.

    The plan introduces ``new_per_day`` items a day; a learner who skipped a day
    catches up, one who ran ahead gets nothing new until the plan catches up.
    """
    scheduled = min(len(ordered), plan.new_per_day * max(1, day))
    seen_count = sum(1 for item in ordered if item.id in seen)
    allowed = max(0, scheduled - seen_count)
    unseen = [item for item in ordered if item.id not in seen]
    return unseen[:allowed]


def plan_progress(
    plan: StudyPlan,
    active: ActivePlan,
    ordered: Sequence[Item],
    seen: set[str],
    *,
    today: date,
    preview: int = 5,
) -> PlanProgress:
    """Where the learner stands in ``plan`` on ``today`` (``preview``: next items listed)."""
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
        next_item_ids=unseen[:preview],
    )
