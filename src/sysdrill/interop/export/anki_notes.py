"""Sibling items back into one Anki note: cloze notes and reversed notes.

Items that share a ``note_link`` (see :class:`~sysdrill.content.models.NoteLink`)
came from one note with several cards. They are written back as one note of
the note type they came from, named as it was:

- a cloze note (the link holds ``text``) as a cloze note type with fields
  ``Text`` and ``Back Extra``, so Anki makes one card per blank again;
- a note of a type with three or more templates (the link holds ``fields``
  and ``templates``) as that note type again: its fields, in order, and its
  templates as they were, so Anki makes the same cards;
- a reversed note (cards ``forward``/``reverse``) as a note type with fields
  ``Front`` and ``Back`` and two templates; when the type's name says
  "optional", or the note has no reverse item, it gets the ``Add Reverse``
  field of Anki's "Basic (optional reversed card)", filled only when there is
  a reverse item.
  What the forward card shows under its answer (the note's other fields, IPA
  say) goes to a ``Back Extra`` field shown under both answers, so it is not
  lost; a note imported from Anki keeps its own note type instead
  (:mod:`~sysdrill.interop.export.anki_original`).

The GUID is the Anki note's own when the items came from an Anki package, so
importing the export into the collection they came from updates those notes.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from sysdrill.content.models import Item
from sysdrill.interop.export.cards import (
    ExportedItem,
    FieldRenderer,
    anki_deck_name,
    anki_tags,
    back_markdown,
)

__all__ = [
    "LinkedNote",
    "linked_deck_and_tags",
    "linked_model",
    "linked_note_fields",
    "linked_notes",
]

_CLOZE_FIELDS = ("Text", "Back Extra")
_REVERSED_FIELDS = ("Front", "Back")
_OPTIONAL_FIELDS = ("Front", "Back", "Add Reverse")
_BACK_EXTRA = "Back Extra"
_SHOW_BACK_EXTRA = "{{#Back Extra}}<br>{{Back Extra}}{{/Back Extra}}"
_ANKI_SOURCES = frozenset({"apkg", "crowdanki"})
"""Import formats whose ``source.key`` starts with the Anki note's own GUID."""
_CARD_NAME = re.compile(r"forward|reverse|[ct][0-9]+")
"""The card names an import puts after a note's GUID and '#' (cloze ``cN``, template ``tN``)."""


@dataclass(slots=True)
class LinkedNote:
    """Sibling items of one source note, in the order they were chosen."""

    note_id: str
    type_name: str
    cloze: bool
    items: list[ExportedItem] = field(default_factory=list)
    note_fields: dict[str, str] | None = None
    """A note type with three or more templates: its fields (Markdown) by name."""
    templates: list[dict[str, str]] = field(default_factory=list)
    """Those note types: their card templates (``name``, ``front``, ``back``)."""

    def card(self, name: str) -> Item | None:
        """The sibling for one card (``forward``, ``reverse``, ``c1``...), if exported."""
        return next(
            (e.item for e in self.items if e.item.note_link and e.item.note_link.card == name), None
        )

    @property
    def optional(self) -> bool:
        """Whether the reverse card is optional (an ``Add Reverse`` field decides)."""
        return "optional" in self.type_name.casefold() or self.card("reverse") is None

    @property
    def fields(self) -> tuple[str, ...]:
        """Field names of the note type."""
        if self.note_fields is not None:
            return tuple(self.note_fields)
        if self.cloze:
            return _CLOZE_FIELDS
        names = _OPTIONAL_FIELDS if self.optional else _REVERSED_FIELDS
        return (*names, _BACK_EXTRA) if self.back_extra else names

    @property
    def back_extra(self) -> str:
        """A reversed note's text under the forward card's answer that the reverse card lacks.

        The import shows a reversed note's other fields (``**IPA:** ...``) under
        the answer of both cards; the reverse card asks the answer, so only the
        forward card's back still holds them. Empty when there is nothing more.
        """
        forward, reverse = self.card("forward"), self.card("reverse")
        if self.cloze or self.note_fields is not None or forward is None or reverse is None:
            return ""
        back = back_markdown(forward, placeholder=False)
        answer = (reverse.question or "").strip()
        if not answer or not back.startswith(answer + "\n\n"):
            return ""
        return back[len(answer) :].strip()

    @property
    def guid(self) -> str:
        """The Anki note's own GUID when imported from a package, else one from the note id."""
        return self.scoped_guid(None)

    def scoped_guid(self, scope: str | None) -> str:
        """The Anki note's own GUID when imported from Anki, else one from vault and note id.

        Args:
            scope: The vault's declared id (``apkg.guid_scope``), or None for
                a GUID from the note id alone.
        """
        for exported in self.items:
            source = exported.item.source
            if source is not None and source.anki is not None:
                return source.anki.guid
            if source is not None and source.format in _ANKI_SOURCES and source.key:
                # An import older than source.anki: the key is the GUID, or the GUID,
                # '#' and a card name. Anki GUIDs may hold '#' themselves (one in
                # ten), so only a card name after the last '#' is cut off.
                guid, mark, card = source.key.rpartition("#")
                return guid if mark and _CARD_NAME.fullmatch(card) else source.key
        import genanki

        if scope is None:
            return str(genanki.guid_for("sysdrill-note", self.note_id))
        return str(genanki.guid_for("sysdrill-note", scope, self.note_id))


def linked_notes(items: list[ExportedItem]) -> dict[str, LinkedNote]:
    """Group the items that belong to a multi-card note, by note id."""
    notes: dict[str, LinkedNote] = {}
    for exported in items:
        link = exported.item.note_link
        if link is None:
            continue
        note = notes.get(link.id)
        if note is None:
            cloze = link.text is not None
            default = "Cloze" if cloze else "Basic (and reversed card)"
            note = notes[link.id] = LinkedNote(link.id, link.type or default, cloze)
            if link.fields is not None:
                note.note_fields = dict(link.fields)
                note.templates = [dict(t) for t in link.templates or []]
        note.items.append(exported)
    return notes


def _model_id(note: LinkedNote) -> int:
    kind = "cloze" if note.cloze else "/".join(note.fields)
    if note.templates:
        kind += "|" + "/".join(t.get("name", "") for t in note.templates)
    digest = hashlib.sha256(f"sysdrill-model:{kind}:{note.type_name}".encode()).digest()
    return (int.from_bytes(digest[:6], "big") | 1 << 40) & ((1 << 52) - 1)


def linked_model(note: LinkedNote, css: str) -> Any:
    """The genanki model of a linked note: its source note type's name and card templates."""
    import genanki

    if note.cloze:
        return genanki.Model(
            _model_id(note),
            note.type_name,
            fields=[{"name": name} for name in _CLOZE_FIELDS],
            templates=[
                {
                    "name": "Cloze",
                    "qfmt": "{{cloze:Text}}",
                    "afmt": "{{cloze:Text}}<br>{{Back Extra}}",
                }
            ],
            css=css + ".cloze { font-weight: bold; color: #0a58ca; }\n",
            model_type=genanki.Model.CLOZE,
        )
    if note.note_fields is not None:
        return genanki.Model(
            _model_id(note),
            note.type_name,
            fields=[{"name": name} for name in note.fields],
            templates=_templates(note),
            css=css,
        )
    reverse_front = "{{#Add Reverse}}{{Back}}{{/Add Reverse}}" if note.optional else "{{Back}}"
    extra = _SHOW_BACK_EXTRA if _BACK_EXTRA in note.fields else ""
    return genanki.Model(
        _model_id(note),
        note.type_name,
        fields=[{"name": name} for name in note.fields],
        templates=[
            {
                "name": "Card 1",
                "qfmt": "{{Front}}",
                "afmt": '{{FrontSide}}<hr id="answer">{{Back}}' + extra,
            },
            {
                "name": "Card 2",
                "qfmt": reverse_front,
                "afmt": '{{FrontSide}}<hr id="answer">{{Front}}' + extra,
            },
        ],
        css=css,
    )


def _templates(note: LinkedNote) -> list[dict[str, str]]:
    """A multi-template note type's templates as genanki takes them.

    Templates the source did not give (unreadable in the package) become one
    card per field pair, so Anki still makes a card for each exported item.
    """
    if note.templates:
        return [
            {"name": t.get("name", ""), "qfmt": t.get("front", ""), "afmt": t.get("back", "")}
            for t in note.templates
        ]
    names = note.fields or ("Front",)
    count = max((int(e.item.note_link.card[1:]) for e in note.items if e.item.note_link), default=1)
    return [
        {
            "name": f"Card {n + 1}",
            "qfmt": "{{" + names[n % len(names)] + "}}",
            "afmt": '{{FrontSide}}<hr id="answer">{{' + names[(n + 1) % len(names)] + "}}",
        }
        for n in range(count)
    ]


def linked_note_fields(note: LinkedNote, render: FieldRenderer) -> list[str]:
    """Field values of a linked note, rendered to Anki HTML."""
    first = note.items[0].item
    link = first.note_link
    if note.note_fields is not None:
        return [render(text) if text else "" for text in note.note_fields.values()]
    if note.cloze and link is not None:
        return [render(link.text), render(link.extra)]
    forward = note.card("forward")
    reverse = note.card("reverse")
    front = forward.question if forward else (reverse.details.realistic_solution if reverse else "")
    if reverse is not None:
        back = reverse.question
    elif forward is not None:
        back = back_markdown(forward, placeholder=False)
    else:  # pragma: no cover - a link always names forward or reverse
        back = ""
    values = [render(front), render(back)]
    if note.optional:
        values.append("y" if reverse is not None else "")
    extra = note.back_extra
    if extra:
        values.append(render(extra))
    return values


def linked_deck_and_tags(note: LinkedNote) -> tuple[str, list[str]]:
    """Anki deck name and tags of a linked note (those of its first item)."""
    first = note.items[0]
    return anki_deck_name(first.item, deck=first.deck_title), anki_tags(first.item)
