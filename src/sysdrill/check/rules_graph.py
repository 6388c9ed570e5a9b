"""Vault rules: ids across files, the taxonomy graph, chains and decks.

Taxonomies and chains may come from our files or StaffML's
(``taxonomy_data.yaml``, ``chains.json``); each topic and chain carries its
:class:`~sysdrill.content.collections.Origin`, so findings name the file and
line it was read from.

These rules see a short summary of each item (:class:`ItemSummary`), which the
runner caches, so a warm ``check`` need not parse unchanged files to run them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from sysdrill.check.registry import RULES
from sysdrill.check.rules_media import media_findings, media_names
from sysdrill.content.collections import Chain, Topic
from sysdrill.content.diagnostics import Finding
from sysdrill.content.enums import LEVEL_ORDER, EdgeType, Level
from sysdrill.content.json_source import JsonLocator
from sysdrill.content.loader import Locator, Vault, locator_for

__all__ = ["ItemSummary", "vault_findings"]

_LEVELS = frozenset(level.value for level in Level)


class ItemSummary(NamedTuple):
    """What the vault rules need of one item (plain data, kept in the cache)."""

    rel: str
    id: str
    level: str | None
    topic: str | None
    readable: bool = True
    """False when the file could not be read as a mapping and ``id`` is its file name."""
    media: tuple[str, ...] = ()
    """Media files the item refers to (``media/<name>``), for ``media-missing``."""
    deck: str | None = None
    """The item's own ``deck`` field, for decks that skip the napkin tier."""

    @classmethod
    def of(cls, rel: str, raw: Any) -> ItemSummary | None:
        """Summarise an item from its raw mapping (valid or not).

        A file that is not a mapping at all is summarised by its file name, so that
        chains naming it are not also reported: its own finding says what is wrong.
        """
        if not isinstance(raw, dict):
            stem = rel.rsplit("/", 1)[-1].rsplit(".", 1)[0]
            return cls(rel, stem, None, None, readable=False)
        if not isinstance(raw.get("id"), str | int):
            return None
        level = raw.get("level")
        topic = raw.get("topic")
        return cls(
            rel,
            str(raw["id"]),
            level if level in _LEVELS else None,
            topic if isinstance(topic, str) else None,
            media=media_names(raw),
            deck=deck if isinstance(deck := raw.get("deck"), str) else None,
        )


@dataclass(slots=True)
class _Reporter:
    """Builds findings, parsing each file for line numbers at most once."""

    root: Path
    findings: list[Finding]
    _locators: dict[str, Locator | JsonLocator]

    def add(
        self, code: str, rel: str, loc: Sequence[str | int], message: str, fix: str | None = None
    ) -> None:
        locator = self._locators.get(rel)
        if locator is None:
            locator = self._locators[rel] = locator_for(self.root / rel)
        line, column = locator.locate(loc)
        rule = RULES[code]
        self.findings.append(
            Finding(code, rule.severity, rel, line, column, message, fix or rule.fix)
        )


def _ids(report: _Reporter, summaries: Sequence[ItemSummary]) -> dict[str, ItemSummary]:
    by_id: dict[str, list[ItemSummary]] = {}
    for summary in summaries:
        by_id.setdefault(summary.id, []).append(summary)
    for item_id, group in by_id.items():
        for summary in group if len(group) > 1 else ():
            others = ", ".join(s.rel for s in group if s is not summary)
            report.add(
                "id-unique", summary.rel, ("id",), f"id '{item_id}' is also used by {others}"
            )
    return {item_id: group[0] for item_id, group in by_id.items()}


def _first_in(first_rel: str, rel: str) -> str:
    """Where the first definition is, when another file holds it."""
    return "" if first_rel == rel else f" (first in {first_rel})"


def _taxonomy(report: _Reporter, vault: Vault, summaries: Sequence[ItemSummary]) -> None:
    taxonomy = vault.taxonomy
    if taxonomy is None:
        return
    known: dict[str, Topic] = {}
    for topic in taxonomy.topics:
        first = known.get(topic.id)
        if first is not None:
            where = _first_in(first.origin.rel, topic.origin.rel)
            report.add(
                "taxonomy-ref-exists",
                topic.origin.rel,
                topic.origin.id_loc(),
                f"topic '{topic.id}' is defined twice{where}",
                fix="merge the two definitions",
            )
        known.setdefault(topic.id, topic)
    edges: dict[str, list[str]] = {}
    for topic in taxonomy.topics:
        origin = topic.origin
        prerequisites = topic.prerequisite_refs()
        for name, loc in prerequisites:
            if name not in known:
                report.add(
                    "taxonomy-ref-exists",
                    origin.rel,
                    (*origin.loc, *loc),
                    f"topic '{topic.id}' names unknown prerequisite '{name}'",
                )
            else:
                edges.setdefault(topic.id, []).append(name)
        for position, edge in enumerate(topic.edges):
            if edge.target not in known and edge.edge_type is not EdgeType.PREREQUISITE:
                report.add(
                    "taxonomy-ref-exists",
                    origin.rel,
                    (*origin.loc, "edges", position, "target"),
                    f"topic '{topic.id}' links ({edge.edge_type.value}) to unknown topic "
                    f"'{edge.target}'",
                )
    for cycle in _cycles(edges):
        topic = known[cycle[0]]
        step = cycle[1] if len(cycle) > 1 else cycle[0]
        edge_loc = next((loc for name, loc in topic.prerequisite_refs() if name == step), ())
        report.add(
            "taxonomy-acyclic",
            topic.origin.rel,
            (*topic.origin.loc, *edge_loc),
            "prerequisites form a cycle: " + " -> ".join([*cycle, cycle[0]]),
        )
    files = " or ".join(sorted({topic.origin.rel for topic in known.values()})) or "the taxonomy"
    for summary in summaries:
        if summary.topic is not None and summary.topic not in known:
            report.add(
                "topic-in-taxonomy",
                summary.rel,
                ("topic",),
                f"topic '{summary.topic}' is not in {files}",
            )


def _cycles(edges: dict[str, list[str]]) -> list[list[str]]:
    """One cycle per strongly connected knot, found by iterative depth-first search."""
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    cycles: list[list[str]] = []
    for start in sorted(edges):
        if start in state:
            continue
        path: list[str] = []
        stack: list[tuple[str, Any]] = [(start, iter(edges.get(start, ())))]
        state[start] = 1
        path.append(start)
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                path.pop()
                state[node] = 2
            elif state.get(child) == 1:
                cycles.append(path[path.index(child) :])
            elif child not in state:
                state[child] = 1
                path.append(child)
                stack.append((child, iter(edges.get(child, ()))))
    return cycles


def _chains(report: _Reporter, vault: Vault, by_id: dict[str, ItemSummary]) -> None:
    first_of: dict[str, Chain] = {}
    for chain in vault.chains:
        origin = chain.origin
        first = first_of.setdefault(chain.id, chain)
        if first is not chain:
            where = _first_in(first.origin.rel, origin.rel)
            report.add(
                "chain-duplicate",
                origin.rel,
                origin.id_loc(),
                f"chain id '{chain.id}' is used by two chains{where}",
            )
        declared = chain.declared_levels
        seen_items: set[str] = set()
        previous: tuple[str, int] | None = None
        for position, item_id in enumerate(chain.items):
            loc = origin.member_loc(position)
            if item_id in seen_items:
                report.add(
                    "chain-duplicate",
                    origin.rel,
                    loc,
                    f"chain '{chain.id}' lists '{item_id}' twice",
                )
                continue
            seen_items.add(item_id)
            stated = declared[position] if position < len(declared) else None
            summary = by_id.get(item_id)
            if summary is None:
                report.add(
                    "chain-ref-exists",
                    origin.rel,
                    loc,
                    f"chain '{chain.id}' lists unknown item '{item_id}'",
                )
            elif stated is not None and summary.level is not None and stated != summary.level:
                report.add(
                    "chain-level-mismatch",
                    origin.rel,
                    origin.member_loc(position, "level"),
                    f"chain '{chain.id}' gives {item_id} level {stated.value}, "
                    f"but the item says {summary.level}",
                )
            # The item's own level decides; the chain file's is the fallback for a missing item.
            level = summary.level if summary is not None else stated
            if level is None:
                continue
            rank = LEVEL_ORDER.index(Level(level))
            if previous is not None and rank < previous[1]:
                report.add(
                    "chain-levels-monotonic",
                    origin.rel,
                    loc,
                    f"chain '{chain.id}' steps down from {previous[0]} to {item_id} ({level})",
                )
            previous = (f"{item_id} ({level})", rank)


def _decks(report: _Reporter, vault: Vault, by_id: dict[str, ItemSummary]) -> None:
    for index, deck in enumerate(vault.decks):
        for position, item_id in enumerate(deck.items):
            if item_id not in by_id:
                report.add(
                    "deck-ref-exists",
                    "decks.yaml",
                    ("decks", index, "items", position),
                    f"deck '{deck.name}' lists unknown item '{item_id}'",
                )


def vault_findings(vault: Vault, summaries: Sequence[ItemSummary]) -> list[Finding]:
    """Run every vault rule over the item summaries and the vault's shared files.

    Args:
        vault: The loaded vault (its taxonomy, chains and decks are used).
        summaries: One summary per validated item, in path order.

    Returns:
        The findings, lines located only for files that have one.
    """
    report = _Reporter(vault.root, [], {})
    by_id = _ids(report, summaries)
    _taxonomy(report, vault, summaries)
    _chains(report, vault, by_id)
    _decks(report, vault, by_id)
    referenced = [(summary.rel, summary.media) for summary in summaries if summary.media]
    return report.findings + media_findings(vault.root, referenced)
