"""Suspended and buried items stay out of chain walks, gauntlets and the daily set too."""

from __future__ import annotations

from datetime import UTC, datetime

from sysdrill.app.item_actions import bury_item, suspend_item
from sysdrill.app.session_lineups import StartOptions, assemble_lineup
from sysdrill.content.enums import Track, Zone
from sysdrill.study.filters import ItemFilter
from sysdrill.study.sessions.gauntlet import GauntletFormat
from sysdrill.study.sessions.state_machine import SessionKind

T0 = datetime(2026, 11, 21, 22, 30, tzinfo=UTC)
RECALL_EDGE = ItemFilter(track=Track.EDGE, zone=Zone.RECALL)


def _ids(study, vault, options: StartOptions) -> list[str]:
    return [item.id for item in assemble_lineup(study, vault, options, now=T0).plan.items]


def test_a_chain_walk_skips_a_suspended_step(study, vault):
    chain = StartOptions(SessionKind.CHAIN, chain_id="hbm-basics")
    assert _ids(study, vault, chain) == ["c-l1-hbm", "c-l2-mc", "c-l3-num"]
    suspend_item(study, vault, "c-l2-mc", now=T0)
    assert _ids(study, vault, chain) == ["c-l1-hbm", "c-l3-num"]


def test_a_gauntlet_never_picks_a_suspended_or_buried_question(study, vault):
    gauntlet = StartOptions(SessionKind.GAUNTLET, gauntlet_format=GauntletFormat.QUICK, seed=7)
    first = _ids(study, vault, gauntlet)
    suspend_item(study, vault, first[0], now=T0)
    bury_item(study, vault, first[-1], now=T0)
    again = _ids(study, vault, gauntlet)
    assert again and first[0] not in again and first[-1] not in again


def test_a_daily_set_whose_every_match_is_suspended_says_so(study, vault):
    daily = StartOptions(SessionKind.DAILY, RECALL_EDGE)
    [only] = _ids(study, vault, daily)
    suspend_item(study, vault, only, now=T0)
    assembled = assemble_lineup(study, vault, daily, now=T0)
    assert assembled.plan.items == ()
    assert assembled.empty_message == (
        "No daily items today: all 1 item(s) that match are suspended or buried. "
        "Unsuspend some, or widen the filters."
    )


def test_a_daily_set_with_no_match_says_the_filters_match_nothing(study, vault):
    nothing = StartOptions(SessionKind.DAILY, ItemFilter(tag="no-such-tag"))
    assembled = assemble_lineup(study, vault, nothing, now=T0)
    assert assembled.empty_message == (
        "No daily items today: no item matches the filters. Widen them."
    )


def test_practice_never_offers_a_suspended_item_as_next_in_chain(study, vault):
    from sysdrill.content.enums import Level
    from sysdrill.study.sessions.new_items import ChainNewLimit

    practice = StartOptions(
        SessionKind.PRACTICE, ItemFilter(topic="memory-hierarchy", level=Level.L1)
    )
    plan = assemble_lineup(study, vault, practice, now=T0).plan
    assert plan.chain_new_limit is not None
    assert plan.chain_new_limit.may_offer("c-l2-mc", queue=plan.items, planned=plan.items)

    suspend_item(study, vault, "c-l2-mc", now=T0)
    held = assemble_lineup(study, vault, practice, now=T0).plan
    limit = held.chain_new_limit
    assert limit is not None and limit.held_ids == frozenset({"c-l2-mc"})
    assert not limit.may_offer("c-l2-mc", queue=held.items, planned=held.items)
    assert ChainNewLimit.from_dict(limit.to_dict()) == limit  # kept with a saved session
