"""Chains: lookup by id and the next item after a member."""

from __future__ import annotations

import pytest

from sysdrill.errors import ChainNotFound
from sysdrill.study.sessions.chains import ChainIndex, chain_items


def test_next_after_a_member_is_the_following_item(vault):
    index = ChainIndex(vault.chains, vault.items)
    step = index.next_after("c-l1-hbm")
    assert step is not None
    assert (step.chain.id, step.position, step.item.id) == ("hbm-basics", 1, "c-l2-mc")
    assert index.next_after("c-l3-num") is None
    assert index.next_after("fc-1") is None


def test_next_after_passes_over_items_the_vault_lacks(vault):
    items = [item for item in vault.items if item.id != "c-l2-mc"]
    step = ChainIndex(vault.chains, items).next_after("c-l1-hbm")
    assert step is not None and step.item.id == "c-l3-num"


def test_unknown_chain_names_the_known_ones(vault):
    with pytest.raises(ChainNotFound) as caught:
        ChainIndex(vault.chains, vault.items).get("gpu")
    assert str(caught.value) == "No chain with id 'gpu'. Known chains: hbm-basics."


def test_chain_items_in_chain_order(vault):
    chain = ChainIndex(vault.chains, vault.items).get("hbm-basics")
    assert [i.id for i in chain_items(chain, vault.items)] == ["c-l1-hbm", "c-l2-mc", "c-l3-num"]


def test_offers_reach_every_later_member_from_a_chain_start(vault):
    index = ChainIndex(vault.chains, vault.items)
    assert index.reachable_from(["c-l1-hbm"]) == {"c-l2-mc", "c-l3-num"}
    assert index.reachable_from(["c-l2-mc", "fc-1"]) == {"c-l3-num"}


def test_offers_reach_nothing_from_items_outside_chains_or_at_their_end(vault):
    index = ChainIndex(vault.chains, vault.items)
    assert index.reachable_from(["fc-1", "c-l3-num"]) == frozenset()
    assert index.reachable_from([]) == frozenset()
