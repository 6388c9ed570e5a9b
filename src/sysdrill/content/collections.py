"""Models of the vault's shared files: ``taxonomy.yaml``, ``chains.yaml``, ``decks.yaml``."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from sysdrill.content.enums import CompetencyArea, Track
from sysdrill.content.models import QuestionId

__all__ = ["Chain", "ChainsFile", "Deck", "DecksFile", "Taxonomy", "Topic"]


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class Topic(_Open):
    """A topic of the taxonomy, with the topics it builds on."""

    id: str
    name: str | None = None
    area: CompetencyArea | None = None
    description: str | None = None
    prerequisites: list[str] = Field(default_factory=list)
    """Ids of topics to learn first (edges of the prerequisite graph)."""


class Taxonomy(_Open):
    """Contents of ``taxonomy.yaml``."""

    topics: list[Topic] = Field(default_factory=list)


class Chain(_Open):
    """An ordered list of items deepening one topic, from recall to architecture."""

    id: str
    topic: str | None = None
    title: str | None = None
    items: list[QuestionId]
    """Item ids in order; positions are 0-based."""


class ChainsFile(_Open):
    """Contents of ``chains.yaml``."""

    chains: list[Chain] = Field(default_factory=list)


class Deck(_Open):
    """A named, ordered set of items (a chapter quiz, a flashcard deck)."""

    name: str
    title: str | None = None
    description: str | None = None
    track: Track | None = None
    items: list[QuestionId] = Field(default_factory=list)
    """Explicit order; items whose ``deck`` field names this deck are appended."""


class DecksFile(_Open):
    """Contents of ``decks.yaml``."""

    decks: list[Deck] = Field(default_factory=list)
