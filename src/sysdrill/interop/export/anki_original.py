"""Items imported from Anki, written back as the notes they came from.

An item imported from a package or a CrowdAnki folder keeps its note in ``source.anki``
(:class:`~sysdrill.content.models.AnkiNote`): the GUID, the note type (id,
name, fields with their roles, templates, CSS), the card's ordinal, deck and
suspended or buried flag, and every field as Anki stored it. The items of one
note (a cloze note's blanks, a reversed note's two cards) are written as that
one note again, of that note type, so importing the package into the
collection it came from updates the note in place instead of adding a copy
(Anki matches notes by GUID, and updates one only under the same note type id
with the same fields and templates).

- **An item unchanged since its import** gives back the note exactly: every
  field's HTML as Anki stored it, and the note's own modification time, so
  Anki's "update if newer" leaves it alone.
- **An edited item** changes only the fields its edit touched, and carries its
  file's time, so Anki updates the note: the item's question goes to the
  question field(s), its answer (what is above the extra fields shown under it)
  to the answer field (or, without one, the first extra field); a cloze note's
  ``note_link.text`` and ``extra`` to its text and extra fields, and a
  three-template note's ``note_link.fields`` each to its field. Every other
  field keeps its HTML.
- The note type is written with its id, name, fields, templates and CSS, and
  its own modification time, so Anki keeps its note type as it is.
"""

from __future__ import annotations

import functools
import html
import re
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sysdrill.content.models import AnkiNote, Item
from sysdrill.interop.export.anki_media import flatten_media, note_mod_seconds
from sysdrill.interop.export.cards import (
    ExportedItem,
    FieldRenderer,
    anki_deck_name,
    back_markdown,
)
from sysdrill.interop.field_map import FieldRole
from sysdrill.interop.formats.anki_note import (
    NoteSides,
    card_ordinal,
    labelled,
    note_sides,
)
from sysdrill.interop.item_digest import edited_since_import

__all__ = [
    "ANKI_PACKAGE_FORMAT",
    "NoteFields",
    "OriginalNote",
    "anki_source",
    "card_queues",
    "card_slots",
    "linked_card_ordinal",
    "original_deck",
    "original_model",
    "original_note",
    "original_note_fields",
    "original_note_mod",
    "original_notes",
    "original_tags",
    "restore_anki_markup",
]

ANKI_PACKAGE_FORMAT = "apkg"
"""Import format of Anki packages, whose items carry their note in ``source.anki``."""
_KEPT_NOTE_FORMATS = frozenset({ANKI_PACKAGE_FORMAT, "crowdanki"})
"""Import formats whose items carry their note in ``source.anki`` (CrowdAnki too, so a
reversed or custom note of a CrowdAnki folder goes back with every field)."""

_SPACES = re.compile(r"\s+")
_PLAIN_EXTRAS = frozenset({"extra", "back extra"})


def anki_source(item: Item) -> AnkiNote | None:
    """The Anki note an item was imported from, if it keeps one."""
    source = item.source
    if source is None or source.anki is None or source.format not in _KEPT_NOTE_FORMATS:
        return None
    return source.anki


@dataclass(slots=True)
class OriginalNote:
    """The exported items of one Anki note, in the order they were chosen."""

    guid: str
    anki: AnkiNote
    """The note as its first item keeps it."""
    items: list[ExportedItem] = field(default_factory=list)
    _edited: bool | None = field(default=None, repr=False)

    @property
    def edited(self) -> bool:
        """Whether any of its items was edited since its import."""
        if self._edited is None:
            self._edited = any(edited_since_import(exported.raw) for exported in self.items)
        return self._edited

    def card(self, name: str) -> Item | None:
        """The item of one card (``forward``, ``reverse``, ``c1``...), if exported."""
        return next(
            (e.item for e in self.items if e.item.note_link and e.item.note_link.card == name),
            None,
        )

    def ordinals(self) -> dict[int, Item]:
        """Each exported item by its card ordinal."""
        found: dict[int, Item] = {}
        for exported in self.items:
            kept = anki_source(exported.item)
            if kept is not None:
                found.setdefault(kept.card, exported.item)
        return found


def original_notes(items: list[ExportedItem]) -> dict[str, OriginalNote]:
    """Group the items that keep their Anki note, by note GUID."""
    notes: dict[str, OriginalNote] = {}
    for exported in items:
        kept = anki_source(exported.item)
        if kept is not None:
            notes.setdefault(kept.guid, OriginalNote(kept.guid, kept)).items.append(exported)
    return notes


def original_note(note: OriginalNote, model: Any, fields: list[str], tags: list[str]) -> Any:
    """The genanki note of an Anki note: its GUID, and its fields as Anki stored them.

    genanki warns about field HTML it takes for unescaped text (custom elements
    such as ``<anki-mathjax>``, a bare ``<``); these fields are the collection's
    own HTML, going back as they came, so they are not checked.
    """
    return _kept_note_class()(model=model, fields=fields, tags=tags, guid=note.guid)


@functools.cache
def _kept_note_class() -> Any:
    """The note class of genanki without its HTML check (made once, when first used)."""
    import genanki

    class KeptNote(genanki.Note):  # type: ignore[misc]
        def _check_invalid_html_tags_in_fields(self) -> None:
            return None

    return KeptNote


def original_model(note: OriginalNote) -> Any:
    """The genanki model of the note's own note type: same id, name, fields, templates, CSS."""
    import genanki

    kind = note.anki.note_type
    names = list(kind.fields) or ["Front"]
    templates = [
        {"name": t.get("name", ""), "qfmt": t.get("front", ""), "afmt": t.get("back", "")}
        for t in kind.templates
    ]
    if not templates:
        back = names[1] if len(names) > 1 else names[0]
        qfmt = "{{cloze:" + names[0] + "}}" if kind.cloze else "{{" + names[0] + "}}"
        afmt = "{{cloze:" + names[0] + "}}" if kind.cloze else '{{FrontSide}}<hr id="answer">'
        templates = [{"name": "Card 1", "qfmt": qfmt, "afmt": afmt + "{{" + back + "}}"}]
    return genanki.Model(
        kind.id,
        kind.name,
        fields=[{"name": name} for name in names],
        templates=templates,
        css=kind.css,
        model_type=genanki.Model.CLOZE if kind.cloze else genanki.Model.FRONT_BACK,
        sort_field_index=kind.sort_field if 0 <= kind.sort_field < len(names) else 0,
    )


@dataclass(frozen=True, slots=True)
class NoteFields:
    """A note's field values for the package, and the media files they name."""

    values: list[str]
    """Field HTML in the note type's order, media named as Anki names them."""
    packed: dict[str, str]
    """Vault ``media/`` file of each media name the original field HTML uses."""


def _roles(note: AnkiNote) -> dict[str, FieldRole]:
    roles: dict[str, FieldRole] = {}
    for name, role in note.note_type.fields.items():
        try:
            roles[name] = FieldRole(role)
        except ValueError:
            roles[name] = FieldRole.EXTRA
    return roles


def _markdown(values: list[str], media: Mapping[str, str]) -> list[str]:
    from sysdrill.interop.formats._common import html_to_markdown

    return [html_to_markdown(value, media_names=media)[0] for value in values]


def _strip_suffix(text: str, suffix: str) -> str | None:
    """``text`` without the extras shown after it, or None when they are not there."""
    if not suffix:
        return text
    if text == suffix:
        return ""
    if text.endswith("\n\n" + suffix):
        return text[: -len(suffix) - 2].rstrip()
    return None


def _back_target(names: list[str], roles: Mapping[str, FieldRole]) -> str | None:
    """The field an edited answer goes to: the answer field, else the first extra field."""
    for role in (FieldRole.ANSWER, FieldRole.EXTRA):
        found = [n for n in names if roles.get(n) is role]
        if role is FieldRole.EXTRA:
            plain = [n for n in found if n.casefold() in _PLAIN_EXTRAS]
            found = plain or found
        if found:
            return found[0]
    return None


@dataclass(frozen=True, slots=True)
class _Edit:
    """What the items now say of a note's sides, each side from every item that shows it."""

    questions: tuple[str, ...] = ()
    """The question as each item that shows it gives it (a reverse card on its back)."""
    backs: tuple[str, ...] = ()
    """Answer and extras, as each item's back shows them."""
    answers: tuple[str, ...] = ()
    """The answer alone, as a reversed note's reverse card asks it."""
    fields: Mapping[str, str] | None = None
    """Three-template notes: every field as Markdown, by name."""


def _edit_of(note: OriginalNote, sides: NoteSides, texts: Mapping[str, str]) -> _Edit:
    """Read the note's sides back from its items (an edit in any sibling counts)."""
    links = [e.item.note_link for e in note.items if e.item.note_link is not None]
    if any(link.fields is not None for link in links):
        fields: dict[str, str] = {}
        for link in links:
            for name, markdown in (link.fields or {}).items():
                if name not in fields or markdown.strip() != texts.get(name, "").strip():
                    fields[name] = markdown
        return _Edit(fields=fields)
    if any(link.text is not None for link in links):
        return _Edit(
            questions=tuple(link.text for link in links if link.text is not None),
            backs=tuple(link.extra or "" for link in links if link.text is not None),
        )
    forward, reverse = note.card("forward"), note.card("reverse")
    if forward is None and reverse is None:
        first = note.items[0].item
        return _Edit(
            questions=(first.question or "",), backs=(back_markdown(first, placeholder=False),)
        )
    questions: list[str] = []
    backs: list[str] = []
    if forward is not None:
        questions.append(forward.question or "")
        backs.append(back_markdown(forward, placeholder=False))
    if reverse is not None:
        # The reverse card shows the question (and the extras) on its back.
        shown = _strip_suffix(back_markdown(reverse, placeholder=False), "\n\n".join(sides.extras))
        if shown is not None:
            questions.append(shown)
    answers = (reverse.question or "",) if reverse is not None else ()
    return _Edit(questions=tuple(questions), backs=tuple(backs), answers=answers)


_RUBY = re.compile(r"<ruby\b[^>]*>.*?</ruby>", re.IGNORECASE | re.DOTALL)
_RUBY_PARTS = re.compile(
    r"<rp\b[^>]*>.*?</rp>|<rt\b[^>]*>|</rt>|<[^>]*>", re.IGNORECASE | re.DOTALL
)


def _ruby_text(element: str) -> str:
    """The text the import gives a ``<ruby>`` element: ``漢字(かんじ)``."""

    def part(match: re.Match[str]) -> str:
        tag = match.group(0).lower()
        return "(" if tag.startswith("<rt") else ")" if tag == "</rt>" else ""

    return html.unescape(_RUBY_PARTS.sub(part, element))


def _keep_ruby(original: str, rendered: str) -> str:
    """``rendered`` with the furigana ``original`` had put back as ``<ruby>``.

    The import shows ``<ruby>漢字<rt>かんじ</rt></ruby>`` as ``漢字(かんじ)``; an edited
    field that still holds that text gets the original element back, so editing
    one word of a field does not strip the furigana of the others.
    """
    if "<ruby" not in original.lower():
        return rendered
    for element in dict.fromkeys(_RUBY.findall(original)):
        shown = html.escape(_ruby_text(element), quote=False)
        if shown.strip("()"):
            rendered = rendered.replace(shown, element)
    return rendered


_LEGACY_LATEX = re.compile(r"\[(\$\$|\$|latex)\](.*?)\[/\1\]", re.IGNORECASE | re.DOTALL)
"""Anki's own LaTeX, typeset by Anki into an image: ``[$]..[/$]``, ``[$$]..[/$$]``, ``[latex]``."""


def _keep_legacy_latex(original: str, rendered: str) -> str:
    """``rendered`` with the original's ``[$]...[/$]`` LaTeX put back where it shows as MathJax.

    The import reads Anki's LaTeX as ``$...$`` (or ``$$...$$``), which the exporter
    renders as MathJax; an edited field would otherwise go back typeset another
    way (bench/anki_round_trip.py found it the commonest change of an edit).
    """
    if "[" not in original:
        return rendered
    for match in _LEGACY_LATEX.finditer(original):
        kind, inner = match.group(1), html.unescape(match.group(2))
        opening, closing = ("\\(", "\\)") if kind == "$" else ("\\[", "\\]")
        for shown in dict.fromkeys((html.escape(inner, quote=False), html.escape(inner))):
            mathjax = opening + shown + closing
            if mathjax in rendered:
                rendered = rendered.replace(mathjax, match.group(0), 1)
                break
    return rendered


def restore_anki_markup(original: str, rendered: str) -> str:
    """An edited field's new HTML with the markup of its original that Markdown cannot say.

    Furigana (``<ruby>``) and Anki's LaTeX (``[$]...[/$]``) are read as text and
    MathJax; where the edited text still holds them, the original markup goes back.

    Args:
        original: The field's HTML as Anki stored it.
        rendered: The edited field rendered from Markdown.
    """
    return _keep_legacy_latex(original, _keep_ruby(original, rendered))


def _one_part_edited(parts: list[str], edited: str) -> tuple[int, str] | None:
    """Which of several fields joined into one text (a blank line between) an edit changed.

    A card's front may show several fields (a word and its picture); when the edited
    text still holds every other field as it was, around the changed one, only that
    field changes. Returns its index and new text, or None when no one part explains it.
    """
    if len(parts) < 2:
        return None
    for index in range(len(parts)):
        before = "\n\n".join(parts[:index])
        after = "\n\n".join(parts[index + 1 :])
        head = before + "\n\n" if before else ""
        tail = "\n\n" + after if after else ""
        if edited.startswith(head) and edited.endswith(tail) and len(edited) > len(head + tail):
            middle = edited[len(head) : len(edited) - len(tail)]
            if middle.strip():
                return index, middle.strip()
    return None


def _changed(candidates: tuple[str, ...], before: str) -> str | None:
    """The first candidate that differs from what the import gave, if any."""
    return next((c.strip() for c in candidates if c.strip() != before.strip()), None)


def _apply_edits(
    note: OriginalNote,
    names: list[str],
    values: list[str],
    media: Mapping[str, str],
    render: FieldRenderer,
    used: set[str],
) -> list[str]:
    roles = _roles(note.anki)
    texts = _markdown(values, media)
    sides = note_sides(tuple(names), texts, roles)
    edit = _edit_of(note, sides, dict(zip(names, texts, strict=True)))
    values = list(values)

    def put(name: str, markdown: str) -> None:
        at = names.index(name)
        rendered = flatten_media(render(markdown), used) if markdown else ""
        values[at] = restore_anki_markup(values[at], rendered)

    if edit.fields is not None:
        for name, markdown in edit.fields.items():
            if name in names and markdown.strip() != texts[names.index(name)].strip():
                put(name, markdown)
        return values
    question = _changed(edit.questions, sides.question)
    if question is not None:
        asked = [n for n in names if roles.get(n) is FieldRole.QUESTION] or names[:1]
        shown = [n for n in asked if texts[names.index(n)].strip()]
        one = _one_part_edited([texts[names.index(n)] for n in shown], question)
        if one is not None:
            put(shown[one[0]], one[1])
        else:
            put(asked[0], question)
            for other in asked[1:]:
                values[names.index(other)] = ""
    target = _back_target(names, roles)
    if target is None:
        return values
    current = sides.answer if roles.get(target) is FieldRole.ANSWER else texts[names.index(target)]
    answer = _changed(edit.answers, sides.answer)
    back = _changed(edit.backs, "\n\n".join(p for p in (sides.answer, *sides.extras) if p))
    if answer is None and back is not None:
        others = [
            text
            for text, name in zip(sides.extras, sides.extra_names, strict=True)
            if name != target
        ]
        answer = _strip_suffix(back, "\n\n".join(others))
        if answer is None:
            answer = back  # the other extras were edited too: all of it goes to one field
        if roles.get(target) is not FieldRole.ANSWER and target.casefold() not in _PLAIN_EXTRAS:
            answer = answer.removeprefix(labelled(target, "")).strip()
    if answer is not None and answer != current.strip():
        put(target, answer)
        for other in names:
            if other != target and roles.get(other) is FieldRole.ANSWER:
                values[names.index(other)] = ""
    return values


def original_note_fields(note: OriginalNote, render: FieldRenderer, used: set[str]) -> NoteFields:
    """The note's fields for the package: as Anki stored them, but for what its items changed.

    Args:
        note: The note.
        render: Renders Markdown to Anki field HTML.
        used: Collects the vault media files the rendered (changed) fields name.
    """
    kept = note.anki
    names = list(kept.note_type.fields) or ["Front"]
    # As many values as the note type has fields (genanki refuses others).
    values = [*kept.values, *([""] * len(names))][: len(names)]
    media = dict(kept.media or {})
    if note.edited:
        values = _apply_edits(note, names, values, media, render, used)
    joined = "\x1f".join(values)
    packed = {
        name: stored
        for name, stored in media.items()
        if name in joined or urllib.parse.quote(name) in joined
    }
    return NoteFields(values, packed)


def original_note_mod(note: OriginalNote, *, vault: Path | None, fallback: int) -> int:
    """The note's modification time: Anki's own while unchanged, else its items' (later)."""
    kept = note.anki.note_mod_s
    if kept is not None and not note.edited:
        return kept
    return note_mod_seconds(note.items, vault=vault, fallback=fallback)


def original_deck(note: OriginalNote) -> str:
    """The Anki deck of the note's first card, unless the item moved to another deck here."""
    from sysdrill.interop.formats import deck_slug

    first = note.items[0]
    kept = anki_source(first.item)
    deck = kept.deck if kept is not None else None
    if deck and first.item.deck == "::".join(
        deck_slug(part) for part in deck.split("::") if part.strip()
    ):
        return deck
    return anki_deck_name(first.item, deck=first.deck_title)


def original_tags(note: OriginalNote) -> list[str]:
    """The note's tags: its first item's, without those its tags field gave."""
    from sysdrill.interop.formats._common import split_tags

    kept = note.anki
    roles = _roles(kept)
    from_fields: set[str] = set()
    for name, value in zip(kept.note_type.fields, kept.values, strict=False):
        if roles.get(name) is FieldRole.TAGS and value:
            from_fields.update(split_tags(_markdown([value], {})[0]))
    tags = [_SPACES.sub("_", t.strip()) for t in note.items[0].item.tags if t.strip()]
    return list(dict.fromkeys(t for t in tags if t not in from_fields))


def card_slots(note: OriginalNote) -> dict[int, str]:
    """Item id of each card ordinal of the note."""
    return {ord_: item.id for ord_, item in note.ordinals().items()}


def card_queues(note: OriginalNote) -> dict[int, int]:
    """Anki queue of each card kept suspended (-1) or buried (-3), by card ordinal."""
    queues: dict[int, int] = {}
    for exported in note.items:
        kept = anki_source(exported.item)
        if kept is None:
            continue
        if kept.suspended:
            queues[kept.card] = -1
        elif kept.buried:
            queues[kept.card] = -3
    return queues


def linked_card_ordinal(item: Item) -> int:
    """Card ordinal of an item: its kept one, else from its ``note_link`` card."""
    kept = anki_source(item)
    if kept is not None:
        return kept.card
    return card_ordinal(item.note_link.card if item.note_link else None)
