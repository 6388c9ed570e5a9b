"""Models of the vault's shared files: taxonomies, chains and decks.

Two spellings are read for taxonomies and chains: ours (``taxonomy.yaml``,
``chains.yaml``) and StaffML's (``taxonomy_data.yaml``, also found as
``schema/taxonomy_data.yaml``, and ``chains.json``). :func:`combine_collections`
merges whichever a vault has into one taxonomy and one chain list, and stamps
every topic and chain with the file and field path it came from
(:class:`Origin`), so findings point at the right line of the right file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, RootModel, model_validator

from sysdrill.content.enums import CompetencyArea, EdgeType, Level, Track
from sysdrill.content.models import QuestionId

__all__ = [
    "CHAIN_FILES",
    "SHARED_MODELS",
    "TAXONOMY_FILES",
    "Chain",
    "ChainsFile",
    "Collections",
    "Deck",
    "DecksFile",
    "Loc",
    "Origin",
    "StaffmlChain",
    "StaffmlChainMember",
    "StaffmlChainsFile",
    "Taxonomy",
    "Topic",
    "TopicEdge",
    "combine_collections",
]

Loc = tuple[str | int, ...]
"""A field path inside a file, such as ``("chains", 2, "items", 0)``."""


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a topic or chain was read: its file and the field path of its entry."""

    rel: str
    """File, relative to the vault root (``chains.json``)."""
    loc: Loc
    """Path of the entry in the file, such as ``("chains", 3)`` or ``(3,)``."""
    id_key: str = "id"
    """Key of the entry's id (``chain_id`` in ``chains.json``)."""
    members_key: str = "items"
    """Key of a chain's member list (``questions`` in ``chains.json``)."""
    member_id_key: str | None = None
    """Key of the id inside a member (``id`` in ``chains.json``; None when members are ids)."""

    def id_loc(self) -> Loc:
        """Field path of the entry's id."""
        return (*self.loc, self.id_key)

    def member_loc(self, position: int, key: str | None = None) -> Loc:
        """Field path of a chain member's id, or of its field ``key`` (``position`` is 0-based)."""
        key = key or self.member_id_key
        return (*self.loc, self.members_key, position, *(() if key is None else (key,)))


class TopicEdge(_Open):
    """A link from a topic to another (StaffML ``taxonomy_data.yaml``)."""

    target: str
    """Id of the topic linked to."""
    edge_type: EdgeType
    note: str | None = None


class Topic(_Open):
    """A topic of the taxonomy, with the topics it builds on."""

    id: str
    name: str | None = None
    area: CompetencyArea | None = None
    description: str | None = None
    tracks: list[Track] | None = None
    """Tracks the topic appears in (StaffML)."""
    prerequisites: list[str] = Field(default_factory=list)
    """Ids of topics to learn first (edges of the prerequisite graph)."""
    edges: list[TopicEdge] = Field(default_factory=list)
    """Typed links (StaffML); ``prerequisite`` edges join :attr:`prerequisites`."""
    _origin: Origin | None = PrivateAttr(default=None)

    @property
    def origin(self) -> Origin:
        """Where the topic was read (``taxonomy.yaml`` when it was built in code)."""
        return self._origin or Origin("taxonomy.yaml", ("topics",))

    @property
    def prerequisite_ids(self) -> list[str]:
        """Topics to learn first, from ``prerequisites`` and from prerequisite edges."""
        return [target for target, _ in self.prerequisite_refs()]

    def prerequisite_refs(self) -> list[tuple[str, Loc]]:
        """Each prerequisite with its field path relative to the topic entry."""
        refs: list[tuple[str, Loc]] = [
            (name, ("prerequisites", position)) for position, name in enumerate(self.prerequisites)
        ]
        refs += [
            (edge.target, ("edges", position, "target"))
            for position, edge in enumerate(self.edges)
            if edge.edge_type is EdgeType.PREREQUISITE
        ]
        return refs


class Taxonomy(_Open):
    """Contents of ``taxonomy.yaml`` or of StaffML's ``taxonomy_data.yaml``."""

    name: str | None = None
    version: str | None = None
    description: str | None = None
    last_updated: str | None = None
    """ISO 8601 date."""
    topics: list[Topic] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _stamps_as_written(cls, data: Any) -> Any:
        # Unquoted `version: 1.0` and `last_updated: 2026-03-30` are read by YAML
        # as a float and a date; they are kept as the strings that were written.
        if isinstance(data, dict):
            for key in ("version", "last_updated"):
                value = data.get(key)
                if isinstance(value, float | int | date) and not isinstance(value, bool):
                    data = {**data, key: str(value)}
        return data


class Chain(_Open):
    """An ordered list of items deepening one topic, from recall to architecture."""

    id: str
    topic: str | None = None
    title: str | None = None
    items: list[QuestionId]
    """Item ids in order; positions are 0-based."""
    _origin: Origin | None = PrivateAttr(default=None)
    _levels: list[Level | None] = PrivateAttr(default_factory=list)

    @property
    def origin(self) -> Origin:
        """Where the chain was read (``chains.yaml`` when it was built in code)."""
        return self._origin or Origin("chains.yaml", ("chains",))

    @property
    def declared_levels(self) -> list[Level | None]:
        """Level the chain file gives each member (``chains.json`` does), else empty."""
        return list(self._levels)


class ChainsFile(_Open):
    """Contents of ``chains.yaml``."""

    chains: list[Chain] = Field(default_factory=list)


class StaffmlChainMember(_Open):
    """One question of a StaffML chain."""

    id: QuestionId
    level: Level | None = None
    title: str | None = None
    bloom: str | None = None


class StaffmlChain(_Open):
    """One chain of StaffML's ``chains.json``."""

    chain_id: str
    # Kept as written, not checked: sysdrill uses only the id, topic and members,
    # and an odd value here should not drop every chain of the file.
    track: str | None = None
    topic: str | None = None
    competency_area: str | None = None
    levels: list[str] | None = None
    questions: list[StaffmlChainMember]
    """Members in order, each with its level."""
    rationale: str | None = None
    tier: str | None = None

    def to_chain(self) -> Chain:
        """The chain in our model (members' levels kept as :attr:`Chain.declared_levels`)."""
        chain = Chain(
            id=self.chain_id,
            topic=self.topic,
            items=[member.id for member in self.questions],
            description=self.rationale,
        )
        chain._levels = [member.level for member in self.questions]
        return chain


class StaffmlChainsFile(RootModel[list[StaffmlChain]]):
    """Contents of ``chains.json``: a JSON array of chains."""

    root: list[StaffmlChain] = Field(default_factory=list)


class Deck(_Open):
    """A named, ordered set of items (a chapter quiz, a flashcard deck)."""

    name: str
    title: str | None = None
    description: str | None = None
    track: Track | None = None
    items: list[QuestionId] = Field(default_factory=list)
    """Explicit order; items whose ``deck`` field names this deck are appended."""
    skip_napkin_check: bool = False
    """The deck's numbers are not napkin math (chemistry, vocabulary): ``check``'s napkin
    tier leaves its items alone. Imports from Anki and Quizlet write it as true."""


class DecksFile(_Open):
    """Contents of ``decks.yaml``."""

    decks: list[Deck] = Field(default_factory=list)


TAXONOMY_FILES: tuple[str, ...] = (
    "taxonomy.yaml",
    "taxonomy_data.yaml",
    "schema/taxonomy_data.yaml",
)
"""Taxonomy files, ours then StaffML's; ``schema/taxonomy_data.yaml`` is read only
when the vault has no ``taxonomy_data.yaml`` at its top."""

CHAIN_FILES: tuple[str, ...] = ("chains.yaml", "chains.json")
"""Chain files, ours then StaffML's."""

SHARED_MODELS: dict[str, type[BaseModel]] = {
    "taxonomy.yaml": Taxonomy,
    "taxonomy_data.yaml": Taxonomy,
    "schema/taxonomy_data.yaml": Taxonomy,
    "chains.yaml": ChainsFile,
    "chains.json": StaffmlChainsFile,
    "decks.yaml": DecksFile,
}
"""Every shared file a vault may have (path relative to the root, ``/``) and its model."""


@dataclass(slots=True)
class Collections:
    """The shared files of a vault, merged."""

    taxonomy: Taxonomy | None = None
    """Topics of every taxonomy file, in file order; None when the vault has none."""
    chains: list[Chain] = field(default_factory=list)
    decks: list[Deck] = field(default_factory=list)


def _taxonomy_files(parts: Mapping[str, BaseModel]) -> list[str]:
    names = [name for name in TAXONOMY_FILES if isinstance(parts.get(name), Taxonomy)]
    if "taxonomy_data.yaml" in names and "schema/taxonomy_data.yaml" in names:
        names.remove("schema/taxonomy_data.yaml")
    return names


def combine_collections(parts: Mapping[str, Any]) -> Collections:
    """Merge validated shared files into one taxonomy, chain list and deck list.

    Args:
        parts: Each shared file's validated model, by its name in :data:`SHARED_MODELS`.

    Returns:
        The merged collections; every topic and chain carries its :class:`Origin`.
        Duplicates are kept (``check`` reports them).
    """
    merged = Collections()
    names = _taxonomy_files(parts)
    if names:
        first: Taxonomy = parts[names[0]]
        topics: list[Topic] = []
        for name in names:
            for index, topic in enumerate(parts[name].topics):
                topic = topic.model_copy()
                topic._origin = Origin(name, ("topics", index))
                topics.append(topic)
        merged.taxonomy = first.model_copy(update={"topics": topics})
    ours = parts.get("chains.yaml")
    if isinstance(ours, ChainsFile):
        for index, chain in enumerate(ours.chains):
            chain = chain.model_copy()
            chain._origin = Origin("chains.yaml", ("chains", index))
            merged.chains.append(chain)
    staffml = parts.get("chains.json")
    if isinstance(staffml, StaffmlChainsFile):
        for index, entry in enumerate(staffml.root):
            chain = entry.to_chain()
            chain._origin = Origin("chains.json", (index,), "chain_id", "questions", "id")
            merged.chains.append(chain)
    decks = parts.get("decks.yaml")
    if isinstance(decks, DecksFile):
        merged.decks = list(decks.decks)
    return merged
