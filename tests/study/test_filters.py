from __future__ import annotations

from sysdrill.content.enums import CompetencyArea, Level, Track, Zone
from sysdrill.study.filters import ItemFilter


def test_empty_filter_matches_everything(make_item):
    assert ItemFilter().is_empty
    assert ItemFilter().matches(make_item("a"))


def test_filter_requires_every_criterion(make_item):
    item = make_item(
        "a",
        track="cloud",
        level="L3",
        zone="recall",
        topic="kv-cache",
        competency_area="memory",
        deck="gpu",
        tags=["inference"],
    )
    full = ItemFilter(
        deck="gpu",
        track=Track.CLOUD,
        level=Level.L3,
        zone=Zone.RECALL,
        topic="kv-cache",
        competency_area=CompetencyArea.MEMORY,
        tag="inference",
    )
    assert full.matches(item)
    assert not ItemFilter(track=Track.EDGE).matches(item)
    assert not ItemFilter(tag="training").matches(item)
    assert not ItemFilter(deck="gpu", level=Level.L4).matches(item)
