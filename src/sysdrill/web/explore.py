"""The explore tree: track, then competency area, then topic, then level, with coverage."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sysdrill.content.enums import LEVEL_ORDER
from sysdrill.content.models import Item

__all__ = ["explore_tree"]

_NONE = "(none)"
_LEVEL_RANK = {level.value: rank for rank, level in enumerate(LEVEL_ORDER)}


def _node(name: str, ids: list[str], seen: set[str]) -> dict[str, Any]:
    covered = sum(1 for item_id in ids if item_id in seen)
    return {
        "name": name,
        "items": len(ids),
        "seen": covered,
        "coverage": covered / len(ids) if ids else 0.0,
    }


def explore_tree(items: Iterable[Item], seen: set[str]) -> list[dict[str, Any]]:
    """Nested counts: each track's areas, each area's topics, each topic's levels.

    Args:
        items: The vault's items.
        seen: Ids of items the learner has reviewed at least once.

    Returns:
        Tracks in name order, each ``{"name", "items", "seen", "coverage", "children"}``;
        levels (the leaves) carry the ids of their items.
    """
    tree: dict[str, dict[str, dict[str, dict[str, list[str]]]]] = {}
    for item in items:
        track = item.track.value if item.track else _NONE
        area = item.competency_area.value if item.competency_area else _NONE
        topic = item.topic or _NONE
        level = item.level.value if item.level else _NONE
        tree.setdefault(track, {}).setdefault(area, {}).setdefault(topic, {}).setdefault(
            level, []
        ).append(item.id)
    tracks = []
    for track, areas in sorted(tree.items()):
        area_nodes = []
        for area, topics in sorted(areas.items()):
            topic_nodes = []
            for topic, levels in sorted(topics.items()):
                level_nodes = [
                    {**_node(level, ids, seen), "ids": sorted(ids)}
                    for level, ids in sorted(
                        levels.items(), key=lambda kv: _LEVEL_RANK.get(kv[0], 99)
                    )
                ]
                ids = [i for ids in levels.values() for i in ids]
                topic_nodes.append({**_node(topic, ids, seen), "children": level_nodes})
            ids = [i for t in topics.values() for ids in t.values() for i in ids]
            area_nodes.append({**_node(area, ids, seen), "children": topic_nodes})
        ids = [i for a in areas.values() for t in a.values() for ids in t.values() for i in ids]
        tracks.append({**_node(track, ids, seen), "children": area_nodes})
    return tracks
