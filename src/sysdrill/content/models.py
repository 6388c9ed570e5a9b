"""Pydantic models of vault items: the StaffML question schema 1.0 plus our additions.

One YAML file holds one item. Every model allows extra keys so that fields we do
not know survive a load/save round trip (``check`` reports them as info).
Required fields depend on the kind of item (``format``): a StaffML scenario
question needs the full classification, a flashcard only a front and a back.
Which fields each kind requires is :data:`REQUIRED_FIELDS`, enforced by
:func:`validate_item` so that every missing field is its own error.
"""

from __future__ import annotations

from typing import Any, NewType

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from sysdrill.content.enums import (
    BloomLevel,
    CompetencyArea,
    ItemKind,
    Level,
    Phase,
    Provenance,
    ReviewStatus,
    Status,
    Track,
    Zone,
)

__all__ = [
    "DEFAULT_ANSWER_TOLERANCE",
    "REQUIRED_FIELDS",
    "AnkiNote",
    "AnkiNoteType",
    "ChainRef",
    "Details",
    "Diagram",
    "HumanReview",
    "Item",
    "ItemSource",
    "NoteLink",
    "Part",
    "QuestionId",
    "Resource",
    "TemplateCalculator",
    "TemplateParameter",
    "TemplateValue",
    "Visual",
    "dump_item",
    "validate_item",
]

QuestionId = NewType("QuestionId", str)

DEFAULT_ANSWER_TOLERANCE = 0.05
"""Relative tolerance of a numeric answer whose item declares no ``answer_tolerance`` (5 %)."""

_STRING_STAMPS = (
    "schema_version",
    "created_at",
    "updated_at",
    "last_modified",
    "validation_date",
    "math_date",
)


def _stamps_as_strings(data: Any, keys: tuple[str, ...]) -> Any:
    # YAML reads unquoted dates and versions as date / float objects; the
    # schema keeps them as the strings authors wrote.
    if isinstance(data, dict):
        for key in keys:
            value = data.get(key)
            if value is not None and not isinstance(value, str | bool | list | dict):
                data = {**data, key: str(value)}
    return data


class _Open(BaseModel):
    """Base for vault models: unknown keys are kept, not rejected."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, use_enum_values=False)


class Resource(_Open):
    """A further-reading link."""

    name: str
    url: str


class Details(_Open):
    """The answer side of an item."""

    realistic_solution: str | None = None
    """Model answer (the back of a flashcard, the answer of a quiz question)."""
    common_mistake: str | None = None
    """Markdown with **The Pitfall:**, **The Rationale:**, **The Consequence:**."""
    napkin_math: str | None = None
    """Markdown with an Assumptions header, **Calculations:**, a Conclusion header."""
    options: list[Any] | None = None
    """Multiple-choice options; ``check`` requires exactly four distinct strings."""
    correct_index: int | None = None
    """0-based index of the correct option."""
    resources: list[Resource] | None = None


class HumanReview(_Open):
    """Stamp of a human review (StaffML schema 1.0)."""

    status: ReviewStatus = ReviewStatus.NOT_REVIEWED
    by: str | None = None
    """Reviewer: an e-mail address or a git handle."""
    date: str | None = None
    """Day of the review, ISO 8601 (``2026-04-03``)."""
    notes: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _coerce_date(cls, data: Any) -> Any:
        return _stamps_as_strings(data, ("date",))


class Visual(_Open):
    """A diagram shown with the question (StaffML ``visual``), kept in a file of its own."""

    kind: str
    """Renderer: ``svg`` (``mermaid`` is reserved)."""
    path: str
    """Bare file name of the diagram in the vault's ``visuals/<track>/`` folder."""
    alt: str
    """Text for screen readers and for when the diagram cannot be shown."""
    caption: str | None = None


class Diagram(_Open):
    """A picture computed from the item's numbers (our addition), unlike ``visual``'s file.

    ``kind`` names the picture and ``params`` its numbers; a parameter written as
    ``"{name}"`` takes a template's drawn or derived value, so each draw gets its own
    picture. The napkin tier (:mod:`sysdrill.napkin.diagrams`) validates each kind's
    parameters; the model stays loose so a bad declaration is a ``check`` finding,
    not an item that fails to load.
    """

    kind: str
    """``pipeline-schedule``, ``ring-allreduce``, ``tree-allreduce``,
    ``memory-breakdown`` or ``roofline``."""
    params: dict[str, int | float | str] = Field(default_factory=dict)
    """Numbers (or ``"{name}"`` references, or words such as a schedule's name), by name."""
    caption: str | None = None
    with_question: bool = False
    """Show the picture with the question. By default it comes with the answer: it is
    drawn from the item's numbers, and often shows what the question asks for."""


class ChainRef(_Open):
    """An item's place in a chain, as StaffML items record it (``chains``)."""

    id: str
    """Chain id (``chain_id`` in ``chains.json``)."""
    position: int = Field(ge=0)
    """0-based position in the chain."""


class Part(_Open):
    """A sub-part of an exercise, such as "(a)"."""

    label: str
    text: str
    answer: str | None = None


class TemplateParameter(_Open):
    """A number a template draws each time it is shown (our addition).

    Either a range (``min``, ``max`` and a ``step`` that the value is a whole
    number of steps above ``min``) or a list of ``choices``.
    """

    min: float | None = None
    max: float | None = None
    step: float | None = Field(default=None, gt=0)
    """Spacing of the drawn values; values are ``min + k * step`` up to ``max``."""
    choices: list[float] | None = None
    unit: str = ""
    """Unit of the drawn number, as the napkin engine reads it (``""`` for a pure number)."""


class TemplateValue(_Open):
    """A value a template computes from its parameters, for its text (our addition)."""

    expr: str
    """Napkin expression over ``{parameter}`` placeholders and earlier values."""
    unit: str = ""
    """Unit the value is shown in (``""`` for a pure number)."""


class TemplateCalculator(_Open):
    """A template's answer computed by a named calculator (our addition)."""

    name: str
    """Calculator name, as ``sysdrill calc NAME`` takes it (``ring-allreduce``)."""
    inputs: dict[str, str]
    """Keyword inputs as typed text, with ``{placeholders}`` (``message: "{message}"``)."""
    output: str
    """The output that is the answer (``time``); a fraction is shown in ``%`` if asked."""


class AnkiNoteType(_Open):
    """The Anki note type an imported note had, so export writes the same one (our addition)."""

    id: int
    """Anki's note type id: a note updates in place only under the same id."""
    name: str
    mod_s: int | None = None
    """When Anki last changed the note type, in seconds since the epoch."""
    cloze: bool = False
    """Anki's cloze kind (cards from ``{{cN::...}}`` blanks, not one per template)."""
    fields: dict[str, str]
    """Every field in the note type's order, with the role the import gave it
    (``question``, ``answer``, ``extra``, ``source``, ``tags`` or ``ignore``)."""
    templates: list[dict[str, str]] = Field(default_factory=list)
    """Each card template as ``{name, front, back}`` (Anki template HTML)."""
    css: str = ""
    sort_field: int = 0
    """0-based index of the field Anki's browser sorts by."""


class AnkiNote(_Open):
    """The Anki note and card an item was imported from (``source.anki``, our addition)."""

    guid: str
    """The note's GUID: an export carrying it updates that note in Anki."""
    card: int = 0
    """This item's card ordinal in the note (template index; cloze number minus 1)."""
    note_mod_s: int | None = None
    """When Anki last changed the note, in seconds since the epoch."""
    deck: str | None = None
    """The card's Anki deck, ``Parent::Child``."""
    suspended: bool | None = None
    """The card was suspended in Anki."""
    buried: bool | None = None
    """The card was buried in Anki."""
    note_type: AnkiNoteType
    values: list[str] = Field(default_factory=list)
    """Every field of the note as Anki stored it (HTML), in the note type's order."""
    media: dict[str, str] | None = None
    """Vault ``media/`` file of each media file the fields name, by its Anki name."""


class ItemSource(_Open):
    """Where an imported item came from (our addition)."""

    format: str
    """Importer that read it, such as ``quiz-text`` or ``apkg``."""
    path: str | None = None
    """Source file name as given at import time."""
    key: str
    """Stable key of the item within the source; re-imports update the same item."""
    digest: str | None = None
    """SHA-256 of the item's source text, to tell updated from unchanged."""
    provenance: str | None = None
    """Provenance the source declared (``human``, ``llm-draft``...) when it was not ``imported``."""
    anki: AnkiNote | None = None
    """Anki packages: the note, note type and card the item came from, so export updates it."""


class NoteLink(_Open):
    """The note an item is one card of, when one source note gives several items (our addition).

    An Anki cloze note gives one item per blank and a reversed note one item per
    direction; the items share :attr:`id` (they are *siblings*), and exporting
    puts them back together as one note of :attr:`type`.
    """

    id: str
    """Shared by every card of the note; an item's own id is ``<id>-<card>``."""
    card: str
    """Which card of the note: ``c1``, ``c2``... for cloze blanks, ``forward`` or ``reverse``,
    ``t1``, ``t2``... for the templates of a note type with three or more."""
    type: str | None = None
    """Anki note type to export the note as, such as ``Cloze`` or
    ``Basic (and reversed card)``."""
    text: str | None = None
    """Cloze notes: the note's whole text (Markdown) with every ``{{cN::answer::hint}}``."""
    extra: str | None = None
    """Cloze notes: the note's extra text (Anki's Back Extra), also shown in the answer."""
    fields: dict[str, str] | None = None
    """Note types with three or more card templates: every field of the note
    (Markdown), by field name, in the note type's order; the cards are ``t1``, ``t2``..."""
    templates: list[dict[str, str]] | None = None
    """Those note types: each card template as ``{name, front, back}`` (Anki template
    HTML), so that export writes the same note type."""


class Item(_Open):
    """One vault item: a StaffML question or one of our other kinds.

    Fields up to ``chains`` are StaffML schema 1.0 (with ``authors``, kept from
    StaffML's earlier schema); the rest are our additions.
    All classification fields are optional at the type level because flashcards,
    quiz questions and exercises may lack them; :func:`validate_item` applies the
    per-kind requirements of :data:`REQUIRED_FIELDS`.
    """

    schema_version: str = "1.0"
    id: QuestionId
    track: Track | None = None
    level: Level | None = None
    zone: Zone | None = None
    topic: str | None = None
    competency_area: CompetencyArea | None = None
    bloom_level: BloomLevel | None = None
    phase: Phase | None = None
    title: str | None = None
    scenario: str | None = None
    question: str | None = None
    visual: Visual | None = None
    diagram: Diagram | None = None
    """A picture drawn from the item's numbers (our addition; docs/vault-format.md)."""
    details: Details = Field(default_factory=Details)
    status: Status = Status.DRAFT
    provenance: Provenance = Provenance.HUMAN
    requires_explanation: bool | None = None
    expected_time_minutes: float | None = None
    deletion_reason: str | None = None
    """Why a ``deleted`` item was removed."""
    validated: bool | None = None
    """Automated (LLM) validation stamp: passed or not."""
    validation_status: str | None = None
    """Validator verdict, such as ``OK``."""
    validation_date: str | None = None
    validation_model: str | None = None
    validation_issues: list[str] | None = None
    validation_status_pro: str | None = None
    """Verdict of a second, stronger validator."""
    validation_issues_pro: list[str] | None = None
    math_verified: bool | None = None
    """Automated check of the napkin math: passed or not."""
    math_status: str | None = None
    """Math verdict, such as ``CORRECT``."""
    math_date: str | None = None
    math_model: str | None = None
    math_issues: list[str] | None = None
    human_reviewed: HumanReview | None = None
    classification_review: str | None = None
    """A reviewer's note on the item's track, level, zone or topic."""
    tags: list[str] = Field(default_factory=list)
    authors: list[str] = Field(default_factory=list)
    created_at: str | None = None
    updated_at: str | None = None
    last_modified: str | None = None
    chains: list[ChainRef | str] | None = None
    """Chains the item belongs to; the vault's chain files are what ``chain`` reads."""

    # Our additions (documented in docs/vault-format.md).
    format: ItemKind = ItemKind.QUESTION
    deck: str | None = None
    difficulty: int | None = Field(default=None, ge=1, le=4)
    """Difficulty in stars, 1 to 4 (exercise sets mark it with asterisks)."""
    section: str | None = None
    parts: list[Part] | None = None
    has_reference_answer: bool | None = None
    answer_value: float | None = None
    """Expected numeric answer, in ``answer_unit``."""
    answer_unit: str | None = None
    """Unit of ``answer_value`` (any pint-readable unit, ``""`` for a pure number)."""
    answer_tolerance: float | None = Field(default=None, ge=0)
    """Accepted relative error of a numeric answer, as a fraction (0.05 is 5 %).

    :data:`DEFAULT_ANSWER_TOLERANCE` applies when it is absent."""
    parameters: dict[str, TemplateParameter] | None = None
    """Template: the numbers drawn each time the item is shown, by placeholder name."""
    constraints: list[str] | None = None
    """Template: conditions every draw meets, such as ``"layers % pp == 0"``."""
    derived: dict[str, TemplateValue] | None = None
    """Template: values computed from the parameters, in order, for ``{name}`` placeholders."""
    answer_expr: str | None = None
    """Template: the answer, a napkin expression over placeholders, shown in ``answer_unit``."""
    answer_calculator: TemplateCalculator | None = None
    """Template: the answer computed by a named calculator instead of ``answer_expr``."""
    source: ItemSource | None = None
    note_link: NoteLink | None = None
    """The note this item is one card of (cloze blank, reverse card); absent for single cards."""

    @model_validator(mode="before")
    @classmethod
    def _coerce_scalars(cls, data: Any) -> Any:
        return _stamps_as_strings(data, _STRING_STAMPS)

    @property
    def kind(self) -> ItemKind:
        """Kind of item (``format``, defaulting to a StaffML question)."""
        return self.format

    @property
    def answer_text(self) -> str | None:
        """Model answer: ``details.realistic_solution``."""
        return self.details.realistic_solution

    @property
    def is_multiple_choice(self) -> bool:
        """Whether the item carries options to choose from."""
        return bool(self.details.options)

    @property
    def is_numeric(self) -> bool:
        """Whether the item declares an expected numeric answer."""
        return self.answer_value is not None

    @property
    def is_template(self) -> bool:
        """Whether the item is a template: its numbers are drawn when it is shown."""
        return bool(self.parameters)


REQUIRED_FIELDS: dict[ItemKind, tuple[str, ...]] = {
    ItemKind.QUESTION: (
        "track",
        "level",
        "zone",
        "topic",
        "competency_area",
        "bloom_level",
        "phase",
        "title",
        "scenario",
        "question",
        "details.realistic_solution",
    ),
    ItemKind.FLASHCARD: ("question", "details.realistic_solution"),
    ItemKind.QUIZ: ("question",),
    ItemKind.EXERCISE: ("question",),
    ItemKind.NUMERIC: ("question", "answer_value", "answer_unit"),
}

_EMPTY_ALLOWED: frozenset[tuple[str, ...]] = frozenset({("answer_unit",)})
"""Required fields that may be empty: ``answer_unit: ""`` declares a pure number."""
"""Fields (dotted paths) each kind of item must have, non-empty."""


_REQUIRED_PATHS: dict[ItemKind, tuple[tuple[str, ...], ...]] = {
    kind: tuple(tuple(dotted.split(".")) for dotted in fields)
    for kind, fields in REQUIRED_FIELDS.items()
}


_KINDS = {kind.value: kind for kind in ItemKind}


def _lookup(data: Any, path: tuple[str, ...]) -> Any:
    for part in path:
        if not isinstance(data, dict):
            return None
        data = data.get(part)
    return data


def validate_item(data: Any) -> Item:
    """Validate one item's raw YAML mapping, reporting every problem at once.

    Args:
        data: The mapping read from one item file.

    Returns:
        The validated item.

    Raises:
        pydantic.ValidationError: With one error per problem, type errors and
            per-kind missing fields together; each error's ``loc`` is the field path.
    """
    errors: list[InitErrorDetails] = []
    item: Item | None = None
    try:
        item = Item.model_validate(data)
    except ValidationError as exc:
        errors.extend(exc.errors())  # type: ignore[arg-type]
    if isinstance(data, dict):
        kind_value = data.get("format", ItemKind.QUESTION.value)
        kind = _KINDS.get(kind_value) if type(kind_value) is str else None
        if kind is None:
            try:
                kind = ItemKind(kind_value)
            except ValueError:
                kind = None
        if kind is not None:
            for path in _REQUIRED_PATHS[kind]:
                value = data.get(path[0]) if len(path) == 1 else _lookup(data, path)
                if path in _EMPTY_ALLOWED and value is not None:
                    continue
                if path == ("answer_value",) and (
                    data.get("answer_expr") is not None or data.get("answer_calculator") is not None
                ):
                    continue  # a template computes its answer for each draw
                # `isspace` is true exactly when `strip` leaves nothing (and allocates nothing).
                if value is None or (isinstance(value, str) and (not value or value.isspace())):
                    errors.append(
                        InitErrorDetails(
                            type=PydanticCustomError(
                                "missing",
                                "Field required for a {kind} item",
                                {"kind": kind.value},
                            ),
                            loc=path,
                            input=data,
                        )
                    )
    if errors or item is None:
        raise ValidationError.from_exception_data("Item", errors)
    return item


def dump_item(item: Item) -> dict[str, Any]:
    """Return the item as a plain mapping for YAML, keeping only keys that were set.

    Enum values become their strings; unknown keys are kept in place at the end.
    """
    return item.model_dump(mode="json", exclude_unset=True, by_alias=True)
