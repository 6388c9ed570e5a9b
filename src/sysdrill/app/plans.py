"""Study plan use cases: list, start, show and stop a plan, and the practice hook.

The plan a learner follows is stored as a session record of kind ``study-plan``
(its meta holds the plan's name, start day and the adaptive flag; it ends when the
plan is stopped), so it travels with ``sysdrill state export`` and needs no table
of its own. Practice asks :func:`practice_source` which items to draw new ones from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from sysdrill.app.study_vault import StudyVault
from sysdrill.content.models import Item
from sysdrill.content.plans import StudyPlan, load_plans, load_prerequisites
from sysdrill.errors import PlanNotFound, UsageError
from sysdrill.study.clock import require_utc
from sysdrill.study.plans import (
    ActivePlan,
    PlanProgress,
    order_plan_items,
    plan_progress,
    scheduled_new_items,
    teaching_order,
)
from sysdrill.study.service import StudyService
from sysdrill.study.sessions.new_items import NewItemAllowance, new_item_allowance
from sysdrill.study.sessions.pools import memo_for_list
from sysdrill.study.user_state import SessionId

if TYPE_CHECKING:
    from sysdrill.app.catalogue import Catalogue

__all__ = [
    "PLAN_SESSION_KIND",
    "PlanStarted",
    "PracticeSource",
    "active_plan",
    "list_plans",
    "practice_source",
    "show_plan",
    "start_plan",
    "stop_plan",
]

PLAN_SESSION_KIND = "study-plan"
"""Kind of the session record that holds the active plan."""


@dataclass(frozen=True, slots=True)
class PlanStarted:
    """What starting a plan did."""

    progress: PlanProgress
    deadline: date | None
    """The deadline setting in force after the start."""
    deadline_set: bool
    """Whether the start set the deadline to the plan's last day (none was set)."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            **self.progress.to_dict(),
            "deadline": self.deadline.isoformat() if self.deadline else None,
            "deadline_set": self.deadline_set,
        }


def list_plans(vault: StudyVault | Catalogue) -> list[StudyPlan]:
    """The vault's plans, in file order (none when it has no ``plans.yaml``).

    Only ``plans.yaml`` is read: the vault's catalogue serves as well as the loaded vault.

    Raises:
        ContentInvalid: If ``plans.yaml`` is malformed.
    """
    return load_plans(vault.root)


def _find(vault: StudyVault, name: str) -> StudyPlan:
    plans = list_plans(vault)
    for plan in plans:
        if plan.name == name:
            return plan
    known = ", ".join(p.name for p in plans) or "none"
    raise PlanNotFound(f"No plan named {name!r}. Known plans: {known} (see `sysdrill plan list`).")


def _active_record(study: StudyService) -> tuple[int, ActivePlan] | None:
    # Only the open plan sessions: a learner's practice sessions number in the hundreds.
    open_plans = study.sessions(kind=PLAN_SESSION_KIND, open_only=True)
    if not open_plans:
        return None
    latest = open_plans[-1]
    assert latest.session_id is not None
    return latest.session_id, ActivePlan.from_meta(latest.meta)


def active_plan(study: StudyService) -> ActivePlan | None:
    """The plan the learner follows, or None."""
    found = _active_record(study)
    return found[1] if found else None


def _ordered(
    study: StudyService, vault: StudyVault, plan: StudyPlan, active: ActivePlan, now: datetime
) -> list[Item]:
    weakest: list[str] = []
    if active.adaptive:
        report = study.progress(vault.items, now=now)
        weakest = [strength.topic for strength in report.weakest_topics]
    return order_plan_items(
        plan, vault.items, vault.decks, load_prerequisites(vault.root), weakest_topics=weakest
    )


def _seen(study: StudyService) -> set[str]:
    return study.store.studied_item_ids(study.scope)


def _progress(
    study: StudyService,
    plan: StudyPlan,
    active: ActivePlan,
    ordered: Sequence[Item],
    seen: set[str],
    moment: datetime,
) -> PlanProgress:
    # What the new_per_day setting still allows today: the plan's pace is capped by it.
    allowed = new_item_allowance(study, per_day=study.settings.new_per_day, now=moment)
    return plan_progress(
        plan, active, ordered, seen, today=moment.date(), new_allowed_today=allowed.left_today
    )


def start_plan(
    study: StudyService, vault: StudyVault, name: str, *, adaptive: bool = False, now: datetime
) -> PlanStarted:
    """Start following plan ``name`` today; set the deadline to its last day if none is set.

    Raises:
        PlanNotFound: If the vault has no plan of that name.
        UsageError: If a plan is already active (stop it first).
    """
    moment = require_utc(now)
    plan = _find(vault, name)
    current = active_plan(study)
    if current is not None:
        raise UsageError(
            f"Plan {current.name!r} is already active. "
            "Run `sysdrill plan stop` first, then start the new plan."
        )
    active = ActivePlan(name=plan.name, started_on=moment.date(), adaptive=adaptive)
    study.start_session(PLAN_SESSION_KIND, now=moment, meta=active.to_meta())
    ordered = _ordered(study, vault, plan, active, moment)
    progress = _progress(study, plan, active, ordered, _seen(study), moment)
    deadline_set = study.settings.deadline is None
    if deadline_set:
        study.update_settings(deadline=progress.ends_on)
    return PlanStarted(
        progress=progress, deadline=study.settings.deadline, deadline_set=deadline_set
    )


def show_plan(study: StudyService, vault: StudyVault, *, now: datetime) -> PlanProgress | None:
    """Progress through the active plan on ``now``'s day, or None when none is active.

    Raises:
        PlanNotFound: If the active plan is no longer in the vault.
    """
    moment = require_utc(now)
    active = active_plan(study)
    if active is None:
        return None
    plan = _find(vault, active.name)
    ordered = _ordered(study, vault, plan, active, moment)
    return _progress(study, plan, active, ordered, _seen(study), moment)


def stop_plan(study: StudyService, *, now: datetime) -> ActivePlan:
    """Stop following the active plan (the deadline setting is left as it is).

    Raises:
        UsageError: If no plan is active.
    """
    found = _active_record(study)
    if found is None:
        raise UsageError("No plan is active. Start one with `sysdrill plan start NAME`.")
    session_id, active = found
    study.finish_session(SessionId(session_id), now=require_utc(now))
    return active


@dataclass(frozen=True, slots=True)
class PracticeSource:
    """What practice draws from, and how many new items it may introduce."""

    items: Sequence[Item]
    """The vault's items in teaching order, or the active plan's schedule."""
    new_items: NewItemAllowance
    """The day's allowance, capped by the plan's figure for the day when one is active."""


def practice_source(
    study: StudyService, vault: StudyVault, allowance: NewItemAllowance, *, now: datetime
) -> PracticeSource:
    """The items practice draws from, and its new-item allowance.

    With no active plan these are the vault's items in teaching order (prerequisites,
    then level: the rule plans follow) and ``allowance`` as given. With one, new items
    are the plan's items due by today in plan order, and every item already studied
    stays (so its reviews still come when due); the plan's figure for the day
    (:attr:`PlanProgress.new_left_today`, which ``plan show`` prints) caps the
    allowance, so practice's "more new today" is that same figure.
    """
    active = active_plan(study)
    plan = None if active is None else {p.name: p for p in list_plans(vault)}.get(active.name)
    if active is None or plan is None:
        # The same for every learner of a loaded vault: worked out once.
        ordered_vault = memo_for_list(
            vault.items,
            "teaching order",
            lambda: tuple(teaching_order(vault.items, load_prerequisites(vault.root))),
        )
        return PracticeSource(items=ordered_vault, new_items=allowance)
    moment = require_utc(now)
    seen = _seen(study)
    ordered = _ordered(study, vault, plan, active, moment)
    progress = _progress(study, plan, active, ordered, seen, moment)
    new = scheduled_new_items(progress, ordered, seen)
    return PracticeSource(
        items=new + [item for item in vault.items if item.id in seen],
        new_items=allowance.within_plan(progress.new_left_today),
    )
