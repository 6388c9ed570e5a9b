"""The explore tree: track, then competency area, then topic, then level, with coverage."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sysdrill.content.enums import LEVEL_ORDER
from sysdrill.content.models import Item

__all__ = ["Groups", "explore_groups", "explore_tree"]

_NONE = "(none)"
_LEVEL_RANK = {level.value: rank for rank, level in enumerate(LEVEL_ORDER)}


Groups = list[tuple[str, list[tuple[str, list[tuple[str, list[tuple[str, list[str]]]]]]]]]
"""Tracks, each with its areas, each with its topics, each with its levels' item ids, sorted."""


def explore_groups(items: Iterable[Item]) -> Groups:
    """The vault's item ids grouped by track, area, topic and level (kept per vault).

    Args:
        items: The vault's items.

    Returns:
        Tracks, areas and topics in name order, levels in level order; ids sorted.
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
    return [
        (
            track,
            [
                (
                    area,
                    [
                        (
                            topic,
                            [
                                (level, sorted(ids))
                                for level, ids in sorted(
                                    levels.items(), key=lambda kv: _LEVEL_RANK.get(kv[0], 99)
                                )
                            ],
                        )
                        for topic, levels in sorted(topics.items())
                    ],
                )
                for area, topics in sorted(areas.items())
            ],
        )
        for track, areas in sorted(tree.items())
    ]


def _node(name: str, items: int, seen: int, **rest: Any) -> dict[str, Any]:
    return {
        "name": name,
        "items": items,
        "seen": seen,
        "coverage": seen / items if items else 0.0,
        **rest,
    }


def _filters(**names: str) -> dict[str, str]:
    """The vault browser's filters selecting one branch (``(none)`` is no filter)."""
    return {key: value for key, value in names.items() if value != _NONE}


def _sum(children: list[dict[str, Any]], key: str) -> int:
    return sum(int(child[key]) for child in children)


def explore_tree(groups: Groups, seen: set[str]) -> list[dict[str, Any]]:
    """Nested counts: each track's areas, each area's topics, each topic's levels.

    Args:
        groups: The vault's items as :func:`explore_groups` groups them.
        seen: Ids of items the learner has reviewed at least once.

    Returns:
        Tracks in name order, each ``{"name", "items", "seen", "coverage", "children"}``;
        levels (the leaves) carry the ids of their items and, as ``filters``, the
        vault browser's query listing them.
    """
    tracks = []
    for track, areas in groups:
        area_nodes = []
        for area, topics in areas:
            topic_nodes = []
            for topic, levels in topics:
                level_nodes = [
                    _node(
                        level,
                        len(ids),
                        sum(1 for i in ids if i in seen),
                        ids=ids,
                        filters=_filters(track=track, area=area, topic=topic, level=level),
                    )
                    for level, ids in levels
                ]
                topic_nodes.append(
                    _node(
                        topic,
                        _sum(level_nodes, "items"),
                        _sum(level_nodes, "seen"),
                        children=level_nodes,
                    )
                )
            area_nodes.append(
                _node(
                    area,
                    _sum(topic_nodes, "items"),
                    _sum(topic_nodes, "seen"),
                    children=topic_nodes,
                )
            )
        tracks.append(
            _node(track, _sum(area_nodes, "items"), _sum(area_nodes, "seen"), children=area_nodes)
        )
    return tracks
