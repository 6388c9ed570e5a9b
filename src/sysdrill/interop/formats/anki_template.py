"""Render Anki card templates (``{{Field}}``, sections, filters) over a note's fields.

A note type with three or more templates makes cards that show different
fields, so the reader renders each template to know what a card asks and
answers. The subset is Anki's: ``{{Field}}`` and ``{{filter:Field}}``
(``text:`` strips HTML; ``type:``, ``hint:`` and ``tts`` show nothing, as on paper;
other filters show the field), ``{{#Field}}...{{/Field}}`` shown when the
field has text, ``{{^Field}}...{{/Field}}`` when it has none, and
``{{FrontSide}}`` on the back. A card exists when its front shows any field
text, which is Anki's rule for generating cards.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["CardTemplate", "answer_html", "card_exists", "render_template", "shown_fields"]

_TAG = re.compile(r"\{\{\s*([#^/]?)\s*([^}]*?)\s*\}\}")
_HTML = re.compile(r"<[^>]*>")
_ANSWER_RULE = re.compile(r"<hr\s+id\s*=\s*['\"]?answer['\"]?\s*/?>", re.IGNORECASE)
_SILENT_FILTERS = ("type", "tts", "hint")
"""Filters whose field a card does not show as its text (a hint waits for a click; an
extra field left unshown goes under the answer)."""
_SPECIAL_FIELDS = frozenset({"FrontSide", "Tags", "Type", "Deck", "Subdeck", "Card", "CardFlag"})


@dataclass(frozen=True, slots=True)
class CardTemplate:
    """One card template of a note type: its name and front and back HTML templates."""

    name: str
    front: str
    back: str


def _has_text(value: str) -> bool:
    return bool(_HTML.sub("", value).replace("&nbsp;", " ").strip())


def _field(expression: str, fields: Mapping[str, str], front_side: str) -> str:
    *filters, name = [part.strip() for part in expression.split(":")]
    if name == "FrontSide" and not filters:
        return front_side
    value = fields.get(name, "")
    for name_of_filter in filters:
        word = name_of_filter.split()[0] if name_of_filter.split() else ""
        if word in _SILENT_FILTERS:
            return ""
        if word == "text":
            value = _HTML.sub("", value)
    return value


def render_template(template: str, fields: Mapping[str, str], *, front_side: str = "") -> str:
    """Fill an Anki template with a note's fields.

    Args:
        template: The template HTML.
        fields: Field HTML by field name.
        front_side: What ``{{FrontSide}}`` stands for (the rendered front).

    Returns:
        The rendered HTML; an unclosed section runs to the end, a stray
        closing tag is dropped.
    """
    out: list[str] = []
    showing: list[bool] = [True]
    names: list[str] = []
    pos = 0
    for match in _TAG.finditer(template):
        if all(showing):
            out.append(template[pos : match.start()])
        pos = match.end()
        kind, expression = match.groups()
        if kind in ("#", "^"):
            shown = _has_text(fields.get(expression, ""))
            showing.append(shown if kind == "#" else not shown)
            names.append(expression)
        elif kind == "/":
            if names and names[-1] == expression:
                names.pop()
                showing.pop()
        elif all(showing):
            out.append(_field(expression, fields, front_side))
    if all(showing):
        out.append(template[pos:])
    return "".join(out)


def card_exists(template: CardTemplate, fields: Mapping[str, str]) -> bool:
    """Whether Anki makes this card for a note: its front shows some field text."""
    empty = render_template(template.front, dict.fromkeys(fields, ""))
    filled = render_template(template.front, fields)
    return filled != empty and _has_text(filled)


def answer_html(template: CardTemplate, fields: Mapping[str, str]) -> str:
    """The answer part of a card's back.

    What follows ``<hr id=answer>``, else the back with ``{{FrontSide}}`` left out.
    """
    back = render_template(template.back, fields, front_side="")
    parts = _ANSWER_RULE.split(back, maxsplit=1)
    return parts[1] if len(parts) == 2 else back


def shown_fields(template: str) -> tuple[str, ...]:
    """The fields a template shows as text, first mention first.

    ``{{Field}}`` and ``{{filter:Field}}`` show a field; section tags only test it,
    ``hint:``, ``type:`` and ``tts`` do not show it, and Anki's special fields
    (``FrontSide``, ``Tags``...) are none of the note's.
    """
    shown: dict[str, None] = {}
    for match in _TAG.finditer(template):
        kind, expression = match.groups()
        if kind:
            continue
        *filters, name = [part.strip() for part in expression.split(":")]
        words = [f.split()[0] for f in filters if f.split()]
        if name and name not in _SPECIAL_FIELDS and not any(w in _SILENT_FILTERS for w in words):
            shown[name] = None
    return tuple(shown)
