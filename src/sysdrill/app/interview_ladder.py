"""Which items a mock interview asks: a chain's levels, a topic's, or a plan's.

An interview climbs a short ladder, L1 towards architecture, as a real
interviewer deepens one topic. A chain is its own ladder. A topic or a plan
takes one of its chains when it has any (chosen by the seed, so two interviews
on one plan need not ask the same chain), else its items one per level.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from sysdrill.app.plans import list_plans
from sysdrill.app.study_vault import StudyVault
from sysdrill.content.collections import Chain
from sysdrill.content.models import Item
from sysdrill.content.plans import level_rank, load_prerequisites
from sysdrill.errors import ChainNotFound, PlanNotFound, UsageError
from sysdrill.study.plans import order_plan_items
from sysdrill.study.sessions.chains import chain_items
from sysdrill.study.sessions.selection import studyable

__all__ = [
    "DEFAULT_LADDER_ITEMS",
    "MAX_LADDER_ITEMS",
    "InterviewPick",
    "Ladder",
    "PickKind",
    "interview_choices",
    "pick_ladder",
]

DEFAULT_LADDER_ITEMS = 3
"""Items an interview asks unless told otherwise."""
MAX_LADDER_ITEMS = 8
"""Items one interview may ask at most."""


class PickKind(StrEnum):
    """What an interview is about."""

    CHAIN = "chain"
    TOPIC = "topic"
    PLAN = "plan"


@dataclass(frozen=True, slots=True)
class InterviewPick:
    """The learner's choice: a chain id, a topic name or a plan name, and how many items."""

    kind: PickKind
    name: str
    items: int = DEFAULT_LADDER_ITEMS

    def __post_init__(self) -> None:
        """Check the choice.

        Raises:
            UsageError: If the name is empty or the item count out of range.
        """
        if not self.name.strip():
            raise UsageError(f"Name the {self.kind.value} to be interviewed on.")
        if not 1 <= self.items <= MAX_LADDER_ITEMS:
            raise UsageError(f"An interview asks 1 to {MAX_LADDER_ITEMS} items; got {self.items}.")


@dataclass(frozen=True, slots=True)
class Ladder:
    """The items an interview asks, in order, with a title."""

    title: str
    items: tuple[Item, ...]


def _by_level(items: list[Item], count: int) -> list[Item]:
    """One item per level, lowest first, then more of the lowest levels if short."""
    ordered = sorted(items, key=lambda i: level_rank(i.level))
    chosen: list[Item] = []
    levels: set[int] = set()
    for item in ordered:
        if level_rank(item.level) not in levels:
            levels.add(level_rank(item.level))
            chosen.append(item)
    taken = {item.id for item in chosen}
    chosen += [item for item in ordered if item.id not in taken]
    return sorted(chosen[:count], key=lambda i: level_rank(i.level))


def _chains_touching(vault: StudyVault, ids: set[str]) -> list[Chain]:
    return [c for c in vault.chains if any(item_id in ids for item_id in c.items)]


def _from_pool(
    vault: StudyVault, pool: list[Item], count: int, seed: int, what: str
) -> tuple[str, list[Item]]:
    ids: set[str] = {str(item.id) for item in pool}
    usable = studyable(vault.items)
    chains = [c for c in _chains_touching(vault, ids) if chain_items(c, usable)]
    if chains:
        chain = chains[seed % len(chains)]
        return f"{what}: {chain.title or chain.id}", chain_items(chain, usable)[:count]
    return what, _by_level(pool, count)


def pick_ladder(vault: StudyVault, pick: InterviewPick, *, seed: int = 0) -> Ladder:
    """The items an interview on ``pick`` asks.

    Args:
        vault: The vault studied.
        pick: A chain, topic or plan and how many items.
        seed: Chooses among a topic's or plan's chains.

    Raises:
        ChainNotFound: If the chain does not exist or has no item to ask.
        PlanNotFound: If the plan does not exist.
        UsageError: If the topic or plan has no item to ask.
    """
    usable = studyable(vault.items)
    if pick.kind is PickKind.CHAIN:
        chain = next((c for c in vault.chains if c.id == pick.name), None)
        items = chain_items(chain, usable)[: pick.items] if chain is not None else []
        if chain is None or not items:
            raise ChainNotFound(
                f"No chain {pick.name!r} with items to ask. "
                "See `sysdrill interview --help` for how to list chains."
            )
        return Ladder(f"Chain: {chain.title or chain.id}", tuple(items))
    if pick.kind is PickKind.TOPIC:
        pool = [item for item in usable if item.topic == pick.name]
        if not pool:
            raise UsageError(f"No item of topic {pick.name!r} to ask; pick another topic.")
        title, items = _from_pool(vault, pool, pick.items, seed, f"Topic {pick.name}")
        return Ladder(title, tuple(items))
    plan = next((p for p in list_plans(vault) if p.name == pick.name), None)
    if plan is None:
        known = ", ".join(p.name for p in list_plans(vault)) or "none"
        raise PlanNotFound(f"No plan named {pick.name!r}. Known plans: {known}.")
    pool = order_plan_items(plan, usable, vault.decks, load_prerequisites(vault.root))
    if not pool:
        raise UsageError(f"Plan {pick.name!r} has no item to ask.")
    title, items = _from_pool(vault, pool, pick.items, seed, f"Plan {plan.title}")
    return Ladder(title, tuple(items))


def interview_choices(vault: StudyVault) -> dict[str, Any]:
    """What an interview can be about: the vault's chains, topics and plans (JSON-ready)."""
    usable = studyable(vault.items)
    topics = sorted({item.topic for item in usable if item.topic})
    return {
        "chains": [
            {"id": c.id, "title": c.title or c.id, "topic": c.topic}
            for c in vault.chains
            if chain_items(c, usable)
        ],
        "topics": topics,
        "plans": [{"name": p.name, "title": p.title} for p in list_plans(vault)],
    }
