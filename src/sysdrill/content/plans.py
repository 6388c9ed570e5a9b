"""Study plans as vault data: the ``plans.yaml`` file of a vault, read and validated.

A plan names the decks and topics it covers, how many days it lasts and how many new
items it introduces a day, and how its items are ordered. The scheduling that follows
a plan is in ``study/plans.py``; ``check`` validates the file (``check/rules_plans.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from sysdrill.content.enums import Level
from sysdrill.content.models import Item
from sysdrill.errors import ContentInvalid

__all__ = [
    "PLANS_FILE",
    "PlanOrder",
    "StudyPlan",
    "level_rank",
    "load_plans",
    "load_prerequisites",
]

PLANS_FILE = "plans.yaml"
"""The file of a vault's root that holds its plans."""

_LEVEL_RANK = {level: rank for rank, level in enumerate(Level)}


def level_rank(level: Level | None) -> int:
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
        if self.max_level is not None and level_rank(item.level) > level_rank(self.max_level):
            return False
        if not self.decks and not self.topics:
            return True
        if item.topic in self.topics:
            return True
        return any(item.id in deck_members.get(deck, set()) for deck in self.decks)


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
