"""Study plans as data: reading plans.yaml, prerequisite and level order, the daily schedule."""

from __future__ import annotations

from datetime import date
from types import SimpleNamespace

import pytest

from sysdrill.content.enums import Level
from sysdrill.content.loader import Vault, load_vault
from sysdrill.content.models import Item
from sysdrill.content.plans import PlanOrder, StudyPlan, load_prerequisites
from sysdrill.content.sample import starter_vault_path
from sysdrill.study.plans import (
    ActivePlan,
    order_plan_items,
    plan_progress,
    scheduled_new_items,
    teaching_order,
    topic_depths,
)

LEVELS = list(Level)


@pytest.fixture(scope="module")
def starter() -> Vault:
    return load_vault(starter_vault_path())


@pytest.fixture(scope="module")
def prerequisites() -> dict[str, tuple[str, ...]]:
    return load_prerequisites(starter_vault_path())


def _plan(**changes: object) -> StudyPlan:
    values: dict[str, object] = {"name": "p", "title": "P", "days": 3, "new_per_day": 2}
    values.update(changes)
    return StudyPlan(**values)  # type: ignore[arg-type]


def test_topic_depth_counts_the_longest_prerequisite_path() -> None:
    depths = topic_depths({"a": (), "b": ("a",), "c": ("b", "a"), "d": ("a",)})
    assert depths == {"a": 0, "b": 1, "c": 2, "d": 1}


def test_topic_depth_cuts_a_cycle_instead_of_recursing_forever() -> None:
    depths = topic_depths({"a": ("b",), "b": ("a",)})
    assert set(depths) == {"a", "b"}
    assert sorted(depths.values()) == [1, 2]


def test_prerequisite_order_never_puts_a_topic_before_what_it_builds_on(
    starter: Vault, prerequisites: dict[str, tuple[str, ...]]
) -> None:
    ordered = order_plan_items(_plan(), starter.items, starter.decks, prerequisites)
    first_seen: dict[str, int] = {}
    for index, item in enumerate(ordered):
        first_seen.setdefault(str(item.topic), index)
    late = [
        (topic, need)
        for topic, needs in prerequisites.items()
        for need in needs
        if topic in first_seen and first_seen[need] > first_seen[topic]
    ]
    assert late == []
    assert len(ordered) == len(starter.items)


def test_level_order_gives_every_l1_item_before_any_l2(
    starter: Vault, prerequisites: dict[str, tuple[str, ...]]
) -> None:
    plan = _plan(order=PlanOrder.LEVEL, max_level=Level.L2)
    levels = [
        item.level for item in order_plan_items(plan, starter.items, starter.decks, prerequisites)
    ]
    assert set(levels) == {Level.L1, Level.L2}
    assert levels == sorted(levels, key=LEVELS.index)


def test_topics_decks_and_max_level_select_the_plan_items(
    starter: Vault, prerequisites: dict[str, tuple[str, ...]]
) -> None:
    plan = _plan(topics=("collectives",), decks=("sample-chapter-quiz",), max_level=Level.L3)
    chosen = order_plan_items(plan, starter.items, starter.decks, prerequisites)
    assert {item.topic for item in chosen} == {"collectives", "fault-tolerance-training"}
    assert "global-0101" in {item.id for item in chosen}
    assert all(LEVELS.index(item.level) <= LEVELS.index(Level.L3) for item in chosen)


def test_weakest_topics_come_first_in_prerequisite_order_within(
    starter: Vault, prerequisites: dict[str, tuple[str, ...]]
) -> None:
    ordered = order_plan_items(
        _plan(), starter.items, starter.decks, prerequisites, weakest_topics=["mixed-precision"]
    )
    count = sum(1 for item in starter.items if item.topic == "mixed-precision")
    assert {item.topic for item in ordered[:count]} == {"mixed-precision"}
    assert ordered[0].level is Level.L1


def _schedule(
    ordered: list[Item], seen: set[str], *, day: int, new_per_day: int = 3, allowed: int = 100
) -> list[Item]:
    active = ActivePlan(name="p", started_on=date(2026, 11, 1))
    progress = plan_progress(
        _plan(days=5, new_per_day=new_per_day),
        active,
        ordered,
        seen,
        today=date(2026, 11, day),
        new_allowed_today=allowed,
    )
    return scheduled_new_items(progress, ordered, seen)


def test_schedule_introduces_the_daily_budget_and_catches_up(starter: Vault) -> None:
    ordered = list(starter.items[:10])
    assert [i.id for i in _schedule(ordered, set(), day=1)] == [i.id for i in ordered[:3]]
    # A learner who skipped day 1 gets both days' items on day 2.
    assert len(_schedule(ordered, set(), day=2)) == 6
    # One who ran ahead waits until the plan catches up.
    ahead = {str(i.id) for i in ordered[:5]}
    assert _schedule(ordered, ahead, day=1) == []
    assert [i.id for i in _schedule(ordered, ahead, day=2)] == [ordered[5].id]


def test_catching_up_stays_within_what_the_daily_setting_allows(starter: Vault) -> None:
    ordered = list(starter.items[:10])
    # Day 3 of 3 a day asks for 9; the setting allows 4 more today.
    assert [i.id for i in _schedule(ordered, set(), day=3, allowed=4)] == [
        i.id for i in ordered[:4]
    ]
    assert _schedule(ordered, set(), day=3, allowed=0) == []


def test_progress_reports_day_end_and_what_is_behind(starter: Vault) -> None:
    ordered = list(starter.items[:10])
    active = ActivePlan(name="p", started_on=date(2026, 11, 1))
    progress = plan_progress(
        _plan(days=5, new_per_day=3),
        active,
        ordered,
        {str(ordered[0].id)},
        today=date(2026, 11, 2),
        new_allowed_today=2,
    )
    assert (progress.day, progress.ends_on) == (2, date(2026, 11, 5))
    assert (progress.items_total, progress.items_seen) == (10, 1)
    assert (progress.scheduled_by_today, progress.behind) == (6, 5)
    assert progress.new_left_today == 2
    assert progress.new_left_note == (
        "the plan asks for 5 more, but the new items per day setting allows 2 more today"
    )
    assert progress.next_item_ids == [str(i.id) for i in ordered[1:6]]


def test_active_plan_round_trips_through_its_stored_form() -> None:
    active = ActivePlan(name="interview-2w", started_on=date(2026, 11, 25), adaptive=True)
    assert ActivePlan.from_meta(active.to_meta()) == active


def _item(item_id: str, topic: str | None, level: Level | None) -> SimpleNamespace:
    return SimpleNamespace(id=item_id, topic=topic, level=level)


def test_teaching_order_puts_prerequisites_then_levels_then_file_order() -> None:
    needs = {"basics": (), "middle": ("basics",), "top": ("middle",)}
    items = [
        _item("top-l1", "top", Level.L1),
        _item("unknown-l1", "elsewhere", Level.L1),
        _item("middle-l3", "middle", Level.L3),
        _item("basics-l2", "basics", Level.L2),
        _item("middle-l1", "middle", Level.L1),
        _item("basics-none", "basics", None),
        _item("basics-l2-later", "basics", Level.L2),
    ]
    ordered = [i.id for i in teaching_order(items, needs)]
    assert ordered == [
        "basics-l2",
        "basics-l2-later",
        "basics-none",
        "middle-l1",
        "middle-l3",
        "top-l1",
        "unknown-l1",
    ]
    by_level = [i.id for i in teaching_order(items, needs, order=PlanOrder.LEVEL)]
    assert by_level[:3] == ["middle-l1", "top-l1", "unknown-l1"]
    weak_first = [i.id for i in teaching_order(items, needs, weakest_topics=["top"])]
    assert weak_first[0] == "top-l1"
