"""One Anki note into items: the rules Anki packages and CrowdAnki folders share.

A note's fields take roles (:mod:`sysdrill.interop.field_map`); a cloze note
gives one item per blank number, a note type with two templates one item per
direction, one with three or more templates one item per card (each template
rendered), and any other note one item.
"""

from __future__ import annotations

import dataclasses
import re
import urllib.parse
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from sysdrill.interop.cloze import cloze_cards, cloze_link, has_cloze
from sysdrill.interop.field_map import FieldRole, TemplateFields, map_fields
from sysdrill.interop.formats._common import card_item, html_to_markdown, split_tags
from sysdrill.interop.formats.anki_template import (
    CardTemplate,
    answer_html,
    render_template,
    shown_fields,
)
from sysdrill.interop.formats.exported_card import (
    MISTAKE_HEADING,
    NAPKIN_HEADING,
    anki_card_fields,
)
from sysdrill.interop.source import ParsedItem

__all__ = [
    "OWN_PREFIX",
    "NoteOrigin",
    "NoteSides",
    "NoteType",
    "card_ordinal",
    "labelled",
    "note_items",
    "note_roles",
    "note_sides",
]

_PLAIN_EXTRAS = frozenset({"extra", "back extra"})
"""Extra fields shown as they are, without their name before them (Anki's own names)."""
_URL = re.compile(r"https://\S+")
_VAULT_MEDIA = re.compile(r"media/([^\s)\]\\\"'<>]+)")
"""A vault media file named in converted text (``![](media/x.png)``, ``[sound:media/x.mp3]``)."""
OWN_PREFIX = "sysdrill "
"""Note types our exporter writes start with this; their ``Id`` field is kept."""


@dataclass(frozen=True, slots=True)
class NoteType:
    """An Anki note type as a reader found it."""

    name: str
    fields: tuple[str, ...]
    templates: int | None = None
    """Number of card templates, when the collection says."""
    cloze: bool = False
    """Anki marks it as a cloze note type (old schema ``type: 1``)."""
    card_templates: tuple[CardTemplate, ...] = ()
    """Its card templates in order, when the reader could read them."""
    id: int | None = None
    """Anki's note type id, when the source has one (packages do, CrowdAnki does not)."""
    mod_s: int | None = None
    """When Anki last changed the note type, in seconds since the epoch."""
    css: str = ""
    sort_field: int = 0


@dataclass(frozen=True, slots=True)
class NoteOrigin:
    """Where a note sits in its Anki collection, kept with its items (``source.anki``).

    Notes of a package and of a CrowdAnki folder carry it: export writes them
    back as the same note of the same note type, every field as it was, so Anki
    updates them in place.
    """

    note_mod_s: int | None
    """When Anki last changed the note, in seconds since the epoch (None: the source
    does not say, as CrowdAnki does not)."""
    cards: Mapping[int, tuple[str | None, int]]
    """Deck name and Anki queue of each card of the note, by card ordinal."""


def note_roles(
    note_type: NoteType,
    values: list[str],
    given: Mapping[str, FieldRole],
    field_maps: dict[str, dict[str, str]],
) -> dict[str, FieldRole]:
    """The role of each field of a note type, recorded in ``field_maps`` for the report.

    Args:
        note_type: The note type (fields named ``Field N`` when it names none).
        values: The first note's field values (to count unnamed fields).
        given: Roles fixed by ``--map`` or a saved mapping, by field name.
        field_maps: The source's mappings by note type name; ours are not recorded.
    """
    names = note_type.fields or tuple(f"Field {n + 1}" for n in range(len(values)))
    roles = map_fields(names, given=given, shown=_first_card_fields(note_type), values=values)
    if not note_type.name.casefold().startswith(OWN_PREFIX):
        field_maps[note_type.name] = {n: r.value for n, r in roles.items()}
    return roles


def _first_card_fields(note_type: NoteType) -> TemplateFields | None:
    """What the note type's first card shows, or None when its templates do not say.

    A cloze note type's card shows its text on both sides: its names decide.
    """
    if note_type.cloze or "cloze" in note_type.name.casefold() or not note_type.card_templates:
        return None
    template = note_type.card_templates[0]
    front = shown_fields(template.front)
    if not front:
        return None
    back = tuple(name for name in shown_fields(template.back) if name not in front)
    return TemplateFields(front, back)


@dataclass(frozen=True, slots=True)
class NoteContext:
    """What every item of one note shares."""

    tags: list[str]
    deck: str | None
    where: str
    media: list[str]
    media_names: Mapping[str, str]
    """Vault media file names by the source's names, for rendered templates."""


def _own_item(
    guid: str,
    names: tuple[str, ...],
    texts: list[str],
    ctx: NoteContext,
    *,
    card_texts: list[str] | None,
) -> ParsedItem:
    """A note of a note type our exporter wrote: Id kept, Title, Scenario, Options, Parts.

    A note of one of the note types the exporter writes now (its model id, name
    and fields) also carries its card, made of ``card_texts`` (:func:`_own_back`),
    and takes the fields its tags and deck name keep as the Anki text import does
    (:func:`~sysdrill.interop.formats.exported_card.anki_card_fields`).
    """
    lowered = [name.casefold() for name in names]
    field: dict[str, str] = {}
    for name, text in zip(lowered, texts, strict=False):
        field.setdefault(name, text)
    preferred_id = field.get("id", "").strip() or None
    front = _own_front(field)
    known = {"id", "title", "scenario", "front", "question", "options", "parts", "meta"}
    answer_name = "back" if "back" in field else "answer"
    back_parts = [field.get(answer_name, "")]
    for name, text in zip(names, texts, strict=False):
        key = name.casefold()
        if key not in known and key != answer_name and text.strip():
            back_parts.append(labelled(name, text))
    back = "\n\n".join(part for part in back_parts if part)
    data, notes = card_item(
        front=front, back=back, deck=ctx.deck, tags=ctx.tags, where=ctx.where, media=ctx.media
    )
    card = None
    if card_texts is not None:
        shown = dict(zip(lowered, card_texts, strict=False))
        card = (_own_front(shown), _own_back(shown))
        data = anki_card_fields(front=front, back=back, deck=ctx.deck, tags=ctx.tags)
    if field.get("title"):
        data["title"] = field["title"]
    return ParsedItem(key=guid, data=data, preferred_id=preferred_id, notes=notes, card=card)


_PLACEHOLDERS = frozenset(
    {
        "*No reference answer.*",
        "*No answer in the source.*",
        "*The source marks no correct option.*",
    }
)
"""What the package export writes in a card's answer when its item has none."""


def _own_front(field: Mapping[str, str]) -> str:
    """The front of a note of ours, by lowercased field name: what the card asks."""
    parts = (
        field.get("scenario", ""),
        field.get("front") or field.get("question", ""),
        field.get("options", ""),
        field.get("parts", ""),
    )
    return "\n\n".join(part for part in parts if part)


def _own_back(field: Mapping[str, str]) -> str:
    """A note of our package's back as the card the text exports show (Markdown).

    The package splits a card's back over fields; joined again in the layout of
    :func:`~sysdrill.interop.export.cards.back_markdown`, the note compares with
    its item by the rule the Anki text import uses (:mod:`sysdrill.interop.reimport`).
    A multiple-choice note keeps no napkin math or pitfall, so its back is the
    correct option and the explanation.
    """
    answer = field.get("answer", "")
    answer = "" if answer in _PLACEHOLDERS else answer
    if "back" in field:
        back = "" if field["back"] in _PLACEHOLDERS else field["back"]
    elif "options" in field:
        back = "\n\n".join(
            part
            for part in (f"**Answer: {answer}**" if answer else "", field.get("explanation", ""))
            if part
        )
    elif answer.startswith((NAPKIN_HEADING, MISTAKE_HEADING)):
        # An item without a model answer: the export put its whole back in Answer.
        back = answer
    else:
        sections = (
            (NAPKIN_HEADING, field.get("napkin math", "")),
            (MISTAKE_HEADING, field.get("common mistake", "")),
        )
        back = "\n\n".join(
            [answer, *(f"{heading}\n\n{text}" for heading, text in sections if text)]
        ).strip()
    return back


def labelled(name: str, text: str) -> str:
    """An extra field as shown under the answer: ``**Name:** text``."""
    return f"**{name}:** {text}" if "\n" not in text else f"**{name}:**\n\n{text}"


@dataclass(slots=True)
class NoteSides:
    """A note's fields sorted by role: what its items ask and answer."""

    question: str = ""
    answer: str = ""
    extras: list[str] = field(default_factory=list)
    """Extra fields as shown under the answer (``**Name:** text``, or the text alone)."""
    extra_names: list[str] = field(default_factory=list)
    """The field each of :attr:`extras` comes from."""
    resources: list[dict[str, str]] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)

    def back(self, *first: str) -> str:
        """The back of a card: ``first`` (a cloze card's revealed text), answer, extras."""
        return "\n\n".join(part for part in (*first, self.answer, *self.extras) if part)


def note_sides(
    names: tuple[str, ...], texts: list[str], roles: Mapping[str, FieldRole]
) -> NoteSides:
    """Sort a note's fields (as Markdown) by role; a field without one is an extra."""
    sides = NoteSides()
    questions: list[str] = []
    answers: list[str] = []
    for name, text in zip(names, texts, strict=False):
        role = roles.get(name, FieldRole.EXTRA)
        if not text.strip() or role is FieldRole.IGNORE:
            continue
        if role is FieldRole.QUESTION:
            questions.append(text)
        elif role is FieldRole.ANSWER:
            answers.append(text)
        elif role is FieldRole.TAGS:
            sides.tags.extend(split_tags(text))
        elif role is FieldRole.SOURCE and _URL.fullmatch(text.strip()):
            sides.resources.append({"name": name, "url": text.strip()})
        elif name.casefold() in _PLAIN_EXTRAS:
            sides.extras.append(text)
            sides.extra_names.append(name)
        else:
            sides.extras.append(labelled(name, text))
            sides.extra_names.append(name)
    sides.question = "\n\n".join(questions)
    sides.answer = "\n\n".join(answers)
    return sides


def _finish(
    key: str,
    front: str,
    back: str,
    *,
    sides: NoteSides,
    ctx: NoteContext,
    link: dict[str, Any] | None = None,
    group: str | None = None,
) -> ParsedItem:
    data, notes = card_item(
        front=front,
        back=back,
        deck=ctx.deck,
        tags=[*ctx.tags, *sides.tags],
        where=ctx.where,
        media=ctx.media,
    )
    if sides.resources:
        data.setdefault("details", {})["resources"] = sides.resources
    if link is not None:
        data["note_link"] = link
    return ParsedItem(key=key, data=data, notes=notes, group=group)


def note_items(
    *,
    guid: str,
    note_type: NoteType,
    values: list[str],
    tags: list[str],
    deck: str | None,
    where: str,
    roles: dict[str, FieldRole],
    card_ords: set[int],
    media_names: Mapping[str, str],
    origin: NoteOrigin | None = None,
    exported: bool = False,
) -> list[ParsedItem]:
    """The items of one note, one per card to review.

    One per cloze number, two for a reversed note, one per card for a note
    type with three or more templates, else one. With ``origin`` (an Anki
    package's note), each item keeps its note, note type and card in
    :attr:`ParsedItem.anki` (``source.anki`` of the item). ``exported`` says
    the note type is one sysdrill's package export writes now: its note carries
    its card (:attr:`ParsedItem.card`).
    """
    items = _note_items(
        guid=guid,
        note_type=note_type,
        values=values,
        tags=tags,
        deck=deck,
        where=where,
        roles=roles,
        card_ords=card_ords,
        media_names=media_names,
        exported=exported,
    )
    if origin is None or note_type.id is None or note_type.name.casefold().startswith(OWN_PREFIX):
        return items
    kept = _anki_block(note_type, values, roles, origin, items, media_names)
    return [
        dataclasses.replace(item, anki={"guid": guid, **_card_block(item, origin), **kept})
        for item in items
    ]


def card_ordinal(card: str | None) -> int:
    """Anki's card ordinal of a sibling: ``cN`` and ``tN`` are N-1, ``reverse`` 1, else 0."""
    if card and card[0] in "ct" and card[1:].isdigit():
        return max(int(card[1:]) - 1, 0)
    return 1 if card == "reverse" else 0


def _card_block(item: ParsedItem, origin: NoteOrigin) -> dict[str, Any]:
    """The per-card part of ``source.anki``: ordinal, deck, suspended or buried."""
    _, mark, card = item.key.rpartition("#")
    ord_ = card_ordinal(card if mark and item.group is not None else None)
    if not mark or item.group is None:
        ord_ = min(origin.cards, default=0)
    deck, queue = origin.cards.get(ord_, (None, 0))
    block: dict[str, Any] = {"card": ord_}
    if deck:
        block["deck"] = deck
    if queue == -1:
        block["suspended"] = True
    elif queue in (-2, -3):
        block["buried"] = True
    return block


def _anki_block(
    note_type: NoteType,
    values: list[str],
    roles: Mapping[str, FieldRole],
    origin: NoteOrigin,
    items: list[ParsedItem],
    media_names: Mapping[str, str],
) -> dict[str, Any]:
    """What every item of the note keeps of it: note type, field values, media names."""
    names = note_type.fields or tuple(f"Field {n + 1}" for n in range(len(values)))
    kind: dict[str, Any] = {"id": note_type.id, "name": note_type.name}
    if note_type.mod_s is not None:
        kind["mod_s"] = note_type.mod_s
    if note_type.cloze:
        kind["cloze"] = True
    kind["fields"] = {name: roles.get(name, FieldRole.EXTRA).value for name in names}
    kind["templates"] = [
        {"name": t.name, "front": t.front, "back": t.back} for t in note_type.card_templates
    ]
    if note_type.css:
        kind["css"] = note_type.css
    if note_type.sort_field:
        kind["sort_field"] = note_type.sort_field
    padded = [*values, *([""] * (len(names) - len(values)))][: max(len(names), len(values))]
    block: dict[str, Any] = {"note_type": kind, "values": padded}
    if origin.note_mod_s is not None:
        block["note_mod_s"] = origin.note_mod_s
    used = _media_used(items)
    if used:
        joined = "\x1f".join(values)
        named = {
            name: stored
            for name, stored in media_names.items()
            if stored in used and (name in joined or urllib.parse.quote(name) in joined)
        }
        if named:
            block["media"] = dict(sorted(named.items()))
    return block


def _media_used(items: list[ParsedItem]) -> set[str]:
    """Vault media files the items' texts name."""
    used: set[str] = set()
    for item in items:
        for text in _texts(item.data):
            if "media/" in text:
                used.update(_VAULT_MEDIA.findall(text))
    return used


def _texts(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for inner in value.values():
            yield from _texts(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _texts(inner)


def _note_items(
    *,
    guid: str,
    note_type: NoteType,
    values: list[str],
    tags: list[str],
    deck: str | None,
    where: str,
    roles: dict[str, FieldRole],
    card_ords: set[int],
    media_names: Mapping[str, str],
    exported: bool = False,
) -> list[ParsedItem]:
    names = note_type.fields or tuple(f"Field {n + 1}" for n in range(len(values)))
    if len(names) < len(values):
        names = names + tuple(f"Field {n + 1}" for n in range(len(names), len(values)))
    media: list[str] = []
    texts: list[str] = []
    for value in values:
        text, found = html_to_markdown(value, media_names=media_names)
        texts.append(text)
        media.extend(found)
    ctx = NoteContext(tags, deck, where, media, media_names)
    if note_type.name.casefold().startswith(OWN_PREFIX):
        card_texts = None
        if exported:
            # The card names media as the vault that wrote the package does (its
            # file names), not as this import would store them, to compare with it.
            as_named = {name: name for name in media_names}
            card_texts = [html_to_markdown(value, media_names=as_named)[0] for value in values]
        return [_own_item(guid, names, texts, ctx, card_texts=card_texts)]
    sides = note_sides(names, texts, roles)
    if note_type.cloze or "cloze" in note_type.name.casefold() or has_cloze(sides.question):
        cards = cloze_cards(sides.question)
        if cards:
            extra = "\n\n".join(part for part in (sides.answer, *sides.extras) if part)
            link = cloze_link(note_type.name, sides.question, extra)
            return [
                _finish(
                    f"{guid}#{card.card}",
                    card.prompt,
                    sides.back(card.revealed),
                    sides=sides,
                    ctx=ctx,
                    link={"card": card.card, **link},
                    group=guid,
                )
                for card in cards
            ]
    template_count = note_type.templates or max(card_ords, default=0) + 1
    if template_count >= 3 or (template_count == 2 and not _is_reversal(note_type, roles)):
        return _template_items(guid, note_type, names, values, sides, ctx, card_ords)
    if template_count != 2:
        return [_finish(guid, sides.question, sides.back(), sides=sides, ctx=ctx)]
    kind = {"type": note_type.name or "Basic (and reversed card)"}
    items = [
        _finish(
            f"{guid}#forward",
            sides.question,
            sides.back(),
            sides=sides,
            ctx=ctx,
            link={"card": "forward", **kind},
            group=guid,
        )
    ]
    if 1 in card_ords and sides.answer:
        reverse_back = "\n\n".join(part for part in (sides.question, *sides.extras) if part)
        items.append(
            _finish(
                f"{guid}#reverse",
                sides.answer,
                reverse_back,
                sides=sides,
                ctx=ctx,
                link={"card": "reverse", **kind},
                group=guid,
            )
        )
    return items


def _is_reversal(note_type: NoteType, roles: Mapping[str, FieldRole]) -> bool:
    """Whether a two-template note type's second card asks the first one's answer back.

    Its front shows the answer field and nothing else, and its back the question
    (``Basic (and reversed card)`` and its kin). Other pairs (a card asking the
    meaning of a word and one asking its reading, say) are two cards of their own.
    Templates the reader could not read are taken as a reversal.
    """
    if len(note_type.card_templates) != 2:
        return True
    first, second = note_type.card_templates
    second_front = set(shown_fields(second.front))
    if not shown_fields(first.front) or not second_front:
        return True
    answers = {name for name, role in roles.items() if role is FieldRole.ANSWER}
    questions = {name for name, role in roles.items() if role is FieldRole.QUESTION}
    second_back = set(shown_fields(second.back)) - second_front
    return second_front == answers and questions <= second_back


def _template_items(
    guid: str,
    note_type: NoteType,
    names: tuple[str, ...],
    values: list[str],
    sides: NoteSides,
    ctx: NoteContext,
    card_ords: set[int],
) -> list[ParsedItem]:
    """One item per card of a note type whose cards are not one reversed pair, ``<guid>#t<N>``.

    Each card asks what its template's front shows and answers what its back
    adds, then the extra fields its template does not show; the note's fields
    (as Markdown) and the templates travel in the ``note_link`` so that export
    writes the same note type again. Without readable templates, every card
    shows the mapped question and answer.
    """
    fields_html = dict(zip(names, values, strict=False))
    media_names = ctx.media_names
    link: dict[str, Any] = {
        "type": note_type.name or "Anki note",
        "fields": {name: _markdown(value, media_names) for name, value in fields_html.items()},
    }
    if note_type.card_templates:
        link["templates"] = [
            {"name": t.name, "front": t.front, "back": t.back} for t in note_type.card_templates
        ]
    items: list[ParsedItem] = []
    for ord_ in sorted(card_ords):
        template = note_type.card_templates[ord_] if ord_ < len(note_type.card_templates) else None
        front, back = sides.question, sides.back()
        rendered = "" if template is None else render_template(template.front, fields_html)
        # A front our renderer cannot show (a filter or syntax it lacks) falls back
        # to the mapped question, so the card is not lost as empty.
        if template is not None and _markdown(rendered, media_names):
            front = _markdown(rendered, media_names)
            shown = {*shown_fields(template.front), *shown_fields(template.back)}
            unshown = [
                text
                for name, text in zip(sides.extra_names, sides.extras, strict=True)
                if name not in shown
            ]
            back = "\n\n".join(
                part
                for part in (_markdown(answer_html(template, fields_html), media_names), *unshown)
                if part
            )
        card = f"t{ord_ + 1}"
        items.append(
            _finish(
                f"{guid}#{card}",
                front,
                back,
                sides=sides,
                ctx=ctx,
                link={"card": card, **link},
                group=guid,
            )
        )
    return items


def _markdown(html: str, media_names: Mapping[str, str]) -> str:
    return html_to_markdown(html, media_names=media_names)[0]
