"""Session assembly: what a session of each kind asks, from the options it starts with.

``StartOptions`` carries what the CLI and the web app start a session with;
:func:`assemble_lineup` turns them into a :class:`SessionLineup` (new items in teaching
order, within the new-item limits), with the note and empty message to show.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sysdrill.app.plans import practice_source
from sysdrill.app.study_vault import StudyVault
from sysdrill.errors import UsageError
from sysdrill.study.clock import day_start, require_utc, utc_day
from sysdrill.study.filters import ItemFilter
from sysdrill.study.service import StudyService
from sysdrill.study.sessions.gauntlet import GauntletFormat, gauntlet_plan, pick_gauntlet
from sysdrill.study.sessions.lineups import (
    DEFAULT_PRACTICE_LIMIT,
    EMPTY_MESSAGES,
    HELD_OUT_KEY,
    MATCHING_KEY,
    NEW_HELD_KEY,
    chain_plan,
    daily_listing,
    daily_plan,
    filter_meta,
    practice_plan,
    quiz_plan,
)
from sysdrill.study.sessions.new_items import new_item_allowance
from sysdrill.study.sessions.state_machine import SessionKind, SessionLineup

__all__ = ["AssembledPlan", "StartOptions", "assemble_lineup", "daily_done_today"]


@dataclass(frozen=True, slots=True)
class StartOptions:
    """What a session is started with: the CLI's options, by session kind.

    The filter serves every kind in its own way: practice and daily draw from
    the items it matches, a quiz takes its ``deck``, a gauntlet its ``track``
    and the ``level`` it aims at (the warm-up comes from below it).
    """

    kind: SessionKind
    item_filter: ItemFilter = ItemFilter()
    limit: int = DEFAULT_PRACTICE_LIMIT
    """Practice: items in the session at most."""
    new_limit: int | None = None
    """Practice, quiz and daily: new items in the session at most (``--new``). The
    ``new_per_day`` setting caps practice across the day's sessions as well; a quiz
    and the daily set are asked whole unless this is given."""
    gauntlet_format: GauntletFormat = GauntletFormat.QUICK
    seed: int | None = None
    """Gauntlet: seed of the random picks (the start time when None)."""
    chain_id: str | None = None
    """Chain: the chain to walk (required)."""

    def to_dict(self) -> dict[str, Any]:
        """The options that are set, JSON-ready."""
        values: dict[str, Any] = {"kind": self.kind.value, **filter_meta(self.item_filter)}
        if self.kind is SessionKind.PRACTICE:
            values["limit"] = self.limit
        if self.new_limit is not None:
            values["new_limit"] = self.new_limit
        if self.kind is SessionKind.GAUNTLET:
            values["gauntlet_format"] = self.gauntlet_format.value
            if self.seed is not None:
                values["seed"] = self.seed
        if self.chain_id is not None:
            values["chain_id"] = self.chain_id
        return values


@dataclass(frozen=True, slots=True)
class AssembledPlan:
    """A session's plan with what to tell the learner about it."""

    plan: SessionLineup
    note: str | None = None
    """A note to show before the session (a short gauntlet, new items held back)."""
    empty_message: str | None = None
    """Why there is nothing to ask, when the plan has no items."""


def assemble_lineup(
    study: StudyService, vault: StudyVault, options: StartOptions, *, now: datetime
) -> AssembledPlan:
    """Plan a session of ``options.kind`` (nothing is saved).

    Practice introduces at most the new items the day allows (``new_per_day``,
    counted from today's review log) and ``options.new_limit``; a quiz and the daily
    set only the latter, when it is given.

    Raises:
        DeckNotFound: If a deck named in the options does not exist.
        ChainNotFound: If the chain does not exist.
        UsageError: If a quiz has no deck or a chain walk no chain id.
    """
    moment = require_utc(now)
    note: str | None = None
    kind = options.kind
    allowance = new_item_allowance(
        study,
        per_day=study.settings.new_per_day,
        now=moment,
        session_cap=options.new_limit,
    )
    held_ids = study.store.held_item_ids(study.scope, now=moment)  # suspended or buried
    if kind is SessionKind.PRACTICE:
        # Under a study plan its figure for the day caps the allowance as well.
        source = practice_source(study, vault, allowance, now=moment)
        allowance = source.new_items
        plan = practice_plan(
            study,
            source.items,
            vault.decks,
            item_filter=options.item_filter,
            now=moment,
            limit=options.limit,
            new_items=allowance,
            chains=vault.chain_index,
            held_ids=held_ids,
        )
    elif kind is SessionKind.QUIZ:
        deck = options.item_filter.deck
        if not deck:
            raise UsageError("A quiz needs a deck: choose one of the vault's decks.")
        plan = quiz_plan(
            vault.items, vault.decks, deck, study=study, new_items=allowance, held_ids=held_ids
        )
    elif kind is SessionKind.GAUNTLET:
        pick = pick_gauntlet(
            [item for item in vault.items if item.id not in held_ids],
            fmt=options.gauntlet_format,
            track=options.item_filter.track,
            level=options.item_filter.level,
            seed=options.seed if options.seed is not None else int(moment.timestamp()),
        )
        note = pick.note
        plan = gauntlet_plan(pick, options.gauntlet_format)
    elif kind is SessionKind.CHAIN:
        if not options.chain_id:
            raise UsageError("A chain walk needs a chain id (see chains.yaml).")
        plan = chain_plan(vault.chains, vault.items, options.chain_id, held_ids=held_ids)
    else:
        done_ids = daily_done_today(study, now=moment)
        plan, daily = daily_plan(
            study,
            vault.items,
            vault.decks,
            item_filter=options.item_filter,
            now=moment,
            done_ids=done_ids,
            new_items=allowance,
            chains=vault.chain_index,
            held_ids=held_ids,
        )
        if daily:
            note = f"Today's items: {daily_listing(daily, done_ids)}"
    held_count = int(plan.meta.get(NEW_HELD_KEY, "0"))
    held = allowance.held_note(held_count)
    if kind in (SessionKind.DAILY, SessionKind.QUIZ) and held_count:
        # Neither keeps the day's new-item limit: only --new leaves items out.
        held = f"{held_count} new item(s) left out: this session takes {options.new_limit} new"
    if kind is SessionKind.QUIZ and held is not None:
        asked = len(plan.items)
        held = f"This quiz asks {asked} of the deck's {asked + held_count} items: {held}"
    if not plan.items:
        empty = EMPTY_MESSAGES[kind]
        if kind is SessionKind.PRACTICE and allowance.for_session == 0:
            empty = allowance.none_left_message()
        elif held is not None:
            empty = f"Nothing to ask now: {held}."
        elif kind is SessionKind.DAILY and note is not None:
            empty = f"{empty} {note}."
        elif kind is SessionKind.DAILY:
            empty = _empty_daily_message(plan.meta)
        return AssembledPlan(
            plan=plan, note=None if kind is SessionKind.DAILY else note, empty_message=empty
        )
    notes = [text for text in (note, held) if text]
    return AssembledPlan(plan=plan, note="; ".join(notes) or None)


def _empty_daily_message(meta: dict[str, str]) -> str:
    """Why a daily set has no items at all: every match held back, or no match."""
    matching = int(meta.get(MATCHING_KEY, "0"))
    held_out = int(meta.get(HELD_OUT_KEY, "0"))
    if matching and held_out >= matching:
        return (
            f"No daily items today: all {matching} item(s) that match are suspended or "
            "buried. Unsuspend some, or widen the filters."
        )
    return "No daily items today: no item matches the filters. Widen them."


def daily_done_today(study: StudyService, *, now: datetime) -> set[str]:
    """Items reviewed in a daily session started on ``now``'s UTC day.

    Read from the review log, finished sessions and those in progress alike, so
    a review taken back (``sysdrill undo``) no longer counts and its item is asked
    again. A finished session's stored report keeps the undone answer, which is
    why it is not read here. Reviews of the same items in other sessions do not
    count: the daily set is a challenge of its own.
    """
    start = day_start(utc_day(require_utc(now)))
    return study.store.items_reviewed_in_sessions(
        study.scope,
        kind=SessionKind.DAILY.value,
        started_from=start,
        started_before=start + timedelta(days=1),
    )
