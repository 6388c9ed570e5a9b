"""Which items a session draws from: deck, track, level, zone, topic, competency area, tag."""

from __future__ import annotations

from dataclasses import dataclass

from sysdrill.content.enums import CompetencyArea, Level, Track, Zone
from sysdrill.content.models import Item

__all__ = ["ItemFilter"]


@dataclass(frozen=True, slots=True)
class ItemFilter:
    """A conjunction of optional criteria; an empty filter matches every item."""

    deck: str | None = None
    track: Track | None = None
    level: Level | None = None
    zone: Zone | None = None
    topic: str | None = None
    competency_area: CompetencyArea | None = None
    tag: str | None = None

    @property
    def is_empty(self) -> bool:
        """Whether no criterion is set."""
        return all(
            value is None
            for value in (
                self.deck,
                self.track,
                self.level,
                self.zone,
                self.topic,
                self.competency_area,
                self.tag,
            )
        )

    def matches(self, item: Item) -> bool:
        """Return whether ``item`` meets every criterion that is set."""
        return (
            (self.deck is None or item.deck == self.deck)
            and (self.track is None or item.track == self.track)
            and (self.level is None or item.level == self.level)
            and (self.zone is None or item.zone == self.zone)
            and (self.topic is None or item.topic == self.topic)
            and (self.competency_area is None or item.competency_area == self.competency_area)
            and (self.tag is None or self.tag in item.tags)
        )
