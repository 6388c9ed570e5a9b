"""Plan use cases: start (deadline mode), the second-plan and unknown-plan errors, practice."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from sysdrill.app.plans import active_plan, practice_source, show_plan, start_plan, stop_plan
from sysdrill.app.sessions import StartOptions, start_session
from sysdrill.app.study_vault import StudyVault, open_study_vault
from sysdrill.content.enums import Level
from sysdrill.content.plans import level_rank, load_plans, load_prerequisites
from sysdrill.content.sample import sample_vault_path, starter_vault_path
from sysdrill.errors import PlanNotFound, UsageError
from sysdrill.storage.memory import MemoryStudyStore
from sysdrill.study.plans import topic_depths
from sysdrill.study.ratings import GradedBy, Rating
from sysdrill.study.service import StudyService
from sysdrill.study.sessions.new_items import new_item_allowance
from sysdrill.study.sessions.state_machine import SessionKind
from sysdrill.study.user_state import VaultId

T0 = datetime(2026, 11, 25, 9, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def vault() -> StudyVault:
    return open_study_vault(starter_vault_path())


@pytest.fixture
def study() -> StudyService:
    return StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=T0)


def _practice_ids(
    study: StudyService, vault: StudyVault, *, now: datetime, limit: int
) -> list[str]:
    view = start_session(
        study, vault, StartOptions(kind=SessionKind.PRACTICE, limit=limit), now=now
    )
    assert view.session_id is not None
    saved = study.store.get_active_session(study.scope, view.session_id)
    assert saved is not None
    return [str(i) for i in saved.item_ids]


def test_start_sets_the_deadline_to_the_plan_last_day(study, vault) -> None:
    started = start_plan(study, vault, "interview-2w", now=T0)
    assert started.deadline_set
    assert started.deadline == date(2026, 12, 8) == started.progress.ends_on
    assert study.settings.deadline == date(2026, 12, 8)
    assert active_plan(study) is not None


def test_start_keeps_a_deadline_already_set(study, vault) -> None:
    study.set_setting("deadline", "2026-12-01")
    started = start_plan(study, vault, "refresher-1w", now=T0)
    assert not started.deadline_set
    assert study.settings.deadline == date(2026, 12, 1)


def test_starting_a_second_plan_names_the_fix(study, vault) -> None:
    start_plan(study, vault, "refresher-1w", now=T0)
    with pytest.raises(UsageError) as caught:
        start_plan(study, vault, "interview-4w", now=T0)
    assert str(caught.value) == (
        "Plan 'refresher-1w' is already active. "
        "Run `sysdrill plan stop` first, then start the new plan."
    )


def test_unknown_plan_lists_the_known_ones(study, vault) -> None:
    with pytest.raises(PlanNotFound) as caught:
        start_plan(study, vault, "nope", now=T0)
    assert str(caught.value) == (
        "No plan named 'nope'. Known plans: refresher-1w, interview-2w, interview-4w, "
        "stability-and-post-training-1w, frontier-lab-2w (see `sysdrill plan list`)."
    )


def test_stop_ends_the_plan_and_another_can_start(study, vault) -> None:
    start_plan(study, vault, "refresher-1w", now=T0)
    assert stop_plan(study, now=T0).name == "refresher-1w"
    assert active_plan(study) is None
    assert show_plan(study, vault, now=T0) is None
    start_plan(study, vault, "interview-4w", now=T0)
    with pytest.raises(UsageError):
        stop_plan(StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=T0), now=T0)


def test_practice_without_a_plan_draws_new_items_in_teaching_order(study, vault) -> None:
    allowance = new_item_allowance(study, per_day=20, now=T0)
    source = practice_source(study, vault, allowance, now=T0)
    assert source.new_items == allowance
    ordered = list(source.items)
    assert sorted(i.id for i in ordered) == sorted(i.id for i in vault.items)
    prerequisites = load_prerequisites(vault.root)
    depths = topic_depths(prerequisites)
    keys = [(depths[i.topic or ""], level_rank(i.level)) for i in ordered]
    # Topics others build on first, then L1 to L6+ within a depth.
    assert keys == sorted(keys)
    first_seen = {}
    for index, item in enumerate(ordered):
        first_seen.setdefault(item.topic, index)
    for topic, needs in prerequisites.items():
        for need in needs:
            assert first_seen[need] < first_seen[topic], (need, topic)
    assert ordered[0].level is Level.L1
    ids = _practice_ids(study, vault, now=T0, limit=3)
    assert ids == [str(item.id) for item in ordered[:3]]


def test_practice_follows_the_plan_order_and_daily_budget(study, vault) -> None:
    start_plan(study, vault, "refresher-1w", now=T0)
    progress = show_plan(study, vault, now=T0)
    assert progress is not None
    ids = _practice_ids(study, vault, now=T0, limit=30)
    # Day 1 introduces the plan's first 19 items, L1 first (order: level), and no more.
    assert len(ids) == 19
    assert ids[:5] == progress.next_item_ids
    assert {vault.by_id[i].level.value for i in ids} == {"L1"}


def test_plan_progress_moves_with_reviews_and_days(study, vault) -> None:
    start_plan(study, vault, "interview-4w", now=T0)
    first = show_plan(study, vault, now=T0)
    assert first is not None
    for item_id in first.next_item_ids[:3]:
        study.record_review(item_id, rating=Rating.GOOD, graded_by=GradedBy.SELF, now=T0)
    later = show_plan(study, vault, now=T0 + timedelta(days=2))
    assert later is not None
    per_day = next(p for p in load_plans(vault.root) if p.name == "interview-4w").new_per_day
    assert (later.day, later.items_seen, later.scheduled_by_today) == (3, 3, 3 * per_day)
    assert later.behind == 3 * per_day - 3
    assert later.next_item_ids[:2] == first.next_item_ids[3:5]


def test_adaptive_plan_puts_the_weakest_topic_first(study, vault) -> None:
    weak = [item for item in vault.items if item.topic == "serving-quantization"][:2]
    strong = [item for item in vault.items if item.topic == "collectives"][:2]
    # The weak topic was forgotten again and again (six reviews, four rated Again).
    for item in weak:
        for minute, rating in enumerate((Rating.AGAIN, Rating.AGAIN, Rating.GOOD)):
            study.record_review(
                item.id,
                rating=rating,
                graded_by=GradedBy.SELF,
                now=T0 - timedelta(days=90) + timedelta(minutes=minute),
            )
    for item in strong:
        study.record_review(
            item.id, rating=Rating.EASY, graded_by=GradedBy.SELF, now=T0 - timedelta(hours=1)
        )
    start_plan(study, vault, "interview-4w", adaptive=True, now=T0)
    progress = show_plan(study, vault, now=T0)
    assert progress is not None and progress.active.adaptive
    assert vault.by_id[progress.next_item_ids[0]].topic == "serving-quantization"
    plain = StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=T0)
    start_plan(plain, vault, "interview-4w", now=T0)
    unweighted = show_plan(plain, vault, now=T0)
    assert unweighted is not None
    assert vault.by_id[unweighted.next_item_ids[0]].topic == "collectives"


def test_a_vault_without_plans_says_which_plans_exist(study) -> None:
    with pytest.raises(PlanNotFound, match=r"Known plans: none"):
        start_plan(study, open_study_vault(sample_vault_path()), "refresher-1w", now=T0)
