"""Closed vocabularies of the StaffML question schema 1.0 and our additions."""

from __future__ import annotations

from enum import StrEnum

__all__ = [
    "BLOOM_ORDER",
    "LEVEL_ORDER",
    "BloomLevel",
    "CompetencyArea",
    "EdgeType",
    "ItemKind",
    "Level",
    "Phase",
    "Provenance",
    "ReviewStatus",
    "Status",
    "Track",
    "Zone",
]


class Track(StrEnum):
    """Deployment setting a question is about."""

    CLOUD = "cloud"
    EDGE = "edge"
    MOBILE = "mobile"
    TINYML = "tinyml"
    GLOBAL = "global"


class Level(StrEnum):
    """Seniority level, from L1 recall to L6+ architecture."""

    L1 = "L1"
    L2 = "L2"
    L3 = "L3"
    L4 = "L4"
    L5 = "L5"
    L6_PLUS = "L6+"

    @property
    def rank(self) -> int:
        """Position of the level, 1 for L1 to 6 for L6+."""
        return LEVEL_ORDER.index(self) + 1


LEVEL_ORDER: tuple[Level, ...] = tuple(Level)


class Zone(StrEnum):
    """Kind of thinking a question exercises."""

    RECALL = "recall"
    FLUENCY = "fluency"
    IMPLEMENT = "implement"
    ANALYZE = "analyze"
    DIAGNOSIS = "diagnosis"
    SPECIFICATION = "specification"
    EVALUATION = "evaluation"
    MASTERY = "mastery"
    OPTIMIZATION = "optimization"
    DESIGN = "design"
    REALIZATION = "realization"


class CompetencyArea(StrEnum):
    """Systems competency a question tests."""

    COMPUTE = "compute"
    MEMORY = "memory"
    LATENCY = "latency"
    PRECISION = "precision"
    POWER = "power"
    ARCHITECTURE = "architecture"
    OPTIMIZATION = "optimization"
    PARALLELISM = "parallelism"
    NETWORKING = "networking"
    DEPLOYMENT = "deployment"
    RELIABILITY = "reliability"
    DATA = "data"
    CROSS_CUTTING = "cross-cutting"


class BloomLevel(StrEnum):
    """Bloom's taxonomy level, from remember to create."""

    REMEMBER = "remember"
    UNDERSTAND = "understand"
    APPLY = "apply"
    ANALYZE = "analyze"
    EVALUATE = "evaluate"
    CREATE = "create"

    @property
    def rank(self) -> int:
        """Position in Bloom's order, 1 for remember to 6 for create."""
        return BLOOM_ORDER.index(self) + 1


BLOOM_ORDER: tuple[BloomLevel, ...] = tuple(BloomLevel)


class Phase(StrEnum):
    """Lifecycle phase a question concerns."""

    TRAINING = "training"
    INFERENCE = "inference"
    BOTH = "both"


class Status(StrEnum):
    """Editorial status of an item."""

    DRAFT = "draft"
    PUBLISHED = "published"
    FLAGGED = "flagged"
    ARCHIVED = "archived"
    DELETED = "deleted"


class Provenance(StrEnum):
    """Who wrote an item."""

    HUMAN = "human"
    LLM_DRAFT = "llm-draft"
    LLM_THEN_HUMAN_EDITED = "llm-then-human-edited"
    IMPORTED = "imported"


class ReviewStatus(StrEnum):
    """Outcome of a human review of an item (``human_reviewed.status``).

    The first four are StaffML schema 1.0; ``needs-fix`` and ``rejected`` are ours.
    """

    NOT_REVIEWED = "not-reviewed"
    VERIFIED = "verified"
    FLAGGED = "flagged"
    """The reviewer found issues that need attention."""
    NEEDS_REWORK = "needs-rework"
    """The reviewer recommends writing the item again."""
    NEEDS_FIX = "needs-fix"
    REJECTED = "rejected"


class EdgeType(StrEnum):
    """Kind of link between two topics of a StaffML ``taxonomy_data.yaml``."""

    PREREQUISITE = "prerequisite"
    """The target is learnt first (an edge of the prerequisite graph)."""
    BROADER = "broader"
    """The target is more general."""
    NARROWER = "narrower"
    """The target is more specific."""
    RELATED = "related"
    """The two topics are connected, with no order."""


class ItemKind(StrEnum):
    """Kind of item, our addition to the StaffML schema (YAML key ``format``).

    A StaffML file has no ``format`` key and is a ``question``.
    """

    QUESTION = "question"
    """A StaffML scenario question (free text, or multiple choice with options)."""
    FLASHCARD = "flashcard"
    """A front (``question``) and a back (``details.realistic_solution``)."""
    QUIZ = "quiz"
    """A chapter-quiz question with a short model answer."""
    EXERCISE = "exercise"
    """A worked exercise with optional sub-parts; may lack a reference answer."""
    NUMERIC = "numeric"
    """A question whose answer is a number with a unit, graded automatically."""
